#!/usr/bin/env bash
# Fuzzes the results reader (and compare/report behind it) with libFuzzer for
# a bounded time, then replays the regression corpus tests/fuzz/corpus-results/.
# The fuzz binary carries its own ASan+UBSan, so the [asan] pass of the suite
# only fuzzes briefly: the long run belongs to the plain pass.
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
secs=${FUZZ_SECONDS:-20}
case "$BUILD" in *asan*) secs=${FUZZ_SECONDS_ASAN:-5};; esac
if ! command -v clang >/dev/null && ! command -v clang-14 >/dev/null; then
	fail "clang is not installed (needed for libFuzzer)"
	exit 0
fi
FUZZ_BUILD="$BUILD/fuzz" timeout 120 tests/fuzz/run_fuzz_results.sh "$secs" >"$T/fuzz.out" 2>&1
rc=$?
cat "$T/fuzz.out"
case $rc in
0) pass "fuzz_results: ${secs} s of fuzzing without a crash, leak or UB";;
2) fail "fuzz_results: the fuzz target does not build";;
*) fail "fuzz_results: crash found (exit $rc), see the log named above";;
esac
n=$(ls tests/fuzz/corpus-results | wc -l)
expect_grep "fuzz_results: the regression corpus ($n files) replays cleanly" "$T/fuzz.out" \
	"no crash .* $n corpus files replayed"
