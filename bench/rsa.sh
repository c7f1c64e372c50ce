#!/usr/bin/env bash
# rsa parity: `benchcore run rsa` against `openssl speed -seconds S rsa2048`
# (1 thread) and `openssl speed -seconds S -multi 2 rsa2048` (2 threads).
# openssl speed signs for S seconds, then verifies for S seconds; to compare
# like with like benchcore runs op=sign and op=verify as separate cases of S
# seconds each. op=both (alternating phases) is shown once, for information.
# Target: sign/s and verify/s ratios >= 0.97.
# openssl speed divides by the process's user CPU time unless -elapsed is
# given; benchcore divides by wall-clock time. A second column (ELAPSED=0 drops it) shows
# `openssl speed -elapsed` (wall clock, the same divisor as benchcore).
# Rounds are interleaved (openssl, openssl -elapsed, benchcore, next thread
# count, ...) ROUNDS times; a ratio is the median of the per-round ratios.
#   bench/rsa.sh            (TIME=10 s per phase; ROUNDS=3; THREADS="1 2"; BITS=2048; ELAPSED=1)
. "$(dirname "$0")/lib.sh"
TIME=${TIME:-10}
THREADS=${THREADS:-1 2}
BITS=${BITS:-2048}
ELAPSED=${ELAPSED:-1}
ROUNDS=${ROUNDS:-3}

# ossl N [extra...]: prints "sign/s verify/s" of openssl speed rsaBITS with N processes.
ossl() {
	local n=$1; shift
	local multi=(); [ "$n" -gt 1 ] && multi=(-multi "$n")
	openssl speed -seconds "$TIME" -mr "${multi[@]}" "$@" "rsa$BITS" 2>/dev/null |
		grep '^+F2:' | tail -1 | awk -F: '{print $4, $5}'
}

machine
echo "# $(openssl version); rsa$BITS, $TIME s per phase, $ROUNDS interleaved rounds; target: benchcore/openssl >= 0.97"
W=$BENCH_TMP/rounds
: >"$W"
# one_round R N: openssl (default, then -elapsed) and benchcore (sign, verify)
# at N threads; odd rounds run openssl first, even rounds benchcore first, so
# a drift of the machine's speed does not favour either side.
one_round() {
	local r=$1 n=$2 o_sign o_verify e_sign=0 e_verify=0 first
	for first in ossl bc; do
		if { [ $((r % 2)) = 1 ] && [ $first = ossl ]; } || { [ $((r % 2)) = 0 ] && [ $first = bc ]; }; then
			read -r o_sign o_verify <<<"$(ossl "$n")"
			if [ -z "${o_sign:-}" ]; then echo "bench: openssl speed gave no result" >&2; exit 1; fi
			if [ "$ELAPSED" = 1 ]; then read -r e_sign e_verify <<<"$(ossl "$n" -elapsed)"; fi
		else
			for op in sign verify; do
				bc_run "$BENCH_TMP/$op.json" rsa bits="$BITS" op="$op" --threads "$n" \
					--time "$TIME" --warmup "$WARMUP" || exit 1
			done
		fi
	done
	for op in sign verify; do
		b=$(bc_get "$BENCH_TMP/$op.json" "c['metrics']['${op}_per_sec']['value']")
		if [ "$op" = sign ]; then o=$o_sign; e=$e_sign; else o=$o_verify; e=$e_verify; fi
		echo "$n $op $o $b $e" >>"$W"
	done
}
for r in $(seq 1 "$ROUNDS"); do
	for n in $THREADS; do one_round "$r" "$n"; done
	echo "round $r of $ROUNDS done"
done

python3 - "$W" "$ELAPSED" >"$BENCH_TMP/table" <<'PY'
import statistics as st, sys
rows = {}
for line in open(sys.argv[1]):
    n, op, o, b, e = line.split()
    rows.setdefault((n, op), []).append(tuple(map(float, (o, b, e))))
el = sys.argv[2] == "1"
print("%-4s %-7s %12s %12s %7s %s   %s" % ("thr", "op", "openssl", "benchcore", "ratio",
      "%16s %7s" % ("openssl_elapsed", "ratio") if el else "", "per-round ratios"))
for (n, op), rs in rows.items():
    med = lambda i: st.median(r[i] for r in rs)
    ra = st.median(r[1] / r[0] for r in rs)
    re_ = st.median(r[1] / r[2] for r in rs) if el else 0
    print("%-4s %-7s %12.1f %12.1f %7.3f %s   %s%s" % (n, op, med(0), med(1), ra,
          "%16.1f %7.3f" % (med(2), re_) if el else "",
          " ".join("%.3f" % (r[1] / r[0]) for r in rs),
          (" | elapsed " + " ".join("%.3f" % (r[1] / r[2]) for r in rs)) if el else ""))
    print("RATIO %.4f" % ra)
PY
table_judge "$BENCH_TMP/table" 0.97
echo "(rates are medians; a ratio is the median of the per-round ratios; targets judge the ratio to openssl's default figure)"
echo
echo "# op=both (alternating sign and verify phases in one case), for information:"
for n in $THREADS; do
	bc_run "$BENCH_TMP/both.json" rsa bits="$BITS" op=both --threads "$n" \
		--time "$TIME" --warmup "$WARMUP" || exit 1
	echo "$n threads: $(bc_get "$BENCH_TMP/both.json" '"sign/s %.1f verify/s %.1f" % (c["metrics"]["sign_per_sec"]["value"], c["metrics"]["verify_per_sec"]["value"])')"
done
echo "# openssl_version recorded by benchcore: $(bc_get "$BENCH_TMP/sign.json" 'c["info"]["openssl_version"]')"
finish
