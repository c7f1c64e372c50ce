# Shared helpers of the bench/ scripts: run benchcore and a reference tool on
# the same settings, side by side, and print ratios. Sourced, not run.
# Environment: TIME (seconds per measured run), WARMUP (benchcore warm-up s),
# BC (benchcore binary, default ./build/benchcore).
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
BC=${BC:-./build/benchcore}
WARMUP=${WARMUP:-0}	# sysbench 1.0.20 has no warm-up option: none on either side
if [ ! -x "$BC" ]; then
	echo "bench: $BC not found: run make first (or set BC=...)" >&2
	exit 2
fi
BENCH_TMP=$(mktemp -d /tmp/benchcore-bench.XXXXXX)
trap 'rm -rf "$BENCH_TMP"' EXIT
MISSES=0

# bc_run OUT.json ARGS...: one benchcore run, quiet, JSON to OUT.json.
bc_run() {
	local out=$1; shift
	if ! "$BC" run "$@" -q --force -o "$out" >"$out.log" 2>&1; then
		echo "bench: benchcore run $* failed:" >&2
		tail -5 "$out.log" >&2
		return 1
	fi
}

# bc_get OUT.json EXPR: python expression over c = the first case, d = the document.
bc_get() {
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); c=d["cases"][0]
print(eval(sys.argv[2]))' "$1" "$2"
}

# ratio A B: A/B with 3 decimals.
ratio() { python3 -c 'import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print("%.3f" % (a/b if b else 0))' "$1" "$2"; }

# judge R LOW [HIGH]: sets V to PASS when LOW <= R (<= HIGH), else MISS and
# counts the miss. Call it directly, not in $(...), so the count survives.
judge() {
	if python3 -c 'import sys; r=float(sys.argv[1]); lo=float(sys.argv[2]); hi=float(sys.argv[3]) if len(sys.argv)>3 else float("inf"); sys.exit(0 if lo<=r<=hi else 1)' "$@"; then
		V=PASS
	else
		MISSES=$((MISSES + 1))
		V=MISS
	fi
}

# table_judge FILE LOW: prints FILE but its "RATIO r" lines, and judges each r >= LOW
# (the tables are computed by python over interleaved rounds; the verdicts stay here).
table_judge() {
	local rr
	grep -v '^RATIO' "$1"
	for rr in $(sed -n 's/^RATIO //p' "$1"); do judge "$rr" "$2"; done
}

# machine: one line saying what this ran on, and whether it was busy.
machine() {
	echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs, $(uname -r)"
	echo "# load average before the run: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine skews both columns)"
}

finish() {
	echo
	if [ "$MISSES" -eq 0 ]; then echo "all targets met"; else echo "$MISSES target(s) missed"; fi
	[ "$MISSES" -eq 0 ]
}
