#!/usr/bin/env bash
# Fuzzes the config loader, the results reader (with compare and report
# behind it), the module loader's checks (probe descriptions, ELF RUNPATH),
# the net module's control-message parser and the case channel's decoder
# with libFuzzer for a bounded
# time each, then replays their regression corpora tests/fuzz/corpus-*/.
# Two targets at a time (libFuzzer runs one process per target: on two CPUs
# each still gets its FUZZ_SECONDS of fuzzing, in half the wall time).
# The fuzz binaries carry their own ASan+UBSan: tests/run.sh runs this script
# in its [plain] pass only (FUZZ_SECONDS_ASAN seconds if run on an ASan build).
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
secs=${FUZZ_SECONDS:-10}
if [ "${BC_QUICK:-0}" = 1 ]; then	# make check: a short fuzz; make check-full fuzzes FUZZ_SECONDS
	secs=${FUZZ_SECONDS_QUICK:-3}
	echo "QUICK: ${secs} s of fuzzing per target (make check-full: 30)"
fi
case "$BUILD" in *asan*) secs=${FUZZ_SECONDS_ASAN:-5};; esac
jobs=${FUZZ_JOBS:-2}
if ! command -v clang >/dev/null && ! command -v clang-14 >/dev/null; then
	fail "clang is not installed (needed for libFuzzer)"
	exit 0
fi
targets="config results loader netctl channel"
# the fuzz binaries do not depend on the build they test beside: one directory
# (BC_FUZZ_BUILD, from tests/run.sh) serves every pass
fb=${BC_FUZZ_BUILD:-$BUILD/fuzz}
n=0
for name in $targets; do
	( FUZZ_BUILD="$fb" timeout 120 tests/fuzz/run_fuzz.sh "$name" "$secs" >"$T/fuzz-$name.out" 2>&1
	  echo $? >"$T/fuzz-$name.rc" ) &
	n=$((n + 1))
	[ $((n % jobs)) -eq 0 ] && wait
done
wait
for name in $targets; do
	rc=$(cat "$T/fuzz-$name.rc" 2>/dev/null || echo 1)
	cat "$T/fuzz-$name.out"
	case $rc in
	0) pass "fuzz_$name: ${secs} s of fuzzing without a crash, leak or UB";;
	2) fail "fuzz_$name: the fuzz target does not build";;
	*) fail "fuzz_$name: crash found (exit $rc), see the log named above";;
	esac
	n=$(ls tests/fuzz/corpus-$name | wc -l)
	expect_grep "fuzz_$name: the regression corpus ($n files) replays cleanly" "$T/fuzz-$name.out" \
		"no crash .* $n corpus files replayed"
done
