#!/usr/bin/env bash
# --resume under fire: a run SIGKILLed at a random moment KILLS times in a
# row (each time resumed), then finished; it must end with every case
# exactly once, and compare against an uninterrupted run of the same config
# must call nothing a win or loss (ties or inconclusive). Prints; the
# exactly-once check is also a test (tests/integration/test_resume.sh).
#   bench/resume.sh   (KILLS=10, TIME=1 s per case)
. "$(dirname "$0")/lib.sh"
KILLS=${KILLS:-10}
TIME=${TIME:-1}
cat >"$BENCH_TMP/r.conf" <<C
time = $TIME; warmup = 0.2; repeat = 3; threads = [1, 2]; report_interval = 0;
modules = ( { name = "cpu"; max_prime = [5000, 10000]; }, { name = "mem"; block_size = "1M"; oper = "read"; } );
C
machine
cd "$BENCH_TMP" || exit 2
"$OLDPWD/$BC" -c r.conf -o whole.json -q >/dev/null 2>&1 || { echo "bench: the uninterrupted run failed"; exit 1; }
kills=0
for i in $(seq 1 "$KILLS"); do
	flag=""; [ -s killed.json ] && flag=--resume
	"$OLDPWD/$BC" -c r.conf -o killed.json $flag -q >/dev/null 2>&1 &
	pid=$!
	sleep "$(python3 -c "import random; print(round(random.uniform(0.3, 3.0), 2))")"
	if kill -KILL $pid 2>/dev/null; then kills=$((kills + 1)); fi
	wait $pid 2>/dev/null
done
"$OLDPWD/$BC" -c r.conf -o killed.json --resume -q >/dev/null 2>&1 || { echo "bench: the last resume failed"; exit 1; }
python3 - killed.json <<'P'
import json, sys, collections
d = json.load(open(sys.argv[1]))
k = collections.Counter((c["module"], json.dumps(c["params"], sort_keys=True), c["threads"], c["repeat"]) for c in d["cases"])
print("cases %d (want 18), each exactly once: %s, all ok: %s, resumes recorded: %d" % (
    len(d["cases"]), all(v == 1 for v in k.values()) and len(k) == 18,
    all(c["status"] == "ok" for c in d["cases"]), len(d.get("resumed", []))))
P
echo "killed $kills of $KILLS times"
"$OLDPWD/$BC" compare --json whole.json killed.json >cmp.json
python3 - cmp.json <<'P'
import json, sys
rows = json.load(open(sys.argv[1]))["comparisons"][0]["rows"]
v = {x: sum(r["verdict"] == x for r in rows) for x in ("win", "loss", "tie", "inconclusive", "suspect")}
print("compare uninterrupted vs killed-and-resumed: %s (wins + losses should be 0 of %d)" % (v, len(rows)))
P
