#!/usr/bin/env bash
# arm64 (aarch64), first-class: the fingerprint of ARM servers (Kunpeng 920,
# Graviton2, Graviton3) from their /proc/cpuinfo and sysfs (fixtures written
# from the documented formats, through the test hooks), and, when make check
# cross-built build-arm64/ (aarch64-linux-gnu-gcc, scripts/arm64-sysroot.sh's
# sysroot), that build under qemu-aarch64: its unit tests, --version, list,
# help, sysinfo, a short run of every module qemu-user can run, compare and
# report on the results, and an x86 and an arm64 file compared together.
# What qemu-user cannot do is said (SKIP:), never failed.
. "$(dirname "$0")/lib.sh"
FX=$(cd "$(dirname "$0")/../fixtures/arm" && pwd)

# --- the ARM fingerprint, with the native binary -------------------------
si() { BENCHCORE_PROC_CPUINFO=$FX/$1/cpuinfo BENCHCORE_SYSFS_CPU=$FX/$1/sys "$BC" sysinfo --json >$T/$1.json 2>$T/$1.err; }
si kunpeng920
expect_py "Kunpeng 920 named from implementer 0x48 part 0xd01, with its rNpM" $T/kunpeng920.json \
	"d['cpu_model'] == 'HiSilicon Kunpeng-920 (TaiShan v110) r1p0' and d['cpu_id']['vendor'] == '0x48' and d['cpu_id']['model'] == '0xd01' and d['cpu_id']['variant'] == '0x1'"
expect_py "Kunpeng 920: the feature flags that change results (asimd, atomics, aes, sha2, crc32, asimddp; no sve)" $T/kunpeng920.json \
	"{'asimd', 'atomics', 'aes', 'sha2', 'crc32', 'asimddp'} <= set(d['cpu_id']['flags']) and 'sve' not in d['cpu_id']['flags']"
expect_py "Kunpeng 920: cppc_cpufreq, its governor, hardware range 200-2600 MHz and the policy's 2000 MHz cap" $T/kunpeng920.json \
	"d['scaling_driver'] == 'cppc_cpufreq' and d['governor'] == 'performance' and d['cpu_mhz']['min'] == 200 and d['cpu_mhz']['max'] == 2600 and d['cpu_mhz']['policy_max'] == 2000 and d['cpu_mhz']['current'] == 2000"
expect_py "Kunpeng 920: ACPI CPPC's levels (nominal 2600 MHz, perf 20..260)" $T/kunpeng920.json \
	"d['cpu_mhz']['cppc_nominal_mhz'] == 2600 and d['cpu_mhz']['cppc_highest_perf'] == 260 and d['cpu_mhz']['cppc_lowest_perf'] == 20"
expect_py "Kunpeng 920: cache sizes from sysfs (64K L1d, 512K L2, 32M L3)" $T/kunpeng920.json \
	"d['caches']['L1d']['bytes'] == 65536 and d['caches']['L2']['bytes'] == 524288 and d['caches']['L3']['bytes'] == 33554432 and d['caches']['L3']['source'] == 'sysfs'"
si graviton2
expect_py "Graviton2: Arm Neoverse-N1 r3p1, no frequency driver claimed" $T/graviton2.json \
	"d['cpu_model'] == 'ARM Neoverse-N1 r3p1' and 'scaling_driver' not in d and 'policy_max' not in d.get('cpu_mhz', {})"
si graviton3
expect_py "Graviton3: Arm Neoverse-V1 r1p1 with sve, sha3, sha512, i8mm, bf16" $T/graviton3.json \
	"d['cpu_model'] == 'ARM Neoverse-V1 r1p1' and {'sve', 'sha3', 'sha512', 'i8mm', 'bf16', 'atomics'} <= set(d['cpu_id']['flags'])"
expect_py "the hooks win over the build machine's CPU (no x86 flag in an ARM fingerprint)" $T/graviton3.json \
	"not {'avx', 'avx2', 'sse4_2'} & set(d['cpu_id']['flags'])"
printf 'processor\t: 0\nCPU implementer\t: 0x99\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0x123\nCPU revision\t: 4\n\n' >$T/unknown.cpuinfo
BENCHCORE_PROC_CPUINFO=$T/unknown.cpuinfo "$BC" sysinfo --json >$T/unk.json 2>/dev/null
expect_py "an unknown implementer is named by its numbers, never guessed" $T/unk.json \
	"d['cpu_model'] == 'implementer 0x99 part 0x123 r0p4'"

# --- the cross build under qemu-aarch64 ----------------------------------
A=$(dirname "$BC")/../build-arm64
A=$(cd "$A" 2>/dev/null && pwd)
SYSROOT=${ARM64_SYSROOT:-/var/cache/benchcore/arm64-sysroot}
if [ -z "$A" ] || [ ! -x "$A/benchcore" ] || ! command -v qemu-aarch64 >/dev/null || [ ! -d "$SYSROOT" ]; then
	echo "SKIP: arm64 under qemu: no cross build (make check makes build-arm64/ when aarch64-linux-gnu-gcc, qemu-aarch64 and scripts/arm64-sysroot.sh's sysroot are there)"
	exit 0
fi
export QEMU_LD_PREFIX=$SYSROOT
Q() { qemu-aarch64 "$A/benchcore" "$@"; }
check "the arm64 benchcore is an aarch64 executable" sh -c "file '$A/benchcore' | grep -q 'ARM aarch64'"
Q --version >$T/v.out 2>&1
expect_grep "arm64 --version" $T/v.out '^benchcore [0-9.]+ \(module ABI 1\.'
Q list --module-path "$A/modules" >$T/list.out 2>&1
for m in cpu mem rsa io net oltp redis; do
	expect_grep "arm64 list finds the $m module" $T/list.out "^$m +[0-9.]+ +1\.[0-9]"
done
Q help cpu >$T/help.out 2>&1
expect_grep "arm64 help cpu shows its options" $T/help.out 'max_prime'
Q sysinfo --json >$T/si.json 2>/dev/null
expect_py "arm64 sysinfo: arch aarch64, the probe's clock checked by the generic timer" $T/si.json \
	"d['arch'] == 'aarch64' and d['cpu_mhz']['measured'] > 0 and d['cpu_mhz']['measured_by_counter'] > 0 and d['cpu_mhz']['counter_hz'] > 0"
# the unit tests (test_verdicts: 900 compare pairs take ~200 s emulated; it
# runs natively; test_service execs an aarch64 helper, which needs binfmt_misc)
for t in "$A"/tests/test_*; do
	n=$(basename "$t")
	case $n in
	test_verdicts) echo "SKIP: arm64 unit/$n: ~200 s under emulation; it runs natively"; continue;;
	test_service) [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || {
		echo "SKIP: arm64 unit/$n: it execs an aarch64 helper program, which needs qemu registered in binfmt_misc"; continue; };;
	esac
	TESTMODS=$A/testmods qemu-aarch64 "$t" >$T/$n.log 2>&1
	RC=$?
	p=$(grep -E '^\[  PASSED  \] [0-9]+' $T/$n.log | grep -oE '[0-9]+' | head -1)
	if [ $RC -eq 0 ] && [ -n "$p" ]; then pass "arm64 unit/$n under qemu ($p tests)"; else fail "arm64 unit/$n under qemu: exit $RC"; tail -15 $T/$n.log; fi
done
# a short case of each module qemu-user can run
run_q() { local o=$1; shift; qemu-aarch64 "$A/benchcore" "$@" >"$o.out" 2>"$o.err" </dev/null; RC=$?; }
run_q $T/c run cpu max_prime=2000 --time 0.3 --warmup 0 --repeat 2 -q -o $T/arm.json --module-path "$A/modules"
expect_rc "arm64 cpu run" 0
expect_py "arm64 cpu: 2 ok cases, recorded as aarch64" $T/arm.json \
	"d['host']['arch'] == 'aarch64' and [c['status'] for c in d['cases']] == ['ok', 'ok'] and all(c['metrics']['events_per_sec']['value'] > 0 for c in d['cases'])"
run_q $T/m run mem block_size=4K total_size=8M --time 0.3 --warmup 0 -q -o $T/armm.json --module-path "$A/modules"
expect_rc "arm64 mem run" 0
run_q $T/r run rsa --time 0.3 --warmup 0 -q -o $T/armr.json --module-path "$A/modules"
expect_rc "arm64 rsa run" 0
mkdir -p $T/io
run_q $T/io run io engine=psync path=$T/io file_size=4M --time 0.3 --warmup 0 -q -o $T/armio.json --module-path "$A/modules"
expect_rc "arm64 io (psync) run" 0
check "arm64 io leaves nothing behind" test -z "$(ls -A $T/io)"
run_q $T/ioa run io engine=libaio path=$T/io file_size=4M --time 0.3 --warmup 0 -q -o $T/armioa.json --module-path "$A/modules"
if [ $RC -ne 0 ] && grep -q 'io_setup.*Function not implemented' $T/ioa.out $T/ioa.err $T/armioa.json 2>/dev/null; then
	echo "SKIP: arm64 io engine=libaio: qemu-user does not implement io_setup (ENOSYS); psync ran above"
else
	expect_rc "arm64 io (libaio) run" 0
fi
run_q $T/n run net test=tcp_rr --time 0.3 --warmup 0 -q -o $T/armn.json --module-path "$A/modules"
expect_rc "arm64 net (loopback, in-process server) run" 0
run_q $T/cmp compare $T/arm.json $T/arm.json
expect_rc "arm64 compare" 0
run_q $T/rep report $T/arm.json -o $T/arm.html
expect_rc "arm64 report" 0
check "arm64 report written" test -s $T/arm.html
# mixed fleets: an x86 file and an arm64 one, with the native binary
"$BC" run cpu max_prime=2000 --time 0.3 --warmup 0 --repeat 2 -q -o $T/x86.json >/dev/null 2>&1 </dev/null
run_bc $T/mix compare $T/x86.json $T/arm.json
expect_rc "x86 against arm64: compare" 0
# (interference measured in the cases, on a loaded machine, is named before any fact of the hosts)
expect_grep "x86 against arm64: what differs names the architecture first among the hosts' facts" $T/mix.out \
	'^what differs, most likely to explain a difference: ((interference \(steal and other processes took [^)]*\)|clock \([^)]*\)); )*architecture \(arch: x86_64 -> aarch64\)'
run_bc $T/pg compare --per-ghz $T/x86.json $T/arm.json
expect_rc "x86 against arm64: --per-ghz" 0
expect_grep "--per-ghz divides by each file's measured clock, arm64 included" $T/pg.out '^cpu events_per_sec .* @ [0-9.]+ = [0-9.e+]+ .* @ [0-9.]+ = [0-9.e+]+'
run_bc $T/mixr report $T/x86.json $T/arm.json -o $T/mix.html
expect_rc "x86 against arm64: report" 0
