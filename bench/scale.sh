#!/usr/bin/env bash
# compare and report on large results files: time, memory and output size
# grow linearly with the number of cases (issue 14 measured 10k cases 3.3 s,
# 50k cases 86 s and 715 MB before the hash index).
#
#   bench/scale.sh            SIZES="10000 50000"
set -euo pipefail
cd "$(dirname "$0")/.."
BC=${BC:-build/benchcore}
SIZES=${SIZES:-10000 50000}
T=$(mktemp -d /tmp/bc-scale.XXXXXX)
trap 'rm -rf "$T"' EXIT
for n in $SIZES; do
	python3 - "$n" "$T/a$n.json" "$T/b$n.json" <<'PY'
import json, sys, random
n = int(sys.argv[1])
def doc(label, f):
    cases = []
    for i in range(n):
        v = 1000 * f * (1 + random.random() * 0.02)
        cases.append({"id": i + 1, "module": "cpu", "params": {"max_prime": 100 + i // 5}, "threads": 1,
                      "repeat": i % 5 + 1, "status": "ok", "reason": None, "duration_s": 1, "warmup_s": 0,
                      "metrics": {"events_per_sec": {"value": v, "unit": "events/s", "higher_is_better": True}},
                      "ops": {"event": {"count": 1000, "errors": 0, "bytes": 0, "per_sec": v,
                              "latency_ns": {"min": 1000, "mean": 1000, "max": 1000, "stddev": 0, "p50": 1000, "p99": 1000}}},
                      "fairness": {"events_stddev": 0}, "stability": {"interval_cv": 0.01}, "info": {}})
    return {"schema": "benchcore/1", "label": label, "host": {"hostname": label}, "cases": cases}
json.dump(doc("A", 1.0), open(sys.argv[2], "w"))
json.dump(doc("B", 1.05), open(sys.argv[3], "w"))
PY
	for cmd in compare report; do
		out=$T/$cmd$n.out
		extra=(); [ $cmd = report ] && extra=(-o $T/r$n.html)
		python3 - "$BC" "$cmd" "$T/a$n.json" "$T/b$n.json" "$out" "${extra[@]}" <<'PY'
import resource, subprocess, sys, time
bc, cmd, a, b, out = sys.argv[1:6]
t0 = time.time()
with open(out, "w") as f:
    rc = subprocess.call([bc, cmd, a, b] + sys.argv[6:], stdout=f, stderr=subprocess.STDOUT)
dt = time.time() - t0
mem = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"{cmd:8s} rc {rc}  {dt:6.2f} s  peak {mem:6.1f} MiB", end="")
PY
		[ $cmd = report ] && printf "  page %.1f MiB" "$(python3 -c "print($(stat -c %s $T/r$n.html)/1048576)")"
		printf "  (%s cases, input %.1f MiB each)\n" "$n" "$(python3 -c "print($(stat -c %s $T/a$n.json)/1048576)")"
	done
done
