#!/usr/bin/env bash
# cpu parity: `benchcore run cpu max_prime=10000` against
# `sysbench cpu --cpu-max-prime=10000` at 1 and 2 threads, same time, run
# alternately (no warm-up: sysbench 1.0.20 has none). Target: events/s within 3% of sysbench's.
# Also prints each tool's fairness (stddev of events per thread).
# OVER threads (default "6 42": the studies' sweep goes to 42 threads on small
# machines) run the same way and are reported, not judged: oversubscribed
# throughput and how evenly the threads shared the CPUs.
#   bench/cpu.sh            (TIME=10 s per run; THREADS="1 2"; OVER="6 42"; PRIME=10000)
. "$(dirname "$0")/lib.sh"
TIME=${TIME:-10}
THREADS=${THREADS:-1 2}
PRIME=${PRIME:-10000}
OVER=${OVER:-6 42}
machine
echo "# cpu max_prime=$PRIME, $TIME s per run, $WARMUP s warm-up; target: ratio within 0.97 .. 1.03"
printf '%-8s %16s %16s %7s %6s %14s %14s %s\n' threads benchcore_eps sysbench_eps ratio target bc_fair_sd sb_fair_sd "bc events/thread min..max"
for n in $THREADS $OVER; do
	sb=$(sysbench cpu --cpu-max-prime="$PRIME" --threads="$n" --time="$TIME" run)
	sb_eps=$(echo "$sb" | awk '/events per second:/ {print $4}')
	sb_sd=$(echo "$sb" | awk -F/ '/events \(avg\/stddev\):/ {print $NF}' | tr -d ' ')
	bc_run "$BENCH_TMP/cpu$n.json" cpu max_prime="$PRIME" --threads "$n" \
		--time "$TIME" --warmup "$WARMUP" || exit 1
	bc_eps=$(bc_get "$BENCH_TMP/cpu$n.json" 'c["metrics"]["events_per_sec"]["value"]')
	bc_sd=$(bc_get "$BENCH_TMP/cpu$n.json" 'c["fairness"]["events_stddev"]')
	r=$(ratio "$bc_eps" "$sb_eps")
	if [[ " $THREADS " == *" $n "* ]]; then judge "$r" 0.97 1.03; else V=info; fi
	bc_mm=$(bc_get "$BENCH_TMP/cpu$n.json" '"%.0f..%.0f" % (c["fairness"]["events_min"], c["fairness"]["events_max"])')
	printf '%-8s %16.2f %16.2f %7s %6s %14.2f %14s %s\n' "$n" "$bc_eps" "$sb_eps" "$r" \
		"$V" "$bc_sd" "$sb_sd" "$bc_mm"
done
finish
