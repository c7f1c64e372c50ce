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
check "pkg-config knows moduledir" test "$(pkg-config --variable=moduledir benchcore)" = "$P/lib/benchcore/modules"
check "module.h compiles on its own (C11, -Wall -Wextra -Werror)" bash -c \
	"echo '#include <benchcore/module.h>' | cc -std=c11 -Wall -Wextra -Werror -pedantic $(pkg-config --cflags benchcore) -fsyntax-only -x c -"
cp -r "$ROOT/sdk/examples/hello" $T/hello
check "hello's Makefile is three lines" test "$(grep -c . $T/hello/Makefile)" -eq 3
make -s -C $T/hello >$T/hello.log 2>&1
check "hello builds out of tree against the installed SDK" test -f $T/hello/hello.so
check "hello exports exactly one symbol" test "$(nm -D --defined-only $T/hello/hello.so | grep -c ' T ')" -eq 1
make -s -C $T/hello install >>$T/hello.log 2>&1
check "hello installs into moduledir" test -f $P/lib/benchcore/modules/hello.so
run_bc $T/l list
"$P/bin/benchcore" list >$T/l.out 2>&1
expect_grep "installed benchcore lists hello with ABI 1.3" $T/l.out '^hello +1\.0 +1\.3 '
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
rm -f $P/lib/benchcore/modules/hello.so
make -s -C "$ROOT" uninstall "${mk[@]}" PREFIX=$P >>$T/inst.log 2>&1
check "make uninstall removes what install put there" test ! -e $P/bin/benchcore -a ! -e $P/include/benchcore/module.h -a ! -e $P/lib/benchcore/modules/cpu.so -a ! -e $P/lib/pkgconfig/benchcore.pc
