#!/usr/bin/env bash
# Private servers (issue #12): the runner starts one server per module, keeps
# it for all of the module's cases, and always stops it: normal end, crashed
# or hung case, Ctrl-C, SIGTERM, SIGHUP, SIGQUIT, a second Ctrl-C, and
# benchcore killed with SIGKILL. The stand-in server (tests/servers/standin.c)
# and its worker carry the module directory in their command line, which is
# how this test finds any process of theirs left behind.
. "$(dirname "$0")/lib.sh"
MP="--module-path $TESTMODS"
SRV=$TESTMODS/standin_server
export TMPDIR=$T/tmp; mkdir -p $TMPDIR	# module and scratch directories go here

no_server() {	# no stand-in process of this test is left
	sleep 0.3
	! pgrep -f -- "$TMPDIR/benchcore-svc" >/dev/null
}
no_case() {	# no process of the run writing $T/$1.json is left (benchcore or a case child)
	! pgrep -f -- "-o $T/$1.json" >/dev/null
}
tmp_empty() { test -z "$(ls -A $TMPDIR)"; }
server_up() {	# waits until a stand-in listens (its log says so)
	for _ in $(seq 150); do
		grep -qs 'listening on' $TMPDIR/benchcore-svc.*/standin.log && return 0
		sleep 0.1
	done
	return 1
}

# --- one server for all of the module's cases, stopped at the end
run_bc $T/n run svc $MP server=$SRV flags=--child --threads 1,2 --repeat 2 --time 0.2 --warmup 0 -o $T/n.json
expect_rc "normal run: all cases ok" 0
expect_py "normal run: every case reached the server and got answers" $T/n.json \
	'len(d["cases"]) == 4 and all(c["status"] == "ok" and c["ops"]["event"]["count"] > 0 and c["ops"]["event"]["errors"] == 0 for c in d["cases"])'
expect_py "normal run: one server process for all 4 cases" $T/n.json \
	'len({c["info"]["server_pid"] for c in d["cases"]}) == 1'
check "normal run: no process of the server (or its worker) remains" no_server
dir=$(jget $T/n.json 'd["cases"][0]["info"]["module_dir"]')
check "normal run: the module directory $dir is gone" test -n "$dir" -a ! -e "$dir"
check "normal run: nothing left in TMPDIR" tmp_empty

run_bc $T/ni run svc $MP server=$SRV --threads 1,2 --time 0.2 --warmup 0 --no-isolate -q -o $T/ni.json
expect_py "isolate = false: one server for both cases, all ok" $T/ni.json \
	'all(c["status"] == "ok" for c in d["cases"]) and len({c["info"]["server_pid"] for c in d["cases"]}) == 1'
check "isolate = false: no server left" no_server

# --- a crashed case and a hung case lose their case, not the server
run_bc $T/c run svc $MP server=$SRV flags=--child fault=none,crash --repeat 2 --time 0.2 --warmup 0 -q -o $T/c.json
expect_py "crashing case: fails with its signal, the others ok" $T/c.json \
	'[c["status"] for c in d["cases"] if c["params"]["fault"] == "crash"] == ["failed"] * 2 and all("signal 11" in c["reason"] for c in d["cases"] if c["params"]["fault"] == "crash") and all(c["status"] == "ok" for c in d["cases"] if c["params"]["fault"] == "none")'
expect_py "crashing case: the server outlived the crash (same pid before and after)" $T/c.json \
	'len({c["info"]["server_pid"] for c in d["cases"] if c["status"] == "ok"}) == 1'
check "crashing case: no server left" no_server
run_bc $T/h run svc $MP server=$SRV fault=hang,none --time 0.3 --warmup 0 --grace 0.5 -q -o $T/h.json
expect_py "hung case: killed by the watchdog, the next case ok" $T/h.json \
	'"timed out" in d["cases"][0]["reason"] and d["cases"][1]["status"] == "ok"'
check "hung case: no server left" no_server
check "crash and hang: nothing left in TMPDIR" tmp_empty

# --- a server that never gets ready fails the case, with its log
start=$(date +%s%N)
run_bc $T/nr run svc $MP server=$SRV flags=--never-ready ready_timeout=1 --time 0.2 --warmup 0 -q -o $T/nr.json
ms=$(( ($(date +%s%N) - start) / 1000000 ))
expect_rc "never ready: the run fails" 1
expect_py "never ready: the reason says so and shows the log tail" $T/nr.json \
	'"was not ready within 1 s" in d["cases"][0]["reason"] and "not listening, on purpose" in d["cases"][0]["reason"]'
check "never ready: given up after the ready timeout (took ${ms} ms)" test $ms -lt 6000
check "never ready: no server left" no_server
run_bc $T/bad run svc $MP server=/nonexistent/server --time 0.2 --warmup 0 -q -o $T/bad.json
expect_py "a missing binary: exited before it was ready, log says why" $T/bad.json \
	'"exited with status 127 before it was ready" in d["cases"][0]["reason"] and "cannot run /nonexistent/server" in d["cases"][0]["reason"]'

# --- a server that died between cases is started again
run_bc $T/d run svc $MP server=$SRV flags=--crash-after=2 --threads 1,2 --time 0.2 --warmup 0 -q -o $T/d.json
expect_py "died between cases: each case got a fresh server" $T/d.json \
	'len({c["info"]["server_pid"] for c in d["cases"]}) == 2'
expect_grep "died between cases: the restart is reported" $T/d.err 'had exited; starting it again'
check "died between cases: no server left" no_server

# --- signals to benchcore: the server is stopped on every way out
signal_run() {	# name, signals..., then: exit code in RC, time to exit in MS
	local name=$1; shift
	"$BC" run svc $MP server=$SRV flags=$FLAGS --repeat 3 --time 3 --warmup 0 -q -o $T/$name.json \
		>$T/$name.out 2>$T/$name.err </dev/null &
	local pid=$!
	server_up || echo "the server did not come up for $name"
	sleep 0.3
	local start; start=$(date +%s%N)
	for sig in "$@"; do kill -$sig $pid; sleep 0.2; done	# apart: two at once would merge into one
	wait $pid; RC=$?
	MS=$(( ($(date +%s%N) - start) / 1000000 ))
}
FLAGS=--child
for sig in INT TERM HUP QUIT; do
	signal_run s$sig $sig
	expect_rc "SIG$sig: exit 130" 130
	expect_py "SIG$sig: results written, marked interrupted" $T/s$sig.json 'd["interrupted"]'
	check "SIG$sig: no server left (and its worker)" no_server
	check "SIG$sig: module directory removed" tmp_empty
done
FLAGS=--ignore-term
signal_run twice INT INT
expect_rc "second SIGINT: exit 130" 130
check "second SIGINT: out at once, no 5 s wait for a server ignoring SIGTERM (took ${MS} ms)" test $MS -lt 3000
check "second SIGINT: no server left" no_server
check "second SIGINT: module directory removed" tmp_empty
signal_run deaf TERM
expect_rc "server ignoring SIGTERM: exit 130" 130
expect_grep "server ignoring SIGTERM: killed after 5 s, and said so" $T/deaf.err 'did not stop on signal 15 within 5 s: killed'
check "server ignoring SIGTERM: no server left" no_server
FLAGS=
signal_run kill KILL
check "benchcore killed with SIGKILL: the server died with it" no_server
check "benchcore killed with SIGKILL: the case child died with it" no_case kill

# --- a private server stopped (SIGSTOP) mid-window fails the case, naming it (issue 61 item 5)
# The window has begun once an interval line is printed; the stand-in (no
# --child: one process) is then stopped for a second and let go.
"$BC" run svc $MP server=$SRV --time 3 --warmup 0 --report-interval 0.1 -o $T/stp.json >$T/stp.out 2>$T/stp.err &
bcpid=$!
for _ in $(seq 300); do grep -qs '^\[ 0\.' $T/stp.err && break; sleep 0.05; done
spid=$(pgrep -f -- "$TMPDIR/benchcore-svc" | head -1)
kill -STOP $spid; sleep 1; kill -CONT $spid
wait $bcpid; RC=$?
expect_rc "a case whose private server was stopped for 1 s of its 3 s window fails" 1
expect_py "... its reason names the server and its pid, when and for how long it was stopped" $T/stp.json \
	"(lambda c, m: c['status'] == 'failed' and m is not None and 0 <= float(m.group(1)) < 3 and 0.7 <= float(m.group(2)) <= 1.6)(d['cases'][0], __import__('re').search(r'private server standin \\(pid $spid\\) was stopped \\(state T[^)]*\\) ([0-9.]+) s into the [0-9.]+ s window, for about ([0-9.]+) s', d['cases'][0]['reason']))"
expect_grep "... and says so on stderr" $T/stp.err 'warning: .*private server standin \(pid [0-9]+\) was stopped'
check "... the server is gone after the run" no_server
# ... and one killed mid-window: the reason says it died, and when
"$BC" run svc $MP server=$SRV --time 2 --warmup 0 --report-interval 0.1 -o $T/stk.json >$T/stk.out 2>$T/stk.err &
bcpid=$!
for _ in $(seq 300); do grep -qs '^\[ 0\.' $T/stk.err && break; sleep 0.05; done
spid=$(pgrep -f -- "$TMPDIR/benchcore-svc" | head -1)
kill -KILL $spid
wait $bcpid; RC=$?
expect_rc "a case whose private server was killed mid-window fails" 1
expect_py "... its reason names the server and when it died" $T/stk.json \
	"__import__('re').search(r'private server standin \\(pid $spid\\) died [0-9.]+ s into the [0-9.]+ s window', d['cases'][0]['reason'])"
check "... no server left" no_server
# the same run untouched: ok (the watch claims nothing of a server that ran)
run_bc $T/stq run svc $MP server=$SRV --time 0.5 --warmup 0 -q -o $T/stq.json
expect_py "... and a run whose server was not stopped is ok" $T/stq.json "d['cases'][0]['status'] == 'ok'"
rm -rf "${TMPDIR:?}"/*
