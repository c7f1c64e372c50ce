#!/usr/bin/env bash
# Verdicts beside and under load (issue 38). A busy loop pinned to a CPU
# beside the case (hog on CPU 1, the case on CPU 0) and on it (both on
# CPU 0); per placement, three files of the same config shape:
#   A   cpu max_prime=10000, mem block_size=4K, io on tmpfs (/dev/shm)
#   B   cpu max_prime=20000, mem block_size=1M, io on /var/tmp (real differences)
#   A2  A again (A/A: every win or loss is false)
# (io buffered, direct = false: tmpfs has no direct I/O.) compare judges
# B and A2 against A, with --match-ignore max_prime,block_size so the A/B
# cases pair up; "before" is BEFORE's compare (main's binary) on the same
# files: the machine-wide cpu.other_pct and steal_pct it reads are written
# as before, the per-CPU figures are new fields it ignores.
# Goal: every real difference >= 10% a win or loss despite a hog on another
# CPU; every difference the hog could explain marked suspect with its
# direction; A/A under a hog: at most 1 false win or loss in 48 rows.
# Prints the headline verdicts, the A/A counts and the interference seen.
# Needs 2 CPUs and taskset. Asserts nothing: the machine's other load counts.
# NICE=-15 (root) runs the case and the busy loop at that priority: on a
# machine busy with other work that gives them most of the CPU, close to a
# machine where the busy loop is the only other load.
#   bench/interference.sh   (TIME=1 s per case, WARMUP=0.3, REPEAT=5; BEFORE=/work/main/build/benchcore; NICE=)
WARMUP=${WARMUP:-0.3}
. "$(dirname "$0")/lib.sh"
TIME=${TIME:-1}
REPEAT=${REPEAT:-5}
BEFORE=${BEFORE:-/work/main/build/benchcore}
NICE=${NICE:-}
PRIO=(); [ -n "$NICE" ] && PRIO=(nice -n "$NICE")
if [ "$(nproc)" -lt 2 ] || ! command -v taskset >/dev/null; then
	echo "bench: needs 2 CPUs and taskset" >&2
	exit 2
fi
OUT=${OUT:-$BENCH_TMP}
mkdir -p "$OUT"

conf() {	# conf FILE MAX_PRIME BLOCK IO_PATH
	printf 'time = %s;\nwarmup = %s;\nrepeat = %s;\nreport_interval = 0;\nmodules = (\n' "$TIME" "$WARMUP" "$REPEAT" >"$1"
	printf '  { name = "cpu"; max_prime = %s; },\n' "$2" >>"$1"
	printf '  { name = "mem"; block_size = "%s"; total_size = "0"; },\n' "$3" >>"$1"
	printf '  { name = "io"; path = "%s"; file_size = "64M"; direct = false; }\n);\n' "$4" >>"$1"
}
conf "$OUT/a.conf" 10000 4K /dev/shm
conf "$OUT/b.conf" 20000 1M /var/tmp

HOG=
hog() { "${PRIO[@]}" taskset -c "$1" sh -c 'while :; do :; done' & HOG=$!; }
unhog() { [ -n "$HOG" ] && kill "$HOG" 2>/dev/null; wait "$HOG" 2>/dev/null; HOG=; }
trap 'unhog; rm -rf "$BENCH_TMP"' EXIT

side() {	# side OUT.json CONF
	local t0=$SECONDS
	if ! "${PRIO[@]}" taskset -c 0 "$BC" -c "$2" -q --force -o "$1" >"$1.log" 2>&1; then
		echo "bench: run of $2 failed:" >&2
		tail -5 "$1.log" >&2
	fi
	echo "  $(basename "$1"): $((SECONDS - t0)) s"
}

verdicts() {	# verdicts BIN A B TAG -> one line per module headline, and the counts
	"$1" compare --json --match-ignore max_prime,block_size "$2" "$3" 2>/dev/null >"$OUT/cmp.json"
	python3 - "$OUT/cmp.json" "$4" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))["comparisons"][0]; tag = sys.argv[2]
def v(r): return r["verdict"] + (" " + r["direction"] if r["verdict"] == "suspect" and r.get("direction") else "")
for r in d["rows"]:
    if r["headline"]:
        print("    %-7s %-6s %-16s %+7.1f%%  %s" % (tag, r["module"], r["metric"], r["change_pct"], v(r)))
n = len(d["rows"]); wl = sum(r["verdict"] in ("win", "loss") for r in d["rows"])
sus = sum(r["verdict"] == "suspect" for r in d["rows"])
print("    %-7s all rows: %d, win/loss %d, suspect %d" % (tag, n, wl, sus))
PYEOF
}

shares() {	# the interference each file saw: mean over its cases
	python3 - "$@" <<'PYEOF'
import json, sys
for f in sys.argv[1:]:
    cs = json.load(open(f))["cases"]
    def m(k): 
        v = [c["cpu"][k] for c in cs if k in c.get("cpu", {})]
        return sum(v) / len(v) if v else float("nan")
    print("    %-8s case's CPUs: interference %5.1f%% (use %.2f); machine: other %5.1f%%, steal %4.1f%%" %
          (f.split("/")[-1], m("interference_pct"), m("cpus_use"), m("other_pct"), m("steal_pct")))
PYEOF
}

machine
echo "# interference: $TIME s per case, $REPEAT repeats, case pinned to CPU 0${NICE:+, nice $NICE}; $(date -u +%H:%M:%S) UTC"
for place in beside on; do
	cpu=1; [ $place = on ] && cpu=0
	echo "## hog $place the case (busy loop on CPU $cpu)"
	hog $cpu
	side "$OUT/$place-a.json" "$OUT/a.conf"
	side "$OUT/$place-b.json" "$OUT/b.conf"
	side "$OUT/$place-a2.json" "$OUT/a.conf"
	unhog
	shares "$OUT/$place-a.json" "$OUT/$place-b.json" "$OUT/$place-a2.json"
	for bin in before after; do
		exe=$BC; [ $bin = before ] && exe=$BEFORE
		echo "  $bin ($exe):"
		verdicts "$exe" "$OUT/$place-a.json" "$OUT/$place-b.json" "A/B"
		verdicts "$exe" "$OUT/$place-a.json" "$OUT/$place-a2.json" "A/A"
	done
done
echo "# done $(date -u +%H:%M:%S) UTC"
