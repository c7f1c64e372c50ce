#!/usr/bin/env bash
# UnixBench parity: each of UnixBench 5.1.3's index programs against benchcore's test doing the
# same work, side by side, alternating which goes first, ROUNDS rounds, medians compared.
# UnixBench is not part of benchcore: build it yourself (its own Makefile) and point UB_PGMS at
# its pgms/ directory; this script only runs its programs.
#   UB_PGMS=/path/to/UnixBench/pgms bench/unixbench.sh      (TIME=5 s a run, ROUNDS=3)
# Targets (issue: same work, parity is the limit): syscall, getpid, pipe, context_switch, spawn,
# execl, file_copy, shell1, shell8 >= 0.95; dhrystone, whetstone within 20% (0.8 .. 1.2:
# UnixBench builds with -O3 -ffast-math -march=native, benchcore's modules with -O2).
# Also printed: the cost of one loop in microseconds on each side (lmbench's figure: lat_syscall
# null = getpid, lat_pipe = context_switch's round trip (lat_ctx's per switch is half of it),
# lat_proc fork = spawn, lat_proc exec = execl), and both System Benchmarks Index scores from
# the same medians (the baselines of modules/sys/unixbench.refset.json).
# The machine's other work skews both columns alike only when it is steady: read the load line.
# cpu_ratio: the CPU time a loop took on UnixBench's side over benchcore's (getrusage of what
# UnixBench's program reaped; the helper's /proc CPU, its reaped children's included, or the
# case's): the same work costs the same CPU however busy the machine, so it judges parity
# where a loaded machine's wall-clock ratios scatter (not for context_switch, file_copy and
# whetstone, whose UnixBench CPU is not only the loops').
. "$(dirname "$0")/lib.sh"
TIME=${TIME:-5}
ROUNDS=${ROUNDS:-3}
UB_PGMS=${UB_PGMS:-}
[ -n "$UB_PGMS" ] && [ -x "$UB_PGMS/dhry2reg" ] || { echo "bench: set UB_PGMS to a built UnixBench's pgms/ directory" >&2; exit 2; }
machine
FS=$BENCH_TMP/fs; mkdir -p "$FS"
# ubrun CMD...: runs CMD (stdout and stderr to stdout) and writes the CPU seconds it and
# every process it reaped used to $UBCPU (getrusage RUSAGE_CHILDREN of a fresh parent)
UBCPU=$BENCH_TMP/ubcpu
ubrun() {
	python3 -c 'import resource, subprocess, sys
p = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
sys.stdout.buffer.write(p.stdout)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%f\n" % (r.ru_utime + r.ru_stime))' "$UBCPU" "$@"
}
# ub NAME: one run of UnixBench's program for NAME; prints its per-second figure and the
# CPU us a loop it and its children used ("-" where UnixBench's CPU is not the loops':
# context1's partner is never reaped, fstime primes with a write and a read pass first,
# whetstone calibrates)
ub() {
	local c='/^COUNT/ {print $2 / t, $2; exit}' fig
	case $1 in
	dhrystone) fig=$(ubrun "$UB_PGMS/dhry2reg" "$TIME" | awk -F'|' -v t="$TIME" "$c");;
	whetstone) fig="$("$UB_PGMS/whetstone-double" 2>&1 | awk '/^MWIPS/ {print $2}') 0";;
	syscall) fig=$(ubrun "$UB_PGMS/syscall" "$TIME" mix | awk -F'|' -v t="$TIME" "$c");;
	getpid) fig=$(ubrun "$UB_PGMS/syscall" "$TIME" getpid | awk -F'|' -v t="$TIME" "$c");;
	pipe) fig=$(ubrun "$UB_PGMS/pipe" "$TIME" | awk -F'|' -v t="$TIME" "$c");;
	context_switch) fig="$("$UB_PGMS/context1" "$TIME" 2>&1 | awk -F'|' -v t="$TIME" '/^COUNT/ {print $2 / t; exit}') 0";;
	spawn) fig=$(ubrun "$UB_PGMS/spawn" "$TIME" | awk -F'|' -v t="$TIME" "$c");;
	execl) fig=$(UB_BINDIR=$UB_PGMS ubrun "$UB_PGMS/execl" "$TIME" | awk -F'|' -v t="$TIME" "$c");;
	file_copy) fig="$(cd "$FS" && "$UB_PGMS/fstime" -c -t "$TIME" -d "$FS" -b 1024 -m 2000 2>&1 | awk -F'|' '/^COUNT/ {v = $2} END {print v}') 0";;
	shell1|shell8) fig=$(ub_shell "${1#shell}");;
	esac
	python3 -c 'import sys; f, n = sys.argv[1].split(); n = float(n); print(f, "%.3f" % (float(open(sys.argv[2]).read()) * 1e6 / n) if n > 0 else "-")' "$fig" "$UBCPU"
}
# ub_shell C: UnixBench's looper running multi.sh C in its testdir: loops a minute (looper
# prints the count; UnixBench's Run divides by the time it measured, as here), and the count
ub_shell() {
	local t0 t1 n
	t0=$(date +%s.%N)
	n=$(cd "$UB_PGMS/../testdir" && UB_BINDIR=$UB_PGMS ubrun "$UB_PGMS/looper" "$TIME" "$UB_PGMS/multi.sh" "$1" |
		awk -F'|' '/^COUNT/ {print $2; exit}')
	t1=$(date +%s.%N)
	python3 -c 'import sys; print(float(sys.argv[1]) * 60 / (float(sys.argv[3]) - float(sys.argv[2])), sys.argv[1])' "$n" "$t0" "$t1"
}
# bcm NAME: benchcore's figure for NAME (same work), its us per loop, and the CPU us a loop
# (the helper's and its reaped children's where the helper runs the loops, else the case's)
bcm() {
	local o=$BENCH_TMP/$1.json
	case $1 in
	dhrystone|whetstone) bc_run "$o" cpu test="$1" --time "$TIME" --warmup "$WARMUP" || return 1;;
	file_copy) bc_run "$o" sys test=file_copy buffer_size=1K max_blocks=2000 path="$FS" --time "$TIME" --warmup "$WARMUP" || return 1;;
	shell1|shell8) bc_run "$o" sys test=shell concurrency="${1#shell}" --time "$TIME" --warmup "$WARMUP" || return 1;;
	*) bc_run "$o" sys test="$1" --time "$TIME" --warmup "$WARMUP" || return 1;;
	esac
	bc_get "$o" '"%s %s %s" % (c["metrics"][c["headline"]]["value"], c["metrics"].get("us_per_loop", {"value": 0})["value"], "%.3f" % ((c["cpu"]["server_s"] if c["cpu"].get("servers") else c["cpu"]["user_s"] + c["cpu"]["sys_s"]) * 1e6 / (c["metrics"]["loops_per_sec"]["value"] * c["duration_s"])) if "loops_per_sec" in c["metrics"] and c["module"] == "sys" or c["params"].get("test") == "dhrystone" else "-")'
}
median() { python3 -c 'import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }
echo "# UnixBench programs of $UB_PGMS against benchcore, $TIME s a run, $ROUNDS rounds (order alternating), medians"
# us a loop on UnixBench's side: 1e6 / its loops a second (one copy)
us_of() { python3 -c 'import sys; v=float(sys.argv[1]); print("%.3f" % (1e6 / v if v > 0 else 0))' "$1"; }
MEDIANS=$BENCH_TMP/medians
printf '%-16s %14s %14s %6s %6s %10s %10s %9s  %s\n' test benchcore unixbench ratio target bc_us ub_us cpu_ratio "each round's ratio"
for t in syscall getpid pipe context_switch spawn execl file_copy shell1 shell8 dhrystone whetstone; do
	bs=(); us=(); ups=(); rounds=(); bcpu=(); ucpu=()
	for r in $(seq 1 "$ROUNDS"); do
		if [ $((r % 2)) -eq 1 ]; then u=$(ub $t); b=$(bcm $t) || exit 1; else b=$(bcm $t) || exit 1; u=$(ub $t); fi
		read -r bf bu bc_cpu <<<"$b"; read -r uf ub_cpu <<<"$u"
		bs+=("$bf"); ups+=("$bu"); us+=("$uf"); rounds+=("$(ratio "$bf" "$uf")"); bcpu+=("$bc_cpu"); ucpu+=("$ub_cpu")
	done
	mb=$(median "${bs[@]}"); mu=$(median "${us[@]}"); r=$(ratio "$mb" "$mu")
	case $t in
	dhrystone|whetstone) judge "$r" 0.8 1.2;;
	*) judge "$r" 0.95;;
	esac
	case $t in syscall|getpid|pipe|context_switch|spawn|execl) uu=$(us_of "$mu");; *) uu=-;; esac
	# the CPU a loop on each side: UnixBench's / benchcore's (same work: 1 whatever the load)
	cr=-
	case "${bcpu[*]} ${ucpu[*]}" in *-*) ;; *) cr=$(ratio "$(median "${ucpu[@]}")" "$(median "${bcpu[@]}")");; esac
	printf '%-16s %14.1f %14.1f %6s %6s %10.3f %10s %9s  %s\n' "$t" "$mb" "$mu" "$r" "$V" "$(median "${ups[@]}")" "$uu" "$cr" "${rounds[*]}"
	echo "$t $mb $mu" >>"$MEDIANS"
done
# both scores from the same medians: index = median / baseline x 10, the score their geometric mean
python3 - modules/sys/unixbench.refset.json "$MEDIANS" <<'PYEOF'
import json, math, sys
ref = json.load(open(sys.argv[1]))
base = {}
for t in ref["tests"]:
    p = t["params"]
    key = {"file_copy": "file_copy" if p.get("buffer_size") == 1024 else None,
           "shell": "shell%d" % p.get("concurrency", 1)}.get(p["test"], p["test"])
    if key:
        base[key] = t["baseline"]
bc, ub = [], []
for line in open(sys.argv[2]):
    name, b, u = line.split()
    if name in base:
        bc.append(math.log(float(b) / base[name] * ref["scale"]))
        ub.append(math.log(float(u) / base[name] * ref["scale"]))
g = lambda v: math.exp(sum(v) / len(v))
print("# System Benchmarks Index Score over the %d index tests above (one copy; file copy 1024/2000 only):"
      " benchcore %.1f, UnixBench %.1f, ratio %.3f" % (len(bc), g(bc), g(ub), g(bc) / g(ub)))
PYEOF
finish
