#!/usr/bin/env bash
# The machine fingerprint on a machine that hides its CPU sysfs tree (as a
# Firecracker guest hides cpu0/cache, cpufreq and more) and on fake trees
# that show a known topology, frequency, governor, boost and caches, through
# the BENCHCORE_SYSFS_CPU / BENCHCORE_NO_CPUID test hooks (docs/results.md).
# Nothing here depends on what the machine running the tests shows.
. "$(dirname "$0")/lib.sh"

ncpu=$(getconf _NPROCESSORS_ONLN)
nconf=$(getconf _NPROCESSORS_CONF)
has_cpuinfo_mhz=$(grep -qi '^cpu MHz' /proc/cpuinfo && echo True || echo False)
si() { local o=$1 e=$2; shift 2; env $e "$BC" sysinfo "$@" >$o.out 2>$o.err </dev/null; RC=$?; }

# --- hidden: an empty tree ---------------------------------------------------
mkdir -p $T/hidden
si $T/h "BENCHCORE_SYSFS_CPU=$T/hidden" --json
expect_rc "hidden sysfs: sysinfo --json works" 0
expect_py "hidden sysfs: threads still written ($ncpu), no guessed sockets/cores/smt" $T/h.out \
	"d['threads'] == $ncpu and not any(k in d for k in ('sockets', 'cores', 'smt'))"
expect_py "hidden sysfs: no governor or driver, boost unknown, and a warning says why" $T/h.out \
	"'governor' not in d and 'scaling_driver' not in d and d['boost'] == 'unknown' and any('no cpufreq governor visible' in w for w in d['warnings'])"
expect_py "hidden sysfs: frequency from /proc/cpuinfo when it has 'cpu MHz', else absent" $T/h.out \
	"(d['cpu_mhz']['source'] == 'cpuinfo' and d['cpu_mhz']['current'] > 0 and 'max' not in d['cpu_mhz']) if $has_cpuinfo_mhz else 'cpu_mhz' not in d"
expect_py "hidden sysfs: cache sizes come from cpuid or sysconf, or none is claimed" $T/h.out \
	"all(c['source'] in ('cpuid', 'sysconf', 'unknown') for c in d.get('caches', {}).values())"

si $T/hn "BENCHCORE_SYSFS_CPU=$T/hidden BENCHCORE_NO_CPUID=1" --json
expect_py "hidden sysfs and CPUID: no caches, a warning instead" $T/hn.out \
	"'caches' not in d and any('no cache sizes visible' in w for w in d['warnings'])"
si $T/hl "BENCHCORE_SYSFS_CPU=$T/hidden BENCHCORE_NO_CPUID=4398046511104" --json
expect_py "a hypervisor's 4T L3: rejected, source unknown, the figure kept" $T/hl.out \
	"d['caches'] == {'L3': {'source': 'unknown', 'rejected_bytes': 4 << 40, 'rejected_source': 'sysconf'}}"
expect_py "a hypervisor's 4T L3: the warning names the source and the figure" $T/hl.out \
	"any(w.startswith('L3 size unknown: sysconf says 4T, implausible') for w in d['warnings'])"
si $T/hlt "BENCHCORE_SYSFS_CPU=$T/hidden BENCHCORE_NO_CPUID=4398046511104"
expect_rc "hidden sysfs: text sysinfo works" 0
expect_grep "text: the rejected L3 is shown as unknown" $T/hlt.out '^caches +L3 unknown \[sysconf said 4T: implausible\]$'

# --- shown: a fake tree, 2 threads per core, cpufreq at 2 GHz, powersave ----
F=$T/fake
for ((i = 0; i < nconf; i++)); do
	d=$F/cpu$i
	mkdir -p $d/topology $d/cpufreq
	echo $((i < ncpu)) >$d/online
	echo 0 >$d/topology/physical_package_id
	echo $((i / 2)) >$d/topology/core_id
	echo 2000000 >$d/cpufreq/scaling_cur_freq
	echo 800000 >$d/cpufreq/cpuinfo_min_freq
	echo 3500000 >$d/cpufreq/cpuinfo_max_freq
	echo powersave >$d/cpufreq/scaling_governor
	echo intel_pstate >$d/cpufreq/scaling_driver
done
mkdir -p $F/cpufreq $F/cpu0/cache/index0 $F/cpu0/cache/index1
echo 1 >$F/cpufreq/boost
fake_cache() { echo $2 >$F/cpu0/cache/index$1/level; echo $3 >$F/cpu0/cache/index$1/type; echo $4 >$F/cpu0/cache/index$1/size; }
fake_cache 0 1 Data 48K
fake_cache 1 2 Unified 2048K
cores=$(( (ncpu + 1) / 2 ))
si $T/f "BENCHCORE_SYSFS_CPU=$F BENCHCORE_NO_CPUID=1" --json
expect_py "fake tree: 1 socket, $cores cores for $ncpu threads, smt as threads > cores" $T/f.out \
	"d['sockets'] == 1 and d['cores'] == $cores and d['threads'] == $ncpu and d['smt'] == ($ncpu > $cores)"
expect_py "fake tree: cpu_mhz from cpufreq (current 2000, min 800, max 3500)" $T/f.out \
	"d['cpu_mhz'] == {'current': 2000.0, 'min': 800.0, 'max': 3500.0, 'source': 'cpufreq'}"
expect_py "fake tree: governor, driver and boost read from it" $T/f.out \
	"d['governor'] == 'powersave' and d['scaling_driver'] == 'intel_pstate' and d['boost'] == 'on'"
expect_py "fake tree: warnings name the governor and the boost" $T/f.out \
	"any(\"governor is 'powersave'\" in w for w in d['warnings']) and any(w.startswith('turbo/boost is on') for w in d['warnings'])"
expect_py "fake tree: caches L1d and L2 from sysfs; L2 is the last level, known: no cache warning" $T/f.out \
	"d['caches'] == {'L1d': {'bytes': 48 << 10, 'source': 'sysfs'}, 'L2': {'bytes': 2 << 20, 'source': 'sysfs'}} and not any('cache' in w for w in d['warnings'])"

# performance governor, boost off: no frequency warning at all
for ((i = 0; i < nconf; i++)); do echo performance >$F/cpu$i/cpufreq/scaling_governor; done
echo 0 >$F/cpufreq/boost
si $T/fp "BENCHCORE_SYSFS_CPU=$F BENCHCORE_NO_CPUID=1" --json
expect_py "fake tree, performance + boost off: no governor or boost warning" $T/fp.out \
	"d['boost'] == 'off' and not any('governor' in w or 'boost' in w for w in d['warnings'])"

# a CPU whose topology is missing: the partial view is not reported
if [ "$ncpu" -ge 2 ]; then
	rm $F/cpu1/topology/core_id
	si $T/fq "BENCHCORE_SYSFS_CPU=$F BENCHCORE_NO_CPUID=1" --json
	expect_py "fake tree, one CPU's topology missing: no sockets/cores, threads kept" $T/fq.out \
		"'cores' not in d and 'sockets' not in d and d['threads'] == $ncpu"
	echo 0 >$F/cpu1/topology/core_id
fi

# --- the frequency sampled during a case reads the same tree ---------------
env BENCHCORE_SYSFS_CPU=$F "$BC" run cpu max_prime=2000 --time 0.3 --warmup 0 --report-interval 0.1 -q \
	-o $T/c.json >$T/c.out 2>$T/c.err </dev/null
RC=$?
expect_rc "cpu case with the fake tree" 0
expect_py "cpu_mhz_mean of the case is the fake 2000 MHz" $T/c.json \
	"d['cases'][0]['cpu_mhz_mean'] == 2000 and d['host']['cpu_mhz']['current'] == 2000"
