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
# the references of the wall-clock bounds below (lib.sh's in_time): list, and a
# short run, with nothing wrong
REF_LIST=$(ref_ms "$BC" list $MP)	# the same modules probed, their constructors' faults off
REF_RUN_CMD=("$BC" run cpu max_prime=100 --time 0.3 --warmup 0 -q --force -o $T/ref.json)
REF_RUN=$(ref_ms "${REF_RUN_CMD[@]}")

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
in_time "a hanging constructor costs one probe timeout (1 s)" $ms 1000 $REF_LIST
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

# --- one directory named three times on the search path (the build's own, dir/ and a
# symlink to it): searched once, its files shadow nothing
M=$(cd "$(dirname $BC)/modules" && pwd)
ln -s "$M" $T/mods-link
BENCHCORE_MODULE_PATH="$M/:$T/mods-link" run_bc $T/tw list
expect_no_grep "list: one directory three times on the path shadows nothing" $T/tw.out 'SHADOWS'
expect_grep "list: its modules are listed once, from its first place" $T/tw.out "^cpu .* $M//?cpu\.so"
BENCHCORE_MODULE_PATH="$M/:$T/mods-link" run_bc $T/twr run cpu --time 0.1 --warmup 0 -q -o $T/tw.json
expect_no_grep "run: no \"X also calls itself cpu\" of cpu.so itself" $T/twr.err 'also call'
expect_py "result: no module_shadows" $T/tw.json "'module_shadows' not in d['cases'][0]"

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
ctlchoice|option "mode" has control characters in its choices
EOF
n=$(grep -A3 '^meta_' $T/cl.out | grep -c 'HINT:')
m=$(grep -c '^meta_' $T/cl.out)	# the 10 above and those of test_abi13
if [ "$n" -eq "$m" ] && [ "$m" -ge 10 ]; then pass "each of the $m metadata refusals has a hint"
else fail "$n of $m metadata refusals have a hint"; fi
run_bc $T/md run meta_dupopt $MP --time 0.1
expect_rc "running a refused module is a module error" 2
expect_grep "... naming the file" $T/md.err "meta_dupopt.so\": option \"size\" is declared twice"

# --- a module that describes itself differently in the case's process: refused there
mkdir -p $T/shape
BCTEST_SHAPE_DIR=$T/shape run_bc $T/sh run shape $MP a=5 --time 0.1 --warmup 0 -q -o $T/sh.json
expect_rc "a module whose description changed in the case's process: the case fails" 1
expect_py "... naming the first difference: option a's type" $T/sh.json \
	'd["cases"][0]["status"]=="failed" and "describes itself differently when opened again: option \"a\": type string, was int" in d["cases"][0]["reason"] and "a_read_as" not in d["cases"][0]["info"]'
check "... it was loaded twice (probe, case), so the change was seen" test "$(cat $T/shape/loads)" = xx
run_bc $T/sh2 run shape $MP --time 0.1 --warmup 0 -q -o $T/sh2.json
expect_py "... the same module loaded the same way each time: ok" $T/sh2.json \
	'd["cases"][0]["status"]=="ok" and d["cases"][0]["info"]["a_read_as"]=="int64_t"'

# --- init has its own deadline; the first stop request ends any phase in 2 s
t0=$(date +%s%N)
run_bc $T/hi run rogue $MP fault=hang_init --init-timeout 1 --time 0.2 --warmup 0 -q -o $T/hi.json
t1=$(date +%s%N)
expect_rc "a hang in init fails its case" 1
expect_py "init hang: killed after init_timeout, the phase named" $T/hi.json \
	'd["cases"][0]["status"]=="failed" and d["cases"][0]["reason"]=="timed out after 1 s in init (killed)"'
ms=$(( (t1 - t0) / 1000000 )); in_time "init hang: the run ended after init_timeout (1 s)" $ms 1000 $REF_RUN "${REF_RUN_CMD[@]}"
for sig in INT TERM; do
	"$BC" run rogue $MP fault=hang_prepare --time 0.2 --warmup 0 -o $T/sg$sig.json >$T/sg$sig.out 2>$T/sg$sig.err </dev/null &
	pid=$!
	# the case's prepare reached: the plan's last line out (the modules' needs() children
	# before it are the plan's, not the case's) and a process of the case there
	until_seen 600 grep -Eq '^plan: 1 case, ' $T/sg$sig.err || fail "SIG$sig: the plan not seen within 60 s"
	until_seen 300 pgrep -P $pid >/dev/null || fail "SIG$sig: no process of the case within 30 s"
	sleep 0.3
	t0=$(date +%s%N); kill -$sig $pid; wait $pid; RC=$?; t1=$(date +%s%N)
	ms=$(( (t1 - t0) / 1000000 ))
	expect_rc "SIG$sig during a hang in prepare: the run ends as interrupted" 130
	in_time "SIG$sig: stopped within the documented 2 s of the first signal" $ms 2000 $REF_RUN "${REF_RUN_CMD[@]}"
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
ms=$(( (t1 - t0) / 1000000 )); in_time "no case waits out the grace period (5 s) for a stray: three short cases" $ms 0 $((3 * REF_RUN))
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

# ===== the second round (issue 25) =====

# --- 1: a library a module needs is checked before any of its code runs
mkdir -p $T/n1/ww $T/n1/mods $T/n1/mods2 && chmod 755 $T/n1 $T/n1/mods $T/n1/mods2 && chmod 777 $T/n1/ww
printf '#include <stdio.h>\n__attribute__((constructor)) static void m(void) { FILE *f = fopen("%s/n1-ran", "w"); if (f) fclose(f); }\nint n1_fn(void);\nint n1_fn(void) { return 1; }\n' "$T" >$T/n1/lib.c
cc -shared -fPIC -o $T/n1/ww/libn1.so $T/n1/lib.c	# no soname: DT_NEEDED keeps the path
cc -shared -fPIC -I"$OLDPWD/sdk/include" -o $T/n1/mods/needabs.so "$OLDPWD/tests/modules/liar.c" \
	-Wl,--no-as-needed $T/n1/ww/libn1.so
cc -shared -fPIC -I"$OLDPWD/sdk/include" -o $T/n1/mods2/needllp.so "$OLDPWD/tests/modules/liar.c" \
	-L$T/n1/ww -Wl,--no-as-needed -ln1
run_bc $T/n1a list --module-path $T/n1/mods
expect_grep "1: DT_NEEDED in a world-writable directory: refused" $T/n1a.out \
	"refusing to load module \"$T/n1/mods/needabs.so\": a library it loads is not safe"
check "1: ... and the library's constructor never ran" test ! -e $T/n1-ran
LD_LIBRARY_PATH=$T/n1/ww run_bc $T/n1b list --module-path $T/n1/mods2
expect_grep "1: DT_NEEDED found through LD_LIBRARY_PATH in a world-writable directory: refused" $T/n1b.out \
	"refusing to load module \"$T/n1/mods2/needllp.so\": a library it loads is not safe"
check "1: ... and its constructor never ran" test ! -e $T/n1-ran
mkdir -p $T/n1/lib/tls && chmod 755 $T/n1/lib && chmod 777 $T/n1/lib/tls && cp $T/n1/ww/libn1.so $T/n1/lib/tls/
LD_LIBRARY_PATH=$T/n1/lib run_bc $T/n1t list --module-path $T/n1/mods2
expect_grep "1: a library in a subdirectory ld.so tries first (LD_LIBRARY_PATH/tls): found and refused" $T/n1t.out \
	"refusing to load from library \"$T/n1/lib/tls/libn1.so\": directory \"$T/n1/lib/tls\" above it is writable by others"
check "1: ... and its constructor never ran" test ! -e $T/n1-ran
mkdir -p $T/n1/empty && chmod 777 $T/n1/empty && chmod 755 $T/n1/ww
LD_LIBRARY_PATH=$T/n1/empty:$T/n1/ww run_bc $T/n1c list --module-path $T/n1/mods2
expect_grep "1: a world-writable LD_LIBRARY_PATH directory searched before the library's: refused, named" $T/n1c.out \
	"would look for its library \"libn1.so\" in \"$T/n1/empty\" \(LD_LIBRARY_PATH\), which is not safe"
check "1: ... and nothing ran" test ! -e $T/n1-ran
LD_LIBRARY_PATH=$T/n1/ww run_bc $T/n1d list --module-path $T/n1/mods2
expect_grep "1: the same library in a safe directory is loaded" $T/n1d.out "^liar .*$T/n1/mods2/needllp.so"

# --- 2: a module's texts never reach the terminal raw
esc=$'\033'; bel=$'\007'; cr=$'\r'
run_bc $T/e2 list $MP
check "2: list shows no ESC, BEL or CR" bash -c "! grep -q '[$esc$bel$cr]' $T/e2.out $T/e2.err"
expect_grep "2: list: the escapes are shown as text" $T/e2.out '^escapes +1\.0\\x1b\[8m .*test module\)\\x1b\[2J\\x1b\]0;pwned\\x07\\x0d\\x0aforged-line'
expect_no_grep "2: list: no forged line" $T/e2.out '^forged-line'
run_bc $T/e2h help escapes $MP
check "2: help shows no ESC, BEL or CR (summary, option help, metric unit)" bash -c "! grep -q '[$esc$bel$cr]' $T/e2h.out $T/e2h.err"
expect_no_grep "2: help: no forged line" $T/e2h.out '^forged-line'
run_bc $T/e2r run escapes $MP say=log,set_error,error --time 0.1 --warmup 0 -o $T/e2r.json
check "2: run: no ESC, BEL or CR in stdout or stderr (log, set_error, error with detail and hint)" \
	bash -c "! grep -q '[$esc$bel$cr]' $T/e2r.out $T/e2r.err"
expect_no_grep "2: run: no forged line" $T/e2r.out '^forged-line'
expect_grep "2: a log() warning is shown escaped" $T/e2r.err 'escapes: warning: a warning\\x1b\[2J'
expect_grep "2: an error()'s hint is shown escaped" $T/e2r.out 'hint: hint\\x1b\[2J\\x1b\]0;pwned\\x07'
expect_py "2: results hold the reasons and the unit escaped" $T/e2r.json \
	'all("\x1b" not in json.dumps(c, ensure_ascii=False) and "\r" not in json.dumps(c, ensure_ascii=False) for c in d["cases"]) and d["cases"][1]["reason"].startswith("init: set_error\\x1b[2J")'

# --- 4: a FIFO named x.so freezes nothing
mkdir -p $T/f4 && chmod 755 $T/f4 && mkfifo $T/f4/x.so && chmod 644 $T/f4/x.so
t0=$(date +%s%N)
"$BC" list --module-path $T/f4 >$T/f4.out 2>$T/f4.err </dev/null & pid=$!
for _ in $(seq 300); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
if kill -0 $pid 2>/dev/null; then kill -9 $pid; fail "4: list froze on a FIFO"; else wait $pid; RC=$?; t1=$(date +%s%N); pass "4: list ends beside a FIFO named x.so ($(( (t1 - t0) / 1000000 )) ms)"; fi
expect_grep "4: the FIFO is refused as not a regular file" $T/f4.out "refusing to load module file \"$T/f4/x.so\": it is not a regular file \(a FIFO\)"

# live (not zombie) processes of this exact name that this script started
# (their environment carries its mark): a second suite's test_contain beside
# this one has daemons of the same names for a moment
export BC_ITEST_MARK=$T
alive() {
	local n=0 p
	for p in $(ps -eo pid=,stat=,comm= | awk -v n="$1" '$2 !~ /^Z/ && $3 == n { print $1 }'); do
		tr '\0' '\n' </proc/$p/environ 2>/dev/null | grep -qxF "BC_ITEST_MARK=$T" && n=$((n + 1))
	done
	echo $n
}

# --- 3: nothing a module or its server starts outlives list or the run
BCTEST_CTOR_DAEMON=1 run_bc $T/d3 list $MP
expect_grep "3: list with a constructor that daemonizes still lists the module" $T/d3.out '^ctor_daemon '
check "3: the constructor's setsid + double fork daemon did not outlive list" test "$(alive bc-ctor-daemon)" -eq 0
BCTEST_CTOR_DAEMON=1 run_bc $T/d3r run ctor_daemon $MP --time 0.1 --warmup 0 -q -o $T/d3r.json
expect_py "3: run: the daemon the case's constructor started is killed, and the case says so" $T/d3r.json \
	'd["cases"][0]["status"]=="ok" and d["cases"][0]["strays_killed"]>=1'
check "3: ... and it did not outlive the run" test "$(alive bc-ctor-daemon)" -eq 0
SRV=$TESTMODS/standin_server
run_bc $T/s3 run svc $MP server=$SRV flags=--daemonize --repeat 2 --time 0.2 --warmup 0 -q -o $T/s3.json
expect_rc "3: a private server that daemonizes (like redis --daemonize yes) serves its cases" 0
expect_py "3: ... both cases reach the one daemon" $T/s3.json \
	'len(d["cases"])==2 and d["cases"][0]["info"]["server_pid"]==d["cases"][1]["info"]["server_pid"]'
check "3: ... and the daemon is stopped at the run's end" test "$(alive bcstandin-dmn)" -eq 0
run_bc $T/s3l run svc $MP server=$SRV flags=--daemonize-late --repeat 2 --time 0.2 --warmup 0 -q -o $T/s3l.json
expect_py "3: a server whose parent exits only after the daemon is ready: one daemon for both cases" $T/s3l.json \
	'[c["status"] for c in d["cases"]]==["ok","ok"] and d["cases"][0]["info"]["server_pid"]==d["cases"][1]["info"]["server_pid"] and not any(c.get("strays_killed") for c in d["cases"])'
check "3: ... and it is stopped at the run's end" test "$(alive bcstandin-dmn)" -eq 0
run_bc $T/s3b run svc $MP server=$SRV flags=--setsid-child --time 0.2 --warmup 0 -q -o $T/s3b.json
expect_rc "3: a private server with a setsid helper serves" 0
check "3: ... and the helper, in a session of its own, is stopped with its server" test "$(alive bcstandin-sid)" -eq 0
run_bc $T/s3c run svc $MP server=$SRV flags=--setsid-child-late --time 0.2 --warmup 0 -q -o $T/s3c.json
expect_rc "3: a private server that starts a setsid helper while it serves" 0
check "3: ... the helper does not outlive the run" test "$(alive bcstandin-sid)" -eq 0
expect_grep "3: ... and the run says it was killed" $T/s3c.err 'private servers left 1 process running after they stopped \(killed\)'

# --- 5: finish, cleanup and destroy: a deadline that follows the case, run once, named
for ph in finish cleanup destroy; do
	rm -f $T/c5.count
	t0=$(date +%s%N)
	run_bc $T/h5$ph run unruly $MP fault=hang_$ph count=$T/c5.count --time 0.3 --warmup 0 --grace 1 -q -o $T/h5$ph.json
	t1=$(date +%s%N)
	expect_rc "5: a hang in $ph fails its case" 1
	expect_py "5: ... killed after warmup + time + grace (1.3 s), the phase named $ph" $T/h5$ph.json \
		"d['cases'][0]['status']=='failed' and d['cases'][0]['reason']=='timed out after 1.3 s in $ph (killed)'"
	ms=$(( (t1 - t0) / 1000000 )); in_time "5: a hang in $ph ends the run after its deadline (1.3 s)" $ms 1300 $REF_RUN "${REF_RUN_CMD[@]}"
	want=1; [ $ph = finish ] && want=2	# after finish, cleanup is still owed: once, in a fresh process
	check "5: ... init ran $want time(s): nothing that hung runs again" test "$(wc -l <$T/c5.count)" -eq $want
done
run_bc $T/h5t run unruly $MP fault=hang_cleanup --cleanup-timeout 0.5 --time 0.2 --warmup 0 -q -o $T/h5t.json
expect_py "5: cleanup_timeout sets the bound" $T/h5t.json 'd["cases"][0]["reason"]=="timed out after 0.5 s in cleanup (killed)"'

# --- 6: one SIGTERM during any phase ends the run in the documented 2 s, nothing left
for ph in cleanup destroy finish; do
	"$BC" run unruly $MP fault=hang_$ph count=$T/c6$ph.count --time 0.3 --warmup 0 -q -o $T/s6$ph.json >$T/s6$ph.out 2>$T/s6$ph.err </dev/null &
	pid=$!
	for _ in $(seq 600); do sleep 0.05; [ -s $T/c6$ph.count ] && break; done
	sleep 1
	t0=$(date +%s%N); kill -TERM $pid; wait $pid; RC=$?; t1=$(date +%s%N)
	ms=$(( (t1 - t0) / 1000000 ))
	expect_rc "6: SIGTERM during a hang in $ph: the run ends as interrupted" 130
	in_time "6: ... within the documented 2 s of the signal" $ms 2000 $REF_RUN "${REF_RUN_CMD[@]}"
	expect_py "6: ... the case says where it was stopped" $T/s6$ph.json \
		"d['cases'][0]['status']=='interrupted' and 'interrupted in $ph' in d['cases'][0]['reason'] and d['interrupted']"
	check "6: ... and no process of the run is left" test -z "$(pgrep -f "$T/c6$ph.count")"
done

# --- 7: a case's stdout never reaches benchcore's stdout
"$BC" run unruly $MP fault=print,none --time 0.1 --warmup 0 -o - >$T/j7.out 2>$T/j7.err </dev/null
RC=$?
expect_rc "7: -o - with modules that print" 0
expect_py "7: -o - stays valid JSON with a banner-printing constructor and a module that prints" $T/j7.out \
	'[c["status"] for c in d["cases"]]==["ok","ok"]'
expect_grep "7: the banner goes to stderr, named" $T/j7.err '^benchcore: unruly: printed: unruly: banner from my constructor$'
expect_grep "7: what the module printed goes to stderr, escaped" $T/j7.err \
	'^benchcore: unruly: printed: \\x1b\]0;title\\x07no newline at the end$'
expect_grep "7: what the module wrote to stderr is copied escaped" $T/j7.err \
	'^benchcore: unruly: wrote to stderr: unruly: to stderr \\x1b\[31mred\\x0d$'
check "7: ... and no ESC, BEL or CR reaches stderr" bash -c "! grep -q '[$esc$bel$cr]' $T/j7.err"
"$BC" run unruly $MP fault=print --no-isolate --time 0.1 --warmup 0 -o - >$T/j7n.out 2>$T/j7n.err </dev/null
expect_py "7: ... and with --no-isolate" $T/j7n.out 'd["cases"][0]["status"]=="ok"'

# --- 8: a signal a module sends its own process group is its fault, not an interrupt
run_bc $T/k8 run unruly $MP fault=kill_group --time 0.5 --warmup 0 -q -o $T/k8.json
expect_rc "8: kill(0, SIGTERM) in a case: exit 1, not 130" 1
expect_py "8: ... the case failed saying what the module did; the run is not interrupted" $T/k8.json \
	'd["cases"][0]["status"]=="failed" and "the module sent signal 15" in d["cases"][0]["reason"] and "measured window" in d["cases"][0]["reason"] and not d["interrupted"]'

# in benchcore's own process (a session of its own here: kill(0) reaches its whole group)
setsid "$BC" run unruly $MP fault=kill_group,none --no-isolate --time 0.3 --warmup 0 -q -o $T/k8n.json >/dev/null 2>&1 </dev/null
RC=$?
expect_rc "8: --no-isolate: kill(0, SIGTERM) in a case: exit 1, not 130" 1
expect_py "8: ... that case failed saying so, the next one ran" $T/k8n.json \
	'[c["status"] for c in d["cases"]]==["failed","ok"] and "the module sent signal 15" in d["cases"][0]["reason"] and not d["interrupted"]'

# --- 9: closed descriptors and exit(): told truthfully, never benchcore's exit code
run_bc $T/f9 run unruly $MP fault=close_fds,close_fds_hang,exit3 --time 0.2 --warmup 0 -q -o $T/f9.json
expect_py "9: closing every descriptor: lost contact, not 'exited with status 0'" $T/f9.json \
	'd["cases"][0]["reason"].startswith("lost contact with the case'"'"'s process in init") and "status 0" not in d["cases"][0]["reason"]'
expect_py "9: ... and a case that closed them and hangs is killed" $T/f9.json \
	'"did not end (killed)" in d["cases"][1]["reason"]'
expect_py "9: exit(3) in a case: named, the run goes on" $T/f9.json \
	'd["cases"][2]["reason"]=="the case'"'"'s process exited with status 3 in init before reporting (a module must not call exit)"'
# a lying case: what it writes on benchcore's channel is no message of benchcore's
run_bc $T/l9 run unruly $MP fault=forge_line,forge_report,none --time 0.2 --warmup 0 -q -o $T/l9.json
expect_rc "9: a case writing on benchcore's channel fails, the run goes on: exit 1" 1
expect_py "9: ... a report's tag inside a line is no report: the case fails naming the line" $T/l9.json \
	'd["cases"][0]["status"]=="failed" and "an unknown message (\"hello J" in d["cases"][0]["reason"] and "in init" in d["cases"][0]["reason"]'
expect_py "9: ... a forged report before the real one: failed, saying a message came after the report" $T/l9.json \
	'd["cases"][1]["status"]=="failed" and "a message after its report" in d["cases"][1]["reason"]'
expect_py "9: ... and the next case runs" $T/l9.json 'd["cases"][2]["status"]=="ok"'
run_bc $T/fl9 run unruly $MP fault=flood,none --time 0.2 --warmup 0 -q -o $T/fl9.json
expect_py "9: a case flooding its channel without a newline is killed at 64 MiB, named; the next runs" $T/fl9.json \
	'd["cases"][0]["status"]=="failed" and "more than 64 MiB (\"xxxx" in d["cases"][0]["reason"] and d["cases"][1]["status"]=="ok"'
mkdir -p $T/tmp9
TMPDIR=$T/tmp9 run_bc $T/x9 run unruly $MP fault=none,exit3 --repeat-order back_to_back --no-isolate --time 0.1 --warmup 0 -q -o $T/x9.json
expect_rc "9: --no-isolate: a module's exit(3) is not benchcore's exit 3" 1
expect_py "9: ... the results so far are written, the case failed saying why" $T/x9.json \
	'[c["status"] for c in d["cases"]]==["ok","failed"] and "called exit(3)" in d["cases"][1]["reason"]'
check "9: ... no OUT.lock is left" test ! -e $T/x9.json.lock
check "9: ... no temp dir is left" test -z "$(ls -A $T/tmp9)"
TMPDIR=$T/tmp9 "$BC" run unruly $MP fault=exit3 --no-isolate --time 0.1 --warmup 0 -q -o - >$T/x9s.out 2>/dev/null </dev/null
RC=$?
expect_rc "9: --no-isolate -o -: exit 1" 1
expect_py "9: ... and stdout is still one JSON document" $T/x9s.out 'd["cases"][0]["status"]=="failed"'
