#!/usr/bin/env bash
# A run's scratch directories against another local user (issue 48, 1): the shell test
# runs scripts from its case's private directory, as root here. With $TMPDIR writable by
# others and not sticky, user nobody could rename that directory and put a look-alike
# with their own script.sh in its place: the run must refuse such a $TMPDIR (and a
# group-writable one, one of another user, one through another user's symlink) before
# anything runs, exit 2 naming it; a sticky one (/tmp's mode) is fine, and the renaming
# loop as nobody then runs nothing of theirs. The helper itself runs the scripts through
# the directory's descriptor: a directory swapped under its path is not the one that runs,
# and a directory that is not ours and private is refused.
. "$(dirname "$0")/lib.sh"
command -v setpriv >/dev/null && [ -x /usr/bin/python3 ] || { pass "skipped: no setpriv or /usr/bin/python3 (the attacker, as nobody)"; exit 0; }
[ "$(id -u)" = 0 ] || { pass "skipped: needs root (the attacker is user nobody)"; exit 0; }
HELPER=$BUILD/modules/sys-helper
[ -x "$HELPER" ] || HELPER=$(dirname "$BC")/modules/sys-helper
as_nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$@"; }
chmod 755 "$T"
MARK=$T/mark; mkdir -m 1777 $MARK	# where the attacker's scripts say they ran (and as whom)

# attack DIR: as nobody, forever: each benchcore*.XXXXXX directory in DIR, once it is 1 s
# old (its scripts written by then), renamed, and a look-alike made beforehand renamed into
# its place (two renames: the gap is microseconds) whose script.sh records its uid and exits
# 0. ATTACK: its pid (setpriv execs python: the pid the trap kills is the loop itself).
attack() {
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups /usr/bin/python3 -S -c '
import glob, os, sys, time
d, mark = sys.argv[1], sys.argv[2]
seen, n = {}, 0
end = time.monotonic() + 300	# bounded: it stops by itself, even if the test was killed
while os.path.isdir(d) and time.monotonic() < end:
    now = time.monotonic()
    for x in glob.glob(d + "/benchcore.*"):
        if x.endswith(".moved") or x.endswith(".prep") or seen.get(x) == "done":
            continue
        if x not in seen:
            seen[x] = now
            continue
        if now - seen[x] < 1.0:
            continue
        n += 1
        prep = "%s/%d.prep" % (d, n)
        os.mkdir(prep)
        with open(prep + "/script.sh", "w") as f:
            f.write("id -u >>%s/ran.$$; exit 0\n" % mark)
        for name in ("copy.sh", "input.txt"):
            open(prep + "/" + name, "w").close()
        try:
            os.rename(x, "%s.%d.moved" % (x, n))
            os.rename(prep, x)
            seen[x] = "done"
        except OSError:
            os.system("rm -rf " + prep)
    time.sleep(0.005)
' "$1" "$MARK" >/dev/null 2>&1 &
	ATTACK=$!
}
stop_attack() { kill $ATTACK 2>/dev/null; wait $ATTACK 2>/dev/null; }
trap 'stop_attack; rm -rf "$T"' EXIT
ran_as_root() { cat $MARK/ran.* 2>/dev/null | grep -c '^0$'; }

# --- 1. a world-writable, not sticky TMPDIR (the issue's reproduction)
W=$T/wwt; mkdir -m 0777 $W
attack $W
TMPDIR=$W run_bc $T/ww run sys test=shell --time 4 --warmup 0 -q -o $T/ww.json
stop_attack
expect_rc "a world-writable TMPDIR without the sticky bit: the run refused" 2
expect_grep "... naming it and why" $T/ww.err "refusing to use \\\$TMPDIR \"$W\": it is writable by others"
check "... before anything ran (no results file)" test ! -e $T/ww.json
check "... and no script of another user ran as root ($(ran_as_root) did)" test "$(ran_as_root)" = 0
check "... no directory of the run left there" test -z "$(find $W -maxdepth 1 -name 'benchcore.*' ! -name '*.moved' -user root)"
rm -rf $W $MARK/ran.*

# --- 2. group-writable, another user's, another user's symlink on the way
G=$T/gwt; mkdir -m 0770 $G; chgrp nogroup $G
TMPDIR=$G run_bc $T/gw run sys test=shell --time 0.3 --warmup 0 -q -o $T/gw.json
expect_rc "a group-writable TMPDIR: refused" 2
expect_grep "... saying so" $T/gw.err "writable by its group"
O=$T/owned; mkdir -m 0755 $O; chown nobody $O
TMPDIR=$O run_bc $T/ow run sys test=shell --time 0.3 --warmup 0 -q -o $T/ow.json
expect_rc "a TMPDIR of another user: refused" 2
expect_grep "... saying so" $T/ow.err "owned by another user \(uid 65534\)"
S=$T/sticky; mkdir -m 1777 $S; mkdir -m 0700 $T/mine
as_nobody ln -s $T/mine $S/link
TMPDIR=$S/link run_bc $T/sl run sys test=shell --time 0.3 --warmup 0 -q -o $T/sl.json
expect_rc "a TMPDIR through a symlink of another user: refused" 2
expect_grep "... naming the link" $T/sl.err "symbolic link \"$S/link\" on its way is owned by another user"
TMPDIR=$G run_bc $T/cm check-module "$(dirname "$HELPER")/sys.so"
check "check-module refuses that TMPDIR too (exit $RC)" test "$RC" -ne 0
expect_grep "... saying why" $T/cm.err "refusing to use \\\$TMPDIR"

# --- 3. a sticky world-writable TMPDIR (like /tmp): the run goes, nobody's renames fail
K=$T/kt; mkdir -m 1777 $K
attack $K
TMPDIR=$K run_bc $T/k run sys test=shell --time 2 --warmup 0 -q -o $T/k.json
stop_attack
expect_rc "a sticky TMPDIR: the shell test runs" 0
expect_py "... ok, its loops counted" $T/k.json "d['cases'][0]['status'] == 'ok' and d['cases'][0]['ops']['loop']['count'] > 0"
check "... and not one script of another user ran ($(ls $MARK | wc -l) did)" test -z "$(ls $MARK)"
check "... nothing of the run left" test -z "$(find $K -mindepth 1 -maxdepth 1 -user root)"
rm -rf $K/* 2>/dev/null

# --- 4. the helper runs the scripts through its directory's descriptor
if [ -x "$HELPER" ]; then
	D=$T/priv; mkdir -m 0700 $D
	printf 'echo ours >>%s/ours\n' "$T" >$D/script.sh
	# the directory opened as descriptor 5, then swapped under its path for another's
	exec 5<$D
	mv $D $T/priv.moved && mkdir -m 0700 $D && printf 'echo theirs >>%s/theirs\n' "$T" >$D/script.sh
	echo "shell 2 1" | "$HELPER" serve ./script.sh >$T/h1.out 2>&1
	exec 5<&-
	expect_grep "the helper: the loops ran" $T/h1.out "^ok [0-9]+$"
	check "... from the directory it was given (by descriptor), twice" test "$(cat $T/ours 2>/dev/null | wc -l)" = 2
	check "... never from the one put in its place" test ! -e $T/theirs
	mkdir -m 0777 $T/open; cp $D/script.sh $T/open/
	echo "shell 1 1" | "$HELPER" serve ./script.sh >$T/h2.out 2>&1 5<$T/open
	expect_grep "... a directory others may write: refused" $T/h2.out "^err the script's directory .* is not a private directory"
	check "... nothing run from it" test ! -e $T/theirs
	mkdir -m 0700 $T/nob; chown nobody $T/nob; cp $D/script.sh $T/nob/
	echo "shell 1 1" | "$HELPER" serve ./script.sh >$T/h3.out 2>&1 5<$T/nob
	expect_grep "... a directory of another user: refused" $T/h3.out "^err the script's directory"
	check "... nothing run from it" test ! -e $T/theirs
else
	fail "no sys-helper at $HELPER"
fi
