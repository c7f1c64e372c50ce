#!/usr/bin/env bash
# Man pages, bash completion, make install/uninstall, and the Debian packages.
#  - benchcore(1) and benchcore.conf(5), generated from this build's tables
#    (scripts/gen-man.py), pass man --warnings and groff -ww, and hold every
#    flag of every --help, every setting and every module's options;
#  - the completion, sourced into bash, completes subcommands, flags, flag
#    values, module names and a module's options;
#  - make install DESTDIR= installs them beside the program, uninstall removes all;
#  - the .deb (as root; BC_TEST_DEB=0 leaves it out; ~30 s on a quiet 2-core
#    machine): dpkg-buildpackage in a copy of the tree, lintian without
#    errors, apt install, benchcore list / man / completion from the packages,
#    an out-of-tree module against benchcore-dev, then dpkg --purge: the
#    machine is left as it was (refused when benchcore is installed already).
. "$(dirname "$0")/lib.sh"
REPO=$(cd "$(dirname "$0")/../.." && pwd)
GEN=$REPO/scripts/gen-man.py

# --- man pages
"$PY" "$GEN" man1 "$BC" /usr/lib/benchcore/modules > "$T/benchcore.1"; r1=$?
"$PY" "$GEN" man5 "$BC" > "$T/benchcore.conf.5"; r5=$?
check "both man pages are generated" test $r1 = 0 -a $r5 = 0 -a -s "$T/benchcore.1" -a -s "$T/benchcore.conf.5"
for page in benchcore.1 benchcore.conf.5; do
	MANWIDTH=80 man --warnings -l "$T/$page" 2>"$T/$page.man" >"$T/$page.txt"
	check "man -l $page: no warnings" test ! -s "$T/$page.man"
	groff -ww -man -z "$T/$page" 2>"$T/$page.groff"
	check "groff -ww -man $page: no warnings" test ! -s "$T/$page.groff"
	[ -s "$T/$page.groff" ] && head -5 "$T/$page.groff" "$T/$page.man"
done
# every flag any --help prints is in benchcore(1), every key in benchcore.conf(5)
# (man renders hyphens as U+2010 when it hyphenates: read it unhyphenated)
MANWIDTH=1000 man -l "$T/benchcore.1" 2>/dev/null | sed 's/‐/-/g' > "$T/man1.wide"
missing=""
for cmd in "" $("$BC" --help | sed -n '/^usage:/,/^$/p' | grep -oE '^ +benchcore [a-z][a-z-]*' | awk '$2 != "run" && !seen[$2]++ { print $2 }'); do
	for f in $("$BC" $cmd --help | grep -oE '^ {2,6}(-[a-z], )?--[a-z][a-z0-9-]*' | grep -oE -- '--[a-z0-9-]+'); do
		grep -q -- "$f" "$T/man1.wide" || missing="$missing ${cmd:-top}:$f"
	done
done
check "benchcore(1) has every flag of every --help (missing:${missing:- none})" test -z "$missing"
tr -s '\n ' '  ' < "$T/man1.wide" > "$T/man1.flat"
expect_grep "benchcore(1) documents --start-at with its forms" "$T/man1.flat" "--start-at TIME wait until the wall-clock TIME .*ISO 8601"
expect_grep "benchcore(1) has the exit status" "$T/man1.wide" "130 interrupted"
MANWIDTH=1000 man -l "$T/benchcore.conf.5" 2>/dev/null | sed 's/‐/-/g' > "$T/man5.wide"
missing=""
for k in $("$BC" help settings --markdown | grep -oE '^\| `[a-z_]+`' | tr -d '|` '); do
	grep -qE "^ +$k \(" "$T/man5.wide" || missing="$missing $k"
done
for m in $("$BC" list | awk 'NR > 1 && /^$/ { exit } NR > 1 && /^[a-z0-9_]+ / { print $1 }'); do
	grep -qE "^   $m$" "$T/man5.wide" || missing="$missing module:$m"
	for k in $("$BC" help "$m" --markdown | grep -oE '^\| `[a-z_]+`' | tr -d '|` '); do
		grep -qE "^ +$k \(" "$T/man5.wide" || missing="$missing $m.$k"
	done
done
check "benchcore.conf(5) has every setting, module and module option (missing:${missing:- none})" test -z "$missing"
expect_grep "benchcore.conf(5) gives a setting's type, default and flag" "$T/man5.wide" \
	"^ +repeat_order \(rounds, back_to_back; flag --repeat-order ORDER; default rounds\)"

# --- bash completion
"$PY" "$GEN" completion "$BC" > "$T/benchcore.bash"
cat > "$T/comp.sh" <<'EOF'
. "$1"
bc=$2
c() { COMP_WORDS=("$bc" "$@"); COMP_CWORD=$#; COMPREPLY=(); _benchcore; echo "${COMPREPLY[*]}"; }
echo "sub: $(c '')"
echo "r: $(c r)"
echo "run: $(c run '')"
echo "key: $(c run cpu max)"
echo "runflag: $(c run cpu --thr)"
echo "after-value: $(c run --threads 2 c)"
echo "only: $(c -c x.conf --only cpu,r)"
echo "start: $(c -c x.conf --sta)"
echo "choice: $(c run cpu --repeat-order '')"
echo "test: $(c compare --test '')"
echo "help: $(c help '')"
echo "serve: $(c serve --bi)"
echo "top: $(c --vers)"
cd "$3" && echo "json: $(c compare '')"
EOF
mkdir -p "$T/jsons/sub" && touch "$T/jsons/a.json" "$T/jsons/b.json" "$T/jsons/notes.txt"
bash "$T/comp.sh" "$T/benchcore.bash" "$BC" "$T/jsons" > "$T/comp.out" 2>&1
mods=$("$BC" list | awk 'NR > 1 && /^$/ { exit } NR > 1 && /^[a-z0-9_]+ / { print $1 }' | tr '\n' ' ' | sed 's/ $//')
subs=$("$BC" --help | sed -n '/^usage:/,/^$/p' | grep -oE '^ +benchcore [a-z][a-z-]*' | awk '!seen[$2]++ { print $2 }' | tr '\n' ' ' | sed 's/ $//')
expect_grep "completion: the subcommands of --help ($subs)" "$T/comp.out" "^sub: $subs$"
check "  (run, list, compare, serve among them)" sh -c "echo '$subs' | grep -q 'run list .*compare.*serve'"
expect_grep "completion: a prefix of subcommands" "$T/comp.out" "^r: run report restore$"
expect_grep "completion: run MODULE from benchcore list" "$T/comp.out" "^run: $mods$"
expect_grep "completion: a module's options as key=" "$T/comp.out" "^key: max_prime=$"
expect_grep "completion: run's flags from its table" "$T/comp.out" "^runflag: --threads --thread-init-timeout$"
expect_grep "completion: a flag's value is not taken for the module" "$T/comp.out" "^after-value: cpu$"
expect_grep "completion: --only's comma list of modules" "$T/comp.out" "^only: cpu,redis cpu,rsa$"
expect_grep "completion: -c's flags (--start-at)" "$T/comp.out" "^start: --start-at$"
expect_grep "completion: a setting's choices" "$T/comp.out" "^choice: rounds back_to_back$"
expect_grep "completion: a metavar's choices" "$T/comp.out" "^test: welch mwu$"
expect_grep "completion: help MODULE or settings" "$T/comp.out" "^help: settings $mods$"
expect_grep "completion: serve's flags" "$T/comp.out" "^serve: --bind$"
expect_grep "completion: --version at the top" "$T/comp.out" "^top: --version$"
expect_grep "completion: compare takes .json files and folders" "$T/comp.out" "^json: (a.json b.json sub|sub a.json b.json)$"

# --- make install / uninstall (DESTDIR)
make -C "$REPO" --no-print-directory -s BUILD="$BUILD" PREFIX=/usr DESTDIR="$T/inst" install >"$T/inst.log" 2>&1
check "make install DESTDIR=... PREFIX=/usr" test $? = 0
for f in usr/bin/benchcore usr/share/man/man1/benchcore.1 usr/share/man/man5/benchcore.conf.5 \
	 usr/share/bash-completion/completions/benchcore usr/include/benchcore/module.h usr/lib/benchcore/modules/cpu.so; do
	check "installed: /$f" test -s "$T/inst/$f"
done
check "the installed page is this build's" cmp -s "$T/inst/usr/share/man/man5/benchcore.conf.5" "$T/benchcore.conf.5"
make -C "$REPO" --no-print-directory -s BUILD="$BUILD" PREFIX=/usr DESTDIR="$T/inst" uninstall >>"$T/inst.log" 2>&1
left=$(find "$T/inst" -type f | sed "s|$T/inst||")
check "make uninstall removes every installed file (left: ${left:-none})" test -z "$left"

# --- the playbook's source install (benchcore_install=source) on one local host
ansible_env=(env -u SAN -u OPT -u CFLAGS ANSIBLE_HOME="$T/ahome" ANSIBLE_LOCAL_TEMP="$T/ahome/tmp" ANSIBLE_REMOTE_TEMP="$T/rtmp"
	     ANSIBLE_ASYNC_DIR="$T/ahome/async" ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0)
version=$("$BC" --version | awk '{print $2}')
printf '[benchcore_hosts]\nsolo ansible_connection=local ansible_python_interpreter=/usr/bin/python3\n' > "$T/inv.ini"
printf 'modules = ( { name = "cpu"; time = 0.2; warmup = 0; } );\n' > "$T/solo.conf.j2"
if command -v ansible-playbook >/dev/null; then
	mkdir -p "$T/ahome" "$T/rtmp" "$T/srcfleet" "$T/srcwork"
	tar -C "$REPO" --exclude=./build --exclude='./build-*' --exclude=./.git --transform 's|^\.|benchcore|' \
	    -czf "$T/src.tar.gz" .
	"${ansible_env[@]}" ansible-playbook -i "$T/inv.ini" "$REPO/contrib/ansible/fleet.yml" \
	    -e "{\"benchcore_install\": \"source\", \"benchcore_src_tarball\": \"$T/src.tar.gz\",
	         \"benchcore_prefix\": \"$T/srcprefix\", \"benchcore_version\": \"$version\",
	         \"benchcore_workdir_parent\": \"$T/srcwork\", \"benchcore_results\": \"$T/srcfleet\",
	         \"benchcore_conf\": \"$T/solo.conf.j2\", \"benchcore_controller_bin\": \"$BC\",
	         \"benchcore_start_delay\": 3, \"benchcore_poll\": 1}" > "$T/play-src.log" 2>&1 </dev/null
	RC=$?
	check "the playbook builds benchcore from source on the host and runs it (exit $RC)" test "$RC" = 0
	[ "$RC" = 0 ] || grep -E "fatal|FAILED" "$T/play-src.log" | cut -c1-400 | head -5
	check "  installed under benchcore_prefix, man pages too" \
		test -x "$T/srcprefix/bin/benchcore" -a -s "$T/srcprefix/share/man/man1/benchcore.1"
	expect_py "  its run delivered" "$T/srcfleet/solo.json" "d['cases'][0]['status'] == 'ok'"
fi

# --- the Debian packages
if [ "${BC_TEST_DEB:-1}" = 0 ] || [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: the Debian package build and install (BC_TEST_DEB=0, or not root): it installs packages on this machine"
	exit 0
fi
for tool in dpkg-buildpackage dh lintian apt-get; do
	command -v "$tool" >/dev/null || { fail "the package test needs $tool (scripts/deps.sh installs it)"; exit 0; }
done
ours="benchcore benchcore-dev benchcore-oltp benchcore-redis"
for p in $ours; do
	if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		echo "SKIP: $p is installed on this machine: the package test would replace it"
		exit 0
	fi
done
dpkg-query -W -f='${Package}\n' | sort > "$T/pkgs.before"
cleanup_pkgs() {
	dpkg --purge $ours >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup_pkgs EXIT

# a copy of the tree: dpkg-buildpackage's clean step would remove the build dirs
mkdir -p "$T/pkg/src"
tar -C "$REPO" --exclude=./build --exclude='./build-*' --exclude=./.git -cf - . | tar -C "$T/pkg/src" -xf -
start=$(date +%s)
(cd "$T/pkg/src" && dpkg-buildpackage -us -uc -b) > "$T/deb.log" 2>&1
check "dpkg-buildpackage -us -uc -b builds ($(( $(date +%s) - start )) s)" test $? = 0
[ -s "$T/pkg/benchcore_"*_*.deb ] 2>/dev/null || tail -30 "$T/deb.log"
version=$("$BC" --version | awk '{print $2}')
arch=$(dpkg --print-architecture)
for p in benchcore benchcore-oltp benchcore-redis; do
	check "package ${p}_${version}_$arch.deb" test -s "$T/pkg/${p}_${version}_$arch.deb"
done
check "package benchcore-dev_${version}_all.deb" test -s "$T/pkg/benchcore-dev_${version}_all.deb"
deb=$T/pkg/benchcore_${version}_$arch.deb
dpkg-deb -f "$deb" Depends > "$T/depends"
expect_grep "benchcore's dependencies are declared (shlibs: libjansson, libconfig, libssl)" "$T/depends" \
	"libconfig.*libjansson|libjansson.*libconfig"
dpkg-deb -f "$T/pkg/benchcore-oltp_${version}_$arch.deb" Depends > "$T/depends-oltp"
expect_grep "benchcore-oltp needs the same benchcore and libmariadb" "$T/depends-oltp" "benchcore \(= $version\).*libmariadb"
dpkg-deb -c "$deb" > "$T/contents"
expect_no_grep "the small-VM package leaves out oltp and redis" "$T/contents" "(oltp|redis)\.so"
lintian --fail-on error "$T/pkg/benchcore_${version}_$arch.changes" > "$T/lintian.out" 2>&1
check "lintian: no errors" test $? = 0
grep '^E:' "$T/lintian.out" | head -5

apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=120 "$deb" \
	"$T/pkg/benchcore-dev_${version}_all.deb" > "$T/apt.log" 2>&1
check "apt install ./benchcore_*.deb ./benchcore-dev_*.deb" test $? = 0
/usr/bin/benchcore list > "$T/list.out" 2>&1
for m in cpu mem io rsa net; do expect_grep "the installed benchcore finds $m" "$T/list.out" "^$m +.* /usr/lib/benchcore/modules/$m.so"; done
expect_no_grep "and not oltp (its own package)" "$T/list.out" "^oltp "
check "man benchcore finds the installed page" test "$(man -w benchcore 2>/dev/null)" = /usr/share/man/man1/benchcore.1.gz
MANWIDTH=80 man benchcore 2>/dev/null | sed 's/‐/-/g' > "$T/man.out"
expect_grep "man benchcore shows --start-at" "$T/man.out" "--start-at TIME"
check "man 5 benchcore.conf finds its page" test "$(man -w 5 benchcore.conf 2>/dev/null)" = /usr/share/man/man5/benchcore.conf.5.gz
out=$(bash -c '. /usr/share/bash-completion/completions/benchcore; COMP_WORDS=(benchcore run c); COMP_CWORD=2; _benchcore; echo "${COMPREPLY[*]}"')
check "the installed completion completes modules of the installed benchcore ($out)" test "$out" = cpu
apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=120 "$T/pkg/benchcore-oltp_${version}_$arch.deb" \
	"$T/pkg/benchcore-redis_${version}_$arch.deb" >> "$T/apt.log" 2>&1
/usr/bin/benchcore list > "$T/list2.out" 2>&1
expect_grep "with benchcore-oltp, oltp is found" "$T/list2.out" "^oltp +.*/usr/lib/benchcore/modules/oltp.so"
expect_grep "with benchcore-redis, redis is found" "$T/list2.out" "^redis +.*/usr/lib/benchcore/modules/redis.so"

# a third party's module against the installed SDK (benchcore-dev)
cp -r /usr/share/benchcore/examples/hello "$T/hello" && chmod -R go-w "$T/hello"
make -C "$T/hello" > "$T/hello.log" 2>&1
check "sdk/examples/hello builds against the installed benchcore-dev" test -s "$T/hello/hello.so"
/usr/bin/benchcore list --module-path "$T/hello" > "$T/list3.out" 2>&1
expect_grep "the installed benchcore loads it" "$T/list3.out" "^hello +.*$T/hello/hello.so"
(cd "$T" && /usr/bin/benchcore run hello --module-path "$T/hello" --time 0.2 --warmup 0 -q -o hello.json) > "$T/hello-run.log" 2>&1
expect_py "and runs it" "$T/hello.json" "d['cases'] and all(c['status'] == 'ok' for c in d['cases'])"

# #54 item 7: benchcore-dev carries the guide, its man page, and examples that build with make
check "benchcore-dev carries the SDK guide" test -s /usr/share/doc/benchcore-dev/sdk.md.gz
check "... and benchcore does not" test ! -e /usr/share/doc/benchcore/sdk.md.gz
check "man 7 benchcore-module finds the installed page" test "$(man -w 7 benchcore-module 2>/dev/null)" = /usr/share/man/man7/benchcore-module.7.gz
MANWIDTH=80 man benchcore 2>/dev/null | sed 's/‐/-/g' > "$T/man1b.out"
expect_grep "man benchcore's SEE ALSO names it" "$T/man1b.out" 'benchcore-module\(7\)'
out=$(pkg-config --cflags benchcore)
check "pkg-config --cflags benchcore names no pkgconfig/../.. path (got \"$out\")" test -z "$(echo "$out" | grep -F 'pkgconfig/..')"
for e in rsa evloop sqlite; do
	cp -r /usr/share/benchcore/examples/$e "$T/ex-$e" && chmod -R go-w "$T/ex-$e"
	make -C "$T/ex-$e" > "$T/ex-$e.log" 2>&1
	check "the installed example $e builds with make against benchcore-dev" test -s "$T/ex-$e/$e.so"
done
make -C "$T/ex-sqlite" check BENCH_CHECK_FLAGS="--defaults-only --time 0.2 --warmup 0" > "$T/ex-sqc.log" 2>&1
check "make check of the installed sqlite example passes against the package" test $? = 0
expect_grep "... its regression test included" "$T/ex-sqc.log" '^PASS: 6 invariants x 4 cases'

dpkg --purge $ours > "$T/purge.log" 2>&1
check "dpkg --purge removes the packages" sh -c "! dpkg-query -W -f='\${Status}\n' $ours 2>/dev/null | grep -q 'ok installed'"
check "nothing of them is left in /usr" test ! -e /usr/bin/benchcore -a ! -e /usr/lib/benchcore -a ! -e /usr/share/benchcore

# the playbook's default install (benchcore_install=deb) on one local host
if command -v ansible-playbook >/dev/null; then
	mkdir -p "$T/ahome" "$T/fleet" "$T/rtmp" "$T/work"
	"${ansible_env[@]}" ansible-playbook -i "$T/inv.ini" "$REPO/contrib/ansible/fleet.yml" \
	    -e "{\"benchcore_debs\": [\"$deb\"], \"benchcore_version\": \"$version\", \"benchcore_workdir_parent\": \"$T/work\",
	         \"benchcore_results\": \"$T/fleet\", \"benchcore_conf\": \"$T/solo.conf.j2\",
	         \"benchcore_controller_bin\": \"$BC\", \"benchcore_start_delay\": 3, \"benchcore_poll\": 1}" \
	    > "$T/play.log" 2>&1 </dev/null
	RC=$?
	check "the playbook installs the .deb (benchcore_install=deb) and runs (exit $RC)" test "$RC" = 0
	[ "$RC" = 0 ] || tail -20 "$T/play.log"
	check "  the package is installed" sh -c "dpkg-query -W -f='\${Status}' benchcore | grep -q 'ok installed'"
	expect_py "  the run used the packaged benchcore" "$T/fleet/solo.json" \
		"d['cases'][0]['status'] == 'ok' and d['benchcore_version'] == '$version'"
	check "  the fleet report and an empty failure list" test -s "$T/fleet/fleet.html" -a ! -s "$T/fleet/FAILED.txt"
	dpkg --purge $ours > "$T/purge2.log" 2>&1
	check "  purged again" sh -c "! dpkg-query -W -f='\${Status}\n' benchcore 2>/dev/null | grep -q 'ok installed'"
fi
dpkg-query -W -f='${Package}\n' | sort > "$T/pkgs.after"
check "no other package was added or removed" cmp -s "$T/pkgs.before" "$T/pkgs.after"
