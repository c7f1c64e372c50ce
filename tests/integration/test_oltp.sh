#!/usr/bin/env bash
# oltp module (TPC-C) against a real MariaDB: one server started here for most
# checks (a user with a password), and once benchcore's own private server.
# An interrupted load (benchcore's marker with complete = 0) is dropped and reloaded; the
# run's tpmC, NOPM, mix, spec checks and consistency conditions; a second run
# reuses the data; a wrong password fails clearly without printing it; a
# database without benchcore's marker, with a forged or edited marker, with a
# table benchcore did not create, or whose marker claims a load its tables do
# not hold, is refused and never dropped (the user's table CHECKSUM-identical);
# a failed load's hint says what is left. benchcore SIGKILLed on its private server leaves
# the data directory, which the next run removes (the leftovers rule).
# BC_QUICK=1 (tests/run.sh's [asan] pass) leaves out the private-server case.
# If the first run fails, its reason and the server log's tail are printed.
. "$(dirname "$0")/lib.sh"

MARIADBD=$(command -v mariadbd || command -v /usr/sbin/mariadbd || true)
if [ -z "$MARIADBD" ] || ! command -v mariadb-install-db >/dev/null; then
	pass "skipped: mariadbd / mariadb-install-db not installed (scripts/deps.sh installs mariadb-server)"
	exit 0
fi
export TMPDIR=$T/tmp; mkdir -p $TMPDIR	# benchcore's module dirs (private server) go here

# --- our server: datadir and socket in $T, no TCP, stopped on every way out
SOCK=$T/my.sock
mariadb-install-db --no-defaults --auth-root-authentication-method=normal --datadir=$T/data \
	--skip-test-db --user=root >$T/install.log 2>&1 || { fail "mariadb-install-db: $(tail -2 $T/install.log)"; exit 0; }
"$MARIADBD" --no-defaults --user=root --datadir=$T/data --socket=$SOCK --skip-networking \
	--pid-file=$T/my.pid --innodb-buffer-pool-size=256M --innodb-flush-log-at-trx-commit=2 \
	--skip-log-bin >$T/mariadbd.log 2>&1 &
MPID=$!
trap 'kill $MPID 2>/dev/null; wait $MPID 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 300); do [ -S $SOCK ] && break; sleep 0.1; done
sql() { mariadb --no-defaults -S $SOCK -uroot -N -B -e "$1"; }
sql "CREATE USER bc@localhost IDENTIFIED BY 'Pw-s3cret-77'; GRANT ALL ON *.* TO bc@localhost" ||
	{ fail "test server did not start: $(tail -3 $T/mariadbd.log)"; exit 0; }
CONN=(socket=$SOCK user=bc password=Pw-s3cret-77)
Q=(-q --force)	# -q hides the INFO lines: runs that check them go without

# marker DB ID WAREHOUSES COMPLETE: the SQL of the marker benchcore writes (its
# row checksummed as modules/oltp/oltp_marker.c does), to stage what a run finds
TABLES=benchcore_marker,warehouse,district,customer,history,new_orders,orders,order_line,item,stock
marker() {
	local sum; sum=$(printf 'benchcore-oltp-marker/2|%s|%s|%s|7|1|2|3|%s|%s' "$1" "$2" "$3" "$4" "$TABLES" | sha256sum | cut -c1-64)
	echo "CREATE TABLE $1.benchcore_marker (id CHAR(32), warehouses INT, seed BIGINT UNSIGNED, c_last INT,
	      c_id INT, ol_i_id INT, complete TINYINT, tables VARCHAR(255), checksum CHAR(64), loaded_at DATETIME,
	      loader VARCHAR(64));
	      INSERT INTO $1.benchcore_marker VALUES ('$2', $3, 7, 1, 2, 3, $4, '$TABLES', '$sum', NOW(), 'benchcore oltp');"
}
# the user's own table beside: CHECKSUM TABLE before and after each attack
precious() { sql "CREATE TABLE $1.precious (id INT PRIMARY KEY, v VARCHAR(40)); INSERT INTO $1.precious VALUES (1, 'keep me'), (2, 'and me')"; }
csum() { sql "CHECKSUM TABLE $1.precious" 2>&1; }

# --- what an interrupted load leaves: benchcore's own marker with complete = 0, a listed table
sql "CREATE DATABASE benchcore_tpcc; $(marker benchcore_tpcc 0123456789abcdef0123456789abcdef 1 0)
     CREATE TABLE benchcore_tpcc.history (x INT)"
# --- and a database that is not benchcore's
sql "CREATE DATABASE notours; CREATE TABLE notours.precious (x INT); INSERT INTO notours.precious VALUES (42)"

run_bc $T/a run oltp "${CONN[@]}" warehouses=1 --threads 4 --time 3 --warmup 1 --keep --force -o $T/a.json
expect_rc "load 1 warehouse and run 4 connections" 0
if [ "$RC" -ne 0 ]; then	# the reason, and what the server said
	grep -h -A3 "reason\|ERROR\|Sanitizer\|runtime error\|error:" $T/a.out $T/a.err | head -20
	[ -s $T/a.json ] && jget $T/a.json '[(c["status"], c.get("reason"), c.get("error")) for c in d["cases"]]'
	echo "--- mariadbd.log (last 15 lines):"; tail -15 $T/mariadbd.log
fi
expect_grep "the interrupted load is detected and redone" $T/a.err 'dropping and reloading benchcore_tpcc: its load did not complete'
expect_py "data: reloaded, ~600k rows through the host's progress" $T/a.json \
	'(lambda c: c["info"]["data"] == "reloaded" and c["prepare"]["unit"] == "rows" and 590000 < c["prepare"]["done"] < 610000)(d["cases"][0])'
check "the half-loaded leftovers are gone" test "$(sql 'SELECT COUNT(*) FROM benchcore_tpcc.history')" -gt 0
check "the marker now says complete, 1 warehouse, with a new id" test "$(sql 'SELECT warehouses, complete, id <> "0123456789abcdef0123456789abcdef", LENGTH(checksum) FROM benchcore_tpcc.benchcore_marker')" = "$(printf '1\t1\t1\t64')"
check "the marker's checksum verifies as written" test "$(sql 'SELECT checksum FROM benchcore_tpcc.benchcore_marker')" = \
	"$(printf 'benchcore-oltp-marker/2|benchcore_tpcc|%s|1|%s|%s|%s|%s|1|%s' $(sql 'SELECT id, seed, c_last, c_id, ol_i_id FROM benchcore_tpcc.benchcore_marker') "$TABLES" | sha256sum | cut -c1-64)"
expect_py "tpmC > 0 and equals the New-Order count per minute of the window" $T/a.json \
	'(lambda c: c["metrics"]["tpmc"]["value"] > 0 and abs(c["metrics"]["tpmc"]["value"] - c["ops"]["new_order"]["count"] * 60 / c["duration_s"]) < 1e-6 * c["metrics"]["tpmc"]["value"] + 1e-9)(d["cases"][0])'
expect_py "NOPM (districts' next order ids) within 5% of tpmC" $T/a.json \
	'(lambda m: abs(m["nopm"]["value"] - m["tpmc"]["value"]) <= 0.05 * m["tpmc"]["value"])(d["cases"][0]["metrics"])'
expect_py "all five transaction types recorded, no failures" $T/a.json \
	'(lambda c: all(c["ops"][o]["count"] > 0 for o in ("new_order", "payment", "order_status", "delivery", "stock_level")) and c["metrics"]["failures"]["value"] == 0)(d["cases"][0])'
expect_py "the mix: the deck's 10/10/1/1/1 within 3 points" $T/a.json \
	'(lambda o: (lambda n: all(abs(100.0 * o[k]["count"] / n - p) < 3 for k, p in (("new_order", 43.48), ("payment", 43.48), ("order_status", 4.35), ("delivery", 4.35), ("stock_level", 4.35))))(sum(v["count"] for v in o.values())))(d["cases"][0]["ops"])'
expect_py "spec checks recorded with units: mix minimums and p90 limits in seconds" $T/a.json \
	'(lambda i: i["check.mix.payment"].endswith("% >= 43 %") and i["check.p90.stock_level"].endswith("s <= 20 s") and all(i["check.p90." + k].startswith("OK ") for k in ("new_order", "payment", "order_status", "delivery", "stock_level")))(d["cases"][0]["info"])'
expect_grep "spec checks printed as [OK]/[NG]" $T/a.err '\[OK\] p90\.new_order: [0-9.]+ s <= 5 s'
expect_py "consistency conditions 1-4 hold after the load and after the run" $T/a.json \
	'(lambda i: i["check.consistency.before"] == i["check.consistency.after"] == "OK conditions 1-4")(d["cases"][0]["info"])'
expect_py "server version and key settings recorded; mode labelled" $T/a.json \
	'(lambda i: "MariaDB" in i["server_version"] and i["server.innodb_flush_log_at_trx_commit"] == "2" and i["server.log_bin"] == "0" and i["mode"].startswith("unpaced"))(d["cases"][0]["info"])'
expect_py "headline metric is tpmc" $T/a.json 'd["cases"][0]["headline"] == "tpmc"'
check "the password is in no output or result" bash -c "! grep -q 'Pw-s3cret-77' $T/a.out $T/a.err $T/a.json"

# --- issue 37: mariadbd SIGSTOPped 0.5 s into a 2 s window (alive, not answering): the case fails
# within reply_timeout (2 s), naming the server, instead of ok or the watchdog's kill 12 s later
trap 'kill -CONT $MPID 2>/dev/null; kill $MPID 2>/dev/null; wait $MPID 2>/dev/null; rm -rf "$T"' EXIT
"$BC" run oltp "${CONN[@]}" warehouses=1 --threads 2 --time 2 --warmup 0 --keep --force -o $T/stop.json \
	>$T/stop.out 2>$T/stop.err </dev/null &
SPID=$!
for _ in $(seq 300); do grep -q 'consistency conditions 1-4 before' $T/stop.err && break; sleep 0.1; done
sleep 0.5; kill -STOP $MPID; sleep 3; kill -CONT $MPID
wait $SPID; RC=$?
expect_rc "SIGSTOP in the window: the run fails" 1
expect_py "SIGSTOP in the window: failed, the reason names the server that stopped answering" $T/stop.json \
	'(lambda c: c["status"] == "failed" and "oltp: the server at socket '$SOCK' stopped answering" in c["reason"] and "longer than reply_timeout (2 s)" in c["error"]["detail"])(d["cases"][0])'
expect_py "SIGSTOP in the window: the case's figures are kept (transactions before the stop)" $T/stop.json \
	'd["cases"][0]["ops"]["new_order"]["count"] > 0'

# --- --events N at the default warmup (1 s): exactly N transactions (done or failed) in the window
# (issue 61: a transaction begun in warmup that ends in the window takes its event then)
run_bc $T/evo run oltp "${CONN[@]}" warehouses=1 --threads 2 --events 300 --time 0 --keep --force -q -o $T/evo.json
expect_rc "--events 300 at 2 threads after the default warmup" 0
expect_py "--events 300: exactly 300 transactions (count + errors), no overrun" $T/evo.json \
	'(lambda c: c["status"] == "ok" and sum(o["count"] + o.get("errors", 0) for o in c["ops"].values()) == 300 and not [w for w in c.get("warnings", []) if "than the budget allowed" in w])(d["cases"][0])'

# --- a second run reuses the data: no load; without --keep, cleanup drops it
run_bc $T/b run oltp "${CONN[@]}" warehouses=1 --threads 2 --time 1 --warmup 0 --force -o $T/b.json
expect_rc "second run" 0
expect_py "second run: data reused, prepare took under 3 s" $T/b.json \
	'(lambda c: c["status"] == "ok" and c["info"]["data"] == "reused" and c["prepare"]["seconds"] < 3)(d["cases"][0])'
expect_grep "second run: says it reuses" $T/b.err 'reusing benchcore_tpcc: 1 warehouse, loaded and complete'
check "without --keep, benchcore's own database is dropped at the end" test "$(sql "SHOW DATABASES LIKE 'benchcore_tpcc'")" = ""

# --- Ctrl-C during the load: the hint says what is left (incomplete, dropped by this run's cleanup)
"$BC" run oltp "${CONN[@]}" warehouses=1 --threads 1 --time 1 --warmup 0 --force -o $T/i.json >$T/i.out 2>$T/i.err </dev/null &
IPID=$!
for _ in $(seq 300); do [ "$(sql "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'benchcore_tpcc'")" -ge 10 ] 2>/dev/null && break; sleep 0.1; done
sleep 0.2; kill -INT $IPID; wait $IPID; RC=$?	# soon: on a quiet machine 1 warehouse loads in a few seconds
expect_rc "Ctrl-C during the load" 130
expect_py "Ctrl-C during the load: the hint says incomplete, dropped by this run's cleanup" $T/i.json \
	'(lambda c: "interrupted" in c["reason"] and "cleanup drops it at the end of this run" in c["error"]["hint"])(d["cases"][0])'
expect_grep "Ctrl-C during the load: cleanup says it dropped the incomplete database" $T/i.err 'dropped benchcore_tpcc: its load did not complete'
check "Ctrl-C during the load: and it is gone" test "$(sql "SHOW DATABASES LIKE 'benchcore_tpcc'")" = ""

# --- a database benchcore did not create is never dropped (nor loaded into)
run_bc $T/f run oltp "${CONN[@]}" database=notours --threads 1 --time 0.5 --warmup 0 "${Q[@]}" -o $T/f.json
expect_rc "a foreign database: the case fails" 1
expect_py "a foreign database: the reason says so, with the hint" $T/f.json \
	'(lambda c: "database notours is not benchcore" in c["reason"] and "never drops" in c["error"]["hint"])(d["cases"][0])'
check "a foreign database: its table and row are still there" test "$(sql 'SELECT x FROM notours.precious')" = 42

# --- attacks on the marker: each database holds a table of the user's, whose CHECKSUM must not change
# forged: a 6-column benchcore_marker claiming warehouses=5, incomplete (an old or another program's)
sql "CREATE DATABASE forged; CREATE TABLE forged.benchcore_marker (warehouses INT, seed BIGINT, c_last INT,
     c_id INT, ol_i_id INT, complete TINYINT); INSERT INTO forged.benchcore_marker VALUES (5, 1, 1, 1, 1, 0)"
precious forged
# a marker that verifies, of an incomplete load, beside a table benchcore does not create
sql "CREATE DATABASE mixed; $(marker mixed 00112233445566778899aabbccddeeff 1 0)"; precious mixed
# a marker that verifies claiming a complete load, but no TPC-C table in the database
sql "CREATE DATABASE hollow; $(marker hollow ffeeddccbbaa99887766554433221100 1 1)"
# a marker whose row was changed after benchcore wrote it (complete 0 -> 1)
sql "CREATE DATABASE edited; $(marker edited 0f1e2d3c4b5a69788796a5b4c3d2e1f0 1 0)
     UPDATE edited.benchcore_marker SET complete = 1"
for db in forged mixed; do eval "sum_$db=\$(csum $db)"; done
for db in forged mixed hollow edited; do
	run_bc $T/x_$db run oltp "${CONN[@]}" database=$db --threads 1 --time 0.5 --warmup 0 "${Q[@]}" -o $T/x_$db.json
	expect_rc "marker attack $db: the case fails, nothing runs" 1
	check "marker attack $db: the database is still there" test "$(sql "SHOW DATABASES LIKE '$db'")" = $db
	check "marker attack $db: nothing was loaded into it" test "$(sql "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = '$db' AND table_name = 'warehouse'")" = 0
done
check "forged marker: precious is byte-identical (CHECKSUM TABLE)" test "$(csum forged)" = "$sum_forged"
check "marker beside a foreign table: precious is byte-identical (CHECKSUM TABLE)" test "$(csum mixed)" = "$sum_mixed"
expect_py "forged marker: refused as not written by benchcore" $T/x_forged.json \
	'(lambda c: "database forged is not benchcore" in c["reason"] and "benchcore_marker table that benchcore did not write" in c["error"]["detail"] and "never drops" in c["error"]["hint"])(d["cases"][0])'
expect_no_grep "forged marker: no 'dropping and reloading'" $T/x_forged.err 'dropping|reloading|dropped'
expect_py "marker beside a foreign table: refused, naming the table" $T/x_mixed.json \
	'(lambda c: "is not benchcore" in c["reason"] and "holds table precious, which benchcore did not create" in c["error"]["detail"])(d["cases"][0])'
expect_py "a complete marker with no TPC-C tables: refused, not reused" $T/x_hollow.json \
	'(lambda c: "not a complete TPC-C load" in c["reason"] and "table warehouse is missing" in c["error"]["detail"] and c["info"].get("data") != "reused")(d["cases"][0])'
expect_no_grep "a complete marker with no TPC-C tables: never 'reusing'" $T/x_hollow.err 'reusing'
check "a complete marker with no TPC-C tables: its marker is still there" test "$(sql 'SELECT COUNT(*) FROM hollow.benchcore_marker')" = 1
expect_py "an edited marker row: does not verify" $T/x_edited.json \
	'(lambda c: "does not verify" in c["error"]["detail"])(d["cases"][0])'
sql "DROP DATABASE forged; DROP DATABASE mixed; DROP DATABASE hollow; DROP DATABASE edited"

# --- hints tell what is left: no right to create the database (error 1044): nothing was made
sql "CREATE USER ro@localhost IDENTIFIED BY 'Ro-pw-51'; GRANT SELECT ON *.* TO ro@localhost"
run_bc $T/e run oltp socket=$SOCK user=ro password=Ro-pw-51 database=bc_denied --threads 1 --time 0.5 --warmup 0 "${Q[@]}" -o $T/e.json
expect_rc "no CREATE privilege: the case fails" 1
expect_py "no CREATE privilege: error 1044 named, the hint says nothing was created (no 'next run drops')" $T/e.json \
	'(lambda e: "1044" in e["detail"] and "nothing was created" in e["hint"] and "next run" not in e["hint"])(d["cases"][0]["error"])'

# --- a wrong password: clear failure, never printed
run_bc $T/p run oltp socket=$SOCK user=bc password=Wrong-pw-913 --threads 1 --time 0.5 --warmup 0 "${Q[@]}" -o $T/p.json
expect_rc "wrong password: the case fails" 1
expect_py "wrong password: access denied, with a hint about user and password" $T/p.json \
	'(lambda c: "Access denied for user" in c["error"]["detail"] and "check user and password" in c["error"]["hint"])(d["cases"][0])'
check "wrong password: not in any output" bash -c "! grep -q 'Wrong-pw-913' $T/p.out $T/p.err $T/p.json"

# --- datadir (issue 52) is the private server's: with a server of the user's it is refused
run_bc $T/dds run oltp "${CONN[@]}" datadir=$T --threads 1 --time 0.5 --warmup 0 "${Q[@]}" -o $T/dds.json
expect_rc "datadir with socket: the case fails" 1
expect_py "datadir with socket: says datadir is for the private server" $T/dds.json \
	'd["cases"][0]["error"]["message"] == "datadir is for the private server, and socket is set" and d["cases"][0]["error"]["hint"]'

# --- nothing configured: benchcore's private MariaDB, then gone
if [ "${BC_QUICK:-0}" = 1 ]; then
	echo "QUICK: private-server case left out (a second 1-warehouse load through the loader run above; starting and stopping a private server is the core's server_start, which test_service runs)"
	exit 0
fi
# --- benchcore SIGKILLed (as the OOM killer does) during a case on its private server: the server
# dies with it, its data directory stays; the next run's start removes it and says so
mysqld_of_ours() { pgrep -f -- "$TMPDIR/benchcore-oltp" >/dev/null; }
no_mysqld() { ! mysqld_of_ours; }
"$BC" run oltp warehouses=1 --threads 2 --time 60 --warmup 0 -q -o $T/k.json >$T/k.out 2>$T/k.err </dev/null &
KPID=$!
for _ in $(seq 600); do [ -n "$(ls -d $TMPDIR/benchcore-oltp.*/data/benchcore_tpcc 2>/dev/null)" ] && break; sleep 0.1; done
sleep 2
kill -KILL $KPID; wait $KPID 2>/dev/null
for _ in $(seq 300); do mysqld_of_ours || break; sleep 0.1; done
KDIR=$(ls -d $TMPDIR/benchcore-oltp.* 2>/dev/null | head -1)
check "SIGKILL: the private mariadbd died with benchcore" no_mysqld
check "SIGKILL: its data directory stays ($(du -sm $KDIR 2>/dev/null | cut -f1) MiB)" test -n "$KDIR" -a -d "$KDIR/data"
# (without -q: the plan says what needs() declares; the private server's directory is sampled meanwhile)
"$BC" run oltp warehouses=1 --threads 2 --time 1 --warmup 0 --force -o $T/v.json >$T/v.out 2>$T/v.err </dev/null &
VPID=$!
peak=0
while kill -0 $VPID 2>/dev/null; do
	for d in $TMPDIR/benchcore-oltp.*; do
		[ -d "$d" ] && [ "$d" != "$KDIR" ] || continue
		k=$(du -sk "$d" 2>/dev/null | cut -f1)
		[ "${k:-0}" -gt "$peak" ] && peak=$k
	done
	sleep 0.2
done
wait $VPID; RC=$?
expect_grep "the next run removes the dead run's data directory and says so, with its size" $T/v.err \
	"removed $KDIR \([0-9]+\.[0-9] MiB\), left by benchcore pid $KPID, which is no longer running"
check "the dead run's directory is gone" test ! -e "$KDIR"
expect_rc "private server: runs with nothing configured" 0
expect_py "private server: ok, recorded as private with its settings" $T/v.json \
	'(lambda c: c["status"] == "ok" and c["info"]["server"] == "private" and c["info"]["server.innodb_flush_log_at_trx_commit"] == "2" and c["info"]["server.log_bin"] == "0" and c["metrics"]["tpmc"]["value"] > 0)(d["cases"][0])'
# issue 37: the disk needs() declares for a private warehouse against the directory's peak (du):
# never below it, at most 25% above
decl=$(sed -n 's/^plan: oltp declares up to \([0-9.]*\) MiB at .* (a private MariaDB: 1 warehouse)$/\1/p' $T/v.err)
decl_k=$(awk -v m="${decl:-0}" 'BEGIN { printf "%d", m * 1024 }')
check "private server: the plan says the disk it declares (${decl:-none} MiB)" test -n "$decl"
check "private server: its directory's peak ($((peak / 1024)) MiB) is not above the declaration" test "$peak" -gt 0 -a "$peak" -le "$decl_k"
check "private server: the declaration is at most 25% above the peak" test $((decl_k * 100)) -le $((peak * 125))
no_server() { sleep 0.5; ! pgrep -f -- "$TMPDIR/benchcore-oltp" >/dev/null; }
check "private server: no mariadbd of benchcore's left" no_server
check "private server: its directory is gone" test -z "$(ls -A $TMPDIR)"

# --- datadir (issue 52): the private server's data where the user puts it (the file system
# under test), not only through $TMPDIR; recorded like io's path (host.io, and the case's
# datadir with its file system); nothing left there after
mkdir -m 700 $T/dd
"$BC" run oltp datadir=$T/dd warehouses=1 --threads 1 --time 0.5 --warmup 0 -q --force -o $T/dd.json >$T/dd.out 2>$T/dd.err </dev/null &
DPID=$!
ddseen() { ls -d $T/dd/benchcore-oltp.*/data/mysql >/dev/null 2>&1; }
check "datadir: the private server's data directory is made in it" until_seen 1200 ddseen
check "datadir: no module directory of oltp's in \$TMPDIR" test -z "$(ls -d $TMPDIR/benchcore-oltp.* 2>/dev/null)"
wait $DPID; RC=$?
expect_rc "datadir=DIR runs" 0
expect_py "datadir: the case records where the data was and its file system" $T/dd.json \
	'(lambda c: c["status"] == "ok" and c["params"]["datadir"] == "'$T/dd'" and "datadir" in c["placement"] and c["info"]["datadir"].startswith("'$T/dd'/benchcore-oltp.") and c["info"]["datadir_fs_type"] != "" and c["info"]["datadir_mount_point"] != "")(d["cases"][0])'
# the path has a random part (benchcore-oltp.XXXXXX): a figure of the run, not a fact that differs
# between two runs (compare's "what differs" named it between two OS releases, issue 60)
expect_py "datadir: listed in per_run (its path is random)" $T/dd.json \
	'"datadir" in [k.strip() for k in d["cases"][0]["info"]["per_run"].split(",")]'
expect_py "datadir: the run's host.io is the datadir's, as io's path" $T/dd.json \
	'd["host"]["io"]["path"] == "'$T/dd'" and d["host"]["io"]["fs_type"] == d["cases"][0]["info"]["datadir_fs_type"]'
check "datadir: nothing is left in it" test -z "$(ls -A $T/dd)"
dd_server_gone() { ! pgrep -f -- "$T/dd/benchcore-oltp" >/dev/null; }
check "datadir: no mariadbd of benchcore's left" until_seen 50 dd_server_gone
run_bc $T/dd2 run oltp datadir=$T/nonexistent --time 0.5 --warmup 0 "${Q[@]}" -o $T/dd2.json
expect_py "datadir missing: the case fails and says so" $T/dd2.json \
	'd["cases"][0]["status"] != "ok" and "nonexistent" in d["cases"][0]["reason"]'
