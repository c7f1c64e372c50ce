#!/usr/bin/env bash
# The results archive against another local user and a careless operator (issue 48, 2 to 6):
# a directory its group may write is refused, and so is a -wal or -shm beside the archive
# that is not the archive owner's own (a planted -wal holding a forged run is never read,
# never checkpointed in); `db export -o`, `history --html` and `report -o` never write
# over the archive they read; a symlinked parent directory (HOME, XDG_DATA_HOME through
# a link) works while a link of another user on the way, or the file itself a link, is
# refused; against a private PostgreSQL, no password in any message, for every form of
# connection string (a URL, POSTGRESQL:// in capitals, a raw "/" in the password, libpq's
# own messages repeating a token, key=value strings) and a writer stopped (SIGSTOP) while
# it holds the writers' lock makes the others wait a bounded time, saying for whom, then
# give up (a run's store exits 3 keeping its results file).
. "$(dirname "$0")/lib.sh"
[ -n "${T:-}" ] && [ -d "$T" ] || { echo "FAIL: lib.sh did not make a temp dir"; exit 1; }
[ "$(id -u)" = 0 ] || { pass "skipped: needs root (the other user is nobody)"; exit 0; }
export TMPDIR=$T/tmp; mkdir -p "$TMPDIR"
unset BENCHCORE_DB
export XDG_DATA_HOME=$T/xdg HOME=$T/home
mkdir -p "$HOME"
as_nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$@"; }
F1=tests/fixtures/cmp-a.json F2=tests/fixtures/cmp-slow.json F3=tests/fixtures/run-0.1.json
runs_in() { "$BC" db list --db "$1" 2>/dev/null | tail -n +2 | wc -l; }

# === 2. a group-writable directory; a -wal that is not the archive's own
G=$T/g; mkdir -m 2770 $G; chgrp nogroup $G
run_bc $T/g db add --db $G/r.db $F1
expect_rc "an archive in a directory its group may write (2770): refused" 2
expect_grep "... saying why" $T/g.err "refusing to use directory \"$G\": it is writable by its group"
check "... nothing made there" test -z "$(ls -A $G)"
P=$T/p; mkdir -m 0700 $P
run_bc $T/p0 db add --db $P/r.db $F1 $F2
expect_rc "an archive in a private directory" 0
# a -wal with a forged label, from a copy of the archive (the group member's attack)
python3 -S - $P/r.db $T/forge <<'EOF'
import os, shutil, sqlite3, sys
src, d = sys.argv[1], sys.argv[2]
os.makedirs(d)
shutil.copy(src, d + "/c.db")
c = sqlite3.connect(d + "/c.db")
c.execute("PRAGMA journal_mode=WAL"); c.execute("PRAGMA wal_autocheckpoint=0")
c.execute("UPDATE runs SET label = 'FORGED'"); c.commit()
shutil.copy(d + "/c.db-wal", d + "/planted-wal")	# taken while the writer still has it
c.close()
EOF
cp $T/forge/planted-wal $P/r.db-wal && chown nobody $P/r.db-wal
run_bc $T/w1 db list --db $P/r.db
expect_rc "a -wal of another user beside the archive: refused for reading" 2
expect_grep "... naming it" $T/w1.err "its wal file $P/r.db-wal is not the archive's own: refused"
expect_no_grep "... the forged run is not shown" $T/w1.out "FORGED"
run_bc $T/w2 db add --db $P/r.db $F3
expect_rc "... and for writing" 2
chown root $P/r.db-wal; chmod 666 $P/r.db-wal
run_bc $T/w3 db list --db $P/r.db
expect_rc "a -wal others may write (0666): refused" 2
ln -sf /dev/null $P/r.db-shm; rm -f $P/r.db-wal
run_bc $T/w4 db list --db $P/r.db
expect_rc "a -shm that is a symbolic link: refused" 2
expect_grep "... saying so" $T/w4.err "its shm file .* is not the archive's own"
rm -f $P/r.db-shm
run_bc $T/w5 db list --db $P/r.db
expect_rc "the planted files gone: the archive reads" 0
expect_no_grep "... and no forged row was ever checkpointed in" $T/w5.out "FORGED"
[ "$(runs_in $P/r.db)" = 2 ] && pass "... its two runs" || fail "... runs: $(runs_in $P/r.db)"
# a -wal planted before the archive exists (no archive yet: it must be ours)
N=$T/n; mkdir -m 0700 $N; cp $T/forge/planted-wal $N/r.db-wal; chown nobody $N/r.db-wal
run_bc $T/w6 db add --db $N/r.db $F1
expect_rc "a -wal of another user where a new archive is to be made: refused" 2
check "... no archive made" test ! -e $N/r.db

# === 3. an output over the archive it reads
A=$P/r.db; cp $A $T/a.before
run_bc $T/e1 db export latest --db $A -o $A
expect_rc "db export -o the archive itself: refused" 2
expect_grep "... saying so" $T/e1.err "-o $A is also an input \($A\): it would be replaced"
check "... the archive untouched" cmp -s $A $T/a.before
"$BC" db add $F1 >/dev/null 2>&1
run_bc $T/e2 db export latest -o $XDG_DATA_HOME/benchcore/results.db
expect_rc "... the default archive too" 2
[ "$(runs_in $XDG_DATA_HOME/benchcore/results.db)" = 1 ] && pass "... which keeps its run" || fail "... default archive runs: $(runs_in $XDG_DATA_HOME/benchcore/results.db)"
ln -s $A $T/alias.db
run_bc $T/e3 db export latest --db $A -o $T/alias.db
expect_rc "... through a link to it too" 2
run_bc $T/e4 history --module cpu --db $A --html $A
expect_rc "history --html over the archive it reads: refused" 2
run_bc $T/e5 report --db $A db:latest -o $A
expect_rc "report -o over the archive its db: reference reads: refused" 2
BENCHCORE_DB=$A run_bc $T/e7 merge db:latest $F1 -o $A --force
expect_rc "merge -o over the archive its db: reference reads, even with --force: refused" 2
check "... the archive untouched by all of them" cmp -s $A $T/a.before
run_bc $T/e6 db export latest --db $A -o $T/out.json
expect_rc "db export -o another file still works" 0

# === 6. a symlinked parent: the default archive through HOME or XDG_DATA_HOME links
mkdir -p $T/realhome && ln -s $T/realhome $T/linkhome
XDG_DATA_HOME=$T/linkhome/data run_bc $T/s1 db add $F1
expect_rc "XDG_DATA_HOME through a symlink: the default archive is made and used" 0
check "... in the real directory" test -f $T/realhome/data/benchcore/results.db
XDG_DATA_HOME=$T/linkhome/data run_bc $T/s2 db list
expect_rc "... and read" 0
(unset XDG_DATA_HOME; HOME=$T/linkhome run_bc $T/s3 db add $F2; exit $RC); RC=$?
expect_rc "HOME a symlink: the default archive works" 0
check "... under the real home" test -f $T/realhome/.local/share/benchcore/results.db
ln -s $T/realhome/data/benchcore/results.db $T/filelink.db
run_bc $T/s4 db list --db $T/filelink.db
expect_rc "the archive file itself a link: still refused" 2
expect_grep "... saying so" $T/s4.err "is a symbolic link: refused"
ST=$T/sticky; mkdir -m 1777 $ST; as_nobody ln -s $T/realhome $ST/home
XDG_DATA_HOME=$ST/home/data run_bc $T/s5 db add $F3
expect_rc "a link of another user on the way (in a sticky directory): refused" 2
expect_grep "... naming the link" $T/s5.err "symbolic link \"$ST/home\" on its way is owned by another user"
mkdir -p $T/gw/sub && chmod 0777 $T/gw
run_bc $T/s6 db add --db $T/gw/sub/r.db $F1
expect_rc "a directory above it anyone may write (not sticky): refused" 2
expect_grep "... naming it" $T/s6.err "directory \"$T/gw\" above it is writable by others"

# === 4 and 5: a private PostgreSQL (lib.sh's start_pg)
PG=$T/pg
start_pg $PG || { [ -n "${PGPID:-}" ] && kill $PGPID 2>/dev/null
	case "$why" in *"not installed"*) pass "skipped: $why";; *) fail "$why";; esac; exit 0; }
trap 'kill $STOPPED $HOLDER 2>/dev/null; kill -CONT $STOPPED 2>/dev/null; kill $PGPID 2>/dev/null; wait $PGPID 2>/dev/null; rm -rf "$T"' EXIT
STOPPED= HOLDER=
psq postgres "CREATE DATABASE arch" || { fail "CREATE DATABASE"; exit 0; }
PW=Hunter2-secret-77
# each form: the command must work (or fail) as said, and no output may hold the password
pw_case() {	# NAME WANT_RC DB
	local n=$1 want=$2 db=$3
	run_bc $T/pw.$n.l db list --db "$db"
	expect_rc "password form $n: db list" $want
	run_bc $T/pw.$n.h history --module cpu --db "$db"
	run_bc $T/pw.$n.a db add --db "$db" $F1
	# the whole password or a piece of it (the "/" case splits it)
	if grep -l -e "Hunter2" -e "secret-77" $T/pw.$n.* >/dev/null 2>&1; then
		fail "password form $n: printed in $(grep -l -e "Hunter2" -e "secret-77" $T/pw.$n.* | tr '\n' ' ')"
		grep -h -e "Hunter2" -e "secret-77" $T/pw.$n.* | head -3
	else
		pass "password form $n: in no output of db list, history, db add"
	fi
}
pw_case url 0 "postgresql://bc:$PW@/arch?host=$PGSOCK"
expect_grep "... the URL named masked" $T/pw.url.a.out "postgresql://bc:\*\*\*@/arch"
pw_case nohost 2 "postgresql://bc:$PW@localhost/arch?host=/nonexistent"
expect_grep "... history names the archive, masked" $T/pw.nohost.h.err "the results archive postgresql://bc:\*\*\*@localhost"
pw_case badpct 2 "postgresql://bc:${PW}%zz@/arch?host=$PGSOCK"
expect_grep "... libpq's message kept, its token masked" $T/pw.badpct.l.err "invalid percent-encoded token: \"\*\*\*\""
pw_case badhost 2 "postgresql://bc:$PW@[badhost/arch"
pw_case slash 0 "postgresql://bc:${PW:0:8}/${PW:8}@/arch?host=$PGSOCK"
pw_case caps 0 "POSTGRESQL://bc:$PW@/arch?host=$PGSOCK"
pw_case kv 0 "host=$PGSOCK dbname=arch user=bc password=$PW"
pw_case kvbad 2 "host=$PGSOCK dbname=nosuch user=bc password=$PW"
expect_grep "... libpq's reason kept" $T/pw.kvbad.l.err "nosuch.*does not exist"
pw_case kvquoted 0 "host=$PGSOCK dbname=arch user=bc password='$PW x'"
pw_case kvtypo 2 "host=$PGSOCK dbname=arch user=bc pasword=$PW"
expect_grep "... libpq's reason kept" $T/pw.kvtypo.l.err "invalid connection option"

# === 5. a writer stopped while it holds the writers' lock
PGURL="postgresql://bc:$PW@/arch?host=$PGSOCK"
held() { psq arch "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"; }
mkdir -p $T/many
python3 -S - $F1 $T/many <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1]))
for i in range(150):
    d["run_id"] = os.urandom(16).hex(); d["label"] = "m%d" % i
    json.dump(d, open("%s/c%04d.json" % (sys.argv[2], i), "w"))
EOF
# a db add of many files, stopped at a moment it holds the lock (checked after the stop:
# a stop between two of its transactions holds nothing, and it goes on to the next try)
for try in $(seq 30); do
	"$BC" db add --db "$PGURL" $T/many/*.json >$T/stopped.out 2>&1 &
	STOPPED=$!
	for i in $(seq 200); do [ "$(held)" = 1 ] && break; sleep 0.01; done
	kill -STOP $STOPPED 2>/dev/null
	[ "$(held)" = 1 ] && break
	kill -CONT $STOPPED; kill $STOPPED; wait $STOPPED 2>/dev/null; STOPPED=
done
if [ -n "$STOPPED" ]; then
	pass "a db add stopped (SIGSTOP) holding the writers' lock (try $try)"
	t0=$(date +%s.%N)
	BENCHCORE_DB_WAIT=2 run_bc $T/wait db add --db "$PGURL" $F2
	t1=$(date +%s.%N)
	check "another db add gives up (exit $RC)" test "$RC" -ne 0
	check "... after the bound of 2 s, not before ($(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.1f", b-a}') s)" \
		awk -v a=$t0 -v b=$t1 'BEGIN { exit !(b - a >= 2) }'
	expect_grep "... saying for whom it waits: the stopped writer's backend and run" $T/wait.err \
		"waiting for another writer of results archive postgresql://bc:\*\*\*@/arch.*\(backend [0-9]+ \(benchcore storing run [0-9a-f]{32}\)"
	expect_grep "... then that it gave up" $T/wait.err "is locked: another writer held it longer than 2 s: gave up"
	BENCHCORE_DB_WAIT=1.5 run_bc $T/wrun run cpu --time 0.1 --warmup 0 --threads 1 -q -o $T/wrun.json --store="$PGURL"
	expect_rc "a run storing there: exit 3" 3
	expect_py "... its results file kept whole" $T/wrun.json 'd["status"] == "complete" and len(d["cases"]) == 1'
	expect_grep "... saying where it is" $T/wrun.err "the run was not stored; its results are in $T/wrun.json"
	expect_no_grep "... no password in any of it" "$T/wait.err" "$PW"
	kill -CONT $STOPPED; wait $STOPPED; RC=$?; STOPPED=
	expect_rc "the stopped writer, continued, finishes its own work" 0
	run_bc $T/after db add --db "$PGURL" $T/wrun.json
	expect_rc "... and the run is stored now" 0
	BENCHCORE_DB_WAIT=abc run_bc $T/badwait db add --db "$PGURL" $F3
	expect_grep "a BENCHCORE_DB_WAIT that is not seconds: said, 60 s kept" $T/badwait.err "BENCHCORE_DB_WAIT=\"abc\" is not a number of seconds"
else
	fail "could not stop a db add while it held the lock in 30 tries"
fi
