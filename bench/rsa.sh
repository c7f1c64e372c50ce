#!/usr/bin/env bash
# rsa parity: `benchcore run rsa` against `openssl speed -seconds S rsa2048`
# (1 thread) and `openssl speed -seconds S -multi 2 rsa2048` (2 threads).
# openssl speed signs for S seconds, then verifies for S seconds; to compare
# like with like benchcore runs op=sign and op=verify as separate cases of S
# seconds each. op=both (alternating phases) is shown for information.
# Target: sign/s and verify/s ratios >= 0.97.
# openssl speed divides by the process's user CPU time unless -elapsed is
# given; benchcore divides by wall-clock time. A second column (ELAPSED=0 drops it) shows
# `openssl speed -elapsed` (wall clock, the same divisor as benchcore).
#   bench/rsa.sh            (TIME=10 s per phase; THREADS="1 2"; BITS=2048; ELAPSED=1)
. "$(dirname "$0")/lib.sh"
TIME=${TIME:-10}
THREADS=${THREADS:-1 2}
BITS=${BITS:-2048}
ELAPSED=${ELAPSED:-1}

# ossl N [extra...]: prints "sign/s verify/s" of openssl speed rsaBITS with N processes.
ossl() {
	local n=$1; shift
	local multi=(); [ "$n" -gt 1 ] && multi=(-multi "$n")
	openssl speed -seconds "$TIME" -mr "${multi[@]}" "$@" "rsa$BITS" 2>/dev/null |
		grep '^+F2:' | tail -1 | awk -F: '{print $4, $5}'
}

machine
echo "# $(openssl version); rsa$BITS, $TIME s per phase; target: benchcore/openssl >= 0.97"
printf '%-4s %-7s %12s %12s %7s %6s' thr op openssl benchcore ratio target
[ "$ELAPSED" = 1 ] && printf ' %16s %7s' openssl_elapsed ratio
printf ' %14s\n' bc_op=both
for n in $THREADS; do
	read -r o_sign o_verify <<<"$(ossl "$n")"
	if [ -z "${o_sign:-}" ]; then echo "bench: openssl speed gave no result" >&2; exit 1; fi
	if [ "$ELAPSED" = 1 ]; then read -r e_sign e_verify <<<"$(ossl "$n" -elapsed)"; fi
	for op in sign verify; do
		bc_run "$BENCH_TMP/$op.json" rsa bits="$BITS" op="$op" --threads "$n" \
			--time "$TIME" --warmup "$WARMUP" || exit 1
	done
	bc_run "$BENCH_TMP/both.json" rsa bits="$BITS" op=both --threads "$n" \
		--time "$TIME" --warmup "$WARMUP" || exit 1
	for op in sign verify; do
		b=$(bc_get "$BENCH_TMP/$op.json" "c['metrics']['${op}_per_sec']['value']")
		both=$(bc_get "$BENCH_TMP/both.json" "c['metrics']['${op}_per_sec']['value']")
		if [ "$op" = sign ]; then o=$o_sign; e=${e_sign:-0}; else o=$o_verify; e=${e_verify:-0}; fi
		r=$(ratio "$b" "$o"); judge "$r" 0.97
		printf '%-4s %-7s %12.1f %12.1f %7s %6s' "$n" "$op" "$o" "$b" "$r" "$V"
		[ "$ELAPSED" = 1 ] && printf ' %16.1f %7s' "$e" "$(ratio "$b" "$e")"
		printf ' %14.1f\n' "$both"
	done
done
echo "# openssl_version recorded by benchcore: $(bc_get "$BENCH_TMP/sign.json" 'c["info"]["openssl_version"]')"
finish
