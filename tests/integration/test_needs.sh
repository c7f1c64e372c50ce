#!/usr/bin/env bash
# Per-case requirements (ABI 1.3 needs()) against the machine: a case that
# needs more disk or memory than there is is skipped with the figures, and
# the plan counts it; profile = "small" fits scalable sizes to the machine
# and skips heavy modules; examples/small-vm.conf on a simulated small VM
# (taskset -c 0, a 512 MB memory cgroup when one can be made, a small tmpfs).
. "$(dirname "$0")/lib.sh"
# run_env OUTPREFIX VAR=value ARGS...: run_bc with one more environment variable
run_env() { local o=$1 e=$2; shift 2; env "$e" "$BC" "$@" >"$o.out" 2>"$o.err" </dev/null; RC=$?; }
EX=$(cd "$(dirname "$0")/../.." && pwd)/examples
small=""
if mkdir -p $T/small && mount -t tmpfs -o size=64M tmpfs $T/small 2>/dev/null; then
	small=$T/small
	trap 'umount $T/small 2>/dev/null; rm -rf "$T"' EXIT
else
	echo "SKIP: no tmpfs could be mounted: the disk checks use a fake free figure only"
fi

# --- disk: io files larger than the file system ------------------------------
if [ -n "$small" ]; then
	run_bc $T/d run io path=$small direct=false file_size=16M,128M --threads 1,2 --time 0.3 --warmup 0 -o $T/d.json
	expect_rc "io on a 64M tmpfs: the cases that fit run" 0
	expect_py "128M files on a 64M tmpfs: skipped, with the figures" $T/d.json \
		'sorted(c["status"] for c in d["cases"] if c["params"]["file_size"] == 128 << 20) == ["skipped", "skipped"] and any(c["reason"] == "io needs 256.0 MiB at '$small' (2 files x 134217728 bytes: lower file_size), 64.0 MiB free" for c in d["cases"])'
	expect_py "16M files fit: they ran" $T/d.json 'all(c["status"] == "ok" for c in d["cases"] if c["params"]["file_size"] == 16 << 20)'
	expect_grep "the plan counts the cases that cannot run, before the run" $T/d.err '^plan: 2 cases to run, 2 skipped \(said above\)'
	expect_grep "the plan names the first reason" $T/d.err '^plan: io: 2 of them skipped, this machine cannot give what they need \(first: io needs 128\.0 MiB'
	check "nothing left on the tmpfs" test -z "$(ls -A $small)"
fi

# --- memory: a buffer larger than the memory available -----------------------
run_env $T/m BENCHCORE_MEMAVAIL=$((200 << 20)) run mem buffer_size=64M,512M --time 0.2 --warmup 0 -q -o $T/m.json
expect_py "mem with 200M available: the 512M buffer is skipped, saying how much is there" $T/m.json \
	'[(c["params"]["buffer_size"] >> 20, c["status"]) for c in d["cases"]] == [(64, "ok"), (512, "skipped")] and "mem needs 512.0 MiB of memory (one buffer for all threads), 200.0 MiB available" in [c["reason"] for c in d["cases"]][1]'
run_env $T/mf BENCHCORE_MEMAVAIL=$((200 << 20)) run mem buffer_size=512M --time 0.2 --warmup 0 -q --force-module -o $T/mf.json
expect_py "--force-module runs it anyway" $T/mf.json 'd["cases"][0]["status"] == "ok"'

# --- memory: what a cgroup leaves, its limit less its usage -------------------
# A 400M cgroup with 323M in use (10M of it inactive page cache) leaves 87M:
# a 250M buffer is skipped with the figures, a 32M one runs. Laid out as v1
# with the controllers mounted apart (cpuset, then cpu,cpuacct: "cpu" is
# matched whole), the limit one level above the process's cgroup; as v2; and
# as the one-directory hook.
F=$T/fakecg
mkdir -p $F/v1/proc $F/v1/memory/jail/inner $F/v1/cpu,cpuacct/jail $F/v1/cpuset/jail $F/v2/proc $F/v2/unified/jail/inner $F/flat
printf '5:cpuset:/jail\n4:memory:/jail/inner\n3:cpu,cpuacct:/jail\n1:name=systemd:/\n0::/\n' >$F/v1/proc/cgroup
{	echo "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755"
	echo "34 31 0:31 / $F/v1/cpuset rw,relatime shared:9 - cgroup cgroup rw,cpuset"
	echo "32 31 0:29 / $F/v1/cpu,cpuacct rw,relatime shared:7 - cgroup cgroup rw,cpu,cpuacct"
	echo "35 31 0:32 / $F/v1/memory rw,relatime shared:11 - cgroup cgroup rw,memory"; } >$F/v1/proc/mountinfo
echo 200000 >$F/v1/cpuset/jail/cpu.cfs_quota_us; echo 100000 >$F/v1/cpuset/jail/cpu.cfs_period_us	# not cpu's
echo 50000 >$F/v1/cpu,cpuacct/jail/cpu.cfs_quota_us; echo 100000 >$F/v1/cpu,cpuacct/jail/cpu.cfs_period_us
memdir() {	# DIR LIMIT USAGE INACTIVE ACTIVE (v1 file names)
	echo $2 >$1/memory.limit_in_bytes; echo $3 >$1/memory.usage_in_bytes
	printf 'cache %d\ninactive_file 0\ntotal_inactive_file %d\ntotal_active_file %d\n' $(($4 + $5)) $4 $5 >$1/memory.stat
}
memdir $F/v1/memory/jail $((400 << 20)) $((323 << 20)) $((10 << 20)) $((50 << 20))
memdir $F/v1/memory/jail/inner 9223372036854771712 $((300 << 20)) $((10 << 20)) 0	# v1's "no limit"
memdir $F/flat $((400 << 20)) $((323 << 20)) $((10 << 20)) $((50 << 20))
printf '0::/jail/inner\n' >$F/v2/proc/cgroup
echo "41 31 0:38 / $F/v2/unified rw,relatime shared:12 - cgroup2 cgroup2 rw,nsdelegate" >$F/v2/proc/mountinfo
echo $((400 << 20)) >$F/v2/unified/jail/memory.max; echo $((323 << 20)) >$F/v2/unified/jail/memory.current
printf 'anon 1\nactive_file %d\ninactive_file %d\n' $((50 << 20)) $((10 << 20)) >$F/v2/unified/jail/memory.stat
echo max >$F/v2/unified/jail/inner/memory.max; echo $((300 << 20)) >$F/v2/unified/jail/inner/memory.current
for v in v1:BENCHCORE_PROC_SELF=$F/v1/proc:$F/v1/memory/jail v2:BENCHCORE_PROC_SELF=$F/v2/proc:$F/v2/unified/jail \
	 hook:BENCHCORE_CGROUP_DIR=$F/flat:$F/flat; do
	IFS=: read -r name hook dir <<<"$v"
	run_env $T/cg$name "$hook" run mem buffer_size=32M,250M --time 0.2 --warmup 0 -q -o $T/cg$name.json
	expect_py "$name: a 400M cgroup with 323M in use: the 250M buffer is skipped with the figures, 32M runs" $T/cg$name.json \
		'[(c["params"]["buffer_size"] >> 20, c["status"]) for c in d["cases"]] == [(32, "ok"), (250, "skipped")] and d["cases"][1]["reason"] == "mem needs 250.0 MiB of memory (one buffer for all threads), 87.0 MiB available (the cgroup '$dir': limit 400.0 MiB, 323.0 MiB in use, 10.0 MiB of it reclaimable page cache)"'
	expect_py "$name: the fingerprint's memory limit is the 400M one" $T/cg$name.json 'd["host"]["memory_limit_bytes"] == 400 << 20'
done
expect_py "v1: the cpu quota is cpu,cpuacct's, not cpuset's (controllers matched whole)" $T/cgv1.json \
	'd["host"]["usable_cpus"]["quota"] == 0.5'
run_env $T/cgmin BENCHCORE_PROC_SELF=$F/v1/proc run memhog --module-path $TESTMODS --time 0.1 --warmup 0 -q -o $T/cgmin.json
expect_py "the static requires.min_memory (128M) is checked against the 87M the cgroup leaves too" $T/cgmin.json \
	'd["cases"][0]["status"] == "skipped" and d["cases"][0]["reason"] == "memhog needs 128.0 MiB free memory, 87.0 MiB are left in the cgroup '$F/v1/memory/jail'"'
# a real v1 memory cgroup, made below this process's own (it stays under whatever
# limit the caller set): 300M of tmpfs pages charged to it, which no reclaim frees
own=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/self/cgroup 2>/dev/null)
rcg=/sys/fs/cgroup/memory${own%/}/bc-test-mem-$$
if [ -n "$own" ] && [ -f /sys/fs/cgroup/memory${own%/}/memory.usage_in_bytes ] && mkdir $rcg 2>/dev/null; then
	mkdir -p $T/fill
	trap 'umount $T/fill $T/small 2>/dev/null; rmdir $rcg 2>/dev/null; rm -rf "$T"' EXIT
	if echo $((400 << 20)) >$rcg/memory.limit_in_bytes && mount -t tmpfs -o size=320M tmpfs $T/fill 2>/dev/null; then
		(
			echo $BASHPID >$rcg/cgroup.procs
			dd if=/dev/zero of=$T/fill/x bs=1M count=300 status=none
			exec "$BC" run mem buffer_size=32M,250M --time 0.2 --warmup 0 -q -o $T/real.json
		) >$T/real.out 2>$T/real.err </dev/null
		expect_py "a real 400M v1 cgroup with 300M of tmpfs in it: the 250M buffer is skipped with its figures" $T/real.json \
			'[(c["params"]["buffer_size"] >> 20, c["status"]) for c in d["cases"]] == [(32, "ok"), (250, "skipped")] and "available (the cgroup '$rcg': limit 400.0 MiB, 3" in d["cases"][1]["reason"]'
		umount $T/fill
	else
		echo "SKIP: the real memory cgroup: no limit could be set or no tmpfs mounted"
	fi
	rmdir $rcg
else
	echo "SKIP: no v1 memory cgroup could be made below this process's: the fake hierarchies only"
fi
run_env $T/mg BENCHCORE_MEMAVAIL=garbage run mem buffer_size=32M --time 0.2 --warmup 0 -q -o $T/mg.json
expect_rc "BENCHCORE_MEMAVAIL=garbage: refused, not the memory check quietly off" 2
expect_grep "naming the variable" $T/mg.err '^benchcore: error: BENCHCORE_MEMAVAIL="garbage" is not a size'
check "nothing ran" test ! -e $T/mg.json

# --- profile = small: sizes halved until they fit in half; heavy skipped -----
run_env $T/p BENCHCORE_MEMAVAIL=$((100 << 20)) run mem buffer_size=512M --profile small --time 0.2 --warmup 0 -o $T/p.json
expect_rc "profile small on 100M" 0
expect_py "profile small: 512M halved to 32M (<= 50M, half of 100M), recorded in the case" $T/p.json \
	'd["cases"][0]["params"]["buffer_size"] == 32 << 20 and d["cases"][0]["status"] == "ok"'
expect_grep "profile small says each change" $T/p.err '^profile small, module mem: buffer_size 512M -> 256M, buffer_size 256M -> 128M, buffer_size 128M -> 64M, buffer_size 64M -> 32M$'
run_bc $T/ph run oltp --profile small --time 0.2 -q -o $T/ph.json
expect_py "profile small: a heavy module is skipped, saying why" $T/ph.json \
	'd["cases"][0]["status"] == "skipped" and "marked heavy and profile = \"small\"" in d["cases"][0]["reason"]'

# --- examples/small-vm.conf on a simulated small VM ------------------------
cg=""
if [ -w /sys/fs/cgroup/memory ] && mkdir /sys/fs/cgroup/memory/bc-test-$$ 2>/dev/null; then
	cg=/sys/fs/cgroup/memory/bc-test-$$
	echo $((512 << 20)) >$cg/memory.limit_in_bytes
else
	echo "SKIP: no memory cgroup could be made: 512 MB simulated with BENCHCORE_MEMAVAIL"
fi
sed -e "s|path = \"/var/tmp\";|path = \"${small:-$T}\"; direct = false;|" -e 's/^time = 5;/time = 0.3;/' \
	-e 's/^repeat = 3;/repeat = 1;/' -e 's/^warmup = 1;/warmup = 0;/' $EX/small-vm.conf >$T/svm.conf
(
	[ -n "$cg" ] && echo $BASHPID >$cg/cgroup.procs
	[ -z "$cg" ] && export BENCHCORE_MEMAVAIL=$((512 << 20))
	exec taskset -c 0 "$BC" -c $T/svm.conf -o $T/svm.json --report-interval 0
) >$T/svm.out 2>$T/svm.err </dev/null
RC=$?
[ -n "$cg" ] && rmdir $cg 2>/dev/null
expect_rc "small-vm.conf on 1 CPU, 512 MB, a 64M disk: every case ran or was skipped with a reason" 0
expect_py "small-vm.conf: oltp skipped as heavy, io's 1G file shrunk to fit the disk, every skip explained" $T/svm.json \
	'all(c["status"] == "ok" or (c["status"] == "skipped" and c["reason"]) for c in d["cases"]) and all(c["status"] == "skipped" and "heavy" in c["reason"] for c in d["cases"] if c["module"] == "oltp") and all(c["params"]["file_size"] < 1 << 30 for c in d["cases"] if c["module"] == "io")'
expect_py "small-vm.conf: the fingerprint records the one usable CPU" $T/svm.json 'd["host"]["usable_cpus"]["count"] == 1'
if [ -n "$cg" ]; then
	expect_py "small-vm.conf: the fingerprint records the 512 MB limit" $T/svm.json 'd["host"]["memory_limit_bytes"] == 512 << 20'
fi
expect_grep "small-vm.conf: the plan skips heavy oltp before anything runs" $T/svm.err \
	'^plan: oltp: every case skipped: oltp is marked heavy and profile = "small"'
expect_no_grep "small-vm.conf: a skipped heavy module's sizes are not fitted" $T/svm.err '^profile small, module oltp'
expect_py "small-vm.conf: oltp's cases keep the warehouses the file gave" $T/svm.json \
	'all(c["params"]["warehouses"] == 2 for c in d["cases"] if c["module"] == "oltp")'

# --- issue 37: needs() refusing the options is a configuration error, not a machine too small ---
run_bc $T/nr run needy --module-path $TESTMODS lo=1,5 hi=3 --time 0.1 --warmup 0 -o $T/nr.json
expect_rc "needs() says the options make no sense together: the plan fails" 2
expect_grep "... with the module's message, naming the entry and the point" $T/nr.err \
	'^benchcore: error: command line: module "needy" at lo=5, threads = 1: needy: lo = 5 is not below hi = 3$'
expect_grep "... its errorf() detail" $T/nr.err '^DETAIL: the range lo \.\. hi is empty$'
expect_grep "... and its hint" $T/nr.err '^HINT: give lo < hi$'
expect_no_grep "... never called a skip for this machine's size" $T/nr.err "machine's size|skipped"
check "... and nothing ran: no results file" test ! -e $T/nr.json
printf 'time = 0.1; warmup = 0;\nmodules = ( { name = "cpu"; max_prime = 100; },\n  { name = "needy"; lo = 7; hi = 2; } );\n' >$T/nr.conf
run_bc $T/nrc -c $T/nr.conf --module-path $TESTMODS -o $T/nrc.json
expect_rc "in a config file: the plan fails before the first module runs" 2
expect_grep "... naming the file and line of the entry" $T/nrc.err "^benchcore: error: $T/nr.conf:3: module \"needy\", threads = 1: needy: lo = 7"
check "... and not even cpu ran" test ! -e $T/nrc.json
