#!/usr/bin/env bash
# A module author's kit, round three (#54): what benchcore tells an author
# about what their module did. Each block reproduces one numbered item of the
# issue with a fixture module (tests/modules) and checks the fix.
. "$(dirname "$0")/lib.sh"
export BENCHCORE_MODULE_PATH=$TESTMODS
Q="--time 0.2 --warmup 0"

# item 2: without data_options, prepare and cleanup run in every case
run_bc $T/pa run prepall --threads 1,2 --repeat 2 $Q -q -o $T/pa.json
expect_rc "prepall (prepare makes a file, cleanup removes it) over 2 thread counts x 2 repeats" 0
expect_py "... every case's prepare found no leftover of the case before it" $T/pa.json \
	'[c["status"] for c in d["cases"]]==["ok"]*4'

# item 3: a stray process killed is said where the user looks
run_bc $T/st run rogue fault=fork_setsid $Q -o $T/st.json
expect_grep "a setsid daemon left behind is said on stderr, with the module's name" $T/st.err \
	'warning: rogue: the case left [0-9]+ process(es)? running \(killed\): a module must stop what it starts'
expect_py "... the case stays ok (its figures were measured before) and counts it" $T/st.json \
	'd["cases"][0]["status"]=="ok" and d["cases"][0]["strays_killed"]>=1'
expect_rc "... and the run's exit says the cases were ok" 0

# item 4: check-module fails when nothing ran
BENCHCORE_MEMAVAIL=64M run_bc $T/sk check-module $TESTMODS/memhog.so --defaults-only $Q
expect_rc "check-module where every case is skipped (memhog needs 128 MiB, 64 MiB left)" 1
expect_grep "... FAIL, not PASS" $T/sk.out '^FAIL: 2 of 2 cases passed'
expect_grep "... saying nothing ran" $T/sk.out 'every case was skipped: nothing ran, so nothing was checked'
# ... and when every case failed it says so, with the count, not that they were skipped (issue 61 item 7)
printf 'modules = ( { name = "faulty"; fault = "init_error"; } );\n' >$T/fl.conf
run_bc $T/fl check-module $TESTMODS/faulty.so -c $T/fl.conf $Q
expect_rc "check-module where every case failed" 1
expect_grep "... saying every case failed, with the count" $T/fl.out '^  every case failed \(1 of 1\): none ran to its end'
expect_no_grep "... not that they were skipped" $T/fl.out 'skipped: nothing ran'

# item 6: a lying needs() (1 MiB declared, 256 MiB touched: beyond twice that plus the host's own share, ASan's too)
run_bc $T/bn run bigneeds $Q -q -o $T/bn.json
expect_rc "a case beyond twice its needs() still runs" 0
expect_grep "... a warning on stderr with both figures" $T/bn.err \
	'warning: bigneeds: needs\(\) declared 1\.0 MiB of memory, the case.s peak RSS was [0-9.]+ MiB \(more than twice'
expect_py "... and in the case" $T/bn.json \
	'any(w.startswith("needs() declared 1.0 MiB of memory") for w in d["cases"][0]["warnings"]) and d["cases"][0]["peak_rss_bytes"]>64<<20'
run_bc $T/bn0 run bigneeds touch=0 $Q -q -o $T/bn0.json
expect_py "... none when the module takes no more than it said (touch=0)" $T/bn0.json \
	'not any("needs() declared" in w for w in d["cases"][0].get("warnings",[]))'
run_bc $T/bnc check-module $TESTMODS/bigneeds.so --defaults-only $Q
expect_rc "check-module fails a needs() beyond 2x" 1
expect_grep "... naming the case and both figures" $T/bnc.out \
	'^  case [0-9]+ \(defaults, 1 thread\): needs\(\) declared 1\.0 MiB of memory, the case.s peak RSS was'
# disk: needs14 declares row x rows_per_s x time in its scratch directory (1K x 1000 x 0.3 s = 300 KiB)
run_bc $T/dw run needs14 write=4M --time 0.3 --warmup 0 -q -o $T/dw.json
expect_grep "a case that wrote 4 MiB in its scratch directory against 300 KiB declared: warned" $T/dw.err \
	'warning: needs14: needs\(\) declared 300\.0 KiB of disk in the scratch directory, the case wrote 4\.[0-9] MiB there'
run_bc $T/dw2 run needs14 write=100K --time 0.3 --warmup 0 -q -o $T/dw2.json
expect_no_grep "... none for 100 KiB" $T/dw2.err 'needs\(\) declared'
printf 'time = 0.3;\nwarmup = 0;\nmodules = ( { name = "needs14"; write = "4M"; } );\n' >$T/dw.conf
printf 'status == ok\n' >$T/dw.expect
run_bc $T/dwc check-module $TESTMODS/needs14.so -c $T/dw.conf --expect $T/dw.expect
expect_rc "check-module fails the case beyond twice its declared disk" 1
expect_grep "... naming both figures" $T/dwc.out '^  case 1 \(write=4194304, 1 thread\): needs\(\) declared 300\.0 KiB of disk'
# the OOM killer named: a memory cgroup of 100 MiB, the case touching 400 MiB
CG=""
if [ -w /sys/fs/cgroup/cgroup.subtree_control ] && grep -qw memory /sys/fs/cgroup/cgroup.subtree_control; then
	CG=/sys/fs/cgroup/bctest-oom-$$; LIMIT=memory.max
elif [ -d /sys/fs/cgroup/memory ] && [ -w /sys/fs/cgroup/memory ]; then
	CG=/sys/fs/cgroup/memory/bctest-oom-$$; LIMIT=memory.limit_in_bytes
fi
if [ -n "$CG" ] && mkdir "$CG" 2>/dev/null && echo 100M >"$CG/$LIMIT" 2>/dev/null; then
	(echo $BASHPID >"$CG/cgroup.procs" && exec "$BC" run bigneeds touch=400M $Q -q -o $T/oom.json) \
		>$T/oom.out 2>$T/oom.err </dev/null; RC=$?
	rmdir "$CG"
	expect_rc "a case killed by its cgroup's OOM killer fails the run" 1
	expect_py "... named as the OOM killer, with the cgroup, its limit and what needs() declared" $T/oom.json \
		'(lambda r: r.startswith("killed by the OOM killer in prepare (memory cgroup '"$CG"', limit 100.0 MiB); its needs() declared 1.0 MiB of memory"))(d["cases"][0]["reason"])'
	expect_py "... its peak memory recorded though it was killed (more than 50 MiB, near the limit)" $T/oom.json \
		'50<<20 < d["cases"][0]["peak_rss_bytes"] < 160<<20'
	check "... the test's cgroup is gone" test ! -e "$CG"
else
	[ -n "$CG" ] && rmdir "$CG" 2>/dev/null
	echo "SKIP: no writable memory cgroup here: the OOM killer's naming not checked (3 checks)"
fi

# item 10: --events N runs N; check-module checks it
for n in 1 5 100; do
	run_bc $T/ev$n run sys test=syscall --events $n --threads 1 --warmup 0 -q -o $T/ev$n.json
	expect_py "sys test=syscall --events $n runs exactly $n loops" $T/ev$n.json "d['cases'][0]['ops']['loop']['count']==$n"
done
run_bc $T/evp run sys test=pipe --events 7 --threads 2 --warmup 0 -q -o $T/evp.json
expect_py "sys test=pipe (the helper's batches) --events 7 at 2 threads runs exactly 7" $T/evp.json \
	"d['cases'][0]['ops']['loop']['count']==7"
run_bc $T/sc check-module $TESTMODS/shortcount.so --defaults-only $Q
expect_rc "check-module on a loop that asks should_stop() then claims" 1
expect_grep "... fails its --events check, naming the count and the calls" $T/sc.out \
	'^FAIL: --events 25 \(1 thread, warmup 0 s\) ran 20 operations: a loop must stop on stopping\(\)'
run_bc $T/so check-module $TESTMODS/old13.so --defaults-only $Q
expect_rc "check-module passes a 1.3 module that stops on stopping()" 0
expect_grep "... its --events check passed" $T/so.out '^PASS: --events 25 \(1 thread, warmup 0 s\) ran 25 operations'
expect_grep "... and after a warmup at 2 threads" $T/so.out '^PASS: --events 25 \(2 threads, warmup 0.2 s\) ran 25 operations'
# issue 61: batches claimed ahead in warmup and recorded in the window ran past the budget
run_bc $T/wa check-module $TESTMODS/warmahead.so --defaults-only $Q
expect_rc "check-module on a loop recording warmup's batches claimed ahead" 1
expect_grep "... passes without a warmup" $T/wa.out '^PASS: --events 25 \(1 thread, warmup 0 s\) ran 25 operations'
expect_grep "... fails after one, naming the count" $T/wa.out \
	'^FAIL: --events 25 \(2 threads, warmup 0.2 s\) ran [0-9]+ operations: .* measuring\(\) before claim\(\)'

# item 7: list takes -c as help does; list, help and check-module say what needs() declares
printf 'module_path = [ "%s" ];\nmodules = ( { name = "old13"; } );\n' "$TESTMODS" >$T/site.conf
BENCHCORE_MODULE_PATH= run_bc $T/lc list -c $T/site.conf
expect_rc "benchcore list -c site.conf" 0
expect_grep "... searches the config's module_path" $T/lc.out '^old13 +1\.0 +1\.3 '
run_bc $T/lcb list -c $T/no-such.conf
expect_rc "list -c with a missing file" 2
run_bc $T/ln list
expect_grep "list: a module with needs() is not 'nothing special'" $T/ln.out \
	'^    requires: what needs\(\) computes for each case$'
expect_grep "list: ... its needs() at its defaults, with the module's account" $T/ln.out \
	'^    needs\(\) at its defaults \(1 thread\): 1\.0 MiB of memory; a small table$'
run_bc $T/hn help needs14
expect_grep "help: disk declared in the scratch directory, sized by the default time" $T/hn.out \
	'^    needs\(\) at its defaults \(1 thread\): [0-9.]+ MiB of disk at /[^ ]*; row x rows_per_s x time$'
run_bc $T/cn check-module $TESTMODS/bigneeds.so --defaults-only $Q
expect_grep "check-module: the same line in its description" $T/cn.out \
	'^  needs\(\) at its defaults \(1 thread\): 1\.0 MiB of memory; a small table$'
