#!/usr/bin/env bash
# The SDK as a third party uses it: install benchcore into a prefix, build the
# hello example out of tree with pkg-config, load and run it from a site.conf.
. "$(dirname "$0")/lib.sh"
ROOT=$PWD
P=$T/prefix
# same flags as the build under test, so make does not relink it differently
mk=(BUILD="$BUILD" ${SAN:+SAN=1 OPT=-O1})
make -s -C "$ROOT" install "${mk[@]}" PREFIX=$P >$T/inst.log 2>&1
check "make install PREFIX=..." test -x $P/bin/benchcore
check "SDK header installed" test -f $P/include/benchcore/module.h
check "modules installed" test -f $P/lib/benchcore/modules/cpu.so
(cd / && env -u BENCHCORE_MODULE_PATH $P/bin/benchcore --help) >$T/ih.out 2>&1
expect_grep "the installed --help names the module directory of its prefix" $T/ih.out "searched in .*$P/lib/benchcore/modules"
expect_no_grep "... and not the default prefix it was built for" $T/ih.out '/usr/local/lib/benchcore/modules'

export PKG_CONFIG_PATH=$P/lib/pkgconfig
# the .pc file is relocatable (paths relative to its own directory): the same directory, spelled via lib/pkgconfig/../..
check "pkg-config knows moduledir" test "$(realpath -m "$(pkg-config --variable=moduledir benchcore)")" = "$P/lib/benchcore/modules"
check "module.h compiles on its own (C11, -Wall -Wextra -Werror)" bash -c \
	"echo '#include <benchcore/module.h>' | cc -std=c11 -Wall -Wextra -Werror -pedantic $(pkg-config --cflags benchcore) -fsyntax-only -x c -"
check "hugepage.h compiles on its own with -D_GNU_SOURCE" bash -c \
	"echo '#include <benchcore/hugepage.h>' | cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror $(pkg-config --cflags benchcore) -fsyntax-only -x c -"
# under strict ISO C: glibc 2.36 (Debian 12) hides MAP_ANONYMOUS there, and the header says what it
# needs; glibc 2.41 (Debian 13, POSIX 2024) defines it, and the header compiles as it is
if echo '#include <benchcore/hugepage.h>' | cc -std=c11 $(pkg-config --cflags benchcore) -fsyntax-only -x c - >$T/hp.err 2>&1; then
	check "... and under strict ISO C too, where the C library defines MAP_ANONYMOUS there" test ! -s $T/hp.err
else
	expect_grep "... and says what it needs under strict ISO C" $T/hp.err 'hugepage.h needs MAP_ANONYMOUS: compile with -D_GNU_SOURCE'
fi
# the README's smallest module (ABI 1.3 typed options) builds as printed, with the installed SDK
"$PY" -S -c 'import re,sys; t=open(sys.argv[1]).read(); print(re.search(r"## The smallest module\n\n```c\n(.*?)```", t, re.S).group(1))' \
	"$ROOT/sdk/README.md" >$T/spin.c
check "the README's smallest module compiles and links with -Wall -Wextra -Werror" \
	cc -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror $(pkg-config --cflags benchcore) -fPIC -fvisibility=hidden \
	-shared -Wl,--no-undefined -o $T/spin.so $T/spin.c
check "... exporting the entry symbol only" test "$(nm -D --defined-only $T/spin.so | grep -c ' T ')" -eq 1
cp -r "$ROOT/sdk/examples/hello" $T/hello
check "hello's Makefile is three lines" test "$(grep -c . $T/hello/Makefile)" -eq 3
make -s -C $T/hello >$T/hello.log 2>&1
check "hello builds out of tree against the installed SDK" test -f $T/hello/hello.so
check "hello exports exactly one symbol" test "$(nm -D --defined-only $T/hello/hello.so | grep -c ' T ')" -eq 1
make -s -C $T/hello install >>$T/hello.log 2>&1
"$P/bin/benchcore" check-module $T/hello/hello.so --time 0.2 --warmup 0 >$T/hck.out 2>$T/hck.err; RC=$?
expect_rc "the installed benchcore's check-module passes the example built out of tree" 0
expect_grep "... its INT option at both bounds" $T/hck.out '^PASS: 4 of 4 cases passed'
expect_grep "... keeping the string option at its default, saying why" $T/hck.out 'kept at its default: a string'
check "hello installs into moduledir" test -f $P/lib/benchcore/modules/hello.so
run_bc $T/l list
"$P/bin/benchcore" list >$T/l.out 2>&1
expect_grep "installed benchcore lists hello with ABI 1.4 (the SDK's minor)" $T/l.out '^hello +1\.0 +1\.4 '
cat >$T/site.conf <<CONF
time = 0.5;
warmup = 0;
modules = ( { name = "hello"; rounds = [10, 20]; greeting = "hi there"; } );
CONF
"$P/bin/benchcore" -c $T/site.conf -q -o $T/h.json >$T/h.out 2>$T/h.err; RC=$?
expect_rc "hello runs from a site.conf without rebuilding the core" 0
expect_py "hello's derived metric = bytes / seconds" $T/h.json 'all(abs(c["metrics"]["bytes_hashed_per_sec"]["value"]-c["ops"]["event"]["bytes"]/c["duration_s"])<1e-6*c["metrics"]["bytes_hashed_per_sec"]["value"] for c in d["cases"])'
expect_py "hello bytes per event = len(greeting) x rounds" $T/h.json 'd["cases"][1]["ops"]["event"]["bytes"]==8*20*d["cases"][1]["ops"]["event"]["count"]'
echo 'modules = ( { name = "hello"; rounds = 0; } );' >$T/bad.conf
"$P/bin/benchcore" -c $T/bad.conf >$T/b.out 2>$T/b.err; RC=$?
expect_rc "hello option out of range" 2
expect_grep "range error names file:line and range" $T/b.err 'bad.conf:1: module "hello", option "rounds" \(int\): value out of range: valid range is 1 \.\. 1000000'
for d in sdk.md results.md settings.md modules.md; do
	check "make install puts the docs under DATADIR/doc/benchcore ($d)" test -s $P/share/doc/benchcore/$d
done
check "the installed sdk.md is sdk/README.md" cmp -s $P/share/doc/benchcore/sdk.md "$ROOT/sdk/README.md"
check "the SDK's headers are installed (hugepage.h beside module.h)" test -f $P/include/benchcore/hugepage.h
# #54: the SQLite example (sdk/examples/sqlite) against the installed SDK: it builds, make
# check runs check-module and its regression test, and fails on a broken expectation
cp -r "$ROOT/sdk/examples/sqlite" $T/sqlite && rm -f $T/sqlite/sqlite.so
make -C $T/sqlite >$T/sq.log 2>&1
check "the sqlite example builds out of tree against the installed SDK" test -f $T/sqlite/sqlite.so
check "... with benchcore's pkg-config file naming the installed benchcore" \
	test "$(realpath -m "$(pkg-config --variable=benchcore benchcore)")" = "$P/bin/benchcore"
make -C $T/sqlite check BENCH_CHECK_FLAGS="--defaults-only --time 0.2 --warmup 0" >$T/sqc.out 2>&1; RC=$?
expect_rc "make check of the sqlite example (check-module, then BENCH_REGRESS = basic)" 0
[ "$RC" -ne 0 ] && grep -vE '^(PASS|  ok)' $T/sqc.out | grep -iE 'fail|error|refus|wanted|not ' | head -3	# why (shown under the FAIL)
expect_grep "... check-module passed its defaults" $T/sqc.out '^PASS: 2 of 2 cases passed'
expect_grep "... and its --events check" $T/sqc.out '^PASS: --events 25 \(1 thread, warmup 0 s\) ran 25 operations'
expect_grep "... the regression test's invariants hold in its 4 cases" $T/sqc.out '^PASS: 6 invariants x 4 cases: every one holds'
expect_grep "... needs() declares its scratch disk (no path: the scratch directory)" $T/sqc.out \
	'needs\(\) at its defaults \(1 thread\): 8\.0 MiB of memory; 2\.9 MiB of disk at /'
echo 'ops.statement.errors > 0   # broken on purpose' >>$T/sqlite/regress/basic.expect
make -C $T/sqlite check BENCH_CHECK_FLAGS="--defaults-only --time 0.2 --warmup 0" >$T/sqb.out 2>&1; RC=$?
expect_rc "make check fails on a broken expectation" 2
expect_grep "... naming the file, line, case, the figure and the rule" $T/sqb.out \
	'^  regress/basic\.expect:9: case 1: ops\.statement\.errors is 0, wanted > 0$'
expect_grep "... and its verdict" $T/sqb.out '^FAIL: 7 invariants x 4 cases: some do not hold'
touch $T/sqlite/sqlite.so; sleep 1; touch $P/include/benchcore/module.h
make -C $T/sqlite >$T/sqd.log 2>&1
expect_grep "a newer SDK header rebuilds the module (module.mk's header dependencies)" $T/sqd.log 'sqlite\.c'
printf 'time = 0.2;\nmodules = ( { name = "sqlite"; } );\n' >$T/sqlite/regress/x.conf
"$P/bin/benchcore" check-module $T/sqlite/sqlite.so --expect $T/sqlite/regress/basic.expect >$T/sqe.out 2>&1; RC=$?
expect_rc "check-module --expect without -c: a usage error" 2
printf 'status =~ ok\n' >$T/sqlite/regress/bad.expect
"$P/bin/benchcore" check-module $T/sqlite/sqlite.so -c $T/sqlite/regress/x.conf --expect $T/sqlite/regress/bad.expect \
	>$T/sqx.out 2>&1; RC=$?
expect_rc "a malformed --expect line: exit 2" 2
expect_grep "... naming file:line" $T/sqx.out 'bad\.expect:1: error: not PATH OP VALUE'

# #54 item 7: every installed example builds with make against the installed SDK (rsa: the
# model module, evloop: the event-loop client, their sources copied by make install)
for e in rsa evloop; do
	cp -r $P/share/benchcore/examples/$e $T/ex-$e
	make -C $T/ex-$e >$T/ex-$e.log 2>&1
	check "the installed example $e builds with make" test -f $T/ex-$e/$e.so
done
"$P/bin/benchcore" list --module-path $T/ex-rsa >$T/lr.out 2>&1
expect_grep "... and the installed benchcore loads the copy of rsa" $T/lr.out "^rsa +.*$T/ex-rsa/rsa.so"
check "make install puts the SDK guide's man page benchcore-module(7)" test -s $P/share/man/man7/benchcore-module.7
MANWIDTH=80 man -l $P/share/man/man7/benchcore-module.7 2>/dev/null >$T/man7.out
expect_grep "... which shows the guide's sections" $T/man7.out '^ABI 1\.4: THE SEED, THE WINDOW, AND WHERE THE DATA GOES'

rm -f $P/lib/benchcore/modules/hello.so
make -s -C "$ROOT" uninstall "${mk[@]}" PREFIX=$P >>$T/inst.log 2>&1
check "make uninstall removes what install put there" test ! -e $P/bin/benchcore -a ! -e $P/include/benchcore/module.h -a ! -e $P/lib/benchcore/modules/cpu.so -a ! -e $P/lib/pkgconfig/benchcore.pc
check "make uninstall removes the docs and their directory" test ! -e $P/share/doc/benchcore
unset PKG_CONFIG_PATH

# A staged tree (make install DESTDIR=..., as a package build does) and a
# Makefile that names it in PKG_CONFIG_PATH itself: no environment needed.
D=$T/stage
make -s -C "$ROOT" install "${mk[@]}" PREFIX=/opt/bcsdk DESTDIR=$D >$T/inst2.log 2>&1
check "make install DESTDIR=... stages the tree" test -x $D/opt/bcsdk/bin/benchcore -a -f $D/opt/bcsdk/lib/pkgconfig/benchcore.pc
cp -r "$ROOT/sdk/examples/hello" $T/hello2
rm -f $T/hello2/hello.so
{ echo "PKG_CONFIG_PATH = $D/opt/bcsdk/lib/pkgconfig"; cat "$ROOT/sdk/examples/hello/Makefile"; } >$T/hello2/Makefile
env -u PKG_CONFIG_PATH make -C $T/hello2 >$T/hello2.log 2>&1; RC=$?
expect_rc "hello builds with PKG_CONFIG_PATH set in its Makefile (not the environment)" 0
check "... into hello.so, with the staged tree's header" test -f $T/hello2/hello.so
expect_grep "... compiled against the staged include directory" $T/hello2.log "-I$D/opt/bcsdk/lib/pkgconfig/../../include"
env -u PKG_CONFIG_PATH make -s -C $T/hello2 install >>$T/hello2.log 2>&1
check "make install of the module goes into the staged moduledir" test -f $D/opt/bcsdk/lib/benchcore/modules/hello.so
(cd / && env -u BENCHCORE_MODULE_PATH $D/opt/bcsdk/bin/benchcore list) >$T/l2.out 2>&1
expect_grep "the staged benchcore lists the module built against it" $T/l2.out '^hello +1\.0 +1\.4 '
# without benchcore's pkg-config file: a message, not "No targets"
cp -r "$ROOT/sdk/examples/hello" $T/hello3
{ echo "PKG_CONFIG_PATH = $T/nowhere"; cat "$ROOT/sdk/examples/hello/Makefile"; } >$T/hello3/Makefile
env -u PKG_CONFIG_PATH PKG_CONFIG_LIBDIR=$T/nowhere make -C $T/hello3 >$T/hello3.log 2>&1; RC=$?
expect_rc "a Makefile pointing nowhere stops make" 2
expect_grep "... saying pkg-config cannot find benchcore and what to set" $T/hello3.log 'pkg-config cannot find benchcore: set PKG_CONFIG_PATH'
expect_no_grep "... never make's bare No targets" $T/hello3.log 'No targets'
make -s -C "$ROOT" uninstall "${mk[@]}" PREFIX=/opt/bcsdk DESTDIR=$D >>$T/inst2.log 2>&1
rm -f $D/opt/bcsdk/lib/benchcore/modules/hello.so
make -s -C "$ROOT" uninstall "${mk[@]}" PREFIX=/opt/bcsdk DESTDIR=$D >>$T/inst2.log 2>&1
check "make uninstall DESTDIR=... leaves no file in the staged tree" test -z "$(find $D -type f)"

# ---------------------------------------------------------------------------
# The rules sdk/README.md states, one test module each (tests/modules), and
# issue 25's finding 10. Modules are copied into a directory of their own so
# only they are probed.
M=$T/m; mkdir -p $M && chmod 755 $M
for so in sdkrules diskhog ops256 ops257 checkable checkbad checkmany small svc; do cp "$TESTMODS/$so.so" $M/; done
MP="--module-path $M"
lines() { grep -c -- "$2" "$1" 2>/dev/null; }

# thread_done runs for each thread whose thread_init returned BENCH_OK, never for one that failed
run_bc $T/ti run sdkrules $MP mode=tinit_fail marker=$T/ti.mk --threads 2 --time 0.2 --warmup 0 -q -o $T/ti.json
expect_rc "a failed thread_init fails the case" 1
expect_py "... naming thread_init and the thread" $T/ti.json \
	'd["cases"][0]["reason"].startswith("thread_init: thread 1: sdkrules: thread_init refused on purpose")'
check "thread_done ran for thread 0, whose thread_init succeeded" test "$(lines $T/ti.mk '^thread_done [0-9]* 0$')" -eq 1
check "thread_done did not run for thread 1, whose thread_init failed" test "$(lines $T/ti.mk '^thread_done [0-9]* 1$')" -eq 0
check "destroy ran once after the failure" test "$(lines $T/ti.mk '^destroy ')" -eq 1

# init that fails: nothing else of the module is called in that process, not even destroy
run_bc $T/if0 run sdkrules $MP mode=init_fail marker=$T/if0.mk --time 0.2 --warmup 0 -q -o $T/if0.json
expect_py "a failed init fails the case with its error as the reason" $T/if0.json \
	'd["cases"][0]["status"] == "failed" and d["cases"][0]["reason"] == "init: sdkrules: init refused on purpose"'
check "... and init was the only callback called (no destroy)" test "$(cut -d' ' -f1 $T/if0.mk | sort -u)" = init

# after a crash, init + cleanup + destroy run again in a fresh process (never prepare)
run_bc $T/cr run sdkrules $MP mode=crash_event marker=$T/cr.mk --time 0.3 --warmup 0 -q -o $T/cr.json
expect_rc "a crash in event fails the case" 1
crash_pid=$(awk '$1=="prepare"{print $2}' $T/cr.mk)
clean_pid=$(awk '$1=="cleanup"{print $2}' $T/cr.mk)
check "after the crash, cleanup ran once, in another process (crashed $crash_pid, cleanup $clean_pid)" \
	test -n "$crash_pid" -a -n "$clean_pid" -a "$crash_pid" != "$clean_pid" -a "$(lines $T/cr.mk '^cleanup ')" -eq 1
check "... after init in that same fresh process" grep -q "^init $clean_pid$" $T/cr.mk
check "... and destroy there too, but no prepare" bash -c "grep -q '^destroy $clean_pid$' $T/cr.mk && ! grep -q '^prepare $clean_pid$' $T/cr.mk"

# set_info and report_metric may be called from worker threads
run_bc $T/wi run sdkrules $MP mode=threads_info --threads 4 --time 0.3 --warmup 0 -q -o $T/wi.json
expect_rc "set_info/report_metric from 4 worker threads at once" 0
expect_py "... every thread's info key is kept" $T/wi.json \
	'all(d["cases"][0]["info"].get("thread_%d" % i) == "said" for i in range(4))'
expect_py "... and the metric holds one thread's value" $T/wi.json \
	'd["cases"][0]["metrics"]["per_thread"]["value"] in (1, 2, 3, 4)'

# op classes: at most 256 (BENCH_MAX_OP_CLASSES)
run_bc $T/op list $MP
expect_grep "256 static op classes load" $T/op.out '^ops256 '
expect_grep "257 are refused, naming the limit" $T/op.out 'op class "op256" is invalid or beyond the limit of 256'
run_bc $T/o2 run ops256 $MP --time 0.2 --warmup 0 -q -o $T/o2.json
expect_py "a case of the 256-class module reports all of them" $T/o2.json 'len(d["cases"][0]["ops"]) == 256'

# two files naming one module: in one directory that name is ambiguous (refused,
# whatever later directories hold); in two directories the earlier one is used
mkdir -p $T/da $T/db && chmod 755 $T/da $T/db
cp $TESTMODS/dup_a.so $TESTMODS/dup_b.so $T/da/ && cp $TESTMODS/dup_a.so $T/db/dup.so
run_bc $T/d1 run dup --module-path $T/da:$T/db --time 0.2 --warmup 0 -q
expect_rc "two files of module dup in one directory: refused" 2
expect_grep "... as a duplicate module name, naming both files" $T/d1.err "duplicate module name \"dup\" in \"$T/da/dup_b.so\""
run_bc $T/d2 run dup --module-path $T/db:$T/da --time 0.2 --warmup 0 -q -o $T/d2.json
expect_rc "the same files with the other directory first: it is used" 0
expect_py "... the file of the earlier directory ran, the later ones shadowed" $T/d2.json \
	'd["cases"][0]["module_path"].endswith("/db/dup.so") and "/da/dup_a.so" in d["cases"][0]["module_shadows"]'

# finding 10: error() in a case that ends ok is a warning, not lines under no reason
run_bc $T/eo run sdkrules $MP mode=error_ok --time 0.2 --warmup 0 -o $T/eo.json
expect_rc "error() then BENCH_OK: the case is ok" 0
expect_no_grep "... no detail or hint line without a reason" $T/eo.out '^ +(detail|hint):'
expect_py "... it is a warning with its message, detail and hint" $T/eo.json \
	'any("error() reported" in w and "sdkrules: a hiccup DETAIL: nothing failed HINT: no need to act" in w for w in d["cases"][0]["warnings"])'
expect_py "... and no error object in an ok case" $T/eo.json '"error" not in d["cases"][0]'
expect_grep "... said on stderr too" $T/eo.err 'warning: sdkrules: error\(\) reported'
# issue 37: an error() in the measured window fails the case whatever the callbacks return
run_bc $T/ew run sdkrules $MP mode=error_window --time 0.3 --warmup 0.1 -o $T/ew.json
expect_rc "error() in the window, every callback BENCH_OK: the run fails" 1
expect_py "... the case failed, the window's error its reason and error object" $T/ew.json \
	'(lambda c: c["status"] == "failed" and c["reason"] == "thread_run: thread 0: sdkrules: the server stopped answering" and c["error"]["detail"] == "no reply for 1 s" and c["error"]["count"] == 2)(d["cases"][0])'
expect_py "... the error() from init, before the window, is a warning" $T/ew.json \
	'any("sdkrules: a hiccup DETAIL: nothing failed" in w for w in d["cases"][0]["warnings"])'

# sizes for people: 1 MiB is 1.0 MiB, not 0.0 GiB
run_bc $T/hs help sdkrules $MP
expect_grep "help shows min_disk 1 MiB as 1.0 MiB" $T/hs.out 'requires: 1\.0 MiB disk at option dir'
# min_disk at a path that does not exist yet: checked at its nearest existing parent
run_bc $T/dh run diskhog $MP dir=$T/not/made/yet --time 0.2 --warmup 0 -q -o $T/dh.json
expect_py "min_disk at a missing path is checked (skipped: 1 EiB is not there)" $T/dh.json \
	'd["cases"][0]["status"] == "skipped"'
expect_py "... the reason gives both figures and where it measured" $T/dh.json \
	'("needs 1.0 EiB free at '$T'/not/made/yet, it has " in d["cases"][0]["reason"]) and ("(measured at '$T', the nearest existing directory)" in d["cases"][0]["reason"])'

# module_path entries that do not exist are named
cat >$T/mp.conf <<CONF
module_path = [ "$T/no-such-dir", "$M" ];
time = 0.2; warmup = 0;
modules = ( { name = "sdkrules"; } );
CONF
run_bc $T/mp -c $T/mp.conf -q -o $T/mp.json
expect_rc "a missing module_path entry does not stop the run" 0
expect_grep "... it is named in a warning" $T/mp.err "warning: module_path entry \"$T/no-such-dir\" does not exist"
BENCHCORE_MODULE_PATH=$T/also-missing run_bc $T/mp2 -c $T/mp.conf -q -o $T/mp2.json
expect_grep "... an entry of BENCHCORE_MODULE_PATH too" $T/mp2.err "module_path entry \"$T/also-missing\" does not exist"

# a private server's failure carries its log's last lines, not a path removed at the end
TMPDIR=$T/tmp; mkdir -p $TMPDIR; export TMPDIR
run_bc $T/sv run svc $MP server=$TESTMODS/standin_server flags=--never-ready ready_timeout=1 --time 0.2 --warmup 0 -q -o $T/sv.json
expect_py "a server that never got ready: its log's lines are in the reason" $T/sv.json \
	'"last lines of its log:" in d["cases"][0]["reason"] and "not listening, on purpose" in d["cases"][0]["reason"]'
expect_py "... and not the path of the log, removed with the module directory" $T/sv.json '"standin.log" not in d["cases"][0]["reason"]'
check "... which is indeed gone after the run" test -z "$(ls $TMPDIR)"
unset TMPDIR

# 100000 set_info keys: kept to 256 with a warning, in the case's time
start=$(date +%s%N)
run_bc $T/if run sdkrules $MP mode=info_flood --time 0.2 --warmup 0 -q -o $T/if.json
ms=$(( ($(date +%s%N) - start) / 1000000 ))
expect_rc "100000 set_info keys: the case is ok" 0
check "... and does not take long (${ms} ms)" test $ms -lt 10000
expect_py "... 256 keys kept" $T/if.json 'len(d["cases"][0]["info"]) == 256 and d["cases"][0]["info"]["k255"] == "v"'
expect_py "... a warning names the first key dropped" $T/if.json \
	'any("set_info: more than 256 keys; \"k256\"" in w for w in d["cases"][0]["warnings"])'

# ---------------------------------------------------------------------------
# benchcore check-module: a module author's check
run_bc $T/ck check-module $M/checkable.so
expect_rc "check-module on a good module passes" 0
expect_grep "... says PASS for every case" $T/ck.out '^PASS: 10 of 10 cases passed'
expect_grep "... ran its defaults at 2 threads" $T/ck.out '^2 +defaults +2 PASS +ok'
expect_grep "... each INT bound" $T/ck.out '^[0-9]+ +words=4096 +1 PASS'
expect_grep "... each SIZE bound" $T/ck.out '^[0-9]+ +buf=1048576 +1 PASS'
expect_grep "... each DOUBLE bound" $T/ck.out '^[0-9]+ +factor=0\.5 +1 PASS'
expect_grep "... each ENUM choice" $T/ck.out '^[0-9]+ +kind=xor +1 PASS'
expect_grep "... each BOOL value" $T/ck.out '^[0-9]+ +touch=true +1 PASS'
expect_grep "... and says why it kept the path at its default" $T/ck.out 'kept at its default: a path \(requires.disk_path_option\)'
expect_grep "... per-phase times and peak memory per case" $T/ck.out '^1 +defaults +1 PASS +ok +[0-9.]+ +- +[0-9.]+ +0\.[0-9]+ +0\.[45][0-9]+ .* [0-9.]+ MiB$'
run_bc $T/ck2 check-module $M/checkable.so --defaults-only --time 0.2 --warmup 0 -o $T/ck2.json
expect_grep "--defaults-only: the defaults' cases alone" $T/ck2.out '^PASS: 2 of 2 cases passed'
expect_py "each case records its peak memory (1 MiB .. 1 GiB) and phase times" $T/ck2.json \
	'all(1<<20 < c["peak_rss_bytes"] < 1<<30 and abs(c["phase_s"]["measure"] - c["duration_s"]) < 0.05 for c in d["cases"])'
run_bc $T/cb check-module $M/checkbad.so --time 0.2 --warmup 0
expect_rc "check-module on a module that crashes at a bound fails" 1
expect_grep "... naming the case, its option and the phase" $T/cb.out '^  case [0-9]+ \(words=64, 1 thread\): .*in finish'
# a module failing most of its cases, in every way: each failure counted, strays fail, a crash keeps
# the seconds of the phases it went through, a hang in thread_init ends at check-module's own limit
t0=$(date +%s%N)
run_bc $T/cm check-module $M/checkmany.so --time 0.2 --warmup 0.1
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
expect_rc "check-module on a module failing 5 cases of 8" 1
expect_grep "... counts each failed case, not only the first" $T/cm.out '^FAIL: 3 of 8 cases passed'
n=$(cat $T/cm.out $T/cm.err | grep -c 'checkmany-warning-once')
check "... a case's warning is printed once, under its case (got $n)" test "$n" = 1
expect_grep "... there" $T/cm.out '^      warning: checkmany-warning-once$'
expect_grep "... fails the case that left 80 processes behind, naming the count" $T/cm.out \
	'^  case [0-9]+ \(mode=strays, 1 thread\): left 80 processes running'
expect_grep "... a crash in finish shows the seconds of init, thread_init, warmup and measure, and its peak memory" $T/cm.out \
	'^[0-9]+ +mode=crash_finish +1 FAIL +failed +[0-9.]+ +- +[0-9.]+ +0\.[0-9]+ +0\.[0-9]+ +[0-9.]+ +- +- +[0-9.]+ MiB$'
expect_grep "... a hang in thread_init ends at check-module's 5 s limit" $T/cm.out \
	'^  case [0-9]+ \(mode=hang_thread_init, 1 thread\): .*within 5 s'
check "... and the whole check takes seconds, not a minute (${ms} ms)" test $ms -lt 30000
run_bc $T/cs check-module $M/small.so
expect_rc "check-module on a module the loader refuses" 2
expect_grep "... says it is refused as a site would refuse it" $T/cs.out '^REFUSED: '
expect_grep "... with the loader's reason" $T/cs.err 'descriptor too small'
mkfifo $T/fifo.so
run_bc $T/cf check-module $T/fifo.so
expect_rc "check-module on a FIFO: refused at once, never opened" 2
run_bc $T/chh check-module --help
expect_grep "check-module --help lists its flags from the table" $T/chh.out '^      --defaults-only'

# #54 item 7: a system package's pkg-config file (debian/rules: PC_RELOCATABLE=0) names /usr as
# it is, so --cflags does not print -I/usr/share/pkgconfig/../../include
D2=$T/stage-sys
make -s -C "$ROOT" install "${mk[@]}" PREFIX=/usr LIBDIR=/usr/lib PKGCONFIGDIR=/usr/share/pkgconfig PC_RELOCATABLE=0 \
	DESTDIR=$D2 >$T/inst3.log 2>&1
check "PC_RELOCATABLE=0: prefix=/usr in the .pc file" grep -qx 'prefix=/usr' $D2/usr/share/pkgconfig/benchcore.pc
out=$(PKG_CONFIG_PATH=$D2/usr/share/pkgconfig pkg-config --cflags benchcore)
check "... pkg-config --cflags has no pkgconfig/../.. path (got \"$out\")" test -z "$(echo "$out" | grep -F 'pkgconfig/..')"
