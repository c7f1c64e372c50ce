#!/usr/bin/env bash
# Builds the config-loader fuzz target (libFuzzer + ASan + UBSan) and runs it
# for a bounded time, seeded with examples/*.conf and the regression corpus;
# then replays every file of tests/fuzz/corpus-config/.
#   tests/fuzz/run_fuzz_config.sh [SECONDS]       (default 20; 0 = replay only)
# A crasher is printed with its path: fix the bug, then copy the file into
# tests/fuzz/corpus-config/ so it stays a regression test.
# Exit status: 0 no crash, 1 crash or leak, 2 build error.
set -u
cd "$(dirname "$0")/../.."
secs=${1:-20}
out=${FUZZ_BUILD:-build-fuzz}
art=${BC_ARTIFACTS:-/tmp/benchcore-artifacts}
cc=$(command -v clang-14 || command -v clang) || { echo "clang not installed"; exit 2; }
mkdir -p "$out" "$art"
src="tests/fuzz/fuzz_config.c core/config.c core/plan.c core/options.c core/util.c"
if [ ! -x "$out/fuzz_config" ] || [ -n "$(find $src core/*.h -newer "$out/fuzz_config" 2>/dev/null)" ]; then
	"$cc" -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-fno-omit-frame-pointer -D_GNU_SOURCE -Isdk/include -Icore \
		-o "$out/fuzz_config" $src -lconfig -ljansson -lm || exit 2
fi
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp
rc=0
if [ "$secs" -gt 0 ]; then
	work=$(mktemp -d /tmp/bc-fuzz.XXXXXX)
	cp examples/*.conf tests/fuzz/corpus-config/* "$work/" 2>/dev/null
	"$out/fuzz_config" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
		-dict=tests/fuzz/config.dict -artifact_prefix="$art/fuzz-config-" \
		-print_final_stats=1 "$work" 2>"$art/fuzz-config.log"
	rc=$?
	tail -20 "$art/fuzz-config.log" | grep -E 'stat::number_of_executed_units|stat::new_units_added|ERROR|SUMMARY|Test unit written' || true
	[ $rc -ne 0 ] && echo "fuzzer failed (exit $rc); log: $art/fuzz-config.log; crasher: $(ls -t "$art"/fuzz-config-* 2>/dev/null | grep -v '\.log$' | head -1)"
	rm -rf "$work"
fi
if ls tests/fuzz/corpus-config/* >/dev/null 2>&1; then
	"$out/fuzz_config" tests/fuzz/corpus-config/* >"$art/fuzz-config-replay.log" 2>&1 || {
		echo "regression corpus crashed; log: $art/fuzz-config-replay.log"; rc=1; }
fi
rm -f /dev/shm/bc-fuzz-config.*
[ $rc -eq 0 ] && echo "fuzz_config: no crash (${secs} s fuzzing, $(ls tests/fuzz/corpus-config | wc -l) corpus files replayed)"
[ $rc -eq 0 ] || exit 1
