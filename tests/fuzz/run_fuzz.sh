#!/usr/bin/env bash
# Builds a fuzz target (clang libFuzzer + ASan + UBSan) and runs it for a
# bounded time, seeded with sample inputs and its regression corpus; then
# replays every file of tests/fuzz/corpus-TARGET/.
#   tests/fuzz/run_fuzz.sh TARGET [SECONDS]     (default 20; 0 = replay only;
#                                               build = build it, if out of date, and stop)
# TARGET: config (the config loader and option validation), results (the
# results reader, compare and report behind it), loader (a probe's module
# description and its metadata checks; a module's ELF RUNPATH), netctl (the
# net module's control-message parser, modules/net/net_proto.c) or channel
# (the case channel's decoder, core/run/channel.c: what a lying case can send).
# Env: FUZZ_BUILD (build dir, default build-fuzz), BC_ARTIFACTS (where crashers
# go, default FUZZ_BUILD/artifacts, not a fixed path in /tmp). A crasher is printed with its path:
# fix the bug, then copy the file into tests/fuzz/corpus-TARGET/ so it stays
# a regression test. Exit status: 0 no crash, 1 crash or leak, 2 build error.
set -u
cd "$(dirname "$0")/../.."
name=${1:?usage: tests/fuzz/run_fuzz.sh config|results|loader|netctl|channel [SECONDS]}
secs=${2:-20}
case $name in
config)	src="core/run/config.c core/machine/mkinds.c core/machine/fskinds.c core/machine/fsdev.c core/machine/fsdev_check.c core/machine/fsopts.c core/machine/fsdev_undo.c core/machine/msysfs.c core/machine/sysinfo.c core/machine/sysinfo_libs.c core/machine/sysinfo_cpu.c core/machine/sysinfo_arm.c core/machine/sysinfo_cache.c core/machine/freq.c core/machine/identity.c core/run/mplan.c core/values/config_model.c core/values/settings.c core/run/plan.c core/values/options.c core/base/trust.c core/base/util.c"
	libs="-lconfig -ljansson -lcrypto -lsqlite3 -lpq -lz -lm"; seeds="examples/*.conf"; max_len=4096;;
loader)	src="core/module/probe.c core/module/probe_run.c core/module/same.c core/module/elf.c core/module/deps.c core/module/loader.c core/module/modset.c core/module/abi.c core/base/reap.c core/base/trust.c core/machine/mkinds.c core/machine/fskinds.c core/machine/fsdev.c core/machine/fsdev_check.c core/machine/fsopts.c core/machine/fsdev_undo.c core/machine/msysfs.c core/machine/sysinfo.c core/machine/sysinfo_libs.c core/machine/sysinfo_cpu.c core/machine/sysinfo_arm.c core/machine/sysinfo_cache.c core/machine/freq.c core/machine/identity.c core/values/options.c core/values/config_model.c core/run/config.c core/values/settings.c core/base/util.c"
	libs="-lconfig -ljansson -lcrypto -lsqlite3 -lpq -lz -ldl -lm"; seeds=""; max_len=65536;;
results) src="core/result/results_read.c core/result/rundoc.c core/result/group_hist.c core/result/case.c core/result/case_read.c core/stats/hist.c core/stats/hist_code.c core/judge/compare.c core/judge/casesets.c core/result/results_split.c core/judge/verdict.c core/judge/hostdiff.c core/judge/interference.c core/judge/perghz.c core/views/compare_print.c core/stats/stats.c core/pages/report.c core/views/refset.c core/pages/refset_html.c core/pages/report_study.c core/views/tables.c core/views/grid.c core/views/caserows.c core/views/viewsel.c core/stats/steady.c core/views/svg.c core/values/options.c core/base/util.c"
	libs="-ljansson -lm"; seeds="tests/fixtures/*.json"; max_len=32768;;
netctl)	src="modules/net/net_proto.c"
	libs="-ljansson"; seeds=""; max_len=4096;;
channel) src="core/run/channel.c core/base/util.c"
	libs="-ljansson -lm"; seeds=""; max_len=4096;;
*)	echo "run_fuzz.sh: unknown target '$name' (config, results, loader, netctl, channel)"; exit 2;;
esac
src="tests/fuzz/fuzz_$name.c $src"
bin=${FUZZ_BUILD:-build-fuzz}/fuzz_$name
art=${BC_ARTIFACTS:-${FUZZ_BUILD:-build-fuzz}/artifacts}
corpus=tests/fuzz/corpus-$name
cc=$(command -v clang-14 || command -v clang) || { echo "clang not installed"; exit 2; }
mkdir -p "$(dirname "$bin")" "$art"
# Rebuild only when a source is newer than the binary.
if [ ! -x "$bin" ] || [ -n "$(find $src core/*/*.h modules/net/*.h -newer "$bin" 2>/dev/null)" ]; then
	"$cc" -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-fno-omit-frame-pointer -D_GNU_SOURCE -Isdk/include $(ls -d core/*/ | sed "s|^|-I|; s|/$||" | tr "\n" " ") -Imodules/net $(pkg-config --cflags libpq 2>/dev/null) -DBC_VERSION='"fuzz"' -DBC_MODULEDIR='"/nonexistent"' \
		-o "$bin.tmp" $src $libs && mv "$bin.tmp" "$bin" || { rm -f "$bin.tmp"; exit 2; }
fi
[ "$secs" = build ] && exit 0
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp
rc=0
if [ "$secs" -gt 0 ]; then
	work=$(mktemp -d /tmp/bc-fuzz.XXXXXX)
	cp $seeds "$corpus"/* "$work/" 2>/dev/null
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=$max_len \
		-dict="tests/fuzz/$name.dict" -artifact_prefix="$art/fuzz-$name-" \
		-print_final_stats=1 "$work" 2>"$art/fuzz-$name.log"
	rc=$?
	tail -20 "$art/fuzz-$name.log" | grep -E 'stat::number_of_executed_units|stat::new_units_added|ERROR|SUMMARY|Test unit written' || true
	[ $rc -ne 0 ] && echo "fuzzer failed (exit $rc); log: $art/fuzz-$name.log; crasher: $(ls -t "$art"/fuzz-$name-* 2>/dev/null | grep -v '\.log$' | head -1)"
	rm -rf "$work"
fi
# Replay the regression corpus: each file runs once.
if ls "$corpus"/* >/dev/null 2>&1; then
	"$bin" "$corpus"/* >"$art/fuzz-$name-replay.log" 2>&1 || {
		echo "regression corpus crashed; log: $art/fuzz-$name-replay.log"; rc=1; }
fi
rm -f /dev/shm/bc-fuzz-$name.*
[ $rc -eq 0 ] && echo "fuzz_$name: no crash (${secs} s fuzzing, $(ls "$corpus" | wc -l) corpus files replayed)"
[ $rc -eq 0 ] || exit 1
