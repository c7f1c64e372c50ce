#!/usr/bin/env bash
# compare's study views at scale (issue 36 item 8): --table, --summary-table
# and --index on two results files of CASES cases each (a cpu sweep over
# max_prime, REPEATS repeats per point), generated from one real case.
# Reading and comparing are linear; the views must be too. Target: 50k
# cases per file < 10 s for --table.
#   bench/table-scale.sh     (CASES="12500 25000 50000"; REPEATS=2; VIEWS="--table --summary-table --index")
. "$(dirname "$0")/lib.sh"
CASES=${CASES:-12500 25000 50000}
REPEATS=${REPEATS:-2}
VIEWS=${VIEWS:---table --summary-table --index}
machine
bc_run "$BENCH_TMP/one.json" cpu --time 0.05 --warmup 0 || exit 1
gen() {	# gen OUT CASES SCALE LABEL
	python3 - "$BENCH_TMP/one.json" "$@" <<'PYEOF'
import json, sys, copy, random
d = json.load(open(sys.argv[1])); out, n, k, label = sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
reps = int(sys.argv[6]); proto = d["cases"][0]; rnd = random.Random(n); cases = []
points = max(1, n // reps)
for i in range(points * reps):
    c = copy.deepcopy(proto); p = i // reps
    c["id"] = i + 1; c["repeat"] = i % reps + 1; c["params"]["max_prime"] = 1000 + p
    c["metrics"]["events_per_sec"]["value"] = k * 1000.0 * (1 + 0.01 * rnd.gauss(0, 1))
    c.pop("intervals", None)
    cases.append(c)
d["cases"] = cases; d["groups"] = []; d["label"] = label
d["config"]["modules"][0]["options"]["max_prime"] = [1000 + p for p in range(points)]
json.dump(d, open(out, "w"))
PYEOF
}
echo "# compare views, two files of N cases each ($REPEATS repeats per point): wall s / CPU s (user+sys)"
echo "# (target: 50000 --table < 10 s; a loaded machine stretches the wall time, not the CPU time)"
printf '%-8s' cases; for v in "(plain)" $VIEWS; do printf '  %16s' "$v"; done; echo
for n in $CASES; do
	gen "$BENCH_TMP/a.json" "$n" 1 A "$REPEATS"
	gen "$BENCH_TMP/b.json" "$n" 1.05 B "$REPEATS"
	printf '%-8s' "$n"
	for v in "" $VIEWS; do
		TIMEFORMAT='%R %U %S'
		t=$( { time "$BC" compare $v "$BENCH_TMP/a.json" "$BENCH_TMP/b.json" >"$BENCH_TMP/out" 2>&1; } 2>&1 )
		read -r wall usr sys <<<"$t"
		printf '  %16s' "$(python3 -c 'import sys; w,u,s=map(float,sys.argv[1:]); print("%.1f / %.1f" % (w, u + s))' "$wall" "$usr" "$sys")"
	done
	echo
done
