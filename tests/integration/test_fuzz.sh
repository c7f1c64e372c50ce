#!/usr/bin/env bash
# Fuzzes the config loader, the results reader (with compare and report
# behind it), the module loader's checks (probe descriptions, ELF RUNPATH)
# and the net module's control-message parser with libFuzzer for a bounded
# time each, then replays their regression corpora tests/fuzz/corpus-*/. The
# fuzz binaries carry their own ASan+UBSan, so the [asan] pass of the suite
# only fuzzes briefly: the long runs belong to the plain pass.
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
secs=${FUZZ_SECONDS:-10}
case "$BUILD" in *asan*) secs=${FUZZ_SECONDS_ASAN:-5};; esac
if ! command -v clang >/dev/null && ! command -v clang-14 >/dev/null; then
	fail "clang is not installed (needed for libFuzzer)"
	exit 0
fi
for name in config results loader netctl; do
	FUZZ_BUILD="$BUILD/fuzz" timeout 120 tests/fuzz/run_fuzz.sh "$name" "$secs" >"$T/fuzz-$name.out" 2>&1
	rc=$?
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
