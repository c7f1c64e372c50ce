#!/usr/bin/env bash
# The measured clock against a second method: benchcore's probe (a chain of
# dependent adds, 1 cycle each, core/machine/freq.c) beside a chain of
# dependent 64-bit multiplies (3 cycles each on every x86-64 core since
# Nehalem and Zen; 3 on Cortex-A7x/Neoverse too), compiled here and timed the
# same way (fastest of many short bursts), on each CPU in turn; and what
# /proc/cpuinfo and cpufreq claim. Target: the two measurements within 3%.
#   bench/freq.sh            (ROUNDS=3)
. "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-3}
machine
cat >"$BENCH_TMP/imul.c" <<'C'
#include <stdint.h>
#include <stdio.h>
#include <time.h>
static uint64_t ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC_RAW, &t); return t.tv_sec * 1000000000ull + t.tv_nsec; }
int main(void)
{
	uint64_t best = UINT64_MAX, x = 3;
	for (int b = 0; b < 400; b++) {
		uint64_t t0 = ns();
		for (int i = 0; i < 100; i++) {
#if defined(__x86_64__)
			__asm__ volatile(".rept 100\n\timul %0, %0\n\t.endr" : "+r"(x));
#elif defined(__aarch64__)
			__asm__ volatile(".rept 100\n\tmul %0, %0, %0\n\t.endr" : "+r"(x));
#endif
		}
		uint64_t dt = ns() - t0;
		if (dt < best) best = dt;
	}
	printf("%.1f\n", 100.0 * 100 * 3 / best * 1000 + (x & 0));
	return 0;
}
C
cc -O2 -o "$BENCH_TMP/imul" "$BENCH_TMP/imul.c" || exit 2
echo "# clock: benchcore's add-chain probe vs a 3-cycle imul chain; target: within 3%"
printf '%-6s %-5s %12s %12s %7s %6s %12s %12s\n' cpu round probe_mhz imul_mhz ratio target cpuinfo_mhz cpufreq_mhz
for cpu in $(seq 0 $(( $(nproc) - 1 ))); do
	for r in $(seq 1 "$ROUNDS"); do
		p=$(taskset -c "$cpu" "$BC" sysinfo --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["cpu_mhz"]["measured"])')
		m=$(taskset -c "$cpu" "$BENCH_TMP/imul")
		ci=$(awk -v c="$cpu" '/^processor/ {p=$3} /^cpu MHz/ && p == c {print $4}' /proc/cpuinfo)
		cf=$(cat /sys/devices/system/cpu/cpu$cpu/cpufreq/scaling_cur_freq 2>/dev/null | awk '{print $1/1000}')
		ra=$(ratio "$p" "$m")
		judge "$ra" 0.97 1.03
		printf '%-6s %-5s %12.1f %12.1f %7s %6s %12s %12s\n' "$cpu" "$r" "$p" "$m" "$ra" "$V" "${ci:--}" "${cf:--}"
	done
done
finish
