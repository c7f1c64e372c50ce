#!/usr/bin/env bash
# benchcore compare and sysinfo: verdicts on hand-made fixtures with known
# answers (tests/fixtures/gen_compare_fixtures.py), then on real runs of the
# cpu module (a rate-limited run must lose with p < 0.05).
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
FX=tests/fixtures

# --- same system twice: every comparison a tie ------------------------------
run_bc "$T/same" compare $FX/cmp-a.json $FX/cmp-a2.json
expect_rc "compare same system" 0
expect_grep "same system: headline and secondary counted apart, all ties (equivalent)" "$T/same.out" \
	'^sysA-again: headline 0 wins, 0 losses, 5 ties \(equivalent\), 0 inconclusive, 0 suspect; secondary 0 wins, 0 losses, 22 ties \(equivalent\), 0 inconclusive, 0 suspect'
expect_grep "same system: the largest headline differences are listed with their intervals" "$T/same.out" \
	'^  cpu +cpu_max_prime=10000 threads=1 events_per_sec \+0\.1% \[-[0-9.]+% \.\. \+[0-9.]+%\] tie$'
expect_grep "same system: a tie says why: equivalent, interval inside the threshold" "$T/same.out" \
	'tie \(equivalent: [-+0-9.]+% \(80% CI [-+0-9.]+% \.\. [-+0-9.]+%\) within the 2% throughput threshold\)'
expect_grep "text: raw and adjusted p side by side" "$T/same.out" 'welch-log t=[-0-9.e]+ p=[0-9.]+ p_adj=[0-9.]+ +tie'
expect_grep "text: the adjustment and the thresholds are stated" "$T/same.out" \
	'adjusted over 27 tests \(Benjamini-Hochberg\)'
expect_no_grep "same system: no fingerprint warning" "$T/same.out" '^warning'

# --- 10% slower: losses with the exact U distribution -----------------------
run_bc "$T/slow" compare --json --test mwu $FX/cmp-a.json $FX/cmp-slow.json
expect_rc "compare --json slower system" 0
J=$T/slow.out
expect_py "slow: cpu 1 thread events_per_sec is a loss, U=25, p=2/252 (exact)" "$J" \
	'[(r["verdict"], r["statistic"], round(r["p"], 6), r["test"]) for r in d["comparisons"][0]["rows"] if r["module"] == "cpu" and r["threads"] == 1 and r["metric"] == "events_per_sec"] == [("loss", 25.0, round(2/252, 6), "mwu-exact")]'
expect_py "slow: latency p50 11% higher is a loss (lower is better, 5% latency threshold)" "$J" \
	'all(r["verdict"] == "loss" and not r["higher_is_better"] and r["kind"] == "latency" for r in d["comparisons"][0]["rows"] if r["metric"] == "event.p50_ms" and r["module"] == "cpu")'
expect_py "slow: p99 11% higher is a tie under the 15% tail threshold" "$J" \
	'all(r["verdict"] == "tie" and r["kind"] == "tail" and r["threshold_pct"] == 15 and "15% tail threshold" in r["reason"] for r in d["comparisons"][0]["rows"] if r["metric"] == "event.p99_ms" and r["module"] == "cpu")'
expect_py "slow: raw and adjusted p in every tested row" "$J" \
	'all("p" in r and "p_adj" in r and r["p_adj"] >= r["p"] / 2 for r in d["comparisons"][0]["rows"])'
run_bc "$T/slow99" compare --json --threshold-for event.p99_ms=5 $FX/cmp-a.json $FX/cmp-slow.json
expect_py "--threshold-for event.p99_ms=5: the same p99 is a loss" "$T/slow99.out" \
	'all(r["verdict"] == "loss" and r["threshold_source"] == "--threshold-for" for r in d["comparisons"][0]["rows"] if r["metric"] == "event.p99_ms" and r["module"] == "cpu")'
run_bc "$T/slowtail" compare --json --threshold-for tail=5 $FX/cmp-a.json $FX/cmp-slow.json
expect_py "--threshold-for tail=5: every p99 row gets it" "$T/slowtail.out" \
	'all(r["threshold_pct"] == 5 for r in d["comparisons"][0]["rows"] if r["metric"].endswith("p99_ms"))'
expect_py "slow: fairness stddev doubled is a loss (beyond the 50% fairness threshold)" "$J" \
	'all(r["verdict"] == "loss" for r in d["comparisons"][0]["rows"] if r["metric"] == "fairness_events_stddev" and r["module"] == "cpu")'
expect_py "slow: ratio and means" "$J" \
	'[(round(r["a_mean"], 6), round(r["b_mean"], 6), round(r["ratio"], 6)) for r in d["comparisons"][0]["rows"] if r["module"] == "cpu" and r["threads"] == 2 and r["metric"] == "events_per_sec"] == [(2000.0, 1800.0, 0.9)]'
expect_py "slow: summary counts" "$J" \
	'(lambda s: (s["wins"], s["losses"], s["ties"], s["inconclusive"], s["suspect"], s["headline"]["losses"], s["secondary"]["losses"]))(d["comparisons"][0]["summary"]) == (0, 14, 7, 0, 0, 4, 10)'
expect_py "slow: case only in A is listed (mem oper=write)" "$J" \
	'd["comparisons"][0]["only_in_a"] == [{"module": "mem", "params": {"block_size": 4096, "oper": "write"}, "threads": 1}] and d["comparisons"][0]["only_in_b"] == []'
expect_py "slow: fingerprint differences are kernel and os, not hostname" "$J" \
	'sorted(x["field"] for x in d["comparisons"][0]["host_differences"]) == ["kernel", "os"]'
expect_py "slow: failed cases (threads=8) are not compared" "$J" \
	'all(r["threads"] != 8 for r in d["comparisons"][0]["rows"])'
run_bc "$T/slowtxt" compare --test mwu $FX/cmp-a.json $FX/cmp-slow.json
expect_grep "text: fingerprint warning lists the kernel" "$T/slowtxt.out" '^warning: the fingerprints differ in 2 fields'
expect_grep "text: kernel values shown" "$T/slowtxt.out" 'B: 3\.10\.0-1160\.el7'
expect_grep "text: per-item summary names the winner" "$T/slowtxt.out" '^  cpu +events_per_sec +sysA wins \(0 win, 3 loss'
expect_grep "text: the test is stated" "$T/slowtxt.out" '^test: Mann-Whitney U, two-sided'

# --- params in another key order still match -------------------------------
run_bc "$T/order" compare --json --test mwu $FX/cmp-a.json $FX/cmp-a2.json
expect_py "params key order does not matter (mem matched, nothing unmatched)" "$T/order.out" \
	'd["comparisons"][0]["only_in_a"] == [] and d["comparisons"][0]["only_in_b"] == [] and sum(r["module"] == "mem" for r in d["comparisons"][0]["rows"]) == 12'
expect_py "identical distributions: exact p = 0.8413 (U=11 of 25)" "$T/order.out" \
	'[round(r["p"], 4) for r in d["comparisons"][0]["rows"] if r["module"] == "cpu" and r["threads"] == 1 and r["metric"] == "events_per_sec"] == [0.8413]'

# --- practical threshold ----------------------------------------------------
run_bc "$T/small" compare --json $FX/cmp-a.json $FX/cmp-faster-small.json
# significant, but its interval reaches past 2%: neither "the same" nor a win
expect_py "1.5% faster, significant, interval across 2%: inconclusive with the repeats it needs" "$T/small.out" \
	'[(r["verdict"], r["p_adj"] < 0.05, "reaches across the 2% throughput threshold" in r["reason"], r["ci_low_pct"] < 2 < r["ci_high_pct"], r["needs_repeats"] > 5) for r in d["comparisons"][0]["rows"] if r["module"] == "cpu" and r["threads"] == 1 and r["metric"] == "events_per_sec"] == [("inconclusive", True, True, True, True)]'
run_bc "$T/small1" compare --json --threshold 0.5% $FX/cmp-a.json $FX/cmp-faster-small.json
expect_py "--threshold 0.5%: the same difference, its interval wholly beyond 0.5%, is a win" "$T/small1.out" \
	'[(r["verdict"], r["ci_low_pct"] > 0.5) for r in d["comparisons"][0]["rows"] if r["module"] == "cpu" and r["threads"] == 1 and r["metric"] == "events_per_sec"] == [("win", True)] and d["threshold"] == 0.005'
run_bc "$T/small2" compare --json --threshold 10% $FX/cmp-a.json $FX/cmp-faster-small.json
expect_py "--threshold 10%: the same difference is a tie (equivalent within 10%)" "$T/small2.out" \
	'[r["verdict"] for r in d["comparisons"][0]["rows"] if r["module"] == "cpu" and r["threads"] == 1 and r["metric"] == "events_per_sec"] == ["tie"]'

# --- too few repeats ---------------------------------------------------------
run_bc "$T/two" compare --test mwu $FX/cmp-a.json $FX/cmp-two.json
expect_rc "compare with 2 repeats (a verdict is not an error)" 0
expect_grep "2 repeats: inconclusive, says how many are needed" "$T/two.out" \
	'events_per_sec .*inconclusive \(needs >=4 repeats on each side \(has 5 and 2\)\)'
expect_grep "2 repeats: totals" "$T/two.out" '^sysD-2rep: headline 0 wins, 0 losses, 0 ties \(equivalent\), 5 inconclusive, 0 suspect; secondary 0 wins, 0 losses, 0 ties \(equivalent\), 22 inconclusive'

# --- Welch ------------------------------------------------------------------
run_bc "$T/welch" compare --json --test welch $FX/cmp-a.json $FX/cmp-two.json
expect_py "--test welch: 2 repeats are testable, p from Welch's t" "$T/welch.out" \
	'd["test"] == "welch" and all(r["test"] == "welch-log" and "df" in r for r in d["comparisons"][0]["rows"] if r["metric"] == "events_per_sec")'

# --- CSV --------------------------------------------------------------------
run_bc "$T/csv" compare --csv --test mwu $FX/cmp-a.json $FX/cmp-slow.json
expect_py_csv() {
	local r; r=$(python3 -c 'import csv,sys; rows=list(csv.DictReader(open(sys.argv[1]))); print(eval(sys.argv[2]))' "$2" "$3" 2>&1)
	if [ "$r" = True ]; then pass "$1"; else fail "$1: $3 -> $r"; fi
}
expect_py_csv "CSV: one row per case x metric, parseable" "$T/csv.out" \
	'len(rows) == 21 and rows[0]["baseline"] == "sysA" and rows[0]["verdict"] == "loss" and rows[0]["test"] == "mwu-exact" and float(rows[0]["p_adj"]) >= float(rows[0]["p"]) / 2 and rows[0]["headline"] == "1" and float(rows[0]["ci_high_pct"]) < -5 and rows[0]["ci_level_pct"] == "80"'

# --- scaling view -----------------------------------------------------------
run_bc "$T/scale" compare $FX/cmp-sweep.json
expect_rc "one file: scaling view" 0
expect_grep "scaling: 4 threads at 98% of linear" "$T/scale.out" '^ +4 threads: 3920\.0 = 3\.92x = 98% of linear'
expect_grep "scaling: 8 threads at 60% of linear" "$T/scale.out" '^ +8 threads: 4800\.0 = 4\.80x = 60% of linear'
expect_grep "scaling: the study's \"500 x 8\": a value per thread times the threads" "$T/scale.out" '^ +4 threads: 3920\.0 = 3\.92x = 98% of linear \(980\.0 x 4\)$'
run_bc "$T/scalej" compare --scaling --json $FX/cmp-sweep.json
expect_py "scaling --json: efficiency values" "$T/scalej.out" \
	'[round(p["efficiency"], 4) for p in d[0]["scaling"][0]["points"]] == [1.0, 1.0, 0.98, 0.6]'

# --- errors: which file and why, exit 2 ------------------------------------
run_bc "$T/nofile" compare $FX/cmp-a.json "$T/missing.json"
expect_rc "missing file" 2
expect_grep "missing file: named, with the reason" "$T/nofile.err" 'missing\.json: cannot open: No such file'
printf '{"schema": "benchcore/1", "cases": [' > "$T/trunc.json"
run_bc "$T/trunc" compare $FX/cmp-a.json "$T/trunc.json"
expect_rc "truncated JSON" 2
expect_grep "truncated JSON: says where" "$T/trunc.err" 'trunc\.json: invalid JSON at line 1'
echo '{"schema": "other/2", "cases": []}' > "$T/schema.json"
run_bc "$T/schema" compare "$T/schema.json" $FX/cmp-a.json
expect_rc "wrong schema" 2
expect_grep "wrong schema: says so" "$T/schema.err" 'schema\.json: not a benchcore/1 results file \(schema is other/2\)'
echo '{"schema": "benchcore/1", "cases": [{"module": "cpu", "status": "ok", "threads": "four"}]}' > "$T/threads.json"
run_bc "$T/thr" compare $FX/cmp-a.json "$T/threads.json"
expect_rc "bad field type" 2
expect_grep "bad field type: names the field" "$T/thr.err" 'cases\[0\]\.threads: not an integer'
run_bc "$T/thresh" compare --threshold abc $FX/cmp-a.json $FX/cmp-a2.json
expect_rc "bad --threshold" 2
# compare and report share one parser: the same values are refused by both
for bad in "--threshold 1500" "--threshold-for read.p99_ms" "--threshold-for x=-1" "--adjust fdr" "--alpha 1" "--level 40" "--level 100"; do
	run_bc "$T/badc" compare $bad $FX/cmp-a.json $FX/cmp-a2.json
	expect_rc "compare refuses $bad" 2
	run_bc "$T/badr" report $bad $FX/cmp-a.json $FX/cmp-a2.json -o "$T/bad.html"
	expect_rc "report refuses $bad like compare" 2
	if [ "$(head -1 "$T/badc.err" | sed 's/^benchcore compare: //')" = "$(head -1 "$T/badr.err" | sed 's/^benchcore report: //')" ]; then
		pass "compare and report say the same about $bad"
	else
		fail "compare and report differ on $bad: $(head -1 "$T/badc.err") / $(head -1 "$T/badr.err")"
	fi
done
check "report with a refused option wrote nothing" test ! -e "$T/bad.html"

# --- ABI 1.1 fields: headline, module thresholds, busy machine ---------------
run_bc "$T/busy" compare --json $FX/cmp-v11-quiet.json $FX/cmp-v11-busy.json
expect_py "busy: 10% slower with other processes at 12% (and steal 0.5%) on B is suspect, not a loss" "$T/busy.out" \
	'all(r["verdict"] == "suspect" and r["direction"] == "loss" and r["busy"] and r["busy_pct"] == 12.5 for r in d["comparisons"][0]["rows"] if r["metric"] == "events_per_sec")'
expect_py "busy: suspects counted apart, no wins or losses" "$T/busy.out" \
	'(lambda s: (s["wins"], s["losses"], s["suspect"], s["headline"]["suspect"]))(d["comparisons"][0]["summary"]) == (0, 0, 10, 5)'
expect_py "busy: mem's headline is the declared mib_per_sec" "$T/busy.out" \
	'[r["metric"] for r in d["comparisons"][0]["rows"] if r["module"] == "mem" and r["headline"]] == ["mib_per_sec", "mib_per_sec"]'
expect_py "busy: cpu declares 20% for event.p99_ms: +11% is a tie by the module's threshold" "$T/busy.out" \
	'all(r["threshold_source"] == "module" and r["threshold_pct"] == 20 and r["verdict"] == "tie" for r in d["comparisons"][0]["rows"] if r["metric"] == "event.p99_ms" and r["module"] == "cpu")'
run_bc "$T/busytxt" compare $FX/cmp-v11-quiet.json $FX/cmp-v11-busy.json
expect_grep "busy text: says why, with the direction" "$T/busytxt.out" 'suspect loss \(loss in the direction interference could cause: steal and other processes took 12% of B.s CPUs, enough to make it up to 14\.3% slower \(time per unit of work\)\)'
# what differs (issue 52 item 4): B's CPUs 12% taken by other processes is named first,
# before a VM's node memory that moved by itself (6268153856 -> 11905298432 on node 0,
# the total within 5%: memory moved between nodes) and never that memory; module
# info a module lists in per_run (a random key prefix, rows a load inserted) is no
# fact that differs in --table, while a version that differs still is
"$PY" -S - $FX/cmp-v11-quiet.json $FX/cmp-v11-busy.json $T/wq.json $T/wb.json <<'PYEOF'
import json, sys
for src, out, mem, pre, rows, ver in ((sys.argv[1], sys.argv[3], (6268153856, 11905298432), "benchcore:0ddc1111aaaa2222:", "599210", "3.0.1"),
                                      (sys.argv[2], sys.argv[4], (11905298432, 6268153856), "benchcore:9f9f3333bbbb4444:", "598259", "3.1.0")):
    d = json.load(open(src))
    d["host"]["numa"] = [{"node": 0, "cpus": "0-1", "memory_bytes": mem[0]}, {"node": 1, "cpus": "2-3", "memory_bytes": mem[1]}]
    for c in d["cases"]:
        c.setdefault("info", {}).update({"key_prefix": pre, "load_rows": rows, "per_run": "key_prefix, load_rows", "lib_version": ver})
    json.dump(d, open(out, "w"))
PYEOF
run_bc "$T/why" compare $T/wq.json $T/wb.json
expect_grep "what differs: interference on B's CPUs ranks first" "$T/why.out" \
	"^what differs, most likely to explain a difference: interference \(steal and other processes took 12% of B's CPUs' time\)"
expect_no_grep "what differs: a node's memory that moved by itself is no cause" "$T/why.out" '^what differs.*numa'
run_bc "$T/whytab" compare --table $T/wq.json $T/wb.json
expect_no_grep "--table: a per-run key prefix is no fact that differs" "$T/whytab.out" 'info: (key_prefix|load_rows|per_run)'
expect_grep "--table: a version that differs still is" "$T/whytab.out" '^cpu info: lib_version +3\.0\.1 +3\.1\.0'
# summary rows (issue 52 item 7): the first file's summary_rows chooses and orders the
# rows (a module these files did not run is left out: a part run with --only), a
# closing line counts them; --summary-rows beats it and refuses what no file has
"$PY" -S - $FX/cmp-a.json $T/sra.json <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); d["config"]["summary_rows"] = ["mem", "cpu.fairness", "oltp", "cpu"]
json.dump(d, open(sys.argv[2], "w"))
PYEOF
run_bc "$T/sr" compare --summary-table --format json $T/sra.json $FX/cmp-slow.json
expect_rc "--summary-table with the file's summary_rows" 0
expect_py "--summary-table: the file's rows, in its order, oltp (not run) left out" "$T/sr.out" \
	'[r[0] for r in d["rows"]] == ["mem mib_per_sec", "cpu fairness (stddev of events per thread)", "cpu events_per_sec"]'
expect_py "--summary-table: the closing line counts the items" "$T/sr.out" \
	'any(n.startswith("sysB-slow against sysA: sysB-slow worse in ") and n.split(", ")[0].endswith(" of 3") for n in d["notes"])'
run_bc "$T/sr2" compare --summary-table --summary-rows cpu,oltp $T/sra.json $FX/cmp-slow.json
expect_rc "--summary-rows naming a module no file ran: refused" 2
expect_grep "--summary-rows: the item is named" "$T/sr2.err" "item 'oltp'"
run_bc "$T/sr3" compare --table --summary-rows cpu $T/sra.json $FX/cmp-slow.json
expect_rc "--summary-rows without --summary-table: refused" 2
# one judge: --table and --summary-table carry compare's verdict, with its direction
run_bc "$T/busytab" compare --table $FX/cmp-v11-quiet.json $FX/cmp-v11-busy.json
expect_grep "busy --table: suspect with its direction" "$T/busytab.out" '^cpu threads=1 events_per_sec +1001 ±0\.8% +900 ±0\.9% suspect loss -10\.1%$'
run_bc "$T/busysum" compare --summary-table $FX/cmp-v11-quiet.json $FX/cmp-v11-busy.json
expect_grep "busy --summary-table: suspect with its direction" "$T/busysum.out" '^cpu events_per_sec +suspect loss \(3 of 3\)$'
"$PY" -S - "$T/busy.out" "$T/busytab.out" <<'PYEOF' >"$T/agree.txt"
import json, sys, re
rows = [r for r in json.load(open(sys.argv[1]))["comparisons"][0]["rows"] if r["headline"]]
cells = [l for l in open(sys.argv[2]) if re.match(r"^(cpu|mem) ", l)]
want = [r["verdict"] + (" " + r["direction"] if r["verdict"] == "suspect" else "") for r in rows]
got = [re.search(r"(win|loss|tie|inconclusive|suspect (win|loss)) [-+]", l).group(1) for l in cells]
print("ok" if sorted(want) == sorted(got) and len(got) == len(want) else "differ %s %s" % (want, got))
PYEOF
expect_grep "--table's verdicts are compare's, case by case" "$T/agree.txt" '^ok$'
# --- the studies' views as the studies use them (issue 42, items 4 and 7) -----
# an unknown metric: exit 2, naming it and listing the ones the files have
run_bc "$T/badm" compare --table --metric bogus_metric $FX/cmp-vm1.json $FX/cmp-vm2.json
expect_rc "--table --metric bogus_metric: refused" 2
expect_grep "--metric bogus_metric: names the metric" "$T/badm.err" "no case of the files given has a metric named 'bogus_metric'"
expect_grep "--metric bogus_metric: lists the files' metrics" "$T/badm.err" \
	'^DETAIL: Known metrics of the files given: events_per_sec, .*sign_per_sec, verify_per_sec.*\.$'
check "--metric bogus_metric: nothing on stdout" test ! -s "$T/badm.out"
run_bc "$T/badm2" compare --per-ghz --metric sign_per_sec,bogus $FX/cmp-vm1.json $FX/cmp-vm2.json
expect_rc "--per-ghz --metric sign_per_sec,bogus: refused" 2
expect_grep "--metric a,bogus: names the unknown one" "$T/badm2.err" "metric named 'bogus'"
run_bc "$T/badm3" compare --summary-table --metric sign_per_sec $FX/cmp-vm1.json $FX/cmp-vm2.json
expect_rc "--metric with --summary-table (which reads each headline): refused" 2
# two metrics: one column group each, as data in JSON and CSV
run_bc "$T/m2" compare --table --metric sign_per_sec,verify_per_sec --json $FX/cmp-vm1.json $FX/cmp-vm2.json
expect_rc "--table --metric sign_per_sec,verify_per_sec --json" 0
expect_py "two metrics: a column group each (sign/s of vm1, vm2, then verify/s)" "$T/m2.out" \
	'd["columns"] == ["case", "sign_per_sec vm1", "sign_per_sec vm2", "verify_per_sec vm1", "verify_per_sec vm2"]'
expect_py "two metrics: each rsa case one row, sign/s and verify/s side by side with their verdicts" "$T/m2.out" \
	'[r for r in d["rows"] if r[0] == "rsa threads=4"] == [["rsa threads=4", "1996 ±1.8%", "1331 ±1.8% loss -33.3%", "59880 ±1.8%", "39920 ±1.8% loss -33.3%"]]'
run_bc "$T/m2c" compare --table --metric sign_per_sec,verify_per_sec --format csv $FX/cmp-vm1.json $FX/cmp-vm2.json
expect_grep "two metrics, CSV: the header's column groups" "$T/m2c.out" \
	'^case,sign_per_sec vm1,sign_per_sec vm2,verify_per_sec vm1,verify_per_sec vm2$'
expect_grep "two metrics, CSV: a row" "$T/m2c.out" '^rsa threads=1,499 ±1\.8%,332\.7 ±1\.8% loss -33\.3%,14970 ±1\.8%,9980 ±1\.8% loss -33\.3%$'
run_bc "$T/m2g" compare --per-ghz --metric sign_per_sec,verify_per_sec --json $FX/cmp-vm1.json $FX/cmp-vm2.json
expect_py "--per-ghz with two metrics: a row each, and the proportional verdict" "$T/m2g.out" \
	'[r[0] for r in d["rows"]] == ["rsa threads=1 sign_per_sec", "rsa threads=1 verify_per_sec", "rsa threads=4 sign_per_sec", "rsa threads=4 verify_per_sec"] and any(n.startswith("vm2 against vm1: throughput is proportional to the clock (4 of 4 cases; largest deviation +0.0%)") for n in d["notes"])'
# a module one file did not run: said so, not "0 of 0"
run_bc "$T/notrun" compare --summary-table --json $FX/cmp-vm1.json $FX/cmp-vm2.json
expect_py "--summary-table: a module vm2 did not run is 'not run in vm2'" "$T/notrun.out" \
	'["cpu events_per_sec", "not run in vm2"] in d["rows"] and not any("of 0)" in c for r in d["rows"] for c in r)'
run_bc "$T/notrun2" compare --summary-table --json $FX/cmp-vm2.json $FX/cmp-vm1.json
expect_py "--summary-table: a module only the second file ran is 'not run in' the first" "$T/notrun2.out" \
	'["cpu events_per_sec", "not run in vm2"] in d["rows"]'
# a module fact that differs between the systems (the OpenSSL version) is a row of --table
run_bc "$T/info" compare --table --json $FX/cmp-vm1.json $FX/cmp-vm2.json
expect_py "--table: the OpenSSL version each system's rsa cases recorded, as a row after rsa's cases" "$T/info.out" \
	'[r[0] for r in d["rows"]][:3] == ["rsa threads=1 sign_per_sec", "rsa threads=4 sign_per_sec", "rsa info: openssl_version"] and d["rows"][2][1:] == ["OpenSSL 1.0.2k-fips  26 Jan 2017", "OpenSSL 3.0.2 15 Mar 2022"]'
expect_py "--table: a fact the same on both (rsa.signature) and one of a module only one ran (cpu) are no rows" "$T/info.out" \
	'not any(r[0] in ("rsa info: signature", "cpu info: prime_limit") for r in d["rows"])'
# busy_threshold: the flag, and the runs' own setting when both files say the same
run_bc "$T/busy20" compare --json --busy-threshold 20 $FX/cmp-v11-quiet.json $FX/cmp-v11-busy.json
expect_py "--busy-threshold 20: 12.5% is not weighed, 10% slower is a loss" "$T/busy20.out" \
	'd["busy_pct"] == 20 and all(r["verdict"] == "loss" for r in d["comparisons"][0]["rows"] if r["metric"] == "events_per_sec")'
for f in quiet busy; do
	"$PY" -S -c 'import json,sys; d=json.load(open(sys.argv[1])); d["config"]["busy_threshold"]=20; json.dump(d, open(sys.argv[2], "w"))' \
		$FX/cmp-v11-$f.json "$T/bt-$f.json"
done
run_bc "$T/bt" compare --json "$T/bt-quiet.json" "$T/bt-busy.json"
expect_py "busy_threshold = 20 in both files: compare judges with it" "$T/bt.out" \
	'all(r["verdict"] == "loss" for r in d["comparisons"][0]["rows"] if r["metric"] == "events_per_sec")'
run_bc "$T/bt1" compare --json "$T/bt-quiet.json" $FX/cmp-v11-busy.json
expect_py "busy_threshold in one file only: the default 5" "$T/bt1.out" \
	'all(r["verdict"] == "suspect" for r in d["comparisons"][0]["rows"] if r["metric"] == "events_per_sec")'
run_bc "$T/btbad" compare --busy-threshold 101 $FX/cmp-v11-quiet.json $FX/cmp-v11-busy.json
expect_rc "--busy-threshold 101: refused" 2
# --- the run's own server is not "other" (issue 26) ---------------------------
run_bc "$T/srv" compare --json $FX/cmp-v11-quiet.json $FX/cmp-v13-server.json
expect_py "a local server at 45% of the CPU (cpu.server_pct), others 1%: 10% slower is a loss, not suspect" "$T/srv.out" \
	'(lambda s: (s["losses"] >= 5, s["suspect"], s["headline"]["losses"]))(d["comparisons"][0]["summary"]) == (True, 0, 5) and not any(r["busy"] for r in d["comparisons"][0]["rows"])'

# --- the study's row: +128% at 3 noisy repeats is never a tie -----------------
run_bc "$T/study" compare $FX/cmp-study-a.json $FX/cmp-study-b.json
expect_grep "study: io iops +128% at 3 repeats is inconclusive with the repeats it needs, not a tie" "$T/study.out" \
	'^ +2  iops .*\+129\.6% \[\+51\.3% \.\. \+248\.5%\] .* inconclusive \(not significant \(p adj 0\.0761 >= 0\.05\): .* needs ~5 repeats\)$'
expect_grep "study: the summary counts it as inconclusive, headline apart" "$T/study.out" \
	'^centos7: headline 0 wins, 0 losses, 0 ties \(equivalent\), 1 inconclusive, 0 suspect;'
expect_grep "study: and lists it among the largest headline differences with its interval" "$T/study.out" \
	'^  io +block_size=4096 rw=randread threads=2 iops \+129\.6% \[\+51\.3% \.\. \+248\.5%\] inconclusive \(needs ~5 repeats\)$'

run_bc "$T/mixed" compare $FX/cmp-a.json $FX/cmp-v11-quiet.json
expect_rc "an old file (benchcore/1 without the 1.1 fields) against a new one" 0
expect_grep "old against new: all ties" "$T/mixed.out" '^sysE-quiet: headline 0 wins, 0 losses, 5 ties \(equivalent\)'

run_bc "$T/none" compare
expect_rc "no files" 2

# --- --help is true and complete -------------------------------------------
run_bc "$T/help" compare --help
expect_rc "compare --help" 0
bad=""
for opt in $(grep -oE -- '--[a-z][a-z-]*[a-z]' "$T/help.out" | sort -u); do
	case $opt in --help|--split) continue;; esac
	arg=""; case $opt in --threshold) arg=3;; --alpha) arg=0.1;; --test) arg=welch;;
		--threshold-for) arg=tail=20;; --adjust) arg=holm;; --format) arg=markdown;; --level) arg=90;;
		--match-ignore) arg=max_prime;; --by) arg=cpu.max_prime;; --metric) arg="events_per_sec --table";; --summary-rows) arg="cpu --summary-table";; --busy-threshold) arg=10;;
		--fail-on) arg="loss --allow-missing";; --fail-on-metric) arg="all --fail-on loss --allow-missing";;
		--allow-missing) arg="--fail-on loss";; --junit) arg=$T/help.xml;; esac
	"$BC" compare $opt $arg $FX/cmp-a.json $FX/cmp-a2.json >/dev/null 2>&1 || bad="$bad $opt"
done
if [ -z "$bad" ]; then pass "every option in compare --help is accepted"; else fail "options in --help rejected:$bad"; fi
# --split takes one file that swept a machine setting (test_machine runs real ones): a file that
# swept none is refused by name, not taken for an unknown flag
run_bc "$T/split" compare --split machine.thp $FX/cmp-a.json
expect_rc "--split over a file that swept no machine setting" 2
expect_grep "... the setting and the file named" "$T/split.err" 'cmp-a.json has no value of machine setting "thp"'

# --- sysinfo ---------------------------------------------------------------
run_bc "$T/si" sysinfo --json --io-path "$T"
expect_rc "sysinfo --json" 0
# cpu_mhz, topology and governor depend on what the machine shows: test_sysinfo.sh
expect_py "sysinfo: fingerprint fields present" "$T/si.out" \
	'all(k in d for k in ("hostname", "cpu_model", "threads", "boost", "virtualization", "memory_bytes", "kernel", "kernel_cmdline", "os", "libc", "compiler", "cflags", "libraries", "warnings"))'
expect_py "sysinfo: io target file system and mount options" "$T/si.out" \
	'd["io"]["fs_type"] and d["io"]["mount_options"] and d["io"]["path"].startswith("/tmp/")'
expect_py "sysinfo: library versions (jansson, libconfig from headers)" "$T/si.out" \
	'd["libraries"]["jansson"].startswith("2.") and d["libraries"]["libconfig"].count(".") == 2'
expect_py "sysinfo: compiler and flags of this build" "$T/si.out" \
	'("gcc" in d["compiler"] or "clang" in d["compiler"]) and "-std=gnu11" in d["cflags"]'
expect_py "sysinfo: warns about governor/boost when not performance/off" "$T/si.out" \
	'(d.get("governor") == "performance" and d.get("boost") == "off") or len(d["warnings"]) > 0'
run_bc "$T/sit" sysinfo
expect_grep "sysinfo text: readable lines" "$T/sit.out" '^kernel +[0-9]'
run_bc "$T/sib" sysinfo --bogus
expect_rc "sysinfo: unknown option" 2

# --- real runs of the cpu module --------------------------------------------
# (a loss at p < 0.05 on live runs: the full form only, with nothing beside it)
if [ "${BC_QUICK:-0}" = 1 ]; then echo "QUICK: real cpu runs, a rate-limited one's loss at p < 0.05 (4 checks): make check-full"; else
rc_run() { "$BC" run cpu -q --time 0.3 --warmup 0.1 --repeat 4 --force "$@" >/dev/null 2>"$T/run.err"; }
if rc_run --label full -o "$T/r1.json" && rc_run --label full2 -o "$T/r2.json" &&
   rc_run --rate 300 --label slowed -o "$T/r3.json"; then
	run_bc "$T/real" compare --json "$T/r1.json" "$T/r2.json" "$T/r3.json"
	expect_rc "compare three real result files" 0
	expect_py "real: same config matches every case" "$T/real.out" \
		'd["comparisons"][0]["only_in_a"] == [] and any(r["metric"] == "events_per_sec" for r in d["comparisons"][0]["rows"])'
	expect_py "real: rate-limited run loses events_per_sec with adjusted p < 0.05 (or is suspect on a busy machine)" "$T/real.out" \
		'[(r["verdict"] if r["verdict"] != "suspect" else r["direction"], r["p_adj"] < 0.05) for r in d["comparisons"][1]["rows"] if r["metric"] == "events_per_sec"] == [("loss", True)]'
	expect_py "real: host fingerprint of the writer has no differences" "$T/real.out" \
		'd["comparisons"][0]["host_differences"] == []'
else
	fail "benchcore run cpu for real result files: $(tail -3 "$T/run.err")"
fi
fi

# --- a module's library version (recorded in case info) counts as a machine difference
python3 - tests/fixtures/cmp-a.json $T/facts-a.json $T/facts-b.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for out, ver in ((sys.argv[2], "FooSSL 1.0.0"), (sys.argv[3], "FooSSL 1.0.1")):
    for c in d["cases"]:
        c.setdefault("info", {})["lib_version"] = ver
    d["host"]["kernel"] = "k-" + ver[-1]
    json.dump(d, open(out, "w"))
PY
run_bc $T/facts compare $T/facts-a.json $T/facts-b.json
expect_grep "compare lists a module's recorded library version among the differences" $T/facts.out \
	'^  cpu\.lib_version +A: FooSSL 1\.0\.0'

# one machine whose measured clock moved between the runs (a shared host's turbo): a win or loss
# that per GHz is within the threshold is suspect, naming the clock; a larger one stays a loss; on
# two machines the clock is the machine's, and the loss stands
"$PY" - $FX/cmp-a.json $T/clk <<'PY'
import json, sys, copy
a = json.load(open(sys.argv[1])); base = sys.argv[2]
a["host"]["cpu_id"] = "AuthenticAMD 25/1/1"
for c in a["cases"]:
    c["cpu_freq"] = {"measured_mhz": 3000.0}
json.dump(a, open(base + "-a.json", "w"))
def slower(rate, clock, host=None):
    b = copy.deepcopy(a)
    for c in b["cases"]:
        m = (c.get("metrics") or {}).get("events_per_sec")
        if m:
            m["value"] *= rate
        c["cpu_freq"]["measured_mhz"] *= clock
    if host:
        b["host"]["hostname"] = host
    return b
json.dump(slower(0.95, 0.95), open(base + "-drift.json", "w"))
json.dump(slower(0.90, 0.95), open(base + "-real.json", "w"))
json.dump(slower(0.95, 0.95, "db2"), open(base + "-other.json", "w"))
PY
row() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1]))["comparisons"][0]
r=[r for r in d["rows"] if r["module"]=="cpu" and r["metric"]=="events_per_sec" and r["threads"]==1][0]
print(r["verdict"], r.get("reason") or "")' "$1"; }
run_bc $T/clk1 compare --json $T/clk-a.json $T/clk-drift.json
expect_grep "one machine, -5% with the clock -5%: suspect, naming the clock and the change per GHz" \
	"$(row $T/clk1.out >$T/clk1.row; echo $T/clk1.row)" '^suspect loss on one machine whose measured clock moved -5\.0% between the runs: per GHz \+0\.0%'
run_bc $T/clk2 compare --json $T/clk-a.json $T/clk-real.json
expect_grep "one machine, -10% with the clock -5%: still a loss (per GHz -5.3%)" "$(row $T/clk2.out >$T/clk2.row; echo $T/clk2.row)" '^loss'
run_bc $T/clk3 compare --json $T/clk-a.json $T/clk-other.json
expect_grep "two machines: the clock is the machine's, the loss stands" "$(row $T/clk3.out >$T/clk3.row; echo $T/clk3.row)" '^loss'
