#!/usr/bin/env bash
# One golden file per human output: what compare and report print for the
# fixtures in tests/fixtures is checked whole against tests/golden/NAME (the
# other tests read the same verdicts as data: --json, the results file).
# The run's own text is checked the same way in unit/test_run (simulated
# time makes its figures exact). A change meant to alter an output rewrites
# its file: BC_GOLDEN_UPDATE=1 tests/integration/test_golden.sh, then review
# the diff like code.
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
F=tests/fixtures
G=tests/golden

# golden NAME DESC ARGS...: benchcore ARGS, stdout (or -o's file for report)
# against $G/NAME
golden() {
	local name=$1 desc=$2; shift 2
	local got=$T/$name
	"$BC" "$@" >"$got.stdout" 2>"$got.err" </dev/null
	local rc=$?
	if [[ "$name" == *.html ]]; then mv "$T/report.html" "$got" 2>/dev/null; else mv "$got.stdout" "$got"; fi
	if [ "${BC_GOLDEN_UPDATE:-0}" = 1 ]; then
		cp "$got" "$G/$name"
	fi
	if [ $rc -ne 0 ]; then
		fail "$desc: exit $rc: $(head -3 "$got.err")"
	elif cmp -s "$got" "$G/$name"; then
		pass "$desc ($G/$name)"
	else
		fail "$desc: differs from $G/$name (BC_GOLDEN_UPDATE=1 rewrites it):"
		diff -u "$G/$name" "$got" | head -30
	fi
}

golden compare.txt "compare, two files: the machines, the test, every verdict" \
	compare $F/cmp-a.json $F/cmp-slow.json
golden compare-three.txt "compare, three files with a busy side and a run's own server" \
	compare $F/cmp-v11-quiet.json $F/cmp-v11-busy.json $F/cmp-v13-server.json
golden compare-scaling.txt "compare, one file: the scaling view" \
	compare $F/cmp-sweep.json
golden compare-table.txt "compare --table: mean +-interval and verdict per case and system" \
	compare --table $F/cmp-study-a.json $F/cmp-study-b.json
golden compare-table.md "compare --table --format markdown" \
	compare --table --format markdown $F/cmp-study-a.json $F/cmp-study-b.json
golden compare-summary.txt "compare --summary-table: the closing win/tie table" \
	compare --summary-table $F/cmp-study-a.json $F/cmp-study-b.json
golden compare-per-ghz.txt "compare --per-ghz" \
	compare --per-ghz $F/cmp-study-a.json $F/cmp-study-b.json
golden compare-index.txt "compare --index: the geometric mean of the headline ratios" \
	compare --index $F/cmp-a.json $F/cmp-slow.json
golden report.html "report: the HTML of two files" \
	report $F/cmp-a.json $F/cmp-slow.json -o $T/report.html
golden compare-table-metrics.txt "compare --table --metric a,b: a column group per metric, the module facts that differ" \
	compare --table --metric sign_per_sec,verify_per_sec $F/cmp-vm1.json $F/cmp-vm2.json
golden compare-summary-notrun.txt "compare --summary-table: a module one file did not run" \
	compare --summary-table $F/cmp-vm1.json $F/cmp-vm2.json
golden compare-per-ghz-modules.txt "compare --per-ghz: proportional per module" \
	compare --per-ghz $F/cmp-vm1.json $F/cmp-vm2.json
golden report-vm.html "report: two VMs, io matched across tmpfs and disk, the per-GHz verdict, the summary table" \
	report $F/cmp-vm1.json $F/cmp-vm2.json -o $T/report.html
