#!/usr/bin/env bash
# What a study-sized sweep costs benchcore itself: memory of the runner (the
# parent process) and the size of the results, measured on a scaled-down
# sweep with as many intervals per case as the study's, then extrapolated.
#
#   bench/longsweep.sh        CASES=16 INTERVALS=1800 (report_interval 0.01 s,
#                             time = INTERVALS x 0.01 s: 18 s per case)
#
# The study's sweep as issue 14 counts it: threads 1..42 x 8 points x 1800 s at
# 1 s intervals = 336 cases of 1800 intervals (STUDY_CASES).
# Goal (issue 14): under 50 MiB of memory and 20 MiB of JSON for that sweep.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
CASES=${CASES:-16}
INTERVALS=${INTERVALS:-1800}
STUDY_CASES=${STUDY_CASES:-336}
BC=${BC:-build/benchcore}
T=$(mktemp -d /tmp/bc-longsweep.XXXXXX)
trap 'rm -rf "$T"' EXIT
secs=$(python3 -c "print($INTERVALS * 0.01)")
# CASES cases: threads 1 and 2 x CASES/2 values of max_prime (tiny work per event)
primes=$(python3 -c "print(','.join(str(100 + i) for i in range($CASES // 2)))")
"$BC" run cpu max_prime=$primes --threads 1,2 --time "$secs" --warmup 0 --report-interval 0.01 \
	-q -o "$T/sweep.json" >"$T/out.txt" 2>"$T/err.txt" &
pid=$!
peak=0
while kill -0 $pid 2>/dev/null; do
	hwm=$(awk '/^VmHWM/ {print $2}' /proc/$pid/status 2>/dev/null || echo 0)
	[ -n "$hwm" ] && [ "$hwm" -gt "$peak" ] && peak=$hwm
	sleep 0.2
done
wait $pid || { echo "benchcore failed"; cat "$T/err.txt"; exit 1; }
json=$(stat -c %s "$T/sweep.json")
side=$(stat -c %s "$T/sweep.json.intervals.jsonl" 2>/dev/null || echo 0)
ncases=$(python3 -c "import json; print(len(json.load(open('$T/sweep.json'))['cases']))")
python3 - "$peak" "$json" "$side" "$ncases" "$INTERVALS" "$STUDY_CASES" <<'PY'
import sys
peak_kib, json_b, side_b, n, iv, study = map(int, sys.argv[1:])
per_case_json = json_b / n
print(f"measured: {n} cases x {iv} intervals: runner peak RSS {peak_kib/1024:.1f} MiB, "
      f"results {json_b/1048576:.2f} MiB ({per_case_json/1024:.1f} KiB/case), "
      f"interval series file {side_b/1048576:.1f} MiB")
est_json = per_case_json * study / 1048576
# the runner's memory grows with the document it keeps: about one JSON size's worth
est_mem = peak_kib / 1024 + (est_json - json_b / 1048576) * 3
print(f"extrapolated to {study} cases x {iv} intervals: results {est_json:.1f} MiB (goal < 20), "
      f"runner memory about {est_mem:.1f} MiB (goal < 50), series file {side_b / n * study / 1048576:.0f} MiB beside it")
PY
