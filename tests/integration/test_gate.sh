#!/usr/bin/env bash
# The CI gate (issue 53): compare --fail-on's exit status 4 and its closing
# lines on fixtures with known verdicts (tests/fixtures/cmp-*.json: a loss, a
# suspect loss, inconclusive rows, missing and failed cases) and on a real
# pair of cpu runs (max_prime 10000 against 20000); --junit validated with
# xmllint against tests/junit.xsd and its failures counted; --format
# markdown; history --fail-on-change on a series whose last runs are slower
# (tests/fixtures/gen_history.py) and on a flat one; the refusals.
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
FX=tests/fixtures
XSD=tests/junit.xsd

# the fixtures without their failed cases (each has one at threads=8): clean pairs
for f in cmp-a cmp-a2 cmp-slow cmp-faster-small cmp-v11-quiet cmp-v11-busy; do
	"$PY" -S -c 'import json,sys; d=json.load(open(sys.argv[1])); d["cases"]=[c for c in d["cases"] if c["status"]=="ok"]; json.dump(d, open(sys.argv[2], "w"))' \
		"$FX/$f.json" "$T/$f.json"
done

# junit_ok DESC FILE FAILURES SKIPPED: valid against the schema, with these totals
junit_ok() {
	if xmllint --noout --schema "$XSD" "$2" >"$T/xmllint.out" 2>&1; then
		pass "$1: valid against $XSD"
	else
		fail "$1: not valid: $(head -3 "$T/xmllint.out")"
	fi
	expect_py_xml "$1: $3 failures, $4 skipped (the suites' counts and the elements agree)" "$2" "$3" "$4"
}
expect_py_xml() {
	local r
	r=$("$PY" -S - "$2" "$3" "$4" <<'PY' 2>&1
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
f = len(root.findall("./testsuite/testcase/failure"))
s = len(root.findall("./testsuite/testcase/skipped"))
cf = sum(int(t.get("failures")) for t in root.findall("testsuite"))
cs = sum(int(t.get("skipped")) for t in root.findall("testsuite"))
ct = sum(int(t.get("tests")) for t in root.findall("testsuite"))
n = len(root.findall("./testsuite/testcase"))
print("ok" if (f, s) == (cf, cs) == (int(sys.argv[2]), int(sys.argv[3])) and n == ct else "got %d/%d failures, %d/%d skipped, %d/%d tests" % (f, cf, s, cs, n, ct))
PY
)
	if [ "$r" = ok ]; then pass "$1"; else fail "$1: $r"; fi
}

# --- a loss: exit 4 with --fail-on loss, 0 without ---------------------------
run_bc "$T/loss" compare --fail-on loss "$T/cmp-a.json" "$T/cmp-slow.json"
expect_rc "compare --fail-on loss, a 10% slower B" 4
expect_grep "the failing rows last, one line each with ratio, interval and threshold" "$T/loss.out" \
	'^FAIL loss: cpu cpu_max_prime=10000 threads=1 events_per_sec ratio 0\.9 \[-10\.6% \.\. -9\.4%\] \(80% interval\) threshold 2% \(default\) n=5/5, sysB-slow against sysA$'
check "the gate's verdict is the last line" bash -c "tail -1 '$T/loss.out' | grep -q '^gate: FAILED (--fail-on loss): 4 failures over 4 gated rows (exit status 4)$'"
check "secondary losses do not fail the gate by default" bash -c "! grep -q '^FAIL loss: .*event.p50_ms' '$T/loss.out'"
run_bc "$T/nogate" compare "$T/cmp-a.json" "$T/cmp-slow.json"
expect_rc "compare without --fail-on: 0 whatever the verdicts" 0
expect_no_grep "no gate line without --fail-on" "$T/nogate.out" '^gate:'
run_bc "$T/sec" compare --fail-on loss --fail-on-metric event.p50_ms "$T/cmp-a.json" "$T/cmp-slow.json"
expect_grep "--fail-on-metric event.p50_ms: its losses fail too" "$T/sec.out" '^gate: FAILED .*: 7 failures over 8 gated rows'
run_bc "$T/secall" compare --fail-on loss --fail-on-metric all "$T/cmp-a.json" "$T/cmp-slow.json"
expect_grep "--fail-on-metric all: every metric's losses" "$T/secall.out" '^gate: FAILED .*: 14 failures over 2[0-9] gated rows'
run_bc "$T/json" compare --json --fail-on loss "$T/cmp-a.json" "$T/cmp-slow.json"
expect_rc "--json --fail-on loss" 4
expect_py "--json: stdout stays one document" "$T/json.out" 'd["schema"] == "benchcore-compare/1"'
expect_grep "--json: the gate's lines on stderr" "$T/json.err" '^gate: FAILED'

# --- A/A: passes -------------------------------------------------------------
run_bc "$T/aa" compare --fail-on loss "$T/cmp-a.json" "$T/cmp-a2.json"
expect_rc "A/A (same system twice): --fail-on loss passes" 0
expect_grep "A/A: says it passed" "$T/aa.out" '^gate: passed \(--fail-on loss\): no failure over 5 gated rows$'

# --- suspect and inconclusive only when listed -------------------------------
run_bc "$T/sus" compare --fail-on loss "$T/cmp-v11-quiet.json" "$T/cmp-v11-busy.json"
expect_rc "suspect losses pass --fail-on loss" 0
run_bc "$T/sus2" compare --fail-on loss,suspect "$T/cmp-v11-quiet.json" "$T/cmp-v11-busy.json"
expect_rc "suspect losses fail --fail-on loss,suspect" 4
expect_grep "a suspect loss is named so" "$T/sus2.out" '^FAIL suspect loss: cpu '
run_bc "$T/inc" compare --fail-on loss,suspect "$T/cmp-a.json" "$T/cmp-faster-small.json"
expect_rc "inconclusive rows pass unless listed" 0
run_bc "$T/inc2" compare --fail-on inconclusive "$T/cmp-a.json" "$T/cmp-faster-small.json"
expect_rc "--fail-on inconclusive: they fail" 4
expect_grep "an inconclusive row named with its interval" "$T/inc2.out" '^FAIL inconclusive: cpu .*ratio 1\.01[0-9]* \[.*\] \(80% interval\) threshold 2%'

# --- missing and failed cases ------------------------------------------------
run_bc "$T/miss" compare --fail-on loss "$T/cmp-slow.json" "$T/cmp-a.json"
expect_rc "B with a case A has not: fails" 4
expect_grep "the missing case named" "$T/miss.out" '^FAIL missing: mem block_size=4096 oper=write threads=1 of sysA has no case in sysB-slow'
run_bc "$T/miss2" compare --fail-on loss --allow-missing "$T/cmp-slow.json" "$T/cmp-a.json"
expect_rc "--allow-missing: it passes" 0
run_bc "$T/notok" compare --fail-on loss "$FX/cmp-a.json" "$FX/cmp-a2.json"
expect_rc "B with a failed case: fails" 4
expect_grep "the failed cases counted" "$T/notok.out" '^FAIL not ok: 1 of 26 cases of sysA-again failed'
run_bc "$T/notok2" compare --fail-on loss --allow-missing "$FX/cmp-a.json" "$FX/cmp-a2.json"
expect_rc "--allow-missing: a failed case passes" 0

# --- JUnit -------------------------------------------------------------------
run_bc "$T/ju" compare --junit "$T/loss.xml" "$T/cmp-a.json" "$T/cmp-slow.json"
expect_rc "--junit without --fail-on: exit 0" 0
junit_ok "junit of a 10% slower B" "$T/loss.xml" 14 0
expect_grep "junit: a loss carries its figures" "$T/loss.xml" \
	'<failure message="loss: ratio 0\.9 \[-10\.6% \.\. -9\.4%\] \(80% interval\), threshold 2% \(default\), mean 1000 -&gt; 900 events/s, n=5/5" type="loss">'
run_bc "$T/ju2" compare --junit "$T/sus.xml" --fail-on loss "$T/cmp-v11-quiet.json" "$T/cmp-v11-busy.json"
junit_ok "junit of suspect losses: skipped with the reason" "$T/sus.xml" 0 "$(grep -c '<skipped' "$T/sus.xml")"
expect_grep "junit: a suspect row skipped with its reason" "$T/sus.xml" '<skipped message="suspect loss: .*interference'
run_bc "$T/ju3" compare --junit "$T/miss.xml" --fail-on loss "$T/cmp-slow.json" "$T/cmp-a.json"
expect_grep "junit: a missing case is a failure" "$T/miss.xml" 'type="missing"'
xmllint --noout --schema "$XSD" "$T/miss.xml" >/dev/null 2>&1; check "junit with a missing case: valid" test $? -eq 0
# hostile labels: markup and control characters stay text
"$PY" -S -c 'import json,sys; d=json.load(open(sys.argv[1])); d["label"]="<x a=\"1\">&amp;\u0001]]>"; json.dump(d, open(sys.argv[2], "w"))' \
	"$T/cmp-slow.json" "$T/evil.json"
run_bc "$T/ev" compare --junit "$T/evil.xml" "$T/cmp-a.json" "$T/evil.json"
junit_ok "junit with markup in a label" "$T/evil.xml" 14 0
run_bc "$T/juin" compare --junit "$T/cmp-a.json" "$T/cmp-a.json" "$T/cmp-slow.json"
expect_rc "--junit over an input file: refused" 2
check "the input is untouched" cmp -s "$T/cmp-a.json" <("$PY" -S -c 'import json,sys; d=json.load(open(sys.argv[1])); d["cases"]=[c for c in d["cases"] if c["status"]=="ok"]; json.dump(d, sys.stdout)' "$FX/cmp-a.json")
run_bc "$T/judir" compare --junit "$T/nodir/x.xml" "$T/cmp-a.json" "$T/cmp-slow.json"
expect_rc "--junit into a missing directory: the --junit file not written (docs/ci.md)" 3
expect_grep "... saying why" "$T/judir.err" "^benchcore compare: --junit $T/nodir/x.xml: cannot write in $T/nodir"

# --- markdown ----------------------------------------------------------------
run_bc "$T/md" compare --format markdown --fail-on loss "$T/cmp-a.json" "$T/cmp-slow.json"
expect_rc "--format markdown --fail-on loss" 4
expect_grep "markdown: the headline table" "$T/md.out" '^| module | params | threads | metric | change | 80% interval | threshold | repeats A/B | verdict |$'
expect_grep "markdown: a loss in bold, marked as failing the gate" "$T/md.out" '^| cpu | cpu\\_max\\_prime=10000 | 1 | events\\_per\\_sec | -10\.0% | -10\.6% \.\. -9\.4% | 2% | 5/5 | \*\*loss\*\* (fails the gate) |$'
expect_grep "markdown: the machines' differences" "$T/md.out" '^| kernel | 5\.10\.0-26-amd64 | 3\.10\.0-1160\.el7\.x86\\_64 |$'
expect_no_grep "markdown: no links" "$T/md.out" 'https?://|\]\(|<a '
"$PY" -S - "$T/md.out" <<'PY' >"$T/mdorder" 2>&1
import sys
rows = [l for l in open(sys.argv[1]) if l.startswith("| ") and "verdict" not in l and ("loss" in l or "inconclusive" in l or "tie" in l or "win" in l)]
print("ok" if rows else "no rows")
PY
expect_grep "markdown: table rows present" "$T/mdorder" '^ok$'
# hostile label and params: the gate's failing lines after the page are Markdown too (issue 59)
"$PY" -S -c 'import json,sys
d=json.load(open(sys.argv[1])); d["label"]="<img src=x onerror=alert(1)> [click](https://evil.example/x) **b**"
json.dump(d, open(sys.argv[2], "w"))' "$T/cmp-slow.json" "$T/evmd.json"
run_bc "$T/mdev" compare --format markdown --fail-on loss "$T/cmp-a.json" "$T/evmd.json"
expect_rc "markdown, a label with HTML and a link: the gate still fails" 4
expect_no_grep "markdown: no raw tag, link or emphasis from the label anywhere on the page" "$T/mdev.out" '(^|[^\\])(<img|\]\(|\*\*b)'
expect_grep "markdown: the gate's failing rows as list items, the label inert" "$T/mdev.out" \
	'^- FAIL loss: cpu cpu_max_prime=10000 threads=1 events_per_sec ratio 0\.9 \\\[-10\.6% \.\. -9\.4%\\\] .*, &lt;img src=x onerror=alert\\\(1\\\)&gt; \\\[click\\\]\\\(https://evil\.example/x\\\) \\\*\\\*b\\\*\\\* against sysA$'
expect_grep "markdown: the closing line last" "$T/mdev.out" '^gate: FAILED \\\(--fail-on loss\\\): 4 failures'
run_bc "$T/mdinc" compare --format markdown "$T/cmp-a.json" "$T/cmp-faster-small.json"
expect_grep "markdown: inconclusive rows listed" "$T/mdinc.out" 'inconclusive |$'

# --- refusals ----------------------------------------------------------------
run_bc "$T/bad1" compare --fail-on lose "$T/cmp-a.json" "$T/cmp-slow.json"
expect_rc "--fail-on lose: refused" 2
expect_grep "--fail-on lose: says what it wants" "$T/bad1.err" 'wants verdicts from loss, suspect and inconclusive'
run_bc "$T/bad2" compare --fail-on loss "$T/cmp-a.json"
expect_rc "--fail-on with one file: refused" 2
run_bc "$T/bad3" compare --allow-missing "$T/cmp-a.json" "$T/cmp-slow.json"
expect_rc "--allow-missing without --fail-on: refused" 2
run_bc "$T/bad4" compare --fail-on loss --table "$T/cmp-a.json" "$T/cmp-slow.json"
expect_rc "--fail-on with --table: refused" 2
run_bc "$T/help" compare --help
expect_grep "compare --help: the exit statuses with 3 and 4" "$T/help.out" '4 when the --fail-on gate'

# --- history --fail-on-change ------------------------------------------------
R=$T/hist
"$PY" -S tests/fixtures/gen_history.py "$R"
# db1's cpu is 4% slower from run 13: runs 1..15 end on a new, slower level
run_bc "$T/h15" history --module cpu --fail-on-change --junit "$T/h15.xml" "$R"/db1-0[1-9].json "$R"/db1-1[0-5].json
expect_rc "history --fail-on-change, the last 3 runs slower" 4
expect_grep "the change named with its interval and the fact that changed" "$T/h15.out" \
	'^FAIL change for the worse: db1 cpu cpu_max_prime=10000 threads=1 events_per_sec: -[0-9.]+% \[-[0-9.]+% \.\. -[0-9.]+%\] \(95% interval\), p=[0-9.e-]+, from run 13 of 15 \(run_id db1-run13, .*changed: kernel: 6\.1\.0-17-amd64 -> 6\.1\.0-18-amd64$'
junit_ok "history junit" "$T/h15.xml" "$(grep -c '^FAIL change' "$T/h15.out")" 0
run_bc "$T/hjd" history --module cpu --fail-on-change --junit "$T/nodir/h.xml" "$R"/db1-0[1-9].json
expect_rc "history --junit into a missing directory: the --junit file not written (docs/ci.md)" 3
"$PY" -S - "$R" <<'PY'
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/db1-*.json"):	# a host with HTML and a link: the markdown gate's lines
    d = json.load(open(f)); d["host"]["hostname"] = "<b>db1</b>[x](https://evil.example)"; json.dump(d, open(f, "w"))
PY
run_bc "$T/hmd" history --module cpu --fail-on-change --format markdown "$R"/db1-0[1-9].json "$R"/db1-1[0-5].json
expect_rc "history --fail-on-change --format markdown, a host with HTML and a link" 4
expect_grep "history markdown: the failing line a list item, the host inert" "$T/hmd.out" \
	'^- FAIL change for the worse: &lt;b&gt;db1&lt;/b&gt;\\\[x\\\]\\\(https://evil\.example\\\) cpu '
expect_no_grep "history markdown: no raw tag or link anywhere" "$T/hmd.out" '<b>|\]\('
"$PY" -S tests/fixtures/gen_history.py "$R"
run_bc "$T/h12" history --module cpu --fail-on-change "$R"/db1-0[1-9].json "$R"/db1-1[0-2].json
expect_rc "history --fail-on-change, a flat series (runs 1..12)" 0
expect_grep "flat: says it passed" "$T/h12.out" '^gate: passed \(--fail-on-change\)'
run_bc "$T/h24" history --module cpu --fail-on-change "$R"/db1-*.json
expect_rc "history --fail-on-change: a change 12 runs old is no new change" 0
run_bc "$T/hmem" history --module mem --fail-on-change "$R"/db1-0[1-9].json
expect_rc "history --fail-on-change: mem 6% faster from run 7 (a change for the better) passes" 0
run_bc "$T/h15n" history --module cpu "$R"/db1-0[1-9].json "$R"/db1-1[0-5].json
expect_rc "history without --fail-on-change: 0 with a change point" 0

# --- a real pair: cpu max_prime 10000 against 20000 (twice the work per event)
# The verdict is read from compare --json first: on a loaded machine a halved
# rate can be a suspect loss (interference that could explain it); then
# --fail-on loss passes and --fail-on loss,suspect fails. Either way the
# exit status must follow the verdict (inconclusive too: 5 repeats of 0.3 s
# on a machine at load 20 can leave the interval wide).
rc_run() { "$BC" run cpu -q --time 0.3 --warmup 0.1 --repeat 5 --force "$@" >/dev/null 2>>"$T/run.err"; }
if rc_run max_prime=10000 --label base -o "$T/r1.json" && rc_run max_prime=20000 --label heavier -o "$T/r2.json"; then
	run_bc "$T/rj" compare --json --match-ignore max_prime "$T/r1.json" "$T/r2.json"
	v=$(jget "$T/rj.out" '[r["verdict"] if r["verdict"] != "suspect" else "suspect-" + r["direction"] for r in d["comparisons"][0]["rows"] if r["headline"]][0]')
	run_bc "$T/real" compare --match-ignore max_prime --fail-on loss "$T/r1.json" "$T/r2.json"
	if [ "$v" = loss ]; then
		expect_rc "real: max_prime 20000 against 10000 is a loss; --fail-on loss fails" 4
	elif [ "$v" = suspect-loss ]; then
		expect_rc "real: a suspect loss here (a loaded machine); --fail-on loss passes" 0
		run_bc "$T/real2" compare --match-ignore max_prime --fail-on loss,suspect "$T/r1.json" "$T/r2.json"
		expect_rc "real: --fail-on loss,suspect fails" 4
	elif [ "$v" = inconclusive ]; then
		expect_rc "real: inconclusive here (a loaded machine's spread); --fail-on loss passes" 0
		run_bc "$T/real2" compare --match-ignore max_prime --fail-on loss,inconclusive "$T/r1.json" "$T/r2.json"
		expect_rc "real: --fail-on loss,inconclusive fails" 4
	else
		fail "real: max_prime 20000 against 10000 should lose (or be a suspect loss): $v"
	fi
	run_bc "$T/real0" compare --match-ignore max_prime "$T/r1.json" "$T/r2.json"
	expect_rc "real: the same pair without --fail-on exits 0" 0
	# A/A: the same file twice is a tie or inconclusive, never a loss
	run_bc "$T/realaa" compare --fail-on loss "$T/r1.json" "$T/r1.json"
	expect_rc "real: a file against itself passes --fail-on loss" 0
	# the run's own gate (fail_on with baseline, issue 53): each real file passed off as
	# the other max_prime's run, so the run's cases have a partner and a real difference
	"$PY" -S - "$T/r1.json" "$T/as20k.json" 10000 20000 "$T/r2.json" "$T/as10k.json" 20000 10000 <<'PYEOF'
import json, sys
def relabel(o, a, b):
    if isinstance(o, dict):
        return {k: (b if k == "max_prime" and v == a else relabel(v, a, b)) for k, v in o.items()}
    if isinstance(o, list):
        return [b if x == a else relabel(x, a, b) for x in o] if any(isinstance(x, (dict, list)) for x in o) else [b if x == a else x for x in o]
    return o
for src, dst, a, b in ((sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])), (sys.argv[5], sys.argv[6], int(sys.argv[7]), int(sys.argv[8]))):
    json.dump(relabel(json.load(open(src)), a, b), open(dst, "w"))
PYEOF
	run_bc "$T/rg1" run cpu -q --time 0.3 --warmup 0.1 --repeat 5 max_prime=20000 -o "$T/rg1.json" \
		--baseline "$T/as20k.json" --fail-on loss,suspect,inconclusive
	expect_rc "run --fail-on: max_prime 20000 against a baseline of 10000's figures fails the gate" 4
	expect_grep "... the failing row named on stdout" "$T/rg1.out" '^FAIL (loss|suspect loss|inconclusive): cpu max_prime=20000'
	expect_grep "... and the closing line" "$T/rg1.out" '^gate: FAILED \(--fail-on loss,suspect,inconclusive\): 1 failure'
	check "... the results file written whole" "$PY" -c "import json; assert len(json.load(open('$T/rg1.json'))['cases']) == 5"
	printf 'baseline = "%s";\nfail_on = "loss,suspect";\nmodules = ( { name = "cpu"; max_prime = 10000; } );\n' \
		"$T/as10k.json" >"$T/gate.conf"
	run_bc "$T/rg2" -c "$T/gate.conf" -q --time 0.3 --warmup 0.1 --repeat 5 -o "$T/rg2.json"
	expect_rc "fail_on in the config: max_prime 10000 against 20000's figures passes (a win is no failure)" 0
	expect_grep "... saying so" "$T/rg2.out" '^gate: passed \(--fail-on loss,suspect\)'
	# a forged baseline (issue 59) must not hide the real 50% loss of r2 against r1: a headline
	# of 0 (compared, any figure a win) and r1's cases again under new ids with r2's figures
	# (n=10/5: the interval too wide to call the loss) are refused, naming the file and field
	"$PY" -S - "$T/r1.json" "$T/r2.json" "$T/zero.json" "$T/dup.json" <<'PYEOF'
import copy, json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
z = copy.deepcopy(a)
for c in z["cases"]:
    c["metrics"]["events_per_sec"]["value"] = 0
json.dump(z, open(sys.argv[3], "w"))
top = max(c["id"] for c in a["cases"])
extra = []
for k, (c, cb) in enumerate(zip(a["cases"], b["cases"])):
    d = copy.deepcopy(c)
    d["id"] = top + k + 1
    d["metrics"]["events_per_sec"]["value"] = cb["metrics"]["events_per_sec"]["value"]
    extra.append(d)
a["cases"] += extra
json.dump(a, open(sys.argv[4], "w"))
PYEOF
	run_bc "$T/fz" compare --match-ignore max_prime --fail-on loss "$T/zero.json" "$T/r2.json"
	expect_rc "a baseline whose headline is 0: refused, never a pass" 2
	expect_grep "... naming the file and the field" "$T/fz.err" "zero\.json.*cases\[0\] \(case 1, cpu, 1 thread\): metrics\.events_per_sec\.value is 0"
	run_bc "$T/fd" compare --match-ignore max_prime --fail-on loss "$T/dup.json" "$T/r2.json"
	expect_rc "a baseline with its cases again under new ids and other figures: refused, never a pass" 2
	expect_grep "... naming the file and the case" "$T/fd.err" "dup\.json.*cases\[5\] \(case 6, cpu, 1 thread, repeat 1\): the same case as cases\[0\]"
	run_bc "$T/fr" run cpu -q --time 0.1 --warmup 0 max_prime=20000 --baseline "$T/zero.json" --fail-on loss -o "$T/fr.json"
	expect_rc "run --baseline with a headline of 0: refused before anything runs" 2
	check "... nothing ran" test ! -e "$T/fr.json"
	run_bc "$T/fdb" db add --db "$T/arch.db" "$T/dup.json"
	check "db add of the forged baseline: refused, so db:baseline@HOST never holds it ($RC)" test "$RC" -ne 0
	expect_grep "... saying why" "$T/fdb.err" "the same case as cases\[0\]"
else
	fail "benchcore run cpu for the real pair: $(tail -3 "$T/run.err")"
fi

# fail_on's own refusals, before anything runs
run_bc "$T/rg3" run cpu -q --time 0.1 --warmup 0 --fail-on loss -o "$T/rg3.json"
expect_rc "run --fail-on without a baseline: refused" 2
expect_grep "... saying what it needs" "$T/rg3.err" 'judges this run against a baseline: give --baseline FILE'
check "... nothing ran: no results file" test ! -e "$T/rg3.json"
run_bc "$T/rg4" run cpu -q --time 0.1 --warmup 0 --fail-on losses --baseline "$T/r1.json" -o "$T/rg4.json"
expect_rc "run --fail-on with a word it does not know: refused" 2
check "... nothing ran" test ! -e "$T/rg4.json"
run_bc "$T/rg5" run cpu -q --time 0.1 --warmup 0 --fail-on loss --baseline "$T/r1.json" -o -
expect_rc "run --fail-on with -o - (no file to judge at the end): refused" 2
