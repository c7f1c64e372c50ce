#!/usr/bin/env bash
# Long studies (repeat = auto, warmup = auto) against fixed settings, side by
# side on one machine: the machine time each takes and the verdicts each
# reaches, on an A/A pair (the same config twice: every win or loss is false)
# and an A/B pair (cpu max_prime 11000 against 10000, relabelled to match:
# the cpu events_per_sec rows are true losses; a win or loss in another module
# is false). As a study is run: machine A first, then the second machine
# (A2, B) with baseline = A's file, so that it runs as long as its own
# comparison needs. The fixed and auto runs alternate (A fixed, A auto, A2
# fixed, ...) so that a change in the machine's load falls on both. Goal: the
# same verdicts in at most half the machine time. Prints; asserts nothing.
#   bench/auto.sh   (TIME=10 s per case; fixed: REPEAT=5 repeats, FWARM=5 s
#                    warmup; auto: min 3, max MAXREP=10, max_warmup MAXWARM=10 s,
#                    the default warmup_window; KEEP=DIR keeps the results files;
#                    MEM=0 leaves mem out)
. "$(dirname "$0")/lib.sh"
TIME=${TIME:-10}
REPEAT=${REPEAT:-5}
FWARM=${FWARM:-5}
MAXREP=${MAXREP:-10}
MAXWARM=${MAXWARM:-10}
MEM=${MEM:-1}	# MEM=0: cpu and rsa only (4 cases, half the time)

conf() {	# LABEL PRIME MODE [BASELINE]
	local rep="repeat = $REPEAT; warmup = $FWARM;"
	[ "$3" = auto ] && rep="repeat = \"auto\"; min_repeat = 3; max_repeat = $MAXREP; warmup = \"auto\"; max_warmup = $MAXWARM;"
	[ -n "${4:-}" ] && rep="$rep baseline = \"$4\";"
	cat <<C
label = "$1"; threads = [1, 2]; time = $TIME; $rep
modules = ( { name = "cpu"; max_prime = $2; }, { name = "rsa"; }$([ "$MEM" = 1 ] && echo ',
	{ name = "mem"; block_size = ["4K", "1M"]; oper = "read"; }') );
C
}

relabel() {	# FILE FROM TO: cpu's max_prime FROM becomes TO, in place
	python3 - "$@" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cases"]:
    if c["module"] == "cpu" and c["params"]["max_prime"] == int(sys.argv[2]):
        c["params"]["max_prime"] = int(sys.argv[3])
json.dump(d, open(sys.argv[1], "w"))
P
}

run() {	# LABEL PRIME MODE [BASELINE]: prints the seconds it took
	conf "$@" >"$BENCH_TMP/$1-$3.conf"
	local t0 t1
	t0=$(date +%s.%N)
	"$BC" -c "$BENCH_TMP/$1-$3.conf" -o "$BENCH_TMP/$1-$3.json" -q --force >"$BENCH_TMP/$1-$3.log" 2>&1 ||
		{ echo "bench: $1 $3 failed" >&2; tail -3 "$BENCH_TMP/$1-$3.log" >&2; exit 1; }
	t1=$(date +%s.%N)
	python3 -c "print('%.0f' % ($t1 - $t0))"
	[ "$2" = 11000 ] && relabel "$BENCH_TMP/$1-$3.json" 11000 10000	# so that the cases match 10000's
}

verdicts() {	# A B aa|ab: "head wins/losses/ties/inconclusive/suspect, cpu eps verdicts, false"
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
# the headlines: the verdicts repeat = auto aims at (one per case)
print("       headlines: " + ", ".join("%s%s t%d %s" % (r["module"], " " + str(r["params"]["block_size"]) if "block_size" in r["params"] and r["module"] == "mem" else "", r["threads"], r["verdict"]) for r in rows if r["headline"]))
P
}

shape() {	# FILE: repeats per case, why they stopped, warmups
	python3 - "$1" <<'P'
import json, sys, collections
cs = json.load(open(sys.argv[1]))["cases"]
key = lambda c: (c["module"], json.dumps(c["params"], sort_keys=True), c["threads"])
reps = collections.Counter(key(c) for c in cs)
stops = collections.Counter(c["repeat_stop"] for c in cs if c.get("repeat_stop"))
w = [c.get("warmup_s", 0) for c in cs]
steady = sum(1 for c in cs if c.get("warmup_steady") is False)
print("%d runs of %d cases (repeats %s), stops %s, warmup mean %.1f s max %.1f s, never steady %d" % (
    len(cs), len(reps), ",".join(str(n) for n in sorted(reps.values())), dict(stops) or "-",
    sum(w) / len(w), max(w), steady))
P
}

machine
echo "# $TIME s per case; fixed: $REPEAT repeats, ${FWARM} s warmup; auto: repeat 3..$MAXREP, warmup auto <= ${MAXWARM} s"
ta_f=$(run a1 10000 fixed); ta_a=$(run a1 10000 auto)
cp "$BENCH_TMP/a1-auto.json" "$BENCH_TMP/base-b.json"
relabel "$BENCH_TMP/base-b.json" 10000 11000	# B's cpu cases find A's under B's max_prime
ta2_f=$(run a2 10000 fixed); ta2_a=$(run a2 10000 auto "$BENCH_TMP/a1-auto.json")
tb_f=$(run b 11000 fixed); tb_a=$(run b 11000 auto "$BENCH_TMP/base-b.json")
for mode in fixed auto; do
	[ $mode = fixed ] && set -- "$ta_f" "$ta2_f" "$tb_f" || set -- "$ta_a" "$ta2_a" "$tb_a"
	echo "$mode: machine time A $1 s, A2 $2 s, B $3 s; A/A $(($1 + $2)) s, A/B $(($1 + $3)) s"
	for f in a1 a2 b; do echo "  $f: $(shape "$BENCH_TMP/$f-$mode.json")"; done
	echo "  A/A: $(verdicts "$BENCH_TMP/a1-$mode.json" "$BENCH_TMP/a2-$mode.json" aa)"
	echo "  A/B: $(verdicts "$BENCH_TMP/a1-$mode.json" "$BENCH_TMP/b-$mode.json" ab)"
	eval "t_$mode=$(($1 + $2 + $3))"
done
echo "auto / fixed machine time: $(ratio "$t_auto" "$t_fixed")"
if [ -n "${KEEP:-}" ]; then	# KEEP=DIR: the six results files, for compare and report afterwards
	mkdir -p "$KEEP" && cp "$BENCH_TMP"/*-fixed.json "$BENCH_TMP"/*-auto.json "$KEEP"/ && echo "results kept in $KEEP"
fi
