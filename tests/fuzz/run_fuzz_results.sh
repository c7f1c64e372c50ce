#!/usr/bin/env bash
# Builds the results-reader fuzz target with clang's libFuzzer (plus ASan and
# UBSan) and runs it for a bounded time, seeded with the fixtures and the
# regression corpus; then replays every file of tests/fuzz/corpus-results/.
#   tests/fuzz/run_fuzz_results.sh [SECONDS]      (default 20; 0 = replay only)
# Env: FUZZ_BUILD (build dir, default build-fuzz), BC_ARTIFACTS (where crashers
# go, default /tmp/benchcore-artifacts). A crasher is printed with its path:
# fix the bug, then copy the file into tests/fuzz/corpus-results/ so it stays
# a regression test. Exit status: 0 no crash, 1 crash or leak, 2 build error.
set -u
cd "$(dirname "$0")/../.."
secs=${1:-20}
out=${FUZZ_BUILD:-build-fuzz}
art=${BC_ARTIFACTS:-/tmp/benchcore-artifacts}
cc=$(command -v clang-14 || command -v clang) || { echo "clang not installed"; exit 2; }
mkdir -p "$out" "$art"
src="tests/fuzz/fuzz_results.c core/results_read.c core/compare.c core/compare_cli.c
     core/stats.c core/report.c core/svg.c"
# Rebuild only when a source is newer than the binary.
if [ ! -x "$out/fuzz_results" ] || [ -n "$(find $src core/*.h -newer "$out/fuzz_results" 2>/dev/null)" ]; then
	"$cc" -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-fno-omit-frame-pointer -D_GNU_SOURCE -Isdk/include -Icore -DBC_VERSION='"fuzz"' \
		-o "$out/fuzz_results" $src -ljansson -lm || exit 2
fi
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
rc=0
if [ "$secs" -gt 0 ]; then
	work=$(mktemp -d /tmp/bc-fuzz.XXXXXX)
	cp tests/fixtures/*.json tests/fuzz/corpus-results/* "$work/" 2>/dev/null
	"$out/fuzz_results" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=32768 \
		-dict=tests/fuzz/results.dict -artifact_prefix="$art/fuzz-results-" \
		-print_final_stats=1 "$work" 2>"$art/fuzz-results.log"
	rc=$?
	tail -20 "$art/fuzz-results.log" | grep -E 'stat::number_of_executed_units|stat::new_units_added|ERROR|SUMMARY|Test unit written' || true
	[ $rc -ne 0 ] && echo "fuzzer failed (exit $rc); log: $art/fuzz-results.log; crasher: $(ls -t "$art"/fuzz-results-* 2>/dev/null | grep -v '\.log$' | head -1)"
	rm -rf "$work"
fi
# Replay the regression corpus: each file runs once.
if ls tests/fuzz/corpus-results/* >/dev/null 2>&1; then
	"$out/fuzz_results" tests/fuzz/corpus-results/* >"$art/fuzz-results-replay.log" 2>&1 || {
		echo "regression corpus crashed; log: $art/fuzz-results-replay.log"; rc=1; }
fi
[ $rc -eq 0 ] && echo "fuzz_results: no crash (${secs} s fuzzing, $(ls tests/fuzz/corpus-results | wc -l) corpus files replayed)"
[ $rc -eq 0 ] || exit 1
