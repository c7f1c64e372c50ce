#!/usr/bin/env bash
# Long studies (repeat = auto, warmup = auto) against fixed settings, side by
# side on one machine: the machine time each takes and the verdicts each
# reaches, on an A/A pair (the same config twice: every win or loss is false)
# and an A/B pair (cpu max_prime 11000 against 10000, relabelled to match:
# the cpu events_per_sec rows are true losses; a win or loss in another module is false). Goal: the same verdicts in
# at most half the machine time. Prints; asserts nothing.
#   bench/auto.sh   (TIME=10 s per case; fixed: REPEAT=5, WARMUP=5; auto: min 3, max MAXREP=10,
#                    max_warmup 5)
. "$(dirname "$0")/lib.sh"
TIME=${TIME:-10}
REPEAT=${REPEAT:-5}
FWARM=${FWARM:-5}
MAXREP=${MAXREP:-10}

conf() {	# LABEL PRIME MODE
	local rep="repeat = $REPEAT; warmup = $FWARM;"
	[ "$3" = auto ] && rep="repeat = \"auto\"; min_repeat = 3; max_repeat = $MAXREP; warmup = \"auto\"; max_warmup = $FWARM;"
	cat <<C
label = "$1"; threads = [1, 2]; time = $TIME; $rep report_interval = 0.5;
modules = ( { name = "cpu"; max_prime = $2; }, { name = "rsa"; },
	{ name = "mem"; block_size = ["4K", "1M"]; oper = "read"; } );
C
}

run() {	# LABEL PRIME MODE: prints the seconds it took
	conf "$1" "$2" "$3" >"$BENCH_TMP/$1-$3.conf"
	local t0 t1
	t0=$(date +%s.%N)
	"$BC" -c "$BENCH_TMP/$1-$3.conf" -o "$BENCH_TMP/$1-$3.json" -q --force >"$BENCH_TMP/$1-$3.log" 2>&1 ||
		{ echo "bench: $1 $3 failed" >&2; tail -3 "$BENCH_TMP/$1-$3.log" >&2; exit 1; }
	t1=$(date +%s.%N)
	python3 -c "print('%.0f' % ($t1 - $t0))"
	if [ "$2" = 11000 ]; then	# relabel so that the cases match 10000's
		python3 - "$BENCH_TMP/$1-$3.json" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cases"]:
    if c["module"] == "cpu": c["params"]["max_prime"] = 10000
json.dump(d, open(sys.argv[1], "w"))
P
	fi
}

verdicts() {	# A B: "head wins/losses/ties/inconclusive/suspect, cpu eps verdicts, false"
	"$BC" compare --json "$1" "$2" >"$BENCH_TMP/cmp.json" || exit 1
	python3 - "$BENCH_TMP/cmp.json" "$3" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))["comparisons"][0]; ab = sys.argv[2] == "ab"
rows = d["rows"]
cpu = [r["verdict"] for r in rows if r["module"] == "cpu" and r["metric"] == "events_per_sec"]
# A/B: every cpu row may differ (max_prime changes each event's latency too); only the other
# modules' wins and losses are false
false = sum(1 for r in rows if r["verdict"] in ("win", "loss") and not (ab and r["module"] == "cpu"))
count = {v: sum(r["verdict"] == v for r in rows) for v in ("win", "loss", "tie", "inconclusive", "suspect")}
print("%-34s cpu eps: %-22s false win/loss: %d of %d" % (" ".join("%s %d" % kv for kv in count.items()), ",".join(cpu), false, len(rows)))
P
}

machine
echo "# $TIME s per case; fixed: $REPEAT repeats, ${FWARM} s warmup; auto: repeat 3..$MAXREP, warmup auto <= ${FWARM} s"
for mode in fixed auto; do
	ta=$(run a1 10000 $mode); ta2=$(run a2 10000 $mode); tb=$(run b 11000 $mode)
	echo "$mode: machine time A/A $((ta + ta2)) s, A/B $((ta + tb)) s"
	echo "  A/A: $(verdicts "$BENCH_TMP/a1-$mode.json" "$BENCH_TMP/a2-$mode.json" aa)"
	echo "  A/B: $(verdicts "$BENCH_TMP/a1-$mode.json" "$BENCH_TMP/b-$mode.json" ab)"
	eval "t_$mode=$((ta + ta2 + tb))"
done
echo "auto / fixed machine time: $(ratio "$t_auto" "$t_fixed")"
