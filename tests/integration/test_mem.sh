#!/usr/bin/env bash
# mem module: sweeps, figures that agree with each other, total_size, option
# errors, the cache warning, hugepages, every oper/access pair.
. "$(dirname "$0")/lib.sh"
Q=(--warmup 0 -q)

# --- a sweep: right cases, right params, consistent figures
run_bc $T/s run mem block_size=4K,16K oper=read,write --threads 1,2 --time 0.3 "${Q[@]}" -o $T/s.json
expect_rc "mem sweep block_size x oper x threads runs" 0
expect_py "sweep gives 8 ok cases" $T/s.json 'len(d["cases"]) == 8 and all(c["status"] == "ok" for c in d["cases"])'
expect_py "sweep covers every (block_size, oper, threads) once" $T/s.json \
	'sorted((c["params"]["block_size"], c["params"]["oper"], c["threads"]) for c in d["cases"]) == sorted((b, o, t) for b in (4096, 16384) for o in ("read", "write") for t in (1, 2))'
expect_py "mib_per_sec = bytes / MiB / duration (0.1%)" $T/s.json \
	'all(abs(c["metrics"]["mib_per_sec"]["value"] - c["ops"][c["params"]["oper"]]["bytes"] / 1048576 / c["duration_s"]) <= 1e-3 * c["metrics"]["mib_per_sec"]["value"] for c in d["cases"])'
expect_py "ops_per_sec = count / duration and equals events_per_sec" $T/s.json \
	'all(abs(c["metrics"]["ops_per_sec"]["value"] - c["ops"][c["params"]["oper"]]["count"] / c["duration_s"]) <= 1e-3 * c["metrics"]["ops_per_sec"]["value"] and abs(c["metrics"]["ops_per_sec"]["value"] - c["metrics"]["events_per_sec"]["value"]) <= 1e-6 * c["metrics"]["ops_per_sec"]["value"] for c in d["cases"])'
expect_py "every event moves exactly one block" $T/s.json \
	'all(c["ops"][c["params"]["oper"]]["bytes"] == c["ops"][c["params"]["oper"]]["count"] * c["params"]["block_size"] > 0 for c in d["cases"])'
expect_py "only the chosen oper is recorded" $T/s.json \
	'all(c["ops"][o]["count"] == 0 for c in d["cases"] for o in ("read", "write", "copy", "none") if o != c["params"]["oper"])'
expect_py "defaults as sysbench: seq, global scope, one-block buffer" $T/s.json \
	'all(c["params"]["access"] == "seq" and c["params"]["scope"] == "global" and c["params"]["buffer_size"] == 0 for c in d["cases"])'
# This machine's own caches: named when it shows them, "unknown" when it
# hides them (a VM without cpu0/cache in sysfs); never silent. Both cases
# are also forced below, whatever this machine is.
expect_grep "a 4K buffer warns that it measures a cache (LLC named, or its size unknown)" $T/s.err \
	'warning: (.*fit in the last-level cache \(L[0-9], [0-9]+[KMG]?\)|cache size unknown on this machine: a 4K buffer most likely measures a cache)'
expect_py "info.llc records the LLC the warning used" $T/s.json \
	'all(re.fullmatch(r"(L[1-4] [0-9]+[KMG]? \((sysfs|cpuid|sysconf)\))|((L[1-4]|LLC) unknown)", c["info"]["llc"]) for c in d["cases"] for re in [__import__("re")])'
expect_no_grep "the warning is not an error" $T/s.err 'error'

# --- total_size: sysbench semantics, split across threads, ends the run
run_bc $T/t run mem total_size=8M block_size=64K --threads 2 --time 30 "${Q[@]}" -o $T/t.json
expect_rc "total_size run" 0
expect_py "total_size=8M in 64K blocks on 2 threads = 128 events, 8 MiB" $T/t.json \
	'd["cases"][0]["ops"]["write"]["count"] == 128 and d["cases"][0]["ops"]["write"]["bytes"] == 8 << 20'
expect_py "total_size ends the case before --time" $T/t.json 'd["cases"][0]["duration_s"] < 10'
expect_py "fairness: each thread did its half" $T/t.json 'd["cases"][0]["fairness"]["events_stddev"] == 0'
# warmup runs first but must not use up the total_size budget
run_bc $T/tw run mem total_size=64M block_size=64K --threads 2 --time 30 --warmup 0.3 -q -o $T/tw.json
expect_py "total_size with warmup: still exactly 1024 measured events" $T/tw.json 'd["cases"][0]["ops"]["write"]["count"] == 1024'

# --- every oper x access, local scope, a multi-block buffer
run_bc $T/a run mem oper=read,write,copy,none access=seq,rnd scope=local block_size=8K buffer_size=64K --threads 2 --time 0.2 "${Q[@]}" -o $T/a.json
expect_rc "oper x access x local scope" 0
expect_py "all 8 oper/access cases ok" $T/a.json 'len(d["cases"]) == 8 and all(c["status"] == "ok" for c in d["cases"])'
expect_py "mib_per_sec > 0 for read/write/copy, absent for none" $T/a.json \
	'all(("mib_per_sec" in c["metrics"]) == (c["params"]["oper"] != "none") and c["metrics"].get("mib_per_sec", {"value": 1})["value"] > 0 for c in d["cases"])'
expect_py "oper=none still counts events" $T/a.json \
	'all(c["ops"]["none"]["count"] > 0 and c["ops"]["none"]["bytes"] == 0 for c in d["cases"] if c["params"]["oper"] == "none")'
run_bc $T/w run mem oper=read,write,copy width=word block_size=1000 --time 0.2 "${Q[@]}" -o $T/w.json
expect_py "width=word and a block that is no multiple of 8 or 32 work" $T/w.json \
	'all(c["status"] == "ok" and c["ops"][c["params"]["oper"]]["bytes"] == 1000 * c["ops"][c["params"]["oper"]]["count"] for c in d["cases"])'

# --- width=auto: 8-byte stores only where threads write one shared block
run_bc $T/au run mem oper=read,write block_size=4K scope=global,local --threads 1,2 --time 0.1 "${Q[@]}" -o $T/au.json
expect_py "width=auto picks word for shared-block writes by 2 threads, vector elsewhere" $T/au.json \
	'len(d["cases"]) == 8 and all(c["info"]["width"] == ("word" if (c["params"]["oper"], c["params"]["scope"], c["threads"]) == ("write", "global", 2) else "vector") for c in d["cases"])'
run_bc $T/av run mem oper=write width=vector --threads 2 --time 0.1 "${Q[@]}" -o $T/av.json
expect_py "an explicit width is kept" $T/av.json 'd["cases"][0]["info"]["width"] == "vector"'

# --- the cache warning on a machine that shows its caches and on one that
# hides them (test hooks, docs/results.md: BENCHCORE_SYSFS_CPU is the CPU
# sysfs tree the fingerprint reads, BENCHCORE_NO_CPUID=1 silences CPUID and
# sysconf, BENCHCORE_NO_CPUID=BYTES makes sysconf invent an L3 of BYTES)
mkdir -p $T/hidden $T/shown/cpu0/cache
for i in 0 1 2 3; do mkdir -p $T/shown/cpu0/cache/index$i; done
fake_cache() { echo "$2" >$T/shown/cpu0/cache/index$1/level; echo "$3" >$T/shown/cpu0/cache/index$1/type; echo "$4" >$T/shown/cpu0/cache/index$1/size; }
fake_cache 0 1 Data 48K; fake_cache 1 1 Instruction 32K; fake_cache 2 2 Unified 2048K; fake_cache 3 3 Unified 30M
SHOWN="BENCHCORE_SYSFS_CPU=$T/shown BENCHCORE_NO_CPUID=1"
HIDDEN="BENCHCORE_SYSFS_CPU=$T/hidden BENCHCORE_NO_CPUID=1"
LYING="BENCHCORE_SYSFS_CPU=$T/hidden BENCHCORE_NO_CPUID=4398046511104"
# mem_run OUTPREFIX "VAR=value ..." ARGS...: run_bc for mem with that environment
mem_run() { local o=$1 e=$2; shift 2; env $e "$BC" run mem --time 0.1 "${Q[@]}" -o $o.json "$@" >$o.out 2>$o.err </dev/null; RC=$?; }

mem_run $T/cs "$SHOWN" block_size=4K
expect_grep "caches shown: a 4K buffer names the LLC and suggests 4x it" $T/cs.err \
	'warning: the buffers \(4K in all\) fit in the last-level cache \(L3, 30M\): .*buffer_size=120M or more'
expect_py "caches shown: info.llc names level, size and source" $T/cs.json 'd["cases"][0]["info"]["llc"] == "L3 30M (sysfs)"'
mem_run $T/cs2 "$SHOWN" oper=copy scope=local block_size=1M buffer_size=7680K --threads 2
expect_grep "caches shown: buffers counted for all threads and both copy buffers (30M = the LLC)" $T/cs2.err \
	'fit in the last-level cache \(L3, 30M\)'
mem_run $T/cs3 "$SHOWN" oper=read block_size=1M buffer_size=31M
expect_rc "caches shown: a 31M buffer runs" 0
expect_no_grep "caches shown: no cache warning for a buffer just above the LLC" $T/cs3.err 'last-level cache|cache size unknown'

mem_run $T/ch "$HIDDEN" block_size=4K
expect_rc "caches hidden: mem still runs" 0
expect_grep "caches hidden: a 4K buffer warns that the cache size is unknown" $T/ch.err \
	'warning: cache size unknown on this machine: a 4K buffer most likely measures a cache'
expect_no_grep "caches hidden: no LLC is named" $T/ch.err 'last-level cache \('
expect_py "caches hidden: info.llc says unknown" $T/ch.json 'd["cases"][0]["info"]["llc"] == "LLC unknown"'
expect_py "caches hidden: the host says so too" $T/ch.json \
	'"caches" not in d["host"] and any("no cache sizes visible" in w for w in d["host"]["warnings"])'
mem_run $T/cl "$LYING" block_size=16K scope=local --threads 2
expect_grep "hypervisor's L3 implausible: unknown, with the real buffer size and the set" $T/cl.err \
	'cache size unknown on this machine: a 16K buffer most likely measures a cache, not memory \(32K in all; the L3 size is hidden or implausible\)'
expect_py "hypervisor's L3 implausible: info.llc 'L3 unknown', host keeps the rejected figure" $T/cl.json \
	'd["cases"][0]["info"]["llc"] == "L3 unknown" and d["host"]["caches"]["L3"] == {"source": "unknown", "rejected_bytes": 4 << 40, "rejected_source": "sysconf"}'
mem_run $T/cb "$HIDDEN" oper=read block_size=1M buffer_size=256M
expect_rc "caches hidden: 256M buffer runs" 0
expect_no_grep "caches hidden: no cache warning for a 256M buffer" $T/cb.err 'cache size unknown|last-level cache'

# --- hugepages: honoured or explained, never fatal
run_bc $T/h run mem hugepages=true block_size=2M --time 0.2 "${Q[@]}" -o $T/h.json
expect_rc "hugepages=true runs whatever the machine has" 0
expect_py "info.pages says which pages were used" $T/h.json 'd["cases"][0]["info"]["pages"] in ("hugetlb", "thp", "default")'
expect_grep "hugepages=true logs how it was honoured" $T/h.err 'HugeTLB'

# --- option errors come from the options table: exit 2, name, valid values
run_bc $T/e1 run mem block_size=0 --time 0.1 -q
expect_rc "block_size=0 is refused" 2
expect_grep "block_size=0: names the option and the range" $T/e1.err 'block_size.*range is 8 \.\. 1G'
run_bc $T/e2 run mem oper=bogus --time 0.1 -q
expect_rc "oper=bogus is refused" 2
expect_grep "oper=bogus: lists the choices" $T/e2.err 'oper.*read, write, copy, none'
run_bc $T/e3 run mem access=diagonal --time 0.1 -q
expect_rc "access=diagonal is refused" 2
expect_grep "access: lists the choices" $T/e3.err 'access.*seq, rnd'
run_bc $T/e4 run mem scope=everywhere --time 0.1 -q
expect_grep "scope: lists the choices" $T/e4.err 'scope.*global, local'
run_bc $T/e5 run mem block_size=4K buffer_size=1K --time 0.1 -q -o $T/e5.json
expect_rc "buffer_size < block_size fails the case" 1
expect_py "the case's reason says what to set" $T/e5.json \
	'"buffer_size" in d["cases"][0]["reason"] and "block_size" in d["cases"][0]["reason"]'

# --- help is generated from the table
run_bc $T/hm help mem
expect_grep "help mem shows block_size and its default 1K" $T/hm.out 'block_size +size +1K'
expect_grep "help mem shows the metrics" $T/hm.out 'mib_per_sec \(MiB/s'
