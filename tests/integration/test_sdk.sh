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
echo '#include <benchcore/hugepage.h>' | cc -std=c11 $(pkg-config --cflags benchcore) -fsyntax-only -x c - >$T/hp.err 2>&1
expect_grep "... and says what it needs under strict ISO C" $T/hp.err 'hugepage.h needs MAP_ANONYMOUS: compile with -D_GNU_SOURCE'
cp -r "$ROOT/sdk/examples/hello" $T/hello
check "hello's Makefile is three lines" test "$(grep -c . $T/hello/Makefile)" -eq 3
make -s -C $T/hello >$T/hello.log 2>&1
check "hello builds out of tree against the installed SDK" test -f $T/hello/hello.so
check "hello exports exactly one symbol" test "$(nm -D --defined-only $T/hello/hello.so | grep -c ' T ')" -eq 1
make -s -C $T/hello install >>$T/hello.log 2>&1
check "hello installs into moduledir" test -f $P/lib/benchcore/modules/hello.so
run_bc $T/l list
"$P/bin/benchcore" list >$T/l.out 2>&1
expect_grep "installed benchcore lists hello with ABI 1.3 (the SDK's minor)" $T/l.out '^hello +1\.0 +1\.3 '
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
expect_grep "the staged benchcore lists the module built against it" $T/l2.out '^hello +1\.0 +1\.3 '
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
