#!/usr/bin/env bash
# Runs every test of benchcore and ends with one line "N passed, N failed".
#   tests/run.sh --build DIR [--asan-build DIR] [--only PATTERN] [--jobs N]
# Unit tests are cmocka binaries in DIR/tests/; integration tests are
# tests/integration/test_*.sh, which print "PASS: what" / "FAIL: what" lines
# (see tests/integration/lib.sh). With --asan-build the unit and integration
# tests run again against the ASan+UBSan build, and the plain unit tests run
# under valgrind (no leaks, no errors).
# Each test's line ends with its wall time in seconds. Integration scripts run
# two at a time (--jobs, BC_TEST_JOBS; 1 = one after another) except the ones
# in $solo below, which run with nothing beside them. What a pass leaves out
# or runs reduced is said in its lines ("skipped", "quick", "SKIP:", "QUICK:").
set -u
cd "$(dirname "$0")/.."
build=build; asan=""; only=""; jobs=${BC_TEST_JOBS:-2}
while [ $# -gt 0 ]; do
	case "$1" in
	--build) build=$2; shift 2;;
	--asan-build) asan=$2; shift 2;;
	--only) only=$2; shift 2;;
	--jobs) jobs=$2; shift 2;;
	*) echo "usage: tests/run.sh --build DIR [--asan-build DIR] [--only PATTERN] [--jobs N]" >&2; exit 2;;
	esac
done
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "tests/run.sh: --jobs wants a number >= 1" >&2; exit 2; }

# --- which script runs how (names are test_*.sh stems)
# solo: asserts CPU shares or timing that a test running beside it would
# disturb (test_core: 6 and 42 threads keep both CPUs busy; test_abi11: a
# quiet baseline against two CPU hogs, an open loop's achieved rate;
# test_compare: real cpu runs, 4 repeats a side, must show a rate-limited run's
# loss at adjusted p < 0.05, which a neighbour's noise can hide), or keeps
# both CPUs busy itself (test_fuzz: two fuzzers at a time).
solo="test_abi11 test_compare test_core test_fuzz"
# [asan] pass, left out, with the reason printed in its line
declare -A asan_skip=(
	[test_fuzz]="the fuzz targets are ASan+UBSan builds of their own; the [plain] pass fuzzed them and replayed their corpora"
	[test_fleet]="the playbook and its hosts, not benchcore's memory: the [plain] pass ran it; its runs are test_core's cases"
	[test_package]="packaging, man pages and completion: the [plain] pass built and installed them from the plain build"
	[test_arm64]="the arm64 cross build is a build of its own, run under qemu-aarch64 by the [plain] pass"
)
# [asan] pass, quick form (BC_QUICK=1): the script keeps its module's own code
# paths (connect, one short case of each kind, the error paths) and leaves out
# what mostly runs the server or repeats a path already taken; it prints one
# "QUICK: ..." line per part it leaves out, shown below its line here.
# (test_oltp was out of the [asan] pass after one failed load in a full run,
# reason not logged; 12 runs of it under ASan since (alone, beside three CPU
# hogs, beside other ASan test scripts, two at a time) and 6 loads over 8
# connections all passed: it is back, and prints the reason and the server
# log's tail if its first load fails again)
asan_quick="test_oltp test_redis"

# the python that `python3` names, resolved once (a version manager's shim
# costs ~0.15 s a call; tests/integration/lib.sh calls it directly)
BC_PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && export BC_PY
# one directory for the fuzz binaries, whatever the pass (see test_fuzz.sh)
export BC_FUZZ_BUILD=$build/fuzz

passed=0; failed=0; failures=()
log=$(mktemp -d /tmp/benchcore-tests.XXXXXX)
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }	# seconds, 1 decimal
logname() { echo "$log/$(echo "$1" | tr -c 'a-zA-Z0-9_.-' _).log"; }

tally() {	# name, pass count, fail count, seconds
	passed=$((passed + $2)); failed=$((failed + $3))
	[ "$3" -gt 0 ] && failures+=("$1")
	printf '%-52s %3d passed, %d failed %7s s\n' "$1" "$2" "$3" "$4"
}
note() { printf '%-52s %s\n' "$1" "$2"; }	# a line for what did not run

run_unit() {	# label, binary, [wrapper...]
	local label=$1 bin=$2; shift 2
	local out t0; out=$(logname "$label"); t0=$(now)
	TESTMODS="$PWD/$(dirname "$(dirname "$bin")")/testmods" "$@" "$bin" >"$out" 2>&1; local rc=$?
	local p f
	p=$(grep -E '^\[  PASSED  \] [0-9]+ test' "$out" | grep -oE '[0-9]+' | head -1)
	f=$(grep -E '^\[  FAILED  \] [0-9]+ test' "$out" | grep -oE '[0-9]+' | head -1)
	p=${p:-0}; f=${f:-0}
	if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "  exit $rc, see $out"; fi
	tally "$label" "$p" "$f" "$(since "$t0")"
	[ "$f" -gt 0 ] && sed 's/^/    /' "$out" | grep -E 'FAILED|ERROR|error|Assert|==[0-9]+==' | head -20
}

# Integration scripts run as background jobs; a job's line is printed when it
# ends (so with two at a time, in the order they finish).
declare -A job_label job_out job_t0
running=0
start_integration() {	# label, build dir, script, quick (0/1)
	local label=$1 dir=$2 script=$3 quick=$4 out
	out=$(logname "$label")
	( BUILD="$dir" BC="$PWD/$dir/benchcore" TESTMODS="$PWD/$dir/testmods" BC_QUICK=$quick \
		timeout 600 bash "$script" >"$out" 2>&1 </dev/null; echo $? >"$out.rc" ) &
	job_label[$!]=$label; job_out[$!]=$out; job_t0[$!]=$(now)
	running=$((running + 1))
}
finish_integration() {	# waits for one job, prints its line
	local pid
	wait -n -p pid
	running=$((running - 1))
	local label=${job_label[$pid]} out=${job_out[$pid]} secs rc p f
	secs=$(since "${job_t0[$pid]}")
	rc=$(cat "$out.rc" 2>/dev/null || echo 1); rm -f "$out.rc"
	p=$(grep -c '^PASS: ' "$out"); f=$(grep -c '^FAIL: ' "$out")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "  exit $rc, see $out"; fi
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; echo "  no test ran, see $out"; fi
	tally "$label" "$p" "$f" "$secs"
	# what the script left out, or ran reduced, and why
	grep -E '^(SKIP|QUICK): ' "$out" | sed 's/^/    /'
	[ "$f" -gt 0 ] && grep -E '^FAIL: ' -A3 "$out" | sed 's/^/    /' | head -30
	unset "job_label[$pid]" "job_out[$pid]" "job_t0[$pid]"
}
drain() { while [ $running -gt 0 ]; do finish_integration; done; }

suite() {	# build dir, label prefix, [wrapper for unit tests...]
	local dir=$1 tag=$2; shift 2
	for bin in "$dir"/tests/test_*; do
		[ -x "$bin" ] || continue
		[ -n "$only" ] && [[ "$bin" != *$only* ]] && continue
		run_unit "$tag unit/$(basename "$bin")" "$bin" "$@"
	done
	local scripts=() pool=() s name quick
	for s in tests/integration/test_*.sh; do
		[ -n "$only" ] && [[ "$s" != *$only* ]] && continue
		name=$(basename "$s" .sh)
		if [ "$tag" = "[asan]" ] && [ -n "${asan_skip[$name]:-}" ]; then
			note "$tag $name" "skipped: ${asan_skip[$name]}"
			continue
		fi
		scripts+=("$s")
	done
	# the solo scripts first, one at a time; then the others, $jobs at a time
	for s in "${scripts[@]}"; do
		name=$(basename "$s" .sh)
		if [[ " $solo " != *" $name "* ]]; then pool+=("$s"); continue; fi
		start_integration "$tag $name" "$dir" "$s" 0
		drain
	done
	for s in "${pool[@]}"; do
		name=$(basename "$s" .sh); quick=0
		[ "$tag" = "[asan]" ] && [[ " $asan_quick " == *" $name "* ]] && quick=1
		start_integration "$tag $name$([ $quick = 1 ] && echo ' (quick)')" "$dir" "$s" $quick
		[ $running -ge "$jobs" ] && finish_integration
	done
	drain
}

t_all=$(now)
suite "$build" "[plain]"
if [ -n "$asan" ]; then
	# handle_segv=0: a module crashing on purpose must die of its signal, as without ASan;
	# allocator_may_return_null=1: a huge malloc returns NULL, as without ASan
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1:handle_segv=0:allocator_may_return_null=1
	export SAN=1
	export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	suite "$asan" "[asan]"
	unset ASAN_OPTIONS UBSAN_OPTIONS SAN LSAN_OPTIONS
	if command -v valgrind >/dev/null; then
		for bin in "$build"/tests/test_*; do
			[ -x "$bin" ] || continue
			[ -n "$only" ] && [[ "$bin" != *$only* ]] && continue
			# test_verdicts: 900 synthetic compare pairs, ~125 s under valgrind;
			# compare's code runs under valgrind in unit/test_compare, and
			# test_verdicts itself under ASan+LSan in the [asan] pass
			if [ "$(basename "$bin")" = test_verdicts ]; then
				note "[valgrind] unit/test_verdicts" "skipped: ~125 s; compare runs under valgrind in unit/test_compare, this test under ASan+LSan above"
				continue
			fi
			run_unit "[valgrind] unit/$(basename "$bin")" "$bin" valgrind -q \
				--leak-check=full --errors-for-leak-kinds=definite,indirect \
				--show-leak-kinds=definite,indirect --error-exitcode=99 --trace-children=no
		done
	fi
fi
echo
echo "tests took $(since "$t_all") s (integration scripts $jobs at a time; alone: $solo)"
# the logs are kept only when something failed (and then named)
if [ ${#failures[@]} -gt 0 ]; then
	printf 'failed: %s\n' "${failures[@]}"
	echo "logs: $log"
else
	rm -rf "$log"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
