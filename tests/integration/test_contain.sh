#!/usr/bin/env bash
# A module cannot crash, hang or fool benchcore (issue 13): constructors that
# crash, abort, exit or hang anywhere on the path; symlinks, parents and
# RUNPATHs others can write; a module name two files claim; bad metadata;
# hangs in init and prepare with a stop request; processes left behind;
# a worker that ends early; impossible records; errors past the budget.
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
MP="--module-path $TESTMODS"
export BENCHCORE_PROBE_TIMEOUT=1
cd "$T"	# nothing of the repository is a module directory here

# --- constructors: probed in a child, one line each; list and run survive
export BCTEST_CTOR_FAULTS=1
t0=$(date +%s%N)
run_bc $T/cl list $MP
t1=$(date +%s%N)
expect_rc "list survives constructors that crash, abort, exit and hang" 0
expect_grep "list still lists cpu" $T/cl.out '^cpu +'
expect_grep "ctor crash: one line naming the file and the signal" $T/cl.out \
	"could not load module \"$TESTMODS/ctor_crash.so\": it crashed while loading \(signal 11"
expect_grep "ctor abort: signal 6 and what it printed" $T/cl.out \
	'ctor_abort.so": it crashed while loading \(signal 6'
expect_grep "ctor abort: its last output is shown" $T/cl.out 'Its last output: "ctor_abort: giving up in my constructor"'
expect_grep "ctor exit: the status is named" $T/cl.out 'ctor_exit.so": it exited with status 3 while loading'
expect_grep "ctor hang: killed after the probe timeout" $T/cl.out 'ctor_hang.so": loading it did not finish within 1 s \(killed\)'
ms=$(( (t1 - t0) / 1000000 ))
if [ $ms -lt 4000 ]; then pass "a hanging constructor costs one probe timeout ($ms ms)"; else fail "list took $ms ms"; fi
run_bc $T/cr run cpu $MP max_prime=100 --time 0.2 --warmup 0 -q -o $T/cr.json
expect_rc "run cpu with those modules on the path" 0
expect_py "run cpu: the case is ok" $T/cr.json 'd["cases"][0]["status"]=="ok" and d["cases"][0]["ops"]["event"]["count"]>0'
expect_grep "run cpu: each bad file is one warning" $T/cr.err "ignoring $TESTMODS/ctor_hang.so: could not load module"
unset BCTEST_CTOR_FAULTS

# --- trust: the real path, every directory above it, the RUNPATH
mkdir -p $T/ww $T/mods && chmod 777 $T/ww && chmod 755 $T/mods
cp $TESTMODS/ops.so $T/ww/ops.so && chmod 755 $T/ww/ops.so && ln -s $T/ww/ops.so $T/mods/ops.so
run_bc $T/sl list --module-path $T/mods
expect_grep "symlink into a world-writable directory: refused, the directory named" $T/sl.out \
	"refusing to load from module file \"$T/mods/ops.so\": directory \"$T/ww\" above it is writable by others"
mkdir -p $T/pw/mods && chmod 777 $T/pw && cp $TESTMODS/ops.so $T/pw/mods/
run_bc $T/pw list --module-path $T/pw/mods
expect_grep "world-writable parent of the module directory: refused, the parent named" $T/pw.out \
	"directory \"$T/pw\" above it is writable by others"
chmod 1777 $T/pw
run_bc $T/pws list --module-path $T/pw/mods
expect_grep "a sticky parent (like /tmp) is accepted" $T/pws.out "^ops +.*$T/pw/mods/ops.so"
mkdir -p $T/evil $T/rp && chmod 777 $T/evil
printf '#include <stdio.h>\n__attribute__((constructor)) static void evil(void) { FILE *f = fopen("%s/evil-ran", "w"); if (f) fclose(f); }\nint evil_fn(void);\nint evil_fn(void) { return 1; }\n' "$T" >$T/evil.c
cc -shared -fPIC -o $T/evil/libevil.so $T/evil.c
cc -shared -fPIC -I"$OLDPWD/sdk/include" -o $T/rp/rpmod.so "$OLDPWD/tests/modules/liar.c" \
	-L$T/evil -Wl,--no-as-needed -levil -Wl,-rpath,$T/evil
run_bc $T/rp list --module-path $T/rp
expect_grep "RUNPATH in a world-writable directory: refused, the entry and directory named" $T/rp.out \
	"refusing to load module \"$T/rp/rpmod.so\": its RUNPATH entry \"$T/evil\" is not safe"
check "the library's constructor never ran (not even in a probe)" test ! -e $T/evil-ran
chmod 755 $T/evil && chown nobody $T/evil/libevil.so $T/evil 2>/dev/null
run_bc $T/rpn list --module-path $T/rp
expect_grep "RUNPATH directory owned by nobody: refused" $T/rpn.out 'RUNPATH entry .* is not safe'
expect_grep "... and says who owns it" $T/rpn.out 'owned by another user'
check "the nobody-owned library's constructor never ran" test ! -e $T/evil-ran
mkdir -p $T/evil2 $T/rp2 && chmod 777 $T/evil2 && cp $T/evil/libevil.so $T/evil2/ && chown root $T/evil2/libevil.so
cc -shared -fPIC -I"$OLDPWD/sdk/include" -o $T/rp2/ldmod.so "$OLDPWD/tests/modules/liar.c" \
	-L$T/evil2 -Wl,--no-as-needed -levil
LD_LIBRARY_PATH=$T/evil2 run_bc $T/ld list --module-path $T/rp2
expect_grep "a library found in a world-writable directory (LD_LIBRARY_PATH): the module is refused" $T/ld.out \
	"refusing to load module \"$T/rp2/ldmod.so\": a library it loads is not safe"
expect_grep "... naming the library's directory" $T/ld.out "directory \"$T/evil2\" above it is writable by others"

# --- a module name two files claim: said in list, the run's output and the result
BCTEST_LIAR=1 run_bc $T/ll list $MP
expect_grep "list: the earlier file wins and shadows the other" $T/ll.out \
	"^cpu +6\.6\.6 .*$TESTMODS/liar.so"
expect_grep "list: SHADOWS names the file not used" $T/ll.out 'SHADOWS: .*/modules/cpu\.so'
BCTEST_LIAR=1 run_bc $T/lr run cpu $MP --time 0.1 --warmup 0 -q -o $T/lr.json
expect_grep "run: the output warns of the shadowed module" $T/lr.err \
	"module \"cpu\" is $TESTMODS/liar.so; .*/modules/cpu\.so also calls itself \"cpu\""
sha=$(sha256sum $TESTMODS/liar.so | cut -d' ' -f1)
expect_py "result: the module's file, its sha256 and what it shadows" $T/lr.json \
	"(lambda c: c['module_path'].endswith('/liar.so') and c['module_sha256']=='$sha' and 'modules/cpu.so' in c['module_shadows'])(d['cases'][0])"
csha=$(sha256sum $(dirname $BC)/modules/cpu.so | cut -d' ' -f1)
expect_py "every case names its module file and hash" $T/cr.json \
	"d['cases'][0]['module_sha256']=='$csha' and d['cases'][0]['module_path'].endswith('/modules/cpu.so') and 'module_shadows' not in d['cases'][0]"

# --- metadata refused at load: the file named, a hint
while IFS='|' read -r f frag; do
	expect_grep "metadata $f: refused" $T/cl.out "\"$TESTMODS/meta_$f.so\": $frag"
done <<'EOF'
dupopt|option "size" is declared twice
dupop|op class "get" is declared twice
dupmetric|metric "mb_s" is declared twice
coremetric|metric "events_per_sec" is named like a core metric
runopt|option "threads" is named like a run setting
diskopt|requires.disk_path_option names "dir", which is not a STRING option
nodiskopt|requires.disk_path_option names "path", which is not one of its options
bounds|option "depth" has reversed bounds \(min 64 > max 1\)
nullentry|its entry function returned NULL
EOF
n=$(grep -A3 '^meta_' $T/cl.out | grep -c 'HINT:')
m=$(grep -c '^meta_' $T/cl.out)	# the 9 above and those of test_abi13
if [ "$n" -eq "$m" ] && [ "$m" -ge 9 ]; then pass "each of the $m metadata refusals has a hint"
else fail "$n of $m metadata refusals have a hint"; fi
run_bc $T/md run meta_dupopt $MP --time 0.1
expect_rc "running a refused module is a module error" 2
expect_grep "... naming the file" $T/md.err "meta_dupopt.so\": option \"size\" is declared twice"

# --- init has its own deadline; the first stop request ends any phase in 2 s
t0=$(date +%s%N)
run_bc $T/hi run rogue $MP fault=hang_init --init-timeout 1 --time 0.2 --warmup 0 -q -o $T/hi.json
t1=$(date +%s%N)
expect_rc "a hang in init fails its case" 1
expect_py "init hang: killed after init_timeout, the phase named" $T/hi.json \
	'd["cases"][0]["status"]=="failed" and d["cases"][0]["reason"]=="timed out after 1 s in init (killed)"'
ms=$(( (t1 - t0) / 1000000 )); [ $ms -lt 5000 ] && pass "init hang: the run ended in $ms ms" || fail "init hang took $ms ms"
for sig in INT TERM; do
	"$BC" run rogue $MP fault=hang_prepare --time 0.2 --warmup 0 -q -o $T/sg$sig.json >$T/sg$sig.out 2>$T/sg$sig.err </dev/null &
	pid=$!
	for _ in $(seq 50); do sleep 0.1; [ -n "$(pgrep -P $pid)" ] && break; done
	sleep 0.3
	t0=$(date +%s%N); kill -$sig $pid; wait $pid; RC=$?; t1=$(date +%s%N)
	ms=$(( (t1 - t0) / 1000000 ))
	expect_rc "SIG$sig during a hang in prepare: the run ends as interrupted" 130
	[ $ms -lt 4000 ] && pass "SIG$sig: stopped ${ms} ms after the first signal" || fail "SIG$sig: took $ms ms"
	expect_py "SIG$sig: the case says where it was stopped" $T/sg$sig.json \
		'd["cases"][0]["status"]=="interrupted" and "interrupted in prepare" in d["cases"][0]["reason"] and d["interrupted"]'
done

# --- processes a module starts do not outlive its case
t0=$(date +%s%N)
run_bc $T/st run rogue $MP fault=fork_child,fork_setsid,none --time 0.3 --warmup 0 --grace 5 -q -o $T/st.json
t1=$(date +%s%N)
expect_rc "cases with strays still run" 0
expect_py "a forked child and a setsid daemon are killed, and the case says so" $T/st.json \
	'[c.get("strays_killed",0)>=1 for c in d["cases"]]==[True,True,False] and all("left" in " ".join(c["warnings"]) for c in d["cases"][:2])'
ms=$(( (t1 - t0) / 1000000 )); [ $ms -lt 5000 ] && pass "no case waits out the grace period for a stray ($ms ms)" || fail "strays: $ms ms"
check "no stray process is left" test -z "$(pgrep -x bc-rogue-stray)"
python3 -c 'import subprocess,sys; sys.exit(subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))' \
	"$BC" run rogue $MP --time 0.1 --warmup 0 -q -o $T/fd.json
expect_py "the case's process inherits no descriptor without close-on-exec" $T/fd.json \
	'd["cases"][0]["info"]["fds_no_cloexec"]==""'

# --- a worker that ends early, impossible records, a NaN metric: failed, with why
run_bc $T/g run rogue $MP fault=pthread_exit,bad_op,wrap_latency,neg_bytes,huge_n,nan_metric --threads 2 --time 0.3 --warmup 0.1 -q -o $T/g.json
expect_rc "garbage fails its cases" 1
while IFS='|' read -r i frag; do
	expect_py "garbage case $i: failed: $frag" $T/g.json \
		"d['cases'][$i]['status']=='failed' and '$frag' in d['cases'][$i]['reason']"
done <<'EOF'
0|ended inside the module (pthread_exit?)
1|op class 7 recorded, the case has 1
2|longer than the case has run
3|more than 2^50 bytes in one operation
4|a batch of more than 2^40 operations
5|metric "ratio" reported as nan
EOF
expect_py "refused records are counted" $T/g.json 'all(d["cases"][i]["records_refused"]>0 for i in (1,2,3,4))'
expect_py "no impossible figure reaches the results" $T/g.json \
	'all(o["latency_ns"]["max"]<10**12 and o["bytes"]<2**62 and o["count"]<2**40 for c in d["cases"] for o in c["ops"].values()) and "ratio" not in d["cases"][5]["metrics"]'

# --- the error budget
run_bc $T/eb run rogue $MP fault=all_errors,some_errors --time 0.3 --warmup 0 -o $T/eb.json
expect_rc "errors past the budget fail the run" 1
expect_py "every operation failed: failed" $T/eb.json \
	'd["cases"][0]["status"]=="failed" and "every operation failed" in d["cases"][0]["reason"] and d["cases"][0]["error_rate"]==1'
expect_py "5% errors against the default 1%: failed, the rate named" $T/eb.json \
	'd["cases"][1]["status"]=="failed" and "more than max_error_rate 1%" in d["cases"][1]["reason"] and 0.03<d["cases"][1]["error_rate"]<0.08'
expect_grep "the summary shows the error rate" $T/eb.out '^2 +rogue .* failed .*errors [0-9.]+%'
run_bc $T/eb2 run rogue $MP fault=some_errors,all_errors --max-error-rate 0.5 --time 0.3 --warmup 0 -q -o $T/eb2.json
expect_py "a budget of 50%: 5% errors is ok, 100% still fails" $T/eb2.json \
	'[c["status"] for c in d["cases"]]==["ok","failed"]'

# --- smaller things: CSV rows of failed cases, secret sweeps, help/list flags,
# a relative module_path, module.mk without pkg-config
run_bc $T/cv run rogue $MP fault=none,nan_metric --time 0.1 --warmup 0 -q -o $T/cv.json --csv $T/cv.csv
expect_py "a failed case has its CSV row" $T/cv.json \
	"(lambda rows: any(r[0]=='2' and r[5]=='failed' for r in rows))([l.split(',') for l in open('$T/cv.csv').read().splitlines()])"
run_bc $T/ss run faulty $MP password=a,b --time 0.1
expect_rc "sweeping a secret option is refused" 2
expect_grep "... saying why" $T/ss.err 'option "password" of module "faulty" is secret and cannot be swept'
expect_no_grep "... without its values" $T/ss.err 'password=a|"a"|"b"'
run_bc $T/lf list --bogus
expect_rc "list rejects an unknown flag" 2
run_bc $T/hf help cpu --bogus
expect_rc "help rejects an unknown flag" 2
mkdir -p $T/conf/m && cp $TESTMODS/ops.so $T/conf/m/
printf 'module_path = [ "m" ];\nmodules = ( { name = "ops"; } );\n' >$T/conf/site.conf
run_bc $T/hc help ops -c $T/conf/site.conf
expect_grep "help -c FILE sees the config's module_path, relative to the file" $T/hc.out "file: $T/conf/m/ops.so"
mkdir -p $T/mk && printf 'MODULE = x\ninclude %s\n' "$OLDPWD/sdk/module.mk" >$T/mk/Makefile
make -C $T/mk PKG_CONFIG_PATH=$T/nowhere PKG_CONFIG="pkg-config --env-only" DESTDIR=$T/dest install >$T/mk.out 2>&1
RC=$?
if [ $RC -ne 0 ] && grep -q 'pkg-config cannot find benchcore' $T/mk.out && [ ! -e $T/dest ]; then
	pass "module.mk stops when pkg-config cannot find benchcore (nothing installed)"
else fail "module.mk without benchcore.pc: exit $RC"; cat $T/mk.out; fi
