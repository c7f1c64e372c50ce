#!/usr/bin/env bash
# The CI gate on this machine (issue 53): how often `compare --fail-on loss` fails on A/A
# pairs (the same config twice: every failure is false; goal 0 at the defaults), and how often
# it catches a real slowdown of 3%, 5% and 10% at 3, 5 and 10 repeats.
# The slowdowns are real work: cpu's prime test costs about max_prime^1.5 per event, so
# max_prime 10000 x (1/(1-s))^(2/3) is s slower (measured: the achieved slowdown is printed
# beside each). The slower run is compared with --match-ignore max_prime so the cases match.
# Runs alternate A, B, A, B... so a drift of the machine hits both sides.
#   bench/gate.sh     (AA=20 pairs at REPEAT_AA=5; PAIRS=5 per slowdown and repeat count;
#                      TIME=0.5 s per case, WARMUP=0.2)
# Prints the rates; asserts nothing (a shared machine's load decides a part of it: the
# suspect counts say how much).
WARMUP=${WARMUP:-0.2}
. "$(dirname "$0")/lib.sh"
TIME=${TIME:-0.5}
AA=${AA:-20}
REPEAT_AA=${REPEAT_AA:-5}
PAIRS=${PAIRS:-5}
REPEATS=${REPEATS:-"3 5 10"}
SLOW=${SLOW:-"3 5 10"}

prime_for() { python3 -c "import sys; print(round(10000 * (1 / (1 - $1 / 100)) ** (2 / 3)))"; }
run1() {	# OUT PRIME REPEAT
	bc_run "$1" cpu max_prime="$2" --threads 1 --time "$TIME" --warmup "$WARMUP" --repeat "$3"
}
# verdict A B: the headline verdict (suspect as suspect-loss/-win) and the gate's exit status
verdict() {
	local rc
	"$BC" compare --fail-on loss --match-ignore max_prime "$1" "$2" >/dev/null 2>&1; rc=$?
	"$BC" compare --json --match-ignore max_prime "$1" "$2" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
r = [r for r in d["comparisons"][0]["rows"] if r["headline"]][0]
v = r["verdict"] + ("-" + r["direction"] if r["verdict"] == "suspect" else "")
print(v, "%.2f" % -r["change_pct"], sys.argv[1])' "$rc"
}

echo "== A/A: $AA pairs, $REPEAT_AA repeats, max_prime 10000 both (--fail-on loss at the defaults)"
fails=0; declare -A seen=()
for i in $(seq "$AA"); do
	run1 "$BENCH_TMP/aa-a.json" 10000 "$REPEAT_AA" && run1 "$BENCH_TMP/aa-b.json" 10000 "$REPEAT_AA" || exit 1
	read -r v ch rc < <(verdict "$BENCH_TMP/aa-a.json" "$BENCH_TMP/aa-b.json")
	[ "$rc" = 4 ] && fails=$((fails + 1))
	seen[$v]=$(( ${seen[$v]:-0} + 1 ))
	printf '  pair %2d: %-14s %6s%%  exit %s\n' "$i" "$v" "$ch" "$rc"
done
printf 'A/A: the gate failed %d of %d pairs; verdicts:' "$fails" "$AA"
for k in "${!seen[@]}"; do printf ' %s %d' "$k" "${seen[$k]}"; done; echo

echo "== slowdowns: $PAIRS pairs each, caught = exit 4 of --fail-on loss"
echo "(load average: $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%-8s %-8s %-7s %-12s %s\n' repeats slowdown caught "measured" "verdicts"
for n in $REPEATS; do
	declare -A caught=() meas=() verd=()
	for p in $(seq "$PAIRS"); do
		run1 "$BENCH_TMP/b.json" 10000 "$n" || exit 1
		for s in $SLOW; do
			run1 "$BENCH_TMP/s$s.json" "$(prime_for "$s")" "$n" || exit 1
			read -r v ch rc < <(verdict "$BENCH_TMP/b.json" "$BENCH_TMP/s$s.json")
			[ "$rc" = 4 ] && caught[$s]=$(( ${caught[$s]:-0} + 1 ))
			meas[$s]="${meas[$s]:-} $ch"
			verd[$s]="${verd[$s]:-} $v"
		done
	done
	for s in $SLOW; do
		avg=$(echo "${meas[$s]}" | python3 -c 'import sys; v=[float(x) for x in sys.stdin.read().split()]; print("%.1f%%" % (sum(v)/len(v)))')
		printf '%-8s %-8s %d/%-5d %-12s %s\n' "$n" "$s%" "${caught[$s]:-0}" "$PAIRS" "$avg" \
			"$(echo "${verd[$s]}" | tr ' ' '\n' | grep . | sort | uniq -c | awk '{printf "%s %s, ", $2, $1}')"
	done
	unset caught meas verd
done
