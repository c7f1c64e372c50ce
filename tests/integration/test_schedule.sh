#!/usr/bin/env bash
# The schedule (issues #19 and #12): repeats in rounds (shuffled, recorded,
# reproducible from the seed) or back to back; prepare once per data point
# and clean up once after its last case, whatever happened to the cases.
. "$(dirname "$0")/lib.sh"
MP="--module-path $TESTMODS"
export TMPDIR=$T/tmp; mkdir -p $TMPDIR	# module and scratch directories go here
Q='--time 0.05 --warmup 0 -q'

# --- rounds (the default): every case once, shuffled, then again
run_bc $T/r1 run cpu max_prime=100,200,300 --threads 1,2 --repeat 3 --seed 42 --time 0.05 --warmup 0 -o $T/r1.json
expect_rc "rounds: run ok" 0
expect_py "rounds: 18 cases, the document records order and seed" $T/r1.json \
	'len(d["cases"]) == 18 and d["schedule"] == {"repeat_order": "rounds", "seed": 42}'
expect_py "rounds: round r holds cases 6r-5..6r, each (point, threads) once" $T/r1.json \
	'all(sorted((c["point"], c["threads"]) for c in d["cases"][6*r:6*r+6]) == sorted({(c["point"], c["threads"]) for c in d["cases"]}) and all(c["round"] == r + 1 == c["repeat"] for c in d["cases"][6*r:6*r+6]) for r in range(3))'
expect_py "rounds: the order within rounds is shuffled (not plan order every time)" $T/r1.json \
	'any([(c["point"], c["threads"]) for c in d["cases"][6*r:6*r+6]] != sorted((c["point"], c["threads"]) for c in d["cases"][6*r:6*r+6]) for r in range(3))'
expect_py "rounds: groups still gather the 3 repeats of each case" $T/r1.json \
	'len(d["groups"]) == 6 and all(g["repeats"] == 3 for g in d["groups"])'
expect_grep "rounds: the plan names the seed" $T/r1.err 'shuffled with seed 42'
# the same seed's order again, another seed's, a drawn seed recorded and
# reproducing, back_to_back's order: unit/test_run (test_rounds,
# test_seed_drawn), exactly and in simulated time; here the one live run above
run_bc $T/bad run cpu --repeat-order sideways $Q
expect_rc "repeat_order: a bad value is a usage error" 2
expect_grep "repeat_order: the valid choices are named" $T/bad.err 'rounds, back_to_back'
run_bc $T/bads run cpu --seed 4294967296 $Q
expect_rc "seed: out of range is a usage error" 2
expect_grep "seed: the range is named" $T/bads.err 'valid range is 0 \.\. 4294967295'

# --- rounds stay inside a module: all of cpu's cases, then all of prep's
cat > $T/two.conf <<EOF
repeat = 2; time = 0.05; warmup = 0; seed = 5; module_path = ["$TESTMODS"];
modules = ( { name = "cpu"; max_prime = [100, 200]; },
            { name = "prep"; log = "$T/two.log"; size = [1, 2]; repeat_order = "back_to_back"; } );
EOF
run_bc $T/two -c $T/two.conf -q -o $T/two.json
expect_py "two modules: every cpu case before every prep case" $T/two.json \
	'[c["module"] for c in d["cases"]] == ["cpu"] * 4 + ["prep"] * 4'
expect_py "two modules: repeat_order per module (config and rounds recorded)" $T/two.json \
	'[m["repeat_order"] for m in d["config"]["modules"]] == ["rounds", "back_to_back"] and [c["repeat"] for c in d["cases"][4:]] == [1, 2, 1, 2]'

# --- prepare once per data point (data_options = size)
# counts LOG WHAT SIZE: lines "WHAT size=SIZE ..." in LOG
count() { grep -c "^$2 size=$3 " "$1"; }
prep_run() {	# name, extra args...
	local n=$1; shift
	rm -f $T/$n.log*
	run_bc $T/$n run prep $MP log=$T/$n.log size=1,2 mode=a,b --threads 1,2 --repeat 2 $Q -o $T/$n.json "$@"
}
prep_once_checks() {	# name, what
	local n=$1 w=$2
	check "$w: one prepare per data point (size 1: $(count $T/$n.log prepare 1), size 2: $(count $T/$n.log prepare 2))" \
		test "$(count $T/$n.log prepare 1)" = 1 -a "$(count $T/$n.log prepare 2)" = 1
	check "$w: one cleanup per data point" test "$(count $T/$n.log cleanup 1)" = 1 -a "$(count $T/$n.log cleanup 2)" = 1
	check "$w: each cleanup comes after the last case of its size" \
		test "$(grep 'size=1 ' $T/$n.log | tail -1 | cut -d' ' -f1)" = cleanup -a "$(grep 'size=2 ' $T/$n.log | tail -1 | cut -d' ' -f1)" = cleanup
	local dir; dir=$(grep -m1 '^prepare ' $T/$n.log | sed 's/.* dir=//')
	check "$w: module_dir ($dir) was shared and is gone" test -n "$dir" -a ! -e "$dir"
}
prep_run p
expect_rc "prepare once: all 16 cases ok (their threads found the data)" 0
expect_py "prepare once: 16 cases over 2 sizes x 2 modes x 2 thread counts x 2 repeats" $T/p.json \
	'len(d["cases"]) == 16 and all(c["status"] == "ok" for c in d["cases"])'
prep_once_checks p "isolated"
prep_run pn --no-isolate
expect_rc "prepare once in one process: all cases ok" 0
prep_once_checks pn "isolate = false"
prep_run pb --repeat-order back_to_back
prep_once_checks pb "back_to_back"

# the first prepare of each size fails: the next case of that size prepares again
prep_run pf fail_prepare=true
expect_py "failed prepare: the first case of each size failed in prepare, the rest ok" $T/pf.json \
	'sorted(c["params"]["size"] for c in d["cases"] if c["status"] != "ok") == [1, 2] and all(c["reason"].startswith("prepare: prep: first prepare") for c in d["cases"] if c["status"] != "ok")'
check "failed prepare: prepared again, once, and cleaned up once" \
	test "$(count $T/pf.log prepare 1)$(count $T/pf.log prepare 2)$(count $T/pf.log cleanup 1)$(count $T/pf.log cleanup 2)" = 1111

# a crash loses the data point's data: a fresh process cleans up, the next case prepares again
prep_run pc crash_once=true
expect_py "crash: the first case of each size crashed, the rest ok" $T/pc.json \
	'sorted(c["params"]["size"] for c in d["cases"] if c["status"] != "ok") == [1, 2] and all("signal 11" in c["reason"] for c in d["cases"] if c["status"] != "ok")'
check "crash: cleaned after the crash and after the last case, prepared twice" \
	test "$(count $T/pc.log prepare 1)$(count $T/pc.log cleanup 1)$(count $T/pc.log prepare 2)$(count $T/pc.log cleanup 2)" = 2222

# interrupted between rounds: every prepared data point still gets its cleanup
rm -f $T/pi.log*
"$BC" run prep $MP log=$T/pi.log size=1,2,3 --repeat 3 --time 0.4 --warmup 0 -q -o $T/pi.json >/dev/null 2>$T/pi.err </dev/null &
pid=$!
for _ in $(seq 300); do [ "$(grep -c '^prepare ' $T/pi.log 2>/dev/null)" = 3 ] && break; sleep 0.1; done
sleep 0.6; kill -INT $pid; wait $pid; RC=$?
expect_rc "interrupted in round 2: exit 130" 130
check "interrupted: all 3 sizes were prepared, and each was cleaned up once" \
	test "$(grep -c '^prepare ' $T/pi.log)$(count $T/pi.log cleanup 1)$(count $T/pi.log cleanup 2)$(count $T/pi.log cleanup 3)" = 3111
check "interrupted: no module or scratch directory left in TMPDIR" test -z "$(ls -A $TMPDIR)"

# --- prepare_timeout: init + prepare longer than it is killed
run_bc $T/pt run prep $MP log=$T/pt.log prepare_s=5,0 --prepare-timeout 0.5 --warmup 1 --time 0.2 -q -o $T/pt.json
expect_py "prepare_timeout: a slow prepare is killed after 0.5 s" $T/pt.json '"timed out after 0.5 s in prepare" in d["cases"][0]["reason"]'
expect_py "prepare_timeout: a 1 s warmup after a quick prepare is not cut short by it" $T/pt.json 'd["cases"][1]["status"] == "ok"'
expect_py "prepare_timeout is recorded in the config" $T/pt.json 'd["config"]["modules"][0]["prepare_timeout"] == 0.5'
check "no module or scratch directory left in TMPDIR" test -z "$(ls -A $TMPDIR)"

# WIN T [W]: python, the run's module entries configured with time T (and warmup W),
# exactly, and every case's window (and warmup) at least that long: never shorter;
# how much longer is the machine's (a loaded one wakes the thread that ends it late)
WIN() { echo "all(m['time'] == $1 $([ -n "${2:-}" ] && echo "and m['warmup'] == $2") for m in d['config']['modules']) and all(c['duration_s'] >= $1 - 0.001 $([ -n "${2:-}" ] && echo "and c['warmup_s'] >= $2 - 0.001") for c in d['cases'])"; }

# --- -c FILE takes every run-setting flag, over the file and its entries ---
printf 'repeat = 1;\ntime = 5;\nthreads = [1, 2];\nmodules = ({ name = "cpu"; max_prime = 500; repeat = 2; warmup = 0; });\n' >$T/ov.conf
run_bc $T/ov -c $T/ov.conf --repeat 3 --time 0.2 --threads 1 -q -o $T/ov.json
expect_rc "-c with --repeat/--time/--threads" 0
expect_py "-c --repeat 3 overrides the entry's repeat = 2; --threads 1 the file's [1, 2]" $T/ov.json \
	"sorted(c['repeat'] for c in d['cases']) == [1, 2, 3] and all(c['threads'] == 1 for c in d['cases'])"
expect_py "-c --time 0.2 overrides the file's time = 5" $T/ov.json \
	"$(WIN 0.2)"
run_bc $T/ovbad -c $T/ov.conf --repeat x
expect_rc "-c with a bad run-setting flag value" 2
expect_grep "-c --repeat x: the flag is named" $T/ovbad.err 'command line \(--repeat\): invalid value "x" for "repeat"'

# --- -c FILE MODULE.OPTION=VALUE: one study file for every system (issue 42) ---
printf 'time = 0.2;\nwarmup = 0;\nthreads = [1];\nmodules = ({ name = "cpu"; max_prime = 500; }, { name = "mem"; block_size = "4K"; total_size = "1M"; enabled = false; });\n' >$T/mo.conf
run_bc $T/mo -c $T/mo.conf cpu.max_prime=600,700 -q -o $T/mo.json
expect_rc "-c with cpu.max_prime=600,700" 0
expect_py "cpu.max_prime=600,700 sweeps over the file's 500, recorded in the config" $T/mo.json \
	"[c['params']['max_prime'] for c in d['cases']] == [600, 700] and d['config']['modules'][0]['options']['max_prime'] == [600, 700]"
run_bc $T/mo2 -c $T/mo.conf cpu.time=0.1 mem.enabled=true cpu.enabled=false -q -o $T/mo2.json
expect_rc "-c with MODULE.run-setting and MODULE.enabled" 0
expect_py "mem.enabled=true cpu.enabled=false: only mem ran" $T/mo2.json "[c['module'] for c in d['cases']] == ['mem']"
run_bc $T/mo3 -c $T/mo.conf cpu.bogus=1
expect_rc "-c cpu.bogus=1 is refused" 2
expect_grep "an unknown option is named with the valid keys" $T/mo3.err 'command line \(cpu\.bogus\): unknown option "bogus" for module "cpu"'
run_bc $T/mo4 -c $T/mo.conf io.path=/tmp
expect_rc "-c io.path=... without an io entry is refused" 2
expect_grep "the config's entries are listed" $T/mo4.err 'has no entry for module "io".*|Its module entries: cpu, mem\.'
run_bc $T/mo5 -c $T/mo.conf cpu.max_prime=abc
expect_rc "-c cpu.max_prime=abc is refused" 2
run_bc $T/mo6 -c $T/mo.conf stray
expect_rc "-c with a stray word is a usage error" 2
check "nothing written by a refused override" test ! -e $T/mo3.json

# --- scale: shorter cases and a thinner thread sweep, said at the start ----
printf 'time = 0.4;\nwarmup = 0.2;\nthreads = [1, 2, 3, 4];\nmodules = ({ name = "cpu"; max_prime = 500; });\n' >$T/sc.conf
run_bc $T/sc -c $T/sc.conf --scale 0.5 -o $T/sc.json
expect_rc "--scale 0.5" 0
expect_py "scale 0.5: threads 1,2,3,4 -> 1,4 (first and last kept); time 0.4 -> 0.2 s, warmup 0.2 -> 0.1 s" $T/sc.json \
	"[c['threads'] for c in d['cases']] == [1, 4] and $(WIN 0.2 0.1)"
expect_grep "scale: each change said before the run" $T/sc.err 'scale 0.5, module cpu: time 0.4 -> 0.2 s, warmup 0.2 -> 0.1 s, threads 4 -> 2 counts \(1,4\)'
# a small share still keeps the first and last counts (issue 42: 0.01 gave one count)
printf 'time = 20;\nwarmup = 10;\nthreads = [1, 2, 3, 4, 5, 6, 7, 8];\nmodules = ({ name = "cpu"; max_prime = 500; });\n' >$T/sc8.conf
run_bc $T/sc8 -c $T/sc8.conf --scale 0.01 -q -o $T/sc8.json
expect_rc "--scale 0.01 over an 8-count sweep" 0
expect_py "scale 0.01: threads 1..8 -> 1,8 (first and last kept), time 20 -> 0.2 s" $T/sc8.json \
	"[c['threads'] for c in d['cases']] == [1, 8] and $(WIN 0.2)"
# a flag overrides the file: what it gives is not scaled
run_bc $T/scf -c $T/sc8.conf --scale 0.01 --time 0.3 --warmup 0 --threads 1,2 -o $T/scf.json
expect_rc "--scale 0.01 with --time/--warmup/--threads" 0
expect_py "--time 0.3 --threads 1,2 stay as given under --scale 0.01" $T/scf.json \
	"[c['threads'] for c in d['cases']] == [1, 2] and $(WIN 0.3 0) and all(c['warmup_s'] == 0 for c in d['cases'])"
expect_no_grep "--scale: a flag's time is not said as scaled" $T/scf.err 'time 0\.3 -> '
# a module option given on the command line stays as given too (issue 52: io.file_size=16M
# after -c ran 64 KiB files at --scale 0.003), the file's own value is scaled, and
# each is said, even with -q (a quiet run's reader must see what changed)
printf 'time = 0.2;\nwarmup = 0;\nthreads = [1];\nmodules = ({ name = "mem"; block_size = "4K"; buffer_size = "64M"; });\n' >$T/scm.conf
run_bc $T/scm -c $T/scm.conf --scale 0.5 -q mem.buffer_size=16M -o $T/scm.json
expect_rc "--scale 0.5 with mem.buffer_size=16M after -c" 0
expect_py "mem.buffer_size=16M after -c stays 16M under --scale 0.5" $T/scm.json \
	"[c['params']['buffer_size'] for c in d['cases']] == [16777216]"
expect_grep "--scale -q: the option kept as given is said" $T/scm.err '^scale 0\.5, module mem: time 0\.2 -> 0\.1 s, buffer_size kept as given on the command line$'
run_bc $T/scm2 -c $T/scm.conf --scale 0.5 -q -o $T/scm2.json
expect_py "the file's buffer_size (64M) is scaled: 32M" $T/scm2.json \
	"[c['params']['buffer_size'] for c in d['cases']] == [33554432]"
expect_grep "--scale -q: the change is said under -q" $T/scm2.err '^scale 0\.5, module mem: time 0\.2 -> 0\.1 s, buffer_size 64M -> 32M$'
run_bc $T/scm3 run mem block_size=4K buffer_size=16M --scale 0.5 --time 0.2 --warmup 0 -q -o $T/scm3.json
expect_py "run mem buffer_size=16M --scale 0.5: stays 16M" $T/scm3.json \
	"[c['params']['buffer_size'] for c in d['cases']] == [16777216]"
run_bc $T/sc0 -c $T/sc.conf --scale 0
expect_rc "--scale 0 is refused (0 < scale <= 1)" 2
