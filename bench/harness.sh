#!/usr/bin/env bash
# Harness overhead (issue 3): with max_prime=3 an event is almost empty, so
# events/s measures the harness itself. Prints
#  1. benchcore / sysbench events/s at 1 thread            (target >= 2.5)
#  2. benchcore's empty-event scaling 2thr/1thr divided by the machine's
#     compute scaling 2thr/1thr (benchcore cpu max_prime=10000, measured
#     here too)                                              (target >= 0.9)
#  3. sysbench's own empty-event scaling, for reference.
#   bench/harness.sh        (TIME=10 s per run)
. "$(dirname "$0")/lib.sh"
TIME=${TIME:-10}

sb_eps() {	# threads prime
	sysbench cpu --cpu-max-prime="$2" --threads="$1" --time="$TIME" run |
		awk '/events per second:/ {print $4}'
}
bc_eps() {	# threads prime
	bc_run "$BENCH_TMP/h.json" cpu max_prime="$2" --threads "$1" --time "$TIME" \
		--warmup "$WARMUP" || exit 1
	bc_get "$BENCH_TMP/h.json" 'c["metrics"]["events_per_sec"]["value"]'
}

machine
echo "# cpu max_prime=3 (empty events) and 10000 (compute), $TIME s per run"
sb1=$(sb_eps 1 3); bc1=$(bc_eps 1 3)
sb2=$(sb_eps 2 3); bc2=$(bc_eps 2 3)
c1=$(bc_eps 1 10000); c2=$(bc_eps 2 10000)
printf '%-34s %16s %16s\n' "events/s" benchcore sysbench
printf '%-34s %16.0f %16.0f\n' "max_prime=3, 1 thread" "$bc1" "$sb1"
printf '%-34s %16.0f %16.0f\n' "max_prime=3, 2 threads" "$bc2" "$sb2"
printf '%-34s %16.2f\n' "max_prime=10000, 1 thread" "$c1"
printf '%-34s %16.2f\n' "max_prime=10000, 2 threads" "$c2"
echo
r1=$(ratio "$bc1" "$sb1"); judge "$r1" 2.5
printf '%-58s %8s  target >= 2.5   %s\n' "benchcore/sysbench events/s, empty event, 1 thread" "$r1" "$V"
s_bc=$(ratio "$bc2" "$bc1"); s_c=$(ratio "$c2" "$c1"); s_sb=$(ratio "$sb2" "$sb1")
r2=$(ratio "$s_bc" "$s_c"); judge "$r2" 0.9
printf '%-58s %8s  target >= 0.9   %s\n' "benchcore empty scaling $s_bc / compute scaling $s_c" "$r2" "$V"
printf '%-58s %8s  (reference)\n' "sysbench empty scaling 2thr/1thr" "$s_sb"
finish
