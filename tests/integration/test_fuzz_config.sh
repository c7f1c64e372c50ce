#!/usr/bin/env bash
# Fuzzes the config loader with libFuzzer for a bounded time, then replays
# the regression corpus tests/fuzz/corpus-config/. The fuzz binary carries its
# own ASan+UBSan, so the [asan] pass only fuzzes briefly.
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
secs=${FUZZ_SECONDS:-20}
case "$BUILD" in *asan*) secs=${FUZZ_SECONDS_ASAN:-5};; esac
FUZZ_BUILD="$BUILD/fuzz" timeout 120 tests/fuzz/run_fuzz_config.sh "$secs" >"$T/fuzz.out" 2>&1
rc=$?
cat "$T/fuzz.out"
case $rc in
0) pass "fuzz_config: ${secs} s of fuzzing without a crash, leak or UB";;
2) fail "fuzz_config: the fuzz target does not build";;
*) fail "fuzz_config: crash found (exit $rc), see the log named above";;
esac
n=$(ls tests/fuzz/corpus-config | wc -l)
expect_grep "fuzz_config: the regression corpus ($n files) replays cleanly" "$T/fuzz.out" \
	"no crash .* $n corpus files replayed"
