#!/usr/bin/env bash
# Runs the tests of benchcore and ends with one line "N passed, N failed".
#   tests/run.sh --build DIR [--asan-build DIR] [--level check|full|all] [--only PATTERN] [--jobs N]
#                [--repeat N]
# Unit tests are cmocka binaries in DIR/tests/; integration tests are
# tests/integration/test_*.sh, which print "PASS: what" / "FAIL: what" lines
# (see tests/integration/lib.sh). Two levels (tests/README.md lists every
# test, its level and its time):
#   check (make check): what proves correctness, in minutes: the unit tests
#     (plain, and with --asan-build again under ASan+UBSan), every
#     integration script but the $full_only ones, in its quick form
#     (BC_QUICK=1: the script leaves out its long or timing-bound parts and
#     prints one "QUICK: ..." line for each), and the $asan_check scripts
#     against the ASan+UBSan build.
#   full (make check-full): what check leaves out: the $full_only scripts, the
#     full form of every script that has a quick one, and with --asan-build
#     the other integration scripts against the ASan+UBSan build and every
#     unit test under valgrind (no leaks, no errors).
#   all (the default): both (a script with a quick form runs in its full form only).
# Each test's line ends with its wall time in seconds. Integration scripts run
# two at a time (--jobs, BC_TEST_JOBS; 1 = one after another) except the ones
# in $solo below, which run with nothing beside them. What a pass leaves out
# or runs reduced is said in its lines ("skipped", "quick", "SKIP:", "QUICK:").
# A script is stopped after BC_TEST_TIMEOUT seconds (600, or its own bound in
# script_timeout below; a machine loaded
# far beyond its CPUs, a census beside other suites, may want more).
# --repeat N (the flake census, tests/README.md): the whole selection N times
# over, then every check that failed in any of them: its script, its text
# (figures and scratch paths masked, so one check's failures count together)
# and how many of the N runs it failed; the last line totals all N.
set -u
cd "$(dirname "$0")/.."
build=build; asan=""; only=""; jobs=${BC_TEST_JOBS:-2}; level=all; repeat=1
while [ $# -gt 0 ]; do
	case "$1" in
	--build) build=$2; shift 2;;
	--asan-build) asan=$2; shift 2;;
	--only) only=$2; shift 2;;
	--jobs) jobs=$2; shift 2;;
	--level) level=$2; shift 2;;
	--repeat) repeat=$2; shift 2;;
	*) echo "usage: tests/run.sh --build DIR [--asan-build DIR] [--level check|full|all] [--only PATTERN] [--jobs N] [--repeat N]" >&2; exit 2;;
	esac
done
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "tests/run.sh: --jobs wants a number >= 1" >&2; exit 2; }
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || { echo "tests/run.sh: --repeat wants a number >= 1" >&2; exit 2; }
case "$level" in check|full|all) ;; *) echo "tests/run.sh: --level is check, full or all" >&2; exit 2;; esac
in_check() { [ "$level" != full ]; }
in_full() { [ "$level" != check ]; }

# --- which script runs how (names are test_*.sh stems)
# solo: asserts CPU shares or timing that a test running beside it would
# disturb (test_core: 6 and 42 threads keep both CPUs busy; test_abi11: a
# quiet baseline against two CPU hogs, an open loop's achieved rate;
# test_compare: real cpu runs, 4 repeats a side, must show a rate-limited run's
# loss at adjusted p < 0.05, which a neighbour's noise can hide), or keeps
# both CPUs busy itself (test_fuzz: two fuzzers at a time), or judges a stop by
# live rates a neighbour's load moves (test_auto: a 1.2% spread precise after 4
# or 5 repeats of 0.3 s), or changes machine-wide state (test_machine: THP, a
# sysctl, CPU 1 offline for about a second, which a neighbour would measure),
# or judges a rate a receiver keeps up with (test_net: loopback udp_stream's
# 100 Mbit/s within 15% with under 5% lost, which a neighbour's load on the
# receiving CPU turns into loss).
# (their quick forms leave those parts out and run beside others;
# test_interference, which shares a CPU between a case and a busy loop, checks
# benchcore's figures against its own observer of what every process took,
# whatever runs beside it)
solo="test_abi11 test_auto test_compare test_core test_fuzz test_machine test_net"
# solo in their quick forms too: what they change is the machine's, whatever
# the form (test_machine's quick form still sets THP, a sysctl, CPU 1 offline)
solo_quick="test_machine"
# full level only: the package and fleet builds (a .deb built and installed,
# the playbook against hosts, its secrets and directories)
full_only="test_fleet test_package test_playbook"
# their own bound instead of BC_TEST_TIMEOUT's 600 s: test_fleet runs the
# playbook five times over ssh (about 50 tasks each): 290 s loaded 4 times
# over, 600 s was missed loaded 9 times over (load 18 on 2 CPUs); test_playbook
# took 597 s at load 21
declare -A script_timeout=([test_fleet]=1500 [test_playbook]=900)
# fuzzing, seconds per target: test_fuzz's quick form fuzzes 3 s (and replays
# the corpora), the full level FUZZ_SECONDS
fuzz_full=${FUZZ_SECONDS:-30}
# [asan] pass, left out, with the reason printed in its line
declare -A asan_skip=(
	[test_fuzz]="the fuzz targets are ASan+UBSan builds of their own; the [plain] pass fuzzed them and replayed their corpora"
	[test_fleet]="the playbook and its hosts, not benchcore's memory: the [plain] pass ran it; its runs are test_core's cases"
	[test_playbook]="the playbook's secrets and directories, not benchcore's memory: the [plain] pass ran it"
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
# [asan] scripts of the check level (quick forms): the parsers and readers a
# user's input reaches (configs, flags, results files, module descriptors,
# --resume, signals) under the sanitizers, in about a minute; the full level's
# [asan] pass runs the rest
# (test_abi13 and test_sdk, 45-110 s each under ASan, moved to the full
# level's [asan] pass: they run old modules and the SDK's make/install, not a
# parser of a user's input; the --expect files' parser runs in [plain] test_sdk)
asan_check="test_compare test_golden test_history test_inputs test_interrupt test_journal_trust test_latency_merge test_leftover test_report test_resume test_start_at test_sysinfo"

# the longest scripts start first in a pool (a long one started last would
# run on alone at the end): their names, longest first (make check's
# figures, tests/README.md); the others follow in name order
long_first="test_sdk test_redis test_contain test_core test_net test_arm64 test_io test_auto test_oltp test_abi13 test_headline test_sys test_inputs test_report"

# the python that `python3` names, resolved once (a version manager's shim
# costs ~0.15 s a call; tests/integration/lib.sh calls it directly)
BC_PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && export BC_PY
# one directory for the fuzz binaries, whatever the pass (see test_fuzz.sh)
export BC_FUZZ_BUILD=$build/fuzz

# Two suites on one machine (a second make check, CI beside a developer's):
# the scripts in $machine_wide change what every process sees (THP, a
# sysctl, CPU 1 offline), and each saves the values it finds to restore them
# at its end; beside another suite's they would save each other's changes
# and leave the machine changed, and fail the other suite's figures. So every
# test of every suite holds a shared lock on $locks/run while it runs and a
# $machine_wide script holds it alone, taken through $locks/gate so that a
# stream of shared holders cannot starve it (a new test waits at the gate
# while one waits to go alone). $locks is root's /run/benchcore-tests (the
# user's own directory otherwise), 0700 and the user's, never a path another
# user could plant.
machine_wide="test_machine"
lock_wait=${BC_TEST_LOCK_WAIT:-1800}
locks=""
lockdir() {
	local d
	if [ "$(id -u)" = 0 ]; then d=/run/benchcore-tests; else d=${XDG_RUNTIME_DIR:-/tmp}/benchcore-tests-$(id -u); fi
	mkdir -m 700 -p "$d" 2>/dev/null
	if [ -d "$d" ] && [ ! -L "$d" ] && [ "$(stat -c %u "$d")" = "$(id -u)" ] &&
		[ $(( 0$(stat -c %a "$d") & 022 )) = 0 ]; then
		locks=$d
	else
		echo "tests/run.sh: $d is not a 0700 directory of this user: the tests run without the lock another suite on this machine would wait on" >&2
	fi
}
command -v flock >/dev/null && lockdir
# with_lock OUT KIND CMD...: CMD under the lock (KIND: alone or shared); the
# seconds waited for it, when over one, go to OUT.wait; the lock's
# descriptors are the subshell's, not CMD's (a daemon a test leaves behind
# does not hold them)
with_lock() {
	local out=$1 kind=$2 t0; shift 2
	if [ -z "$locks" ]; then "$@"; return; fi
	t0=$(now)
	exec 8<>"$locks/gate" 9<>"$locks/run"
	if [ "$kind" = alone ]; then
		flock -w "$lock_wait" -x 8 && flock -w "$lock_wait" -x 9
	else
		flock -w "$lock_wait" -s 8 && flock -w "$lock_wait" -s 9
		flock -u 8
	fi || echo "the lock not had in $lock_wait s: run anyway" >>"$out.wait"
	awk -v a="$t0" -v b="$(now)" 'BEGIN { if (b - a >= 1) printf "waited %.0f s for another suite'"'"'s tests (its machine-wide one, or to go alone)\n", b - a }' >>"$out.wait"
	"$@" 8>&- 9>&-
}

passed=0; failed=0; failures=()
log=$(mktemp -d /tmp/benchcore-tests.XXXXXX)
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }	# seconds, 1 decimal
logname() { echo "$log/$([ "$repeat" -gt 1 ] && echo "r$rep-")$(echo "$1" | tr -c 'a-zA-Z0-9_.-' _).log"; }
# census FAILTEXT...: one line per failed check for --repeat's summary: the
# test's label (less " (quick)"), a tab, the check's text with what changes
# from run to run masked (numbers as #, the scratch directory as $T)
census() {
	local label=${1% (quick)} line; shift
	for line in "$@"; do
		printf '%s\t%s\t%s\n' "$rep" "$label" "$(printf '%s' "$line" | cut -c1-200 |
			sed -E 's#/tmp/(bc-itest|benchcore-tests)\.[A-Za-z0-9]+#$T#g; s/[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/#/g')"
	done >>"$log/census"
}

tally() {	# name, pass count, fail count, seconds
	passed=$((passed + $2)); failed=$((failed + $3))
	printf '%s\t%s\n' "${1% (quick)}" "$3" >>"$log/runs"
	[ "$3" -gt 0 ] && failures+=("$([ "$repeat" -gt 1 ] && echo "run $rep: ")$1")
	printf '%-52s %3d passed, %d failed %7s s\n' "$1" "$2" "$3" "$4"
}
waited() { [ -s "$1.wait" ] && sed 's/^/    /' "$1.wait"; rm -f "$1.wait"; }	# what with_lock waited
note() { printf '%-52s %s\n' "$1" "$2"; }	# a line for what did not run

# Unit tests and integration scripts run as background jobs, $jobs at a
# time; a job's line is printed when it ends (in the order they finish).
declare -A job_label job_out job_t0 job_kind job_limit
running=0
start_unit() {	# label, binary, [wrapper...]: a cmocka binary (its environment is the caller's)
	local label=$1 bin=$2 out; shift 2
	out=$(logname "$label")
	( TESTMODS="$PWD/$(dirname "$(dirname "$bin")")/testmods" with_lock "$out" shared "$@" "$bin" >"$out" 2>&1 </dev/null
	  echo $? >"$out.rc" ) &
	job_label[$!]=$label; job_out[$!]=$out; job_t0[$!]=$(now); job_kind[$!]=unit
	running=$((running + 1))
}
finish_unit() {	# label, log, seconds
	local label=$1 out=$2 secs=$3 rc p f
	rc=$(cat "$out.rc" 2>/dev/null || echo 1); rm -f "$out.rc"
	p=$(grep -E '^\[  PASSED  \] [0-9]+ test' "$out" | grep -oE '[0-9]+' | head -1)
	f=$(grep -E '^\[  FAILED  \] [0-9]+ test' "$out" | grep -oE '[0-9]+' | head -1)
	p=${p:-0}; f=${f:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "  exit $rc, see $out"; census "$label" "exit without a failed test"; fi
	tally "$label" "$p" "$f" "$secs"
	waited "$out"
	[ "$f" -gt 0 ] && sed 's/^/    /' "$out" | grep -E 'FAILED|ERROR|error|Assert|==[0-9]+==' | head -20
	local t
	while read -r t; do census "$label" "$t"; done < <(sed -nE '/^\[  FAILED  \] [0-9]+ test/d; s/^\[  FAILED  \] ([^ ]+).*/\1/p' "$out" | sort -u)
}
start_integration() {	# label, build dir, script, quick (0/1)
	local label=$1 dir=$2 script=$3 quick=$4 out limit
	out=$(logname "$label")
	limit=${BC_TEST_TIMEOUT:-${script_timeout[$(basename "$script" .sh)]:-600}}
	( BUILD="$dir" BC="$PWD/$dir/benchcore" TESTMODS="$PWD/$dir/testmods" BC_QUICK=$quick \
		with_lock "$out" "$([[ " $machine_wide " == *" $(basename "$script" .sh) "* ]] && echo alone || echo shared)" \
		timeout "$limit" bash "$script" >"$out" 2>&1 </dev/null; echo $? >"$out.rc" ) &
	job_label[$!]=$label; job_out[$!]=$out; job_t0[$!]=$(now); job_kind[$!]=integration; job_limit[$!]=$limit
	running=$((running + 1))
}
finish_integration() {	# waits for one job (unit or integration), prints its line
	local pid
	wait -n -p pid
	running=$((running - 1))
	local label=${job_label[$pid]} out=${job_out[$pid]} secs rc p f
	secs=$(since "${job_t0[$pid]}")
	if [ "${job_kind[$pid]}" = unit ]; then
		finish_unit "$label" "$out" "$secs"
		unset "job_label[$pid]" "job_out[$pid]" "job_t0[$pid]" "job_kind[$pid]"
		return
	fi
	rc=$(cat "$out.rc" 2>/dev/null || echo 1); rm -f "$out.rc"
	p=$(grep -c '^PASS: ' "$out"); f=$(grep -c '^FAIL: ' "$out")
	if [ "$rc" = 124 ]; then	# where it stopped: its last lines (CI keeps no log)
		f=$((f + 1)); echo "  stopped after ${job_limit[$pid]:-600} s (BC_TEST_TIMEOUT or its own bound), see $out; its last lines:"
		tail -n 8 "$out" | cut -c1-200 | sed 's/^/    | /'
		census "$label" "stopped by the timeout"
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "  exit $rc, see $out"; census "$label" "exit $rc without a FAIL line"; fi
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; echo "  no test ran, see $out"; census "$label" "no test ran"; fi
	tally "$label" "$p" "$f" "$secs"
	waited "$out"
	local t
	while IFS= read -r t; do census "$label" "$t"; done < <(sed -n 's/^FAIL: //p' "$out")
	# what the script left out, or ran reduced, and why
	grep -E '^(SKIP|QUICK): ' "$out" | sed 's/^/    /'
	[ "$f" -gt 0 ] && grep -E '^FAIL: ' -A3 "$out" | sed 's/^/    /' | head -30
	unset "job_label[$pid]" "job_out[$pid]" "job_t0[$pid]" "job_kind[$pid]" "job_limit[$pid]"
}
drain() { while [ $running -gt 0 ]; do finish_integration; done; }

has_quick() { grep -q 'BC_QUICK' "$1"; }

unit_pass() {	# build dir, label prefix, [wrapper for unit tests...]
	local dir=$1 tag=$2; shift 2
	for bin in "$dir"/tests/test_*; do
		[ -x "$bin" ] || continue
		[ -n "$only" ] && [[ "$bin" != *$only* ]] && continue
		start_unit "$tag unit/$(basename "$bin")" "$bin" "$@"
		[ $running -ge "$jobs" ] && finish_integration
	done
}

# integration scripts: build dir, label prefix, form (check: quick forms and
# no $full_only; full: $full_only and the full forms; asan: every script but
# $asan_skip, quick for $asan_quick)
integration_pass() {
	local dir=$1 tag=$2 form=$3
	local scripts=() pool=() s name quick
	declare -A q=()
	for s in tests/integration/test_*.sh; do
		[ -n "$only" ] && [[ "$s" != *$only* ]] && continue
		name=$(basename "$s" .sh)
		case $form in
		check)
			[[ " $full_only " == *" $name "* ]] && continue
			if has_quick "$s"; then
				in_full && continue	# level all: its full form runs below
				q[$name]=1
			fi;;
		full)
			[[ " $full_only " != *" $name "* ]] && ! has_quick "$s" && continue;;
		asancheck)
			[[ " $asan_check " != *" $name "* ]] && continue
			has_quick "$s" && q[$name]=1;;
		asan)
			# level full: what the check level ran under ASan is not run again
			[ "$level" = full ] && [[ " $asan_check " == *" $name "* ]] && continue
			if [ -n "${asan_skip[$name]:-}" ]; then
				note "$tag $name" "skipped: ${asan_skip[$name]}"
				continue
			fi
			[[ " $asan_quick " == *" $name "* ]] && q[$name]=1;;
		esac
		scripts+=("$s")
	done
	# the solo scripts' full forms first, one at a time; then the others, $jobs at a time
	for s in "${scripts[@]}"; do
		name=$(basename "$s" .sh)
		quick=${q[$name]:-0}
		if [[ " $solo " != *" $name "* ]] || { [ "$quick" = 1 ] && [[ " $solo_quick " != *" $name "* ]]; }; then
			pool+=("$s"); continue
		fi
		start_integration "$tag $name$([ "$quick" = 1 ] && echo ' (quick)')" "$dir" "$s" "$quick"
		drain
	done
	local ordered=() l
	for l in $long_first; do
		for s in "${pool[@]}"; do [ "$(basename "$s" .sh)" = "$l" ] && ordered+=("$s"); done
	done
	for s in "${pool[@]}"; do [[ " $long_first " == *" $(basename "$s" .sh) "* ]] || ordered+=("$s"); done
	for s in "${ordered[@]}"; do
		name=$(basename "$s" .sh); quick=${q[$name]:-0}
		start_integration "$tag $name$([ "$quick" = 1 ] && echo ' (quick)')" "$dir" "$s" "$quick"
		[ $running -ge "$jobs" ] && finish_integration
	done
	# a pass that ends here waits for its last jobs; one followed by another
	# pass (keep) leaves them running beside the next one's first (each job
	# has the environment it started with)
	[ "${4:-}" = keep ] || drain
}

asan_env() {
	# handle_segv=0: a module crashing on purpose must die of its signal, as without ASan;
	# allocator_may_return_null=1: a huge malloc returns NULL, as without ASan
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1:handle_segv=0:allocator_may_return_null=1
	export SAN=1
	export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
}
asan_env_off() { unset ASAN_OPTIONS UBSAN_OPTIONS SAN LSAN_OPTIONS; }

# one round: every pass the level and the flags select
one_round() {
	if in_check; then
		unit_pass "$build" "[plain]"
		if [ -n "$asan" ]; then
			asan_env
			unit_pass "$asan" "[asan]"
			asan_env_off
		fi
		integration_pass "$build" "[plain]" check $([ -n "$asan" ] && [ "$level" = check ] && echo keep)
		if [ -n "$asan" ] && [ "$level" = check ]; then	# level all: the full [asan] pass below
			asan_env
			integration_pass "$asan" "[asan]" asancheck
			asan_env_off
		fi
	fi
	if in_full; then
		[ "$level" = full ] && note "[full]" "what make check leaves out (tests/README.md)"
		FUZZ_SECONDS=$fuzz_full integration_pass "$build" "[plain]" full
		if [ -n "$asan" ]; then
			asan_env
			integration_pass "$asan" "[asan]" asan
			asan_env_off
			if command -v valgrind >/dev/null; then
				# --fair-sched: a worker spinning in record() would otherwise
				# starve the thread that ends the window (unit/test_engine: 266 s
				# without it, 3 s with); the children a test forks (module probes)
				# exit without freeing, which is theirs to do
				for bin in "$build"/tests/test_*; do
					[ -x "$bin" ] || continue
					[ -n "$only" ] && [[ "$bin" != *$only* ]] && continue
					start_unit "[valgrind] unit/$(basename "$bin")" "$bin" valgrind -q --fair-sched=yes \
						--child-silent-after-fork=yes --leak-check=full --errors-for-leak-kinds=definite,indirect \
						--show-leak-kinds=definite,indirect --error-exitcode=99 --trace-children=no
					[ $running -ge "$jobs" ] && finish_integration
				done
				drain
			fi
		fi
	fi
}

t_all=$(now)
for rep in $(seq "$repeat"); do
	[ "$repeat" -gt 1 ] && echo "--- run $rep of $repeat"
	one_round
done
echo
echo "tests took $(since "$t_all") s (level $level; integration scripts $jobs at a time; alone in their full forms: $solo$([ "$repeat" -gt 1 ] && echo "; $repeat runs"))"
# --repeat: each test's runs with a failure, then every check that ever
# failed and in how many of the runs (one check failing twice in a run counts once)
if [ "$repeat" -gt 1 ]; then
	echo "tests with a failure in any of the $repeat runs (runs failed/runs):"
	awk -F'\t' '$2 > 0 { bad[$1]++ } { runs[$1]++ } END { for (t in bad) printf "  %-52s %d/%d\n", t, bad[t], runs[t] }' \
		"$log/runs" | sort
	[ -s "$log/census" ] || echo "  none"
	echo "checks that failed (failed runs/runs; numbers masked as #):"
	[ -s "$log/census" ] && sort -u "$log/census" |
		awk -F'\t' -v n="$repeat" '{ k = $2 "\t" $3; c[k]++ } END { for (k in c) { split(k, f, "\t"); printf "  %-44s %d/%d  %s\n", f[1], c[k], n, f[2] } }' |
		sort -t/ -k1,1 || echo "  none"
fi
# the logs are kept only when something failed (and then named)
if [ ${#failures[@]} -gt 0 ]; then
	printf 'failed: %s\n' "${failures[@]}"
	echo "logs: $log"
else
	rm -rf "$log"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
