#!/bin/bash
# Machine settings as sweep dimensions (issue 49, docs/machine.md). On this
# machine for real: thp, thp_defrag, a sysctl, io_scheduler and read_ahead_kb
# of a loop device the test attaches, online_cpus (CPU 1 offline for about a
# second); through fake CPU sysfs trees (BENCHCORE_SYSFS_CPU) laid out like
# intel_pstate, acpi-cpufreq with boost, amd-pstate and cppc_cpufreq (the
# Kunpeng 920, 0.2-2.6 GHz): every write, its order, the restore, and a "VM"
# that takes the frequency and keeps its clock. Then the ways out: SIGTERM,
# a crashing case, SIGKILL (benchcore restore, and a plain next run), a
# value changed by someone in between, two runs at once. Every value this
# test or benchcore touches is put back by the EXIT trap whatever happens.
# Solo in tests/run.sh: it changes machine-wide state.
. "$(dirname "$0")/lib.sh"

THP=/sys/kernel/mm/transparent_hugepage
SWAP=/proc/sys/vm/swappiness
CPU1=/sys/devices/system/cpu/cpu1/online
if [ "$(id -u)" != 0 ] || [ ! -w $THP/enabled ] || [ ! -w $SWAP ]; then
	pass "machine: skipped (needs root, THP and sysctls)"
	exit 0
fi
MODS="--module-path $PWD/$BUILD/modules"
export BENCHCORE_STATE_DIR=$T/state
raw() { cat "$1"; }	# the file's bytes, to compare byte for byte
# the line number of the first write of a file (its pattern) in a trace
at() { grep -n -E -- "$2" "$1" | head -1 | cut -d: -f1; }
THP0=$(raw $THP/enabled) DEF0=$(raw $THP/defrag) SWAP0=$(raw $SWAP)
CPU10=$( [ -w $CPU1 ] && raw $CPU1 || echo "")
LOOP=""
# the machine as found, whatever happened to the test or benchcore
restore_all() {
	[ -n "${BGPID:-}" ] && kill -9 "$BGPID" 2>/dev/null
	echo "$(sed 's/.*\[\(.*\)\].*/\1/' <<<"$THP0")" >$THP/enabled
	echo "$(sed 's/.*\[\(.*\)\].*/\1/' <<<"$DEF0")" >$THP/defrag
	echo "$SWAP0" >$SWAP
	[ -n "$CPU10" ] && echo "$CPU10" >$CPU1
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -rf "$T"
}
trap restore_all EXIT
same_as_found() {
	check "$1: THP enabled byte for byte" [ "$(raw $THP/enabled)" = "$THP0" ]
	check "$1: THP defrag byte for byte" [ "$(raw $THP/defrag)" = "$DEF0" ]
	check "$1: vm.swappiness byte for byte" [ "$(raw $SWAP)" = "$SWAP0" ]
	[ -n "$CPU10" ] && check "$1: CPU 1 online as found" [ "$(raw $CPU1)" = "$CPU10" ]
}
other() { [ "$1" = never ] && echo always || echo never; }
THPX=$(other "$(sed 's/.*\[\(.*\)\].*/\1/' <<<"$THP0")")

# ---- the plan refuses, before anything changes (exit 2) ----
run_bc "$T/vm" run cpu $MODS --time 0.2 --machine cpu_freq=2GHz
if [ -e /sys/devices/system/cpu/cpu0/cpufreq ]; then
	pass "machine: this machine has cpufreq (the VM refusal is checked on a fake tree below)"
else
	expect_rc "machine: cpu_freq where no cpufreq policy exists is refused" 2
	expect_grep "machine: the refusal says why (no cpufreq policy, this machine's kind)" "$T/vm.err" \
		"exposes no cpufreq policy.*cannot be set here"
fi
check "machine: a refused plan leaves no journal" [ ! -e "$T/state/journal" ]
run_bc "$T/badthp" run cpu $MODS --time 0.2 --machine thp=sometimes
expect_rc "machine: a value the kernel does not offer is refused" 2
expect_grep "machine: ... naming the file and its choices" "$T/badthp.err" "transparent_hugepage/enabled's choices: always madvise never"
run_bc "$T/badkey" run cpu $MODS --time 0.2 --machine turbos=true
expect_rc "machine: an unknown key is refused" 2
expect_grep "machine: ... with the keys there are" "$T/badkey.err" "takes: .*governor, turbo, cpu_freq"
run_bc "$T/badsys" run cpu $MODS --time 0.2 --machine sysctl.vm.../etc=1
expect_rc "machine: a sysctl name leaving /proc/sys is refused" 2
same_as_found "machine: after the refusals"

# ---- for real: THP, defrag, a sysctl, a loop device's queue ----
truncate -s 64M "$T/disk.img"
LOOP=$(losetup -f --show "$T/disk.img" 2>/dev/null || true)
Q=/sys/block/${LOOP#/dev/}/queue
if [ -n "$LOOP" ]; then
	SCH0=$(raw $Q/scheduler) RA0=$(raw $Q/read_ahead_kb) NR0=$(raw $Q/nr_requests)
	SCHX=$(tr -d '[]' <$Q/scheduler | tr ' ' '\n' | grep -v "^$(sed 's/.*\[\(.*\)\].*/\1/' <<<"$SCH0")\$" | grep . | head -1)
	DEV="device = \"$LOOP\"; io_scheduler = \"$SCHX\"; read_ahead_kb = 1024; nr_requests = 32;"
else
	DEV=""
	pass "machine: no loop device here (the device settings are left out)"
fi
cat >"$T/real.conf" <<EOF
module_path = [ "$PWD/$BUILD/modules" ];
time = 0.3; warmup = 0; repeat = 2;
machine = { thp = [ "never", "always" ]; thp_defrag = "defer"; sysctl = { name = "vm.swappiness"; value = 13; }; $DEV };
modules = ( { name = "cpu"; max_prime = 2000; } );
EOF
BENCHCORE_MACHINE_TRACE=$T/real.trace run_bc "$T/real" -c "$T/real.conf" -o "$T/real.json"
expect_rc "machine: a run sweeping thp with a defrag, a sysctl and a device's queue" 0
expect_py "machine: each case records the settings it ran under" "$T/real.json" \
	"sorted(c['machine']['thp'] for c in d['cases']) == ['always', 'always', 'never', 'never'] and all(c['machine']['sysctl.vm.swappiness'] == '13' and c['machine']['thp_defrag'] == 'defer' for c in d['cases'])"
expect_py "machine: the setting's values interleave in the rounds (each round has both)" "$T/real.json" \
	"sorted((c['round'], c['machine']['thp']) for c in d['cases']) == [(1, 'always'), (1, 'never'), (2, 'always'), (2, 'never')]"
expect_py "machine: THP was seen in effect (no setting_not_in_effect)" "$T/real.json" \
	"not any('setting_not_in_effect' in c for c in d['cases'])"
expect_py "machine: the values are two groups told apart as machine.thp" "$T/real.json" \
	"len(d['groups']) == 2 and all('machine.thp' in g['params'] for g in d['groups'])"
expect_grep "machine: THP written" "$T/real.trace" "^$THP/enabled never$"
expect_grep "machine: the sysctl written" "$T/real.trace" "^$SWAP 13$"
if [ -n "$LOOP" ]; then
	expect_grep "machine: the loop device's scheduler written" "$T/real.trace" "^/sys/.*/queue/scheduler $SCHX$"
	expect_grep "machine: its read-ahead written" "$T/real.trace" "^/sys/.*/queue/read_ahead_kb 1024$"
	check "machine: the scheduler back byte for byte" [ "$(raw $Q/scheduler)" = "$SCH0" ]
	check "machine: read_ahead_kb back byte for byte" [ "$(raw $Q/read_ahead_kb)" = "$RA0" ]
	# nr_requests after the scheduler (a scheduler switch resets the depth), read back by the run
	check "machine: nr_requests written after the scheduler" \
		[ "$(at "$T/real.trace" "/queue/scheduler $SCHX$")" -lt "$(at "$T/real.trace" "/queue/nr_requests 32$")" ]
	check "machine: nr_requests back byte for byte ($NR0)" [ "$(raw $Q/nr_requests)" = "$NR0" ]
fi
expect_grep "machine: the change's cost is said" "$T/real.out" "machine: machine.thp=(never|always) \([0-9]+ files?, [0-9.]+ ms\)"
same_as_found "machine: after the real run"
check "machine: the journal is gone after a run that ended" [ ! -e "$T/state/journal" ]
run_bc "$T/split" compare --split machine.thp "$T/real.json"
expect_rc "machine: compare --split machine.thp reads one file as two systems" 0
expect_grep "machine: ... the first configured value the baseline" "$T/split.out" "^A: .* machine.thp=never"
run_bc "$T/splittab" compare --table --split machine.thp "$T/real.json"
expect_grep "machine: --table --split: a column per value" "$T/splittab.out" "machine.thp=never +.*machine.thp=always"
run_bc "$T/splitpg" compare --per-ghz --split machine.thp "$T/real.json"
expect_rc "machine: --per-ghz --split machine.thp" 0
expect_grep "machine: ... per GHz of each value's measured clock, a column each" "$T/splitpg.out" \
	"^cpu events_per_sec +[0-9.e+]+ @ [0-9.]+ = [0-9.e+]+ +[0-9.e+]+ @ [0-9.]+ = [0-9.e+]+; x[0-9.]+ vs clock"
run_bc "$T/splitix" compare --index --split machine.thp "$T/real.json"
expect_rc "machine: --index --split machine.thp" 0
expect_grep "machine: ... never the baseline (100), always indexed against it" "$T/splitix.out" \
	"^index \(baseline = 100\) +.*machine.thp=never +.*machine.thp=always"
expect_grep "machine: ... the cpu row" "$T/splitix.out" "^cpu +100 +[0-9.]+ \[[0-9.]+, [0-9.]+\]"
run_bc "$T/split1" compare --split machine.thp_defrag "$T/real.json"
expect_rc "machine: --split on a setting with one value is refused" 2

# ---- THP and the run's private servers: restarted on a change, each case's server checked ----
if [ "${BC_QUICK:-0}" = 1 ]; then
	echo "QUICK: THP against private servers (a stand-in with 64 MiB of huge pages, the real redis-server: 9 checks) left out"
else
	run_bc "$T/thpsvc" run svc --module-path "$TESTMODS" server="$TESTMODS/standin_server" flags=--hugemem=64 \
		--time 0.3 --warmup 0 --repeat 2 --machine thp=always,never -o "$T/thpsvc.json"
	expect_rc "machine: thp = always, never with a private server that writes 64 MiB" 0
	expect_py "machine: each case records its server under thp: a server started after the change" "$T/thpsvc.json" \
		"all(len(c['thp_servers']) == 1 and c['thp_servers'][0]['started_after_change'] for c in d['cases'])"
	expect_py "machine: ... restarted at each change of thp (one server per run of a value)" "$T/thpsvc.json" \
		"(lambda s: all((a[0] == b[0]) == (a[1] == b[1]) for a, b in zip(s, s[1:])))([(c['machine']['thp'], c['thp_servers'][0]['pid']) for c in sorted(d['cases'], key=lambda c: c['id'])])"
	expect_py "machine: under always its 64 MiB are huge pages (AnonHugePages), under never none" "$T/thpsvc.json" \
		"all((c['thp_servers'][0]['anon_huge_kb'] >= 32768) if c['machine']['thp'] == 'always' else c['thp_servers'][0]['anon_huge_kb'] == 0 for c in d['cases'])"
	expect_py "machine: ... so every case is in effect" "$T/thpsvc.json" "not any('setting_not_in_effect' in c for c in d['cases'])"
	python3 -c 'import json,sys; [print("    thp %s: server pid %d, AnonHugePages %d kB" % (c["machine"]["thp"], c["thp_servers"][0]["pid"], c["thp_servers"][0]["anon_huge_kb"])) for c in json.load(open(sys.argv[1]))["cases"]]' "$T/thpsvc.json"
	if command -v redis-server >/dev/null; then
		TMPDIR=$T run_bc "$T/thpredis" run redis tests=SET --time 0.3 --warmup 0 --repeat 2 --machine thp=never,always \
			-o "$T/thpredis.json"
		expect_rc "machine: redis (its private redis-server) with thp = never, always" 0
		expect_py "machine: redis: under never its server holds no huge pages and is in effect" "$T/thpredis.json" \
			"all(c['thp_servers'][0]['name'] == 'redis-server' and c['thp_servers'][0]['anon_huge_kb'] == 0 and 'setting_not_in_effect' not in c for c in d['cases'] if c['machine']['thp'] == 'never')"
		expect_py "machine: redis: under always a server that turned THP off for itself (disable-thp) is not in effect, said" \
			"$T/thpredis.json" "all(c['thp_servers'][0]['thp_enabled'] or 'turned THP off for itself' in c['setting_not_in_effect'] for c in d['cases'] if c['machine']['thp'] == 'always')"
		python3 -c 'import json,sys; [print("    redis thp %s: %s" % (c["machine"]["thp"], c["thp_servers"][0])) for c in json.load(open(sys.argv[1]))["cases"]]' "$T/thpredis.json"
		same_as_found "machine: after the THP runs with private servers"
	else
		echo "SKIP: redis-server not installed: the real server's THP check left out"
	fi
fi

# ---- --resume with a machine sweep: a case is its options and its settings ----
cat >"$T/res.conf" <<EOF
module_path = [ "$PWD/$BUILD/modules" ];
time = 0.4; warmup = 0; repeat = 2; report_interval = 0;
machine = { thp = [ "never", "always" ]; };
modules = ( { name = "cpu"; max_prime = 300; } );
EOF
"$BC" -c "$T/res.conf" -o "$T/res.json" -q >/dev/null 2>&1 </dev/null & BGPID=$!
for _ in $(seq 200); do
	python3 -c 'import json,sys; sys.exit(not json.load(open(sys.argv[1]))["cases"])' "$T/res.json" 2>/dev/null && break
	sleep 0.05
done
kill -9 $BGPID; wait $BGPID 2>/dev/null; BGPID=""
n1=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["cases"]))' "$T/res.json" 2>/dev/null)
check "machine: --resume: killed with ${n1:-no} of 4 cases written" test -n "$n1" -a "${n1:-0}" -ge 1 -a "${n1:-4}" -lt 4
run_bc "$T/resumed" -c "$T/res.conf" -o "$T/res.json" --resume
expect_rc "machine: --resume of a run sweeping thp (its dead run's settings restored first)" 0
expect_grep "machine: ... the plan says what was kept" "$T/resumed.err" "^plan: resuming .*: [0-9]+ cases? kept, [0-9]+ to run"
expect_py "machine: ... each (thp, repeat) once: the settings tell the kept cases apart" "$T/res.json" \
	"sorted((c['machine']['thp'], c['repeat']) for c in d['cases'] if c['status'] == 'ok') == [('always', 1), ('always', 2), ('never', 1), ('never', 2)]"
expect_py "machine: ... ids unique" "$T/res.json" "len(set(c['id'] for c in d['cases'])) == len(d['cases'])"
same_as_found "machine: after the resumed sweep"

# ---- repeat = "auto" with a machine sweep: each value a case of its own, stopped on its own ----
run_bc "$T/auto" run cpu $MODS max_prime=300 --time 0.2 --warmup 0 --repeat auto --min-repeat 2 --max-repeat 4 \
	--machine thp=never,always -o "$T/auto.json"
expect_rc "machine: repeat = auto over a thp sweep" 0
expect_py "machine: ... each value ran 2 to 4 repeats, its last one saying why it stopped" "$T/auto.json" \
	"all(2 <= len(cs) <= 4 and sorted(c['repeat'] for c in cs) == list(range(1, len(cs) + 1)) and (max(cs, key=lambda c: c['repeat']).get('repeat_stop') in ('precise', 'futile', 'max_repeat')) for cs in [[c for c in d['cases'] if c['machine']['thp'] == v] for v in ('never', 'always')])"
expect_py "machine: ... two groups, one per value" "$T/auto.json" "sorted(g['params']['machine.thp'] for g in d['groups']) == ['always', 'never']"

# ---- online_cpus: a 2-thread cpu case on 1 CPU, then 2 ----
if [ -n "$CPU10" ] && [ "$(nproc --all)" -ge 2 ]; then
	for try in 1 2 3; do
		run_bc "$T/oc" run cpu $MODS max_prime=3000 --threads 2 --time 1 --warmup 0.2 --machine online_cpus=1,2 -o "$T/oc.json" --force
		check "machine: CPU 1 online again after the online_cpus run" [ "$(raw $CPU1)" = 1 ]
		python3 -c 'import json,sys; c={x["machine"]["online_cpus"]: x["metrics"]["events_per_sec"]["value"] for x in json.load(open(sys.argv[1]))["cases"]}; sys.exit(not c["1"] < 0.8 * c["2"])' "$T/oc.json" 2>/dev/null && break
		[ $try -lt 3 ] && echo "    (the machine's load hid the second CPU's share in try $try: measured again)"
	done
	expect_rc "machine: an online_cpus sweep" 0
	expect_py "machine: the case at online_cpus = 1 could run on 1 CPU" "$T/oc.json" \
		"[c['cpu']['cpus_n'] for c in d['cases'] if c['machine']['online_cpus'] == '1'] == [1]"
	expect_py "machine: ... the one at 2 on 2" "$T/oc.json" \
		"[c['cpu']['cpus_n'] for c in d['cases'] if c['machine']['online_cpus'] == '2'] == [2]"
	expect_py "machine: 2 threads on 1 CPU run clearly slower than on 2 (about half, on a quiet machine)" "$T/oc.json" \
		"(lambda r: r['1'] < 0.8 * r['2'])({c['machine']['online_cpus']: c['metrics']['events_per_sec']['value'] for c in d['cases']})"
	python3 -c 'import json,sys; r={x["machine"]["online_cpus"]: x["metrics"]["events_per_sec"]["value"] for x in json.load(open(sys.argv[1]))["cases"]}; print("    online_cpus 1: %.0f events/s, 2: %.0f events/s (ratio %.2f)" % (r["1"], r["2"], r["1"] / r["2"]))' "$T/oc.json"
	run_bc "$T/ocbad" run cpu $MODS --time 0.2 --machine online_cpus=0
	expect_rc "machine: online_cpus = 0 is refused (cpu0 never goes)" 2
fi

# ---- cpus: the cases' CPUs without hot-unplugging ----
if [ "$(nproc)" -ge 2 ]; then
	run_bc "$T/cpus" run cpu $MODS --threads 2 --time 0.3 --warmup 0 --machine cpus=0,0-1 -o "$T/cpus.json"
	expect_rc "machine: a cpus sweep" 0
	expect_py "machine: cpus = 0: the case could run on CPU 0 alone; 0-1 on both" "$T/cpus.json" \
		"sorted((c['machine']['cpus'], c['cpu']['cpus']) for c in d['cases']) == [('0', '0'), ('0-1', '0-1')]"
fi

# ---- fake CPU trees: every driver's files, their order, the restore ----
# mk_tree DIR DRIVER: 2 CPUs laid out as DRIVER's sysfs
mk_tree() {
	local d=$1 drv=$2 lo hi govs gov
	case $drv in
	intel_pstate) lo=800000 hi=4800000 govs="performance powersave" gov=powersave ;;
	acpi-cpufreq) lo=1200000 hi=3600000 govs="conservative ondemand userspace powersave performance schedutil" gov=userspace ;;
	amd-pstate) lo=400000 hi=4500000 govs="performance powersave schedutil" gov=schedutil ;;
	cppc_cpufreq) lo=200000 hi=2600000 govs="ondemand userspace performance schedutil" gov=performance ;;
	esac
	mkdir -p "$d"
	for c in 0 1; do
		local f=$d/cpu$c/cpufreq
		mkdir -p "$f" "$d/cpu$c/topology"
		echo "$c" >"$d/cpu$c/topology/thread_siblings_list"
		[ $c -gt 0 ] && echo 1 >"$d/cpu$c/online"
		echo $lo >"$f/cpuinfo_min_freq"; echo $hi >"$f/cpuinfo_max_freq"
		echo $lo >"$f/scaling_min_freq"; echo $hi >"$f/scaling_max_freq"
		echo "$govs" >"$f/scaling_available_governors"; echo $gov >"$f/scaling_governor"
		echo $drv >"$f/scaling_driver"
		case $drv in
		acpi-cpufreq) echo "3600000 2800000 2000000 1200000" >"$f/scaling_available_frequencies"
			echo 2000000 >"$f/scaling_setspeed" ;;
		amd-pstate) echo 1 >"$f/boost" ;;
		esac
	done
	case $drv in
	intel_pstate) mkdir -p "$d/intel_pstate"; echo 0 >"$d/intel_pstate/no_turbo" ;;
	acpi-cpufreq) mkdir -p "$d/cpufreq"; echo 1 >"$d/cpufreq/boost" ;;
	esac
	echo 0-1 >"$d/online"
}
snap() { (cd "$1" && find . -type f | sort | while read -r f; do printf '%s: ' "$f"; cat "$f"; done); }
fake_run() {	# fake_run NAME DRIVER ARGS...: a run on the fake tree, its trace, before/after
	local n=$1 drv=$2; shift 2
	mk_tree "$T/$n.tree" "$drv"
	snap "$T/$n.tree" >"$T/$n.before"
	BENCHCORE_SYSFS_CPU=$T/$n.tree BENCHCORE_MACHINE_TRACE=$T/$n.trace \
		run_bc "$T/$n" run cpu $MODS max_prime=2000 --time 0.2 --warmup 0 "$@" -o "$T/$n.json"
	snap "$T/$n.tree" >"$T/$n.after"
	check "machine: $drv: every file of the tree back byte for byte" cmp -s "$T/$n.before" "$T/$n.after"
}

fake_run intel intel_pstate --machine governor=performance --machine turbo=false,true --machine cpu_freq=2GHz,max
expect_rc "machine: intel_pstate: governor, turbo and cpu_freq swept" 0
expect_grep "machine: intel_pstate: turbo = false is no_turbo 1" "$T/intel.trace" "intel_pstate/no_turbo 1$"
expect_grep "machine: intel_pstate: every CPU's max frequency" "$T/intel.trace" "cpu1/cpufreq/scaling_max_freq 2000000$"
check "machine: intel_pstate: the governor before turbo" [ "$(at "$T/intel.trace" scaling_governor)" -lt "$(at "$T/intel.trace" no_turbo)" ]
check "machine: intel_pstate: turbo before the frequency" [ "$(at "$T/intel.trace" no_turbo)" -lt "$(at "$T/intel.trace" scaling_m.._freq)" ]
check "machine: intel_pstate: lowering, min first (min <= max at every step)" \
	[ "$(at "$T/intel.trace" "cpu0/cpufreq/scaling_min_freq 2000000")" -lt "$(at "$T/intel.trace" "cpu0/cpufreq/scaling_max_freq 2000000")" ]
check "machine: intel_pstate: raising, max first" \
	[ "$(at "$T/intel.trace" "cpu0/cpufreq/scaling_max_freq 4800000")" -lt "$(at "$T/intel.trace" "cpu0/cpufreq/scaling_min_freq 4800000")" ]
expect_py "machine: intel_pstate: cpu_freq = max recorded as given" "$T/intel.json" \
	"sorted(c['machine']['cpu_freq'] for c in d['cases']) == ['2GHz', '2GHz', 'max', 'max']"

fake_run acpi acpi-cpufreq --machine turbo=false --machine cpu_freq=2.8GHz
expect_rc "machine: acpi-cpufreq: turbo and a listed frequency" 0
expect_grep "machine: acpi-cpufreq: turbo through cpufreq/boost" "$T/acpi.trace" "/cpufreq/boost 0$"
expect_grep "machine: acpi-cpufreq: the userspace governor's scaling_setspeed" "$T/acpi.trace" "cpu0/cpufreq/scaling_setspeed 2800000$"
BENCHCORE_SYSFS_CPU=$T/acpi.tree run_bc "$T/acpibad" run cpu $MODS --time 0.2 --machine cpu_freq=2.5GHz
expect_rc "machine: acpi-cpufreq: a frequency not among scaling_available_frequencies is refused" 2
expect_grep "machine: ... listing the ones it offers" "$T/acpibad.err" "not one of the frequencies this driver offers: 3600000 2800000 2000000 1200000"

fake_run amd amd-pstate --machine turbo=false --machine governor=performance
expect_rc "machine: amd-pstate: turbo and governor" 0
expect_grep "machine: amd-pstate: turbo through each policy's boost" "$T/amd.trace" "cpu1/cpufreq/boost 0$"

fake_run kunpeng cppc_cpufreq --machine cpu_freq=2.6GHz,2.5GHz,2.0GHz,1.0GHz
expect_rc "machine: cppc_cpufreq (Kunpeng 920): study 2's four frequencies" 0
expect_py "machine: cppc: four cases, each with its frequency" "$T/kunpeng.json" \
	"sorted(c['machine']['cpu_freq'] for c in d['cases']) == ['1.0GHz', '2.0GHz', '2.5GHz', '2.6GHz']"
expect_py "machine: the fake tree is a VM: the write taken, the clock kept -> setting_not_in_effect with both figures" \
	"$T/kunpeng.json" "all(c.get('setting_not_in_effect', '').startswith('cpu_freq: asked') and 'measured' in c['setting_not_in_effect'] for c in d['cases'] if c['machine']['cpu_freq'] == '1.0GHz')"
expect_py "machine: no group credits a setting that did not take" "$T/kunpeng.json" \
	"not any(g['params'].get('machine.cpu_freq') == '1.0GHz' for g in d['groups'])"
BENCHCORE_SYSFS_CPU=$T/kunpeng.tree run_bc "$T/kpbad" run cpu $MODS --time 0.2 --machine cpu_freq=3GHz
expect_rc "machine: cppc: beyond 2.6 GHz is refused" 2
expect_grep "machine: ... with the range" "$T/kpbad.err" "outside this machine's range, 0.200 to 2.600 GHz"
BENCHCORE_SYSFS_CPU=$T/kunpeng.tree run_bc "$T/kpturbo" run cpu $MODS --time 0.2 --machine turbo=true
expect_rc "machine: cppc: no turbo switch, refused" 2
# a frequency the clock really runs at (measured) is seen in effect
MHZ=$(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["cases"][0]["cpu_freq"]["measured_mhz"]))' "$T/intel.json" 2>/dev/null)
if [ -n "$MHZ" ] && [ "$MHZ" -gt 800 ] && [ "$MHZ" -lt 4800 ]; then
	fake_run intel2 intel_pstate --machine cpu_freq=${MHZ}MHz
	expect_py "machine: a frequency the measured clock matches within 5% is in effect" "$T/intel2.json" \
		"'setting_not_in_effect' not in d['cases'][0] or 'measured' in d['cases'][0]['setting_not_in_effect']"
	# study 2's reading on one file: compare --per-ghz (and --index) --split machine.cpu_freq, two
	# frequencies the measured clock matches (2% apart) on a fake intel_pstate tree
	MHZ2=$((MHZ * 98 / 100))
	mk_tree "$T/pg.tree" intel_pstate
	BENCHCORE_SYSFS_CPU=$T/pg.tree run_bc "$T/pg" run cpu $MODS max_prime=2000 --time 0.3 --warmup 0 --repeat 2 \
		--machine cpu_freq=${MHZ}MHz,${MHZ2}MHz -o "$T/pg.json"
	expect_rc "machine: cpu_freq = ${MHZ}MHz, ${MHZ2}MHz on a fake intel_pstate tree" 0
	if python3 -c 'import json,sys; sys.exit(sum("setting_not_in_effect" in c for c in json.load(open(sys.argv[1]))["cases"]) > 0)' "$T/pg.json"; then
		run_bc "$T/pgs" compare --per-ghz --split machine.cpu_freq "$T/pg.json"
		expect_rc "machine: compare --per-ghz --split machine.cpu_freq" 0
		expect_grep "machine: ... a column per frequency, the first the baseline" "$T/pgs.out" \
			"machine.cpu_freq=${MHZ}MHz +.*machine.cpu_freq=${MHZ2}MHz"
		expect_grep "machine: ... each side's rate at its measured clock, per GHz" "$T/pgs.out" \
			"^cpu events_per_sec +[0-9.e+]+ @ [0-9.]+ = [0-9.e+]+ +[0-9.e+]+ @ [0-9.]+ = [0-9.e+]+; x[0-9.]+ vs clock x[0-9.]+"
		run_bc "$T/pgi" compare --index --split machine.cpu_freq "$T/pg.json"
		expect_rc "machine: compare --index --split machine.cpu_freq" 0
		expect_grep "machine: ... the second frequency indexed against the first (100)" "$T/pgi.out" \
			"^cpu +100 +[0-9.]+ \[[0-9.]+, [0-9.]+\]"
	else
		pass "machine: --per-ghz --split: the measured clock moved more than 5% from a frequency asked (a loaded machine's clock), the cases are marked; checked on thp below"
	fi
fi
mkdir -p "$T/smt.tree/smt"; echo notsupported >"$T/smt.tree/smt/control"
BENCHCORE_SYSFS_CPU=$T/smt.tree run_bc "$T/smt" run cpu $MODS --time 0.2 --machine smt=false
expect_rc "machine: smt where smt/control says notsupported is refused" 2
mk_tree "$T/smton.tree" intel_pstate; mkdir -p "$T/smton.tree/smt"; echo on >"$T/smton.tree/smt/control"
BENCHCORE_SYSFS_CPU=$T/smton.tree BENCHCORE_MACHINE_TRACE=$T/smton.trace run_bc "$T/smton" run cpu $MODS --time 0.2 --warmup 0 \
	--machine smt=false --machine governor=performance
expect_rc "machine: smt = false where smt/control says on" 0
check "machine: smt/control written off first (before the governor), then back on" \
	test "$(head -1 "$T/smton.trace")" = "$T/smton.tree/smt/control off" -a "$(cat "$T/smton.tree/smt/control")" = on

# ---- the three studies with their settings ----
S=$PWD/examples/studies
run_bc "$T/st1" -c "$S/centos6-vs-centos7.conf" $MODS --scale 0.001 -o "$T/st1.json"
if [ -e /sys/devices/system/cpu/cpu0/cpufreq ]; then
	pass "machine: study 1 here: this machine has cpufreq (its fake-tree run is below)"
else
	expect_rc "machine: study 1's turbo = [true, false] refused on this VM" 2
	expect_grep "machine: ... quoting the file and line and why" "$T/st1.err" "centos6-vs-centos7.conf:[0-9]+: .*turbo: this machine exposes no cpufreq policy"
	run_bc "$T/st2" -c "$S/redis-vs-cpu-frequency.conf" $MODS --scale 0.1 -o "$T/st2.json"
	expect_rc "machine: study 2's four frequencies refused on this VM" 2
	grep -m1 "error:" "$T/st2.err" | sed 's/^/    /'
fi
mk_tree "$T/st1.tree" intel_pstate
BENCHCORE_SYSFS_CPU=$T/st1.tree run_bc "$T/st1f" -c "$S/centos6-vs-centos7.conf" $MODS --only cpu --scale 0.001 \
	--threads 1,2 --repeat 1 -o "$T/st1f.json"
expect_rc "machine: study 1 (cpu) with its turbo sweep on a fake intel_pstate tree" 0
expect_py "machine: study 1: every thread count with turbo and without" "$T/st1f.json" \
	"sorted((c['threads'], c['machine']['turbo']) for c in d['cases']) == [(1, 'false'), (1, 'true'), (2, 'false'), (2, 'true')]"
run_bc "$T/st1s" compare --split machine.turbo "$T/st1f.json"
expect_grep "machine: study 1: compare --split machine.turbo: with turbo the baseline" "$T/st1s.out" "^A: .*machine.turbo=true"
mk_tree "$T/st2.tree" cppc_cpufreq
BENCHCORE_SYSFS_CPU=$T/st2.tree run_bc "$T/st2f" -c "$S/redis-vs-cpu-frequency.conf" $MODS --scale 0.05 --repeat 1 \
	redis.tests=GET -o "$T/st2f.json"
expect_rc "machine: study 2 with its four frequencies on a fake cppc_cpufreq tree (Kunpeng 920)" 0
expect_py "machine: study 2: each frequency's case, marked not in effect where the clock stayed" "$T/st2f.json" \
	"sorted(c['machine']['cpu_freq'] for c in d['cases']) == ['1.0GHz', '2.0GHz', '2.5GHz', '2.6GHz'] and all(('setting_not_in_effect' in c) == (abs(c['cpu_freq']['measured_mhz'] - float(c['machine']['cpu_freq'][:-3]) * 1000) > 0.05 * float(c['machine']['cpu_freq'][:-3]) * 1000) for c in d['cases'])"
python3 -c 'import json,sys; [print("    %s: %s" % (c["machine"]["cpu_freq"], c.get("setting_not_in_effect", "in effect"))) for c in json.load(open(sys.argv[1]))["cases"]]' "$T/st2f.json"
if [ -n "$CPU10" ]; then
	run_bc "$T/st3" -c "$S/cloud-vm-quick-tests.conf" $MODS --scale 0.01 machine.online_cpus=4,8 -o "$T/st3.json"
	expect_rc "machine: study 3's 4-core against 8-core sweep (machine.online_cpus=4,8) refused on this 2-CPU machine" 2
	expect_grep "machine: ... naming the setting and the machine's range" "$T/st3.err" 'online_cpus: "4" is not a count of CPUs from 1 to 2'
	check "machine: ... and nothing changed (CPU 1 online)" [ "$(raw $CPU1)" = "$CPU10" ]
	run_bc "$T/st3r" -c "$S/cloud-vm-quick-tests.conf" $MODS --only rsa --scale 0.01 --repeat 1 machine.online_cpus=1,2 -o "$T/st3r.json"
	expect_rc "machine: study 3 (rsa) with machine.online_cpus=1,2 given after -c" 0
	expect_py "machine: study 3: each case on the CPUs its setting left" "$T/st3r.json" \
		"all(c['cpu']['cpus_n'] == int(c['machine']['online_cpus']) for c in d['cases'])"
	check "machine: study 3: CPU 1 online again" [ "$(raw $CPU1)" = "$CPU10" ]
fi
run_bc "$T/stnone" -c "$S/redis-vs-cpu-frequency.conf" $MODS --scale 0.05 --repeat 1 redis.tests=GET --machine none -o "$T/stnone.json"
expect_rc "machine: --machine none runs a study without its settings" 0
expect_py "machine: ... its cases record none" "$T/stnone.json" "not any('machine' in c for c in d['cases'])"

# ---- custom: set and read commands; the value never parsed by the shell ----
echo orig >"$T/knob"
cat >"$T/custom.conf" <<EOF
module_path = [ "$PWD/$BUILD/modules" ];
time = 0.2; warmup = 0;
machine = { custom = { name = "knob"; set = "printf '%s\\\\n' {value} > $T/knob"; read = "cat $T/knob";
                       values = [ "a; touch $T/pwned", "\$(touch $T/pwned2)" ]; }; };
modules = ( { name = "cpu"; max_prime = 1000; } );
EOF
run_bc "$T/custom" -c "$T/custom.conf" -o "$T/custom.json"
expect_rc "machine: a custom setting swept" 0
check 'machine: custom: a value with ; and $( ) ran nothing' test ! -e "$T/pwned" -a ! -e "$T/pwned2"
expect_py "machine: custom: the cases record the values as given" "$T/custom.json" \
	"sorted(c['machine']['custom.knob'] for c in d['cases']) == sorted(['a; touch $T/pwned', '\$(touch $T/pwned2)'])"
check "machine: custom: restored through its set command" [ "$(cat "$T/knob")" = orig ]
# a command that hangs is killed at its timeout (the setting's own, seconds), naming the command
cat >"$T/slow.conf" <<EOF
module_path = [ "$PWD/$BUILD/modules" ];
time = 0.2; warmup = 0;
machine = { custom = { name = "slowknob"; set = "sleep 60 # bc-slowset {value}"; read = "cat $T/knob";
                       values = [ "b" ]; timeout = 1; }; };
modules = ( { name = "cpu"; max_prime = 1000; } );
EOF
t0=$(date +%s%N)
run_bc "$T/slow" -c "$T/slow.conf" -o "$T/slow.json"
t1=$(date +%s%N)
expect_rc "machine: custom: a set command that outlives its timeout fails the case" 1
expect_grep "machine: ... naming the command and the limit" "$T/slow.out" \
	'custom: could not write "b" to slowknob: "sleep 60 # bc-slowset \{value\}" did not finish within 1 s: it was killed'
check "machine: ... the run did not wait for it (under 30 s)" [ $(( (t1 - t0) / 1000000000 )) -lt 30 ]
expect_grep "machine: ... its progress line says the apply failed" "$T/slow.out" "machine: settings applied: failed \(1 file, [0-9.]+ ms\)"
check "machine: ... nothing of it left running" sh -c '! pgrep -f "bc-slowse[t]" >/dev/null'
check "machine: ... and the knob as found" [ "$(cat "$T/knob")" = orig ]
sed -e 's/set = "sleep 60 # bc-slowset {value}"; read = "cat [^"]*"/set = "true {value}"; read = "sleep 60 # bc-slowread"/' \
	"$T/slow.conf" >"$T/slowr.conf"
run_bc "$T/slowr" -c "$T/slowr.conf"
expect_rc "machine: custom: a read command that hangs in the plan is refused (exit 2)" 2
expect_grep "machine: ... naming it" "$T/slowr.err" '"sleep 60 # bc-slowread" did not finish within 1 s'
sed -e 's/timeout = 1;/timeout = -3;/' "$T/slow.conf" >"$T/slowbad.conf"
run_bc "$T/slowbad" -c "$T/slowbad.conf"
expect_rc "machine: custom: a timeout that is not a positive number of seconds is refused" 2
expect_grep "machine: ... saying what it takes" "$T/slowbad.err" 'timeout is a number of seconds above 0'

# ---- the ways out: SIGTERM, a crashing case, SIGKILL ----
# wait_applied: until the run's journal holds THP's record and THP reads as written
# (and, given a value, the sysctl too: it is written after THP, the kernel's order)
wait_applied() {
	for _ in $(seq 100); do
		grep -q "enabled" "$T/state/journal" 2>/dev/null && grep -q "\[$THPX\]" $THP/enabled &&
			{ [ -z "${1:-}" ] || [ "$(cat $SWAP)" = "$1" ]; } && return 0
		sleep 0.1
	done
	return 1
}
"$BC" run cpu $MODS --time 20 --warmup 0 --machine thp=$THPX --machine sysctl.vm.swappiness=17 -q \
	-o "$T/term.json" >/dev/null 2>"$T/term.err" & BGPID=$!
wait_applied 17
kill -TERM $BGPID; wait $BGPID; RC=$?; BGPID=""
expect_rc "machine: SIGTERM during a case: the run stops" 130
same_as_found "machine: after SIGTERM"

"$BC" run cpu $MODS --time 20 --warmup 0 --machine thp=$THPX -q -o "$T/hup.json" >/dev/null 2>"$T/hup.err" & BGPID=$!
wait_applied
kill -HUP $BGPID; wait $BGPID; RC=$?; BGPID=""
expect_rc "machine: SIGHUP (the terminal gone) during a case: the run stops" 130
same_as_found "machine: after SIGHUP"

run_bc "$T/crash" run faulty --module-path "$TESTMODS" fault=segv_event --time 0.5 --machine thp=$THPX
expect_rc "machine: a case that crashes fails" 1
same_as_found "machine: after a crashed case"

# a module calling exit() in its case's process runs the exit handlers it
# inherited: they must not restore the runner's settings mid-run
BENCHCORE_MACHINE_TRACE=$T/exit.trace run_bc "$T/exit" run faulty --module-path "$TESTMODS" fault=exit_init --time 0.3 \
	--repeat 2 --machine thp=$THPX
expect_rc "machine: cases whose module calls exit() fail" 1
check "machine: ... and THP is written twice only: set once, restored at the end" \
	[ "$(grep -c "^$THP/enabled " "$T/exit.trace")" = 2 ]
same_as_found "machine: after cases that called exit()"

# SIGKILL, then benchcore restore
"$BC" run cpu $MODS --time 30 --warmup 0 --machine thp=$THPX --machine sysctl.vm.swappiness=17 -q \
	-o "$T/kill.json" >/dev/null 2>&1 & BGPID=$!
wait_applied 17
# meanwhile a second run that changes settings is refused, its holder named
run_bc "$T/second" run cpu $MODS --time 0.2 --machine thp=$THPX
expect_rc "machine: a second run changing settings is refused" 2
expect_grep "machine: ... the holder named (pid and command)" "$T/second.err" "another run holds this machine's settings: pid $BGPID: .*benchcore run cpu"
run_bc "$T/plain" run cpu $MODS --time 0.2 --warmup 0 -o "$T/plain.json"
expect_rc "machine: a run changing nothing still runs beside it" 0
expect_grep "machine: ... warned that another run's settings are applied" "$T/plain.err" "another run's machine settings are applied \(pid $BGPID"
expect_py "machine: ... and its fingerprint says so" "$T/plain.json" "'pid $BGPID' in d['host']['other_run_settings']"
kill -9 $BGPID; wait $BGPID 2>/dev/null; BGPID=""
check "machine: SIGKILL leaves THP as the run set it" grep -q "\[$THPX\]" $THP/enabled
t0=$(date +%s%N)
run_bc "$T/restore" restore
t1=$(date +%s%N)
expect_rc "machine: benchcore restore after SIGKILL" 0
expect_grep "machine: ... says what it restored" "$T/restore.out" "restored [0-9]+ machine settings?"
echo "    benchcore restore took $(( (t1 - t0) / 1000000 )) ms"
same_as_found "machine: after SIGKILL and benchcore restore"
check "machine: the dead run's journal is gone" [ ! -e "$T/state/journal" ]
run_bc "$T/restore2" restore
expect_grep "machine: a second restore has nothing to do" "$T/restore2.out" "nothing to restore"

# SIGKILL, someone changes swappiness, then a plain next run finishes the restore
"$BC" run cpu $MODS --time 30 --warmup 0 --machine thp=$THPX --machine sysctl.vm.swappiness=17 -q \
	-o "$T/kill2.json" >/dev/null 2>&1 & BGPID=$!
wait_applied 17
kill -9 $BGPID; wait $BGPID 2>/dev/null; BGPID=""
echo 23 >$SWAP
run_bc "$T/next" run cpu $MODS --time 0.2 --warmup 0 -o "$T/next.json"
expect_rc "machine: the next run after a SIGKILL runs" 0
check "machine: ... and put THP back byte for byte" [ "$(raw $THP/enabled)" = "$THP0" ]
check "machine: ... but left the sysctl someone changed since" [ "$(raw $SWAP)" = 23 ]
expect_grep "machine: ... naming it, with both values" "$T/next.err" "vm/swappiness: left as it is: it is \"23\" now, not the \"17\" benchcore wrote"
echo "$SWAP0" >$SWAP
same_as_found "machine: at the end"

# ---- docs/machine.md's key table is the table's (benchcore help machine --markdown) ----
"$BC" help machine --markdown | grep '^| `' >"$T/keys.md"
missing=$(grep -vxFf docs/machine.md "$T/keys.md" | head -3)
check "machine: docs/machine.md holds every row of benchcore help machine --markdown" test -z "$missing"
if [ -n "$missing" ]; then echo "$missing"; fi
