#!/usr/bin/env bash
# Leftovers of a run killed outright (SIGKILL, as the OOM killer sends): its
# private server dies with it, but its directories stay. Each carries an owner
# record (pid, start time, boot id); the next run's start, or `benchcore
# clean`, removes those whose owner is gone and says so with their size. A
# live run's directory, one without a record, and one of another user's
# process that reuses the dead owner's pid, and one of another pid namespace
# are never mistaken for a dead run's. The start time recorded is the
# process's own (a reused pid is told apart, a forged start 0 is not "running"
# for ever); a record without a pid namespace cannot be judged and is kept,
# saying so; a bind mount inside a dead run's directory is never crossed.
# How each kind of record is judged (dead, live, a reused pid, start 0, pid
# 1, no pid namespace, another one's, no record, files and names that are
# not benchcore's, another user's) and a results file's temporaries are
# unit/test_leftover's, in a scratch TMPDIR; here what needs the machine: a
# real run SIGKILLed with its private server, a live run beside it, `clean`
# and a run's start, check-module's directory, a bind mount.
. "$(dirname "$0")/lib.sh"
export TMPDIR=$T/tmp; mkdir -p $TMPDIR	# benchcore's module and scratch directories go here
LIVE= MOUNTED=
trap '[ -n "$LIVE" ] && kill -INT $LIVE 2>/dev/null; wait 2>/dev/null; [ -n "$MOUNTED" ] && umount "$MOUNTED"; rm -rf "$T"' EXIT

if ! command -v redis-server >/dev/null; then
	pass "skipped: redis-server not installed (scripts/deps.sh installs it)"
	exit 0
fi
dirs() { ls -d $TMPDIR/$1 2>/dev/null; }
waitfor() {	# waits up to 15 s for CMD to succeed
	for _ in $(seq 150); do "$@" && return 0; sleep 0.1; done
	return 1
}
no_redis() { ! pgrep -f -- "redis-server.*$TMPDIR" >/dev/null; }
server_up() { pgrep -f -- "redis-server.*$TMPDIR" >/dev/null && [ -n "$(ls $TMPDIR/benchcore-redis.*/*.sock 2>/dev/null)" ]; }

# killed: starts a redis run with a private server, SIGKILLs benchcore mid-case
killed() {
	"$BC" run redis tests=SET --time 30 --warmup 0 -q -o $T/$1.json >$T/$1.out 2>$T/$1.err </dev/null &
	local pid=$!
	waitfor server_up || { fail "the private redis-server did not start: $(tail -3 $T/$1.err)"; }
	sleep 0.5
	kill -KILL $pid; wait $pid 2>/dev/null
	waitfor no_redis
}

# a live run first (its start would clean what is dead already)
"$BC" run cpu max_prime=100 --time 60 --warmup 0 -q -o $T/live.json >$T/live.out 2>$T/live.err </dev/null &
LIVE=$!
livedir() { LIVEDIR=$(dirs 'benchcore-cpu.*'); [ -n "$LIVEDIR" ] && [ -e "$LIVEDIR/.benchcore-owner" ]; }
waitfor livedir
check "the owner record's start time is the run's own (field 22 of /proc/PID/stat)" \
	test "$(sed -n 's/^start //p' "$LIVEDIR/.benchcore-owner")" = "$(sed 's/.*) //' /proc/$LIVE/stat | cut -d' ' -f20)"
killed k1
DEAD=$(dirs 'benchcore-redis.*')
check "SIGKILL: the private server died with benchcore" no_redis
check "SIGKILL: its module directory stays behind ($DEAD)" test -n "$DEAD" -a -d "$DEAD"
check "SIGKILL: with an owner record naming the dead pid" grep -q '^pid [0-9]' "$DEAD/.benchcore-owner"

run_bc $T/dry clean --dry-run
expect_rc "clean --dry-run" 0
expect_grep "dry run: names the dead run's directory with its size" $T/dry.err "would remove $DEAD \([0-9.]+ MiB\), left by benchcore pid [0-9]+, which is no longer running"
check "dry run: nothing removed" test -d "$DEAD"

run_bc $T/cl clean --verbose
expect_rc "clean" 0
expect_grep "clean: says what it removed, with its size" $T/cl.err "removed $DEAD \([0-9.]+ MiB\), left by benchcore pid [0-9]+, which is no longer running"
expect_grep "clean: the summary counts them (the killed run's module and scratch directories)" $T/cl.out "^removed 2 directories of dead runs \([0-9.]+ MiB\) in $TMPDIR; kept [1-9][0-9]* of running runs, 0 without an owner record, 0 that cannot be judged$"
check "clean: the dead run's directory is gone" test ! -e "$DEAD"
check "clean: the live run's directory is untouched" test -e "$LIVEDIR/.benchcore-owner"
expect_grep "clean --verbose: says why the live one stays" $T/cl.err "kept $LIVEDIR: its run \(pid $LIVE\) is still running"

# --- the next run's start does the same
killed k2
DEAD=$(dirs 'benchcore-redis.*')
check "second SIGKILL: its directory stays behind" test -n "$DEAD" -a -d "$DEAD"
run_bc $T/nx run cpu max_prime=100 --time 0.2 --warmup 0 -q -o $T/nx.json
expect_rc "the next run" 0
expect_grep "the next run removes it and says so (even with -q)" $T/nx.err "removed $DEAD \([0-9.]+ MiB\), left by benchcore pid [0-9]+, which is no longer running"
check "the next run: the dead run's directory is gone" test ! -e "$DEAD"
check "the next run: the live run's directory is untouched" test -e "$LIVEDIR/.benchcore-owner"
check "the live run is still running" kill -0 $LIVE

# --- a record that cannot be judged (no pid namespace): a run's start says
# so too, even with -q
boot=$(cat /proc/sys/kernel/random/boot_id) ns=$(readlink /proc/self/ns/pid)
mkdir $TMPDIR/benchcore.nOns01
printf 'benchcore-owner 1\npid %d\nstart 0\nboot %s\n' $$ "$boot" >$TMPDIR/benchcore.nOns01/.benchcore-owner
run_bc $T/fr run cpu max_prime=100 --time 0.1 --warmup 0 -q -o $T/fr.json
expect_grep "a run's start says what it cannot judge (even with -q)" $T/fr.err "kept $TMPDIR/benchcore.nOns01: cannot judge"
check "  and keeps it" test -e $TMPDIR/benchcore.nOns01/.benchcore-owner
rm -rf $TMPDIR/benchcore.nOns01

# --- a bind mount (same file system, same st_dev) inside a dead run's directory
mkdir -p $T/precious/deep $TMPDIR/benchcore.mOunt1/sub/in
echo keep >$T/precious/file; echo keep >$T/precious/deep/file2
echo mine >$TMPDIR/benchcore.mOunt1/sub/own
printf 'benchcore-owner 1\npid 999999\nstart 5\nboot %s\npidns %s\n' "$boot" "$ns" >$TMPDIR/benchcore.mOunt1/.benchcore-owner
if mount --bind $T/precious $TMPDIR/benchcore.mOunt1/sub/in 2>$T/mnt.err; then
	MOUNTED=$TMPDIR/benchcore.mOunt1/sub/in
	run_bc $T/bm clean
	check "bind mount: the mounted directory's files are intact" \
		test "$(cat $T/precious/file $T/precious/deep/file2)" = "keep
keep"
	check "bind mount: the dead run's own file beside it is removed" test ! -e $TMPDIR/benchcore.mOunt1/sub/own
	expect_grep "bind mount: clean names the mount point it did not cross" $T/bm.err \
		"could not remove all of $TMPDIR/benchcore.mOunt1 .*1 mount point inside \($TMPDIR/benchcore.mOunt1/sub/in\) is never crossed"
	umount "$MOUNTED" && MOUNTED=
	run_bc $T/bm2 clean
	check "bind mount: unmounted, the directory goes" test ! -e $TMPDIR/benchcore.mOunt1
	check "  and the once mounted directory is still intact" test -e $T/precious/deep/file2
else
	echo "SKIP: mount --bind failed ($(cat $T/mnt.err)): the bind mount part is left out"
	rm -rf $TMPDIR/benchcore.mOunt1
fi

# --- check-module's own directory carries a record too
"$BC" check-module "$BUILD/modules/cpu.so" --time 1 --warmup 0 >$T/ck.out 2>$T/ck.err </dev/null &
CK=$!
ckdir() { CKDIR=$(dirs 'benchcore-check.*'); [ -n "$CKDIR" ] && [ -e "$CKDIR/check.json" ]; }
waitfor ckdir
kill -KILL $CK; wait $CK 2>/dev/null
check "check-module killed outright: its directory has an owner record" test -e "$CKDIR/.benchcore-owner"
run_bc $T/ckc clean
check "  and clean removes it" test ! -e "$CKDIR"
expect_grep "  saying so" $T/ckc.err "removed $CKDIR \([0-9.]+ MiB\)"

run_bc $T/h clean --help
expect_rc "clean --help" 0
expect_grep "clean --help lists its flags" $T/h.out '--dry-run'
run_bc $T/bad clean --bogus
expect_rc "clean with an unknown flag" 2

kill -INT $LIVE; wait $LIVE; RC=$?; LIVE=
expect_rc "the live run, interrupted, ends as usual" 130
check "the live run removed its own directory" test ! -e "$LIVEDIR"
check "nothing left in TMPDIR" test -z "$(ls -A $TMPDIR)"
