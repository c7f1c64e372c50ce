#!/usr/bin/env bash
# The rsa module's other families against `openssl speed`, same settings:
#   ecdsa-p256   openssl speed ecdsap256            sign/s, verify/s
#   ed25519      openssl speed ed25519              sign/s, verify/s
#   aes-256-gcm  openssl speed -aead -evp aes-256-gcm -bytes N   (TLS-like messages:
#                nonce, 13 bytes of AAD, N bytes, final; what the module times)
#   sha256       openssl speed -evp sha256 -bytes N (init + update + final per op)
# at one thread by default (THREADS="1 2" adds -multi 2). Rounds alternate which
# tool runs first; a ratio is the median of the per-round ratios. Both sides
# divide by wall-clock time (openssl -elapsed). Target: ratio >= 0.97 for the
# signatures and for the bulk families at 16 KiB. Below that the two tools'
# ops differ in fixed costs and the ratio is shown, not judged: openssl's -aead
# loop sets the key again for every message (a key schedule per op; a TLS
# connection keys once and changes only the nonce, which is what benchcore
# does), and its -evp digest loop calls EVP_Digest, which allocates and frees
# a digest context per op (benchcore reuses one context).
#   bench/crypto.sh        (TIME=5 s per phase; ROUNDS=3; THREADS="1"; SIZES="16 1024 16384")
. "$(dirname "$0")/lib.sh"
TIME=${TIME:-5}
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-1}
SIZES=${SIZES:-16 1024 16384}

# ossl N ARGS...: the -mr result line of openssl speed -elapsed with N processes.
ossl() {
	local n=$1; shift
	local multi=(); [ "$n" -gt 1 ] && multi=(-multi "$n")
	openssl speed -elapsed -seconds "$TIME" -mr "${multi[@]}" "$@" 2>/dev/null | grep '^+F' | tail -1
}

machine
echo "# $(openssl version); $TIME s per phase, $ROUNDS rounds; target: benchcore/openssl >= 0.97 (both wall clock)"
W=$BENCH_TMP/rounds
: >"$W"
# point NAME N R: one comparison, appended to $W as "name n metric openssl benchcore"
point() {
	local name=$1 n=$2 r=$3 line first
	local algo=${name%%@*} bytes=${name#*@}
	for first in 1 2; do
		if [ $(((r + first) % 2)) = 0 ]; then
			case $algo in
			ecdsa-p256)	line=$(ossl "$n" ecdsap256) ;;
			ed25519)	line=$(ossl "$n" ed25519) ;;
			aes-256-gcm)	line=$(ossl "$n" -aead -evp aes-256-gcm -bytes "$bytes") ;;
			sha256)		line=$(ossl "$n" -evp sha256 -bytes "$bytes") ;;
			esac
		else
			local extra=(); [ "$bytes" != "$name" ] && extra=(block_size="$bytes")
			bc_run "$BENCH_TMP/c.json" rsa algo="$algo" "${extra[@]}" --threads "$n" \
				--time "$TIME" --warmup "$WARMUP" || exit 1
		fi
	done
	[ -n "$line" ] || { echo "bench: openssl speed gave no result for $name" >&2; exit 1; }
	case $algo in
	ecdsa-p256|ed25519)
		# +F4:k:bits:sign:verify  /  +F6:k:bits:name:sign:verify
		local s v; s=$(echo "$line" | awk -F: '{print $(NF-1)}'); v=$(echo "$line" | awk -F: '{print $NF}')
		echo "$algo $n sign/s $s $(bc_get "$BENCH_TMP/c.json" 'c["metrics"]["sign_per_sec"]["value"]')" >>"$W"
		echo "$algo $n verify/s $v $(bc_get "$BENCH_TMP/c.json" 'c["metrics"]["verify_per_sec"]["value"]')" >>"$W"
		;;
	*)	# +F:k:name:bytes_per_sec
		local b; b=$(echo "$line" | awk -F: '{print $NF / 1048576}')
		echo "$algo@$bytes $n MiB/s $b $(bc_get "$BENCH_TMP/c.json" 'c["metrics"]["mib_per_sec"]["value"]')" >>"$W"
		;;
	esac
}
for r in $(seq 1 "$ROUNDS"); do
	for n in $THREADS; do
		point ecdsa-p256 "$n" "$r"
		point ed25519 "$n" "$r"
		for b in $SIZES; do point "aes-256-gcm@$b" "$n" "$r"; point "sha256@$b" "$n" "$r"; done
	done
	echo "round $r of $ROUNDS done"
done
python3 - "$W" >"$BENCH_TMP/table" <<'PY'
import statistics as st, sys
rows = {}
for line in open(sys.argv[1]):
    name, n, metric, o, b = line.split()
    rows.setdefault((name, n, metric), []).append((float(o), float(b)))
# judged: signatures, and bulk families at 16 KiB (see the header)
judged = lambda name: "@" not in name or name.endswith("@16384")
print("%-18s %-4s %-9s %14s %14s %7s %-7s  %s" % ("algo@bytes", "thr", "metric", "openssl", "benchcore", "ratio", "", "per-round ratios"))
for (name, n, metric), rs in rows.items():
    r = st.median(b / o for o, b in rs)
    print("%-18s %-4s %-9s %14.1f %14.1f %7.3f %-7s  %s" % (name, n, metric, st.median(o for o, _ in rs),
          st.median(b for _, b in rs), r, "" if judged(name) else "(info)",
          " ".join("%.3f" % (b / o) for o, b in rs)))
    if judged(name):
        print("RATIO %.4f" % r)
PY
table_judge "$BENCH_TMP/table" 0.97
finish
