#!/usr/bin/env bash
# UnixBench parity: each of UnixBench 5.1.3's index programs against benchcore's test doing the
# same work, side by side, alternating which goes first, ROUNDS rounds, medians compared.
# UnixBench is not part of benchcore: build it yourself (its own Makefile) and point UB_PGMS at
# its pgms/ directory; this script only runs its programs.
#   UB_PGMS=/path/to/UnixBench/pgms bench/unixbench.sh      (TIME=5 s a run, ROUNDS=3)
# Targets (issue: same work, parity is the limit): syscall, getpid, pipe, context_switch, spawn,
# execl >= 0.95; dhrystone, whetstone within 20% (0.8 .. 1.2: UnixBench builds with -O3
# -ffast-math -march=native, benchcore's modules with -O2). file_copy is reported, not judged:
# UnixBench's fstime weights its copy count by its own write and read rates.
# Also printed: the cost of one loop in microseconds (lmbench's definition of each).
. "$(dirname "$0")/lib.sh"
TIME=${TIME:-5}
ROUNDS=${ROUNDS:-3}
UB_PGMS=${UB_PGMS:-}
[ -n "$UB_PGMS" ] && [ -x "$UB_PGMS/dhry2reg" ] || { echo "bench: set UB_PGMS to a built UnixBench's pgms/ directory" >&2; exit 2; }
machine
FS=$BENCH_TMP/fs; mkdir -p "$FS"
# ub NAME: one run of UnixBench's program for NAME; prints its per-second figure
ub() {
	case $1 in
	dhrystone) "$UB_PGMS/dhry2reg" "$TIME" 2>&1 | awk -F'|' -v t="$TIME" '/^COUNT/ {print $2 / t; exit}';;
	whetstone) "$UB_PGMS/whetstone-double" 2>&1 | awk '/^MWIPS/ {print $2}';;
	syscall) "$UB_PGMS/syscall" "$TIME" mix 2>&1 | awk -F'|' -v t="$TIME" '/^COUNT/ {print $2 / t; exit}';;
	getpid) "$UB_PGMS/syscall" "$TIME" getpid 2>&1 | awk -F'|' -v t="$TIME" '/^COUNT/ {print $2 / t; exit}';;
	pipe) "$UB_PGMS/pipe" "$TIME" 2>&1 | awk -F'|' -v t="$TIME" '/^COUNT/ {print $2 / t; exit}';;
	context_switch) "$UB_PGMS/context1" "$TIME" 2>&1 | awk -F'|' -v t="$TIME" '/^COUNT/ {print $2 / t; exit}';;
	spawn) "$UB_PGMS/spawn" "$TIME" 2>&1 | awk -F'|' -v t="$TIME" '/^COUNT/ {print $2 / t; exit}';;
	execl) UB_BINDIR=$UB_PGMS "$UB_PGMS/execl" "$TIME" 2>&1 | awk -F'|' -v t="$TIME" '/^COUNT/ {print $2 / t; exit}';;
	file_copy) "$UB_PGMS/fstime" -c -t "$TIME" -d "$FS" -b 1024 -m 2000 2>&1 | awk -F'|' '/^COUNT/ {v = $2} END {print v}';;
	esac
}
# bcm NAME: benchcore's figure for NAME (same work), and its us per loop
bcm() {
	local o=$BENCH_TMP/$1.json
	case $1 in
	dhrystone|whetstone) bc_run "$o" cpu test="$1" --time "$TIME" --warmup "$WARMUP" || return 1;;
	file_copy) bc_run "$o" sys test=file_copy buffer_size=1K max_blocks=2000 path="$FS" --time "$TIME" --warmup "$WARMUP" || return 1;;
	*) bc_run "$o" sys test="$1" --time "$TIME" --warmup "$WARMUP" || return 1;;
	esac
	bc_get "$o" '"%s %s" % ([v["value"] for k, v in c["metrics"].items() if k in ("loops_per_sec", "mwips", "kib_per_sec")][0], c["metrics"].get("us_per_loop", {"value": 0})["value"])'
}
median() { python3 -c 'import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }
echo "# UnixBench programs of $UB_PGMS against benchcore, $TIME s a run, $ROUNDS rounds (order alternating), medians"
printf '%-16s %16s %16s %7s %6s %12s\n' test benchcore unixbench ratio target us_per_loop
for t in syscall getpid pipe context_switch spawn execl file_copy dhrystone whetstone; do
	bs=(); us=(); ups=()
	for r in $(seq 1 "$ROUNDS"); do
		if [ $((r % 2)) -eq 1 ]; then u=$(ub $t); b=$(bcm $t) || exit 1; else b=$(bcm $t) || exit 1; u=$(ub $t); fi
		bs+=("${b% *}"); ups+=("${b#* }"); us+=("$u")
	done
	mb=$(median "${bs[@]}"); mu=$(median "${us[@]}"); r=$(ratio "$mb" "$mu")
	case $t in
	dhrystone|whetstone) judge "$r" 0.8 1.2;;
	file_copy) V=info;;
	*) judge "$r" 0.95;;
	esac
	printf '%-16s %16.1f %16.1f %7s %6s %12.3f\n' "$t" "$mb" "$mu" "$r" "$V" "$(median "${ups[@]}")"
done
finish
