#!/usr/bin/env bash
# redis module (issue #16) against real redis-server instances this test
# starts on unix sockets and loopback ports: the default test list with no
# config (private server), keys outside the prefix kept, AUTH (requirepass and
# an ACL user), error replies failing the case with the server's message,
# per-request latency under a pipeline, a server killed mid-run, rate mode,
# TLS with a CA made here, a 3-node cluster. Skips what is not installed.
# Issue 24: a run keeps to its own prefix, refuses custom commands that reach outside it and fills that would
# evict, fails a case whose work did not happen, and stays bounded in
# memory against a server that sends without end (tests/servers/fake_redis.py).
. "$(dirname "$0")/lib.sh"
if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
	echo "SKIP: redis-server / redis-cli not installed (scripts/deps.sh)"
	exit 0
fi
PIDS=""
trap 'for p in $PIDS; do kill -9 $p 2>/dev/null; done; rm -rf "$T"' EXIT
export TMPDIR=$T/tmp; mkdir -p $TMPDIR	# the private server's module directory goes here

# start_redis NAME ARGS...: a redis-server on $T/NAME.sock, waits until it answers.
start_redis() {
	local name=$1; shift
	redis-server --port 0 --unixsocket $T/$name.sock --save '' --appendonly no --dir $T "$@" \
		>$T/$name.log 2>&1 &
	PIDS="$PIDS $!"
	eval "PID_$name=$!"
	for _ in $(seq 600); do [ -S $T/$name.sock ] && return 0; sleep 0.05; done
	echo "redis-server $name did not start:"; tail -5 $T/$name.log
}
cli() { local s=$1; shift; redis-cli -s $T/$s.sock "$@"; }
Q="--warmup 0 -q"

# --- no configuration at all: the default list, one case per test, a private server
if [ "${BC_QUICK:-0}" = 1 ]; then
	# the same code paths: private server, the fill before LRANGE, MSET's key list
	echo "QUICK: defaults: 4 of the 19 default tests (PING_INLINE SET LRANGE_600 MSET), the list itself not checked"
	run_bc $T/def run redis tests=PING_INLINE,SET,LRANGE_600,MSET --time 0.1 $Q -o $T/def.json
	expect_rc "defaults: all cases ok" 0
else
	run_bc $T/def run redis --time 0.1 $Q -o $T/def.json
	expect_rc "defaults: all cases ok" 0
	expect_py "defaults: redis-benchmark 7.0's 19 tests in its order, one case each" $T/def.json \
		'[c["params"]["tests"] for c in d["cases"]] == "PING_INLINE PING_MBULK SET GET INCR LPUSH RPUSH LPOP RPOP SADD HSET SPOP ZADD ZPOPMIN LRANGE_100 LRANGE_300 LRANGE_500 LRANGE_600 MSET".split()'
fi
expect_py "defaults: each case's op class is its test, with requests/s and p50" $T/def.json \
	'all(list(c["ops"]) == [c["params"]["tests"]] and c["ops"][c["params"]["tests"]]["count"] > 0 and c["metrics"]["requests_per_sec"]["value"] > 0 and c["metrics"]["p50_ms"]["value"] > 0 for c in d["cases"])'
expect_py "defaults: server version, mode and key config recorded" $T/def.json \
	'all(c["info"]["redis_version"][0].isdigit() and c["info"]["redis_mode"] == "standalone" and c["info"]["persistence"].startswith("rdb save") and c["info"]["maxmemory"] == "0" and c["info"]["server"].startswith("private") for c in d["cases"])'
expect_py "defaults: LRANGE_600 reads 600 elements after the untimed fill (no empty replies)" $T/def.json \
	'[c["info"]["nil_replies"] for c in d["cases"] if c["params"]["tests"] == "LRANGE_600"] == ["0"]'
private_gone() { sleep 0.3; ! pgrep -f -- "$TMPDIR/" >/dev/null && test -z "$(ls -A $TMPDIR)"; }
check "defaults: the private redis-server is gone and its directory removed" private_gone

# --- someone else's server: keys outside the prefix survive, ours are deleted
start_redis a
cli a SET keep:me precious >/dev/null
cli a RPUSH mylist x >/dev/null		# redis-benchmark's key name, not ours
run_bc $T/keep run redis server=$T/a.sock tests=SET,LPUSH,GET,SET_GET keyspace=1000 key_pattern=zipf,sequential --time 0.15 $Q -o $T/keep.json
expect_rc "external server: all cases ok" 0
check "external server: a key written before the run is still there" test "$(cli a GET keep:me)" = precious
check "external server: mylist (outside the prefix) untouched" test "$(cli a LLEN mylist)" = 1
check "external server: no benchcore: keys left" test "$(cli a --scan --pattern 'benchcore:*' | wc -l)" = 0
expect_py "external server: SET_GET records SET and GET, 1:10" $T/keep.json \
	'all(8 <= c["ops"]["GET"]["count"] / c["ops"]["SET"]["count"] <= 12 for c in d["cases"] if c["params"]["tests"] == "SET_GET")'

# ===== issue 24: a run never harms what it did not create, and never calls a dead server ok
SRV=$(cd "$(dirname "$0")/../servers" && pwd)
data() { python3 $SRV/redis_data.py "$@"; }
# someone else's server with someone else's data: 2000 keys and a user's own
# benchcore:user-owned-config; every attack below ends with a DUMP of each of them
start_redis f
data fill $T/f.sock 2000 100
FOREIGN=$(data digest $T/f.sock)
foreign_kept() { test "$(data digest $T/f.sock)" = "$FOREIGN"; }
check "issue 24: 2001 foreign keys on the server (2000 user:N, benchcore:user-owned-config)" test "${FOREIGN%% *}" = 2001
# wait_runkeys N: until the run in the background has its N keys in place (its fill done)
wait_runkeys() { for _ in $(seq 200); do [ "$(data runkeys $T/f.sock)" -ge "$1" ] && return 0; sleep 0.05; done; }
# wait_clients N: until N clients are connected to f (a run's workers are, once its window is near)
wait_clients() {
	for _ in $(seq 200); do
		[ "$(cli f INFO clients | tr -d '\r' | sed -n 's/^connected_clients://p')" -ge "$1" ] && return 0
		sleep 0.05
	done
}

# 1. custom commands reaching outside the run's keys: refused at init, before connecting
cli f CONFIG RESETSTAT >/dev/null
i=0
for cmd in FLUSHDB 'SET user:1 __data__' 'DEL __key__ user:2' 'SET benchcore:user-owned-config __data__' \
	FLUSHALL 'KEYS *' 'CONFIG SET maxmemory 1' 'EVAL return 1 0' 'DEBUG SLEEP 1' PING; do
	[ "${BC_QUICK:-0}" = 1 ] && [ $i -ge 4 ] && { echo "QUICK: custom: 6 of the 10 refused commands left out"; break; }
	i=$((i + 1))
	run_bc $T/cu$i run redis server=$T/f.sock tests=custom "command=$cmd" --time 0.2 $Q -o $T/cu$i.json
	expect_rc "custom \"$cmd\": the run fails" 1
	expect_py "custom \"$cmd\": refused at init, saying why and naming allow_foreign" $T/cu$i.json \
		'd["cases"][0]["reason"].startswith("init: redis: custom command refused") and "allow_foreign" in d["cases"][0]["error"]["hint"] and d["cases"][0].get("ops", {}) == {}'
done
check "custom: none of those commands reached the server (INFO commandstats)" \
	bash -c "! redis-cli -s $T/f.sock INFO commandstats | grep -Eq 'cmdstat_(flushdb|flushall|keys|eval|del|debug|set):'"
check "custom: the foreign keys are byte-identical (DUMP of each)" foreign_kept
run_bc $T/cok run redis server=$T/f.sock tests=custom 'command=hset __key__:h f __data__' keyspace=100 --time 0.2 $Q -o $T/cok.json
expect_rc "custom HSET __key__:h f __data__: ok" 0
expect_py "custom: the run's own prefix benchcore:<16 hex>: recorded, allow_foreign false" $T/cok.json \
	'__import__("re").fullmatch("benchcore:[0-9a-f]{16}:", d["cases"][0]["info"]["key_prefix"]) and d["cases"][0]["info"]["allow_foreign"] == "false"'
# ABI 1.3 declare_process: a server on a unix socket runs on this machine, its CPU is the
# workload's (INFO's process_id); the host's side is another branch's: fails on a host without it
expect_py "a local server (unix socket) declared: its CPU recorded as cpu.server_pct" $T/cok.json \
	'd["cases"][0]["cpu"].get("server_pct", 0) > 0'
check "custom: the run's keys deleted, the foreign ones byte-identical" \
	bash -c "test \$(python3 $SRV/redis_data.py runkeys $T/f.sock) = 0 && test \"\$(python3 $SRV/redis_data.py digest $T/f.sock)\" = '$FOREIGN'"

# 3. two runs on one server: the second one's cleanup (after each of its cases)
#    deletes only its own keys, while the first reads its own
"$BC" run redis server=$T/f.sock tests=GET keyspace=2000 clients=4 --time 2 $Q -o $T/twoA.json \
	>$T/twoA.out 2>$T/twoA.err </dev/null &
apid=$!
wait_runkeys 2000
sleep 0.2
run_bc $T/twoB run redis server=$T/f.sock tests=SET,LPUSH,GET keyspace=500 clients=4 --time 0.2 $Q -o $T/twoB.json
wait $apid; RC=$?
expect_rc "two runs: the first run ok" 0
expect_py "two runs: the first read every key it filled (0 nil replies, 0 errors)" $T/twoA.json \
	'd["cases"][0]["status"] == "ok" and d["cases"][0]["info"]["nil_replies"] == "0" and d["cases"][0]["ops"]["GET"]["errors"] == 0'
expect_py "two runs: the second run's cases ok, under another prefix" $T/twoB.json \
	'all(c["status"] == "ok" for c in d["cases"]) and d["cases"][0]["info"]["key_prefix"] != json.load(open(sys.argv[1].replace("twoB", "twoA")))["cases"][0]["info"]["key_prefix"]'
check "two runs: no run keys left, the foreign ones (benchcore:user-owned-config too) byte-identical" \
	bash -c "test \$(python3 $SRV/redis_data.py runkeys $T/f.sock) = 0 && test \"\$(python3 $SRV/redis_data.py digest $T/f.sock)\" = '$FOREIGN'"

# nil replies where the test expects hits are errors: the run's keys deleted mid-window (a 5 s
# window: on a loaded machine the deleting helper took longer to start than a 1.5 s window lasted)
"$BC" run redis server=$T/f.sock tests=GET keyspace=1000 clients=4 --time 5 $Q -o $T/nil.json \
	>$T/nil.out 2>$T/nil.err </dev/null &
apid=$!
wait_runkeys 1000
sleep 0.5
data delrun $T/f.sock >/dev/null
kill -0 $apid 2>/dev/null && alive=1 || alive=0
check "keys gone mid-window: deleted while the run was still running" test "$alive" = 1
wait $apid; RC=$?
expect_rc "keys gone mid-window: the run fails" 1
expect_py "keys gone mid-window: the nil replies are errors of GET, beyond max_error_rate" $T/nil.json \
	'd["cases"][0]["status"] == "failed" and "operations failed" in d["cases"][0]["reason"] and d["cases"][0]["ops"]["GET"]["errors"] > 0 and d["cases"][0]["ops"]["GET"]["error_kinds"] == {"nil": d["cases"][0]["ops"]["GET"]["errors"]}'

# 2. maxmemory 20mb, allkeys-lru: a fill that would evict is refused with the figures
start_redis g --maxmemory 20mb --maxmemory-policy allkeys-lru
data fill $T/g.sock 2000 1000
GFOREIGN=$(data digest $T/g.sock)
run_bc $T/mm run redis server=$T/g.sock tests=GET keyspace=20000 data_size=1000 --time 0.2 $Q -o $T/mm.json
expect_rc "maxmemory: GET's fill of 20000 x 1000 bytes refused" 1
expect_py "maxmemory: refused before the fill, with maxmemory, used_memory and the policy" $T/mm.json \
	'"would make the server evict keys" in d["cases"][0]["reason"] and "maxmemory 20971520" in d["cases"][0]["error"]["detail"] and "allkeys-lru" in d["cases"][0]["error"]["detail"] and "uses " in d["cases"][0]["error"]["detail"]'
run_bc $T/mml run redis server=$T/g.sock tests=LPUSH --time 0.2 $Q -o $T/mml.json
expect_py "maxmemory: LPUSH (writes without bound) refused on a server that evicts" $T/mml.json \
	'"could make the server evict" in d["cases"][0]["reason"] and "allow_foreign" in d["cases"][0]["error"]["hint"]'
run_bc $T/mmok run redis server=$T/g.sock tests=GET keyspace=1000 data_size=100 --time 0.2 $Q -o $T/mmok.json
expect_rc "maxmemory: a fill that fits runs" 0
check "maxmemory: nothing evicted (evicted_keys 0), the foreign keys byte-identical" \
	bash -c "redis-cli -s $T/g.sock INFO stats | grep -q '^evicted_keys:0' && test \"\$(python3 $SRV/redis_data.py digest $T/g.sock)\" = '$GFOREIGN'"
run_bc $T/mmev run redis server=$T/g.sock tests=LPUSH allow_foreign=true data_size=10K --time 1 $Q -o $T/mmev.json
expect_py "maxmemory, allow_foreign: the server evicted keys during the case: it fails, saying so" $T/mmev.json \
	'd["cases"][0]["status"] == "failed" and "evicted keys" in d["cases"][0]["reason"] and "evicted_keys rose by" in d["cases"][0]["error"]["detail"]'

# 4. a server that stops answering (SIGSTOP): the stuck requests are in the histogram (reply_timeout
# raised above the stop, so that the window's end sees them)
PID_F=$(cli f INFO server | tr -d '\r' | sed -n 's/^process_id://p')
trap 'kill -CONT $PID_F 2>/dev/null; for p in $PIDS; do kill -9 $p 2>/dev/null; done; rm -rf "$T"' EXIT
"$BC" run redis server=$T/f.sock tests=SET clients=4 reply_timeout=5 --time 2 $Q -o $T/stop1.json >$T/stop1.out 2>$T/stop1.err </dev/null &
apid=$!
wait_clients 6	# 4 workers, the run's set-up connection, redis-cli
sleep 0.8; kill -STOP $PID_F; sleep 2.2; kill -CONT $PID_F
wait $apid; RC=$?
expect_py "SIGSTOP for the last second: the 4 requests in flight at the stop counted, max latency >= 0.8 s" $T/stop1.json \
	'd["cases"][0]["info"]["unfinished"] == "4" and d["cases"][0]["ops"]["SET"]["latency_ns"]["max"] >= 8e8 and float(d["cases"][0]["info"]["unfinished_max_ms"]) >= 800'
expect_py "SIGSTOP for the last second: requests_per_sec counts answered requests only" $T/stop1.json \
	'abs(d["cases"][0]["metrics"]["requests_per_sec"]["value"] * d["cases"][0]["duration_s"] - (d["cases"][0]["ops"]["SET"]["count"] - 4)) < 2'
"$BC" run redis server=$T/f.sock tests=SET clients=4 reply_timeout=5 --warmup 1 --time 0.5 -q -o $T/stop2.json >$T/stop2.out 2>$T/stop2.err </dev/null &
apid=$!
wait_clients 6
sleep 0.3; kill -STOP $PID_F; sleep 1.8; kill -CONT $PID_F
wait $apid; RC=$?
expect_rc "SIGSTOP before the window: the run fails" 1
expect_py "SIGSTOP before the window: no request completed, said so with the wait" $T/stop2.json \
	'd["cases"][0]["status"] == "failed" and "no request completed" in d["cases"][0]["reason"] and "still waiting" in d["cases"][0]["error"]["detail"]'
# issue 37: stopped about 1 s into a 6 s window, alive but not answering: with the default reply_timeout
# (1 s) the case fails, naming the server, whatever the module's callbacks return
# (stopped once the window's first interval report is out: the window is running and the
# server answered in it; a 6 s window leaves room for a loaded machine's late report)
"$BC" run redis server=$T/f.sock tests=SET clients=4 --time 6 --warmup 0 -o $T/stop3.json >$T/stop3.out 2>$T/stop3.err </dev/null &
apid=$!
for _ in $(seq 600); do grep -q '^\[ 1s \] thds:' $T/stop3.err && break; sleep 0.02; done
kill -STOP $PID_F; sleep 2.5; kill -CONT $PID_F
wait $apid; RC=$?
expect_rc "SIGSTOP in the window: the run fails" 1
expect_py "SIGSTOP in the window: failed, the reason names the server that stopped answering" $T/stop3.json \
	'(lambda c: c["status"] == "failed" and "the server at unix:'$T'/f.sock stopped answering" in c["reason"] and "longer than reply_timeout (1 s)" in c["error"]["detail"])(d["cases"][0])'
check "SIGSTOP: the foreign keys byte-identical" foreign_kept

# 5, 6. a peer that is not Redis: tests/servers/fake_redis.py MODE
fake() {	# fake MODE: a fake server on $T/fake.sock
	rm -f $T/fake.sock
	"$PY" $SRV/fake_redis.py "$1" $T/fake.sock $T/unlink.log >$T/fake.log 2>&1 &	# not the python3 function: $! is the server
	FAKE_PID=$!; PIDS="$PIDS $FAKE_PID"
	for _ in $(seq 600); do [ -S $T/fake.sock ] && return 0; sleep 0.05; done
}
unfake() { kill $FAKE_PID 2>/dev/null; wait $FAKE_PID 2>/dev/null; }
RSS_MAX=150000; [ "${BC_QUICK:-0}" = 1 ] && RSS_MAX=400000	# KiB; ASan's own heap is larger
fake silent
run_bc $T/fs run redis server=$T/fake.sock tests=SET clients=2 --time 0.3 $Q -o $T/fs.json
unfake
expect_rc "silent server: the run fails" 1
expect_py "silent server: no request completed, the 2 waiting ones in the histogram (>= 0.25 s)" $T/fs.json \
	'"no request completed" in d["cases"][0]["reason"] and d["cases"][0]["ops"]["SET"]["count"] == 2 and d["cases"][0]["ops"]["SET"]["latency_ns"]["min"] >= 2.5e8'
for mode in huge bigarray infohuge; do
	fake $mode
	read -r rc rss < <(data peakrss "$BC" run redis server=$T/fake.sock tests=SET clients=2 --time 0.5 $Q -o $T/f$mode.json)
	unfake
	check "$mode reply: exit 1, peak RSS ${rss} KiB < $RSS_MAX KiB (600 MB sent)" test "$rc" = 1 -a "$rss" -lt $RSS_MAX
	expect_py "$mode reply: a protocol error naming the bound" $T/f$mode.json \
		'd["cases"][0]["status"] == "failed" and ("larger than the test can get" in d["cases"][0]["reason"] or "more than 16777216 bytes" in d["cases"][0]["error"]["detail"] or "incomplete after" in d["cases"][0]["error"]["detail"])'
done
fake err
run_bc $T/fe run redis server=$T/fake.sock tests=SET clients=2 --time 0.3 $Q -o $T/fe.json
unfake
expect_py "escapes in an error reply: the case fails with the server's message" $T/fe.json \
	'd["cases"][0]["status"] == "failed" and "red alert" in d["cases"][0]["reason"]'
# (the host escapes every text a module passes on: in the merged tree, not in this branch alone)
check "escapes in an error reply: no raw ESC or BEL printed (stdout, stderr)" \
	bash -c "! grep -q \$'[\\x1b\\x07]' $T/fe.out $T/fe.err"
expect_py "escapes in an error reply: no raw ESC or BEL in the reason written" $T/fe.json \
	'not any(ch in d["cases"][0]["reason"] + str(d["cases"][0]["error"]) for ch in "\x1b\x07")'
rm -f $T/unlink.log
fake scanall
run_bc $T/fsc run redis server=$T/fake.sock tests=SET clients=2 --time 0.2 $Q -o $T/fsc.json
unfake
expect_rc "a server whose SCAN ignores MATCH: the case ok" 0
check "a server whose SCAN ignores MATCH: cleanup unlinked only the run's keys (not user:1, not benchcore:user-owned-config)" \
	bash -c "test -s $T/unlink.log && ! grep -qv '^benchcore:[0-9a-f]\{16\}:' $T/unlink.log"
check "fake servers: none left running" bash -c "! pgrep -f '[f]ake_redis.py .* $T/fake.sock' >/dev/null"

if [ "${BC_QUICK:-0}" = 1 ]; then
	echo "QUICK: the 490 MB fill and data_size=64M under ulimit -v left out (ASan cannot run under ulimit -v)"
else
	# the fill is sent in batches of a few MB, whatever keyspace x data_size
	read -r rc rss < <(data peakrss "$BC" run redis server=$T/f.sock tests=GET keyspace=30000 data_size=16K --events 1000 --time 0 $Q -o $T/big.json)
	check "fill of 30000 x 16K (490 MB): exit $rc, peak RSS ${rss} KiB < 100000 KiB" test "$rc" = 0 -a "$rss" -lt 100000
	# data_size=64M under a memory limit: allocations checked, no crash; ended by a count of
	# requests, not a window: one 64 MB GET beside a loaded host's other work took over 1 s
	(ulimit -v 400000; "$BC" run redis server=$T/f.sock tests=GET data_size=64M keyspace=4 clients=1 --events 3 --time 0 $Q \
		-o $T/u64.json >$T/u64.out 2>$T/u64.err </dev/null)
	expect_py "data_size=64M under ulimit -v 400 MB: prepared and measured, not crashed" $T/u64.json \
		'd["cases"][0]["status"] == "ok" and d["cases"][0]["prepare"]["done"] == 4 and d["cases"][0]["ops"]["GET"]["count"] == 3'
	(ulimit -v 2000000; "$BC" run redis server=$T/f.sock tests=SET data_size=64M clients=50 --time 0.2 $Q \
		-o $T/u64t.json >$T/u64t.out 2>$T/u64t.err </dev/null)
	expect_py "data_size=64M x 50 clients under ulimit -v 2 GB: out of memory is an error, not a crash" $T/u64t.json \
		'd["cases"][0]["status"] == "failed" and "out of memory" in d["cases"][0]["reason"] and "write buffer" in d["cases"][0]["error"]["detail"]'
fi
check "issue 24: after all of it, the foreign keys byte-identical, no run keys left" \
	bash -c "test \$(python3 $SRV/redis_data.py runkeys $T/f.sock) = 0 && test \"\$(python3 $SRV/redis_data.py digest $T/f.sock)\" = '$FOREIGN'"

# --- errors: an error reply fails the case with the server's message
# (a key of the user's, reached only with allow_foreign = true, which the case records)
cli a SET wt:str astring >/dev/null
run_bc $T/wt run redis server=$T/a.sock tests=custom allow_foreign=true 'command=LPUSH wt:str __data__' --time 0.3 $Q -o $T/wt.json
expect_rc "WRONGTYPE: the run fails" 1
expect_py "WRONGTYPE: the reason is the server's message, counted as an error" $T/wt.json \
	'"WRONGTYPE Operation against a key holding the wrong kind of value" in d["cases"][0]["reason"] and d["cases"][0]["ops"]["custom"]["count"] == 0'
expect_py "allow_foreign = true: recorded in the case's info" $T/wt.json 'd["cases"][0]["info"]["allow_foreign"] == "true"'
check "WRONGTYPE: the user's key is still the string it was" test "$(cli a GET wt:str)" = astring
cli a CONFIG SET maxmemory 1 >/dev/null
run_bc $T/oom run redis server=$T/a.sock tests=LPUSH,PING_MBULK,SET keyspace=100000 --time 0.3 $Q -o $T/oom.json
cli a CONFIG SET maxmemory 0 >/dev/null
expect_py "OOM: LPUSH fails with the server's message and a hint, PING still runs" $T/oom.json \
	'd["cases"][0]["status"] == "failed" and "OOM command not allowed" in d["cases"][0]["reason"] and "maxmemory" in d["cases"][0]["error"]["hint"] and d["cases"][1]["status"] == "ok"'
expect_py "OOM: SET of 100000 keys refused before it runs (maxmemory 1, noeviction), with the figures" $T/oom.json \
	'd["cases"][2]["reason"].startswith("prepare: redis: the test") and "data does not fit" in d["cases"][2]["reason"] and "refuse the writes (OOM)" in d["cases"][2]["error"]["detail"]'
run_bc $T/ct run redis server=$T/a.sock clients=1 --threads 2 tests=GET --time 0.1 $Q -o $T/ct.json
expect_py "clients < threads: refused, saying clients is the total" $T/ct.json \
	'"fewer clients than threads" in d["cases"][0]["reason"] and "in total" in d["cases"][0]["error"]["hint"]'

# --- pipeline 16: each request timed on its own, not the batch's first byte
run_bc $T/p16 run redis server=$T/a.sock tests=GET pipeline=16 clients=4 data_size=16K --time 0.3 $Q -o $T/p16.json
# (each of the 4 clients may have a batch cut by the window at either edge: its requests
# counted in part, its first byte in or out)
expect_py "pipeline 16: first_byte (redis-benchmark's stamp) has one value per batch of 16" $T/p16.json \
	'(lambda c, b: 16 * (b - 4) <= c <= 16 * (b + 4))(d["cases"][0]["ops"]["GET"]["count"], d["cases"][0]["ops"]["GET"]["dists"]["first_byte"]["count"])'
expect_py "pipeline 16: per-request p50 above the batch's first-byte p50 (not one figure for all 16)" $T/p16.json \
	'd["cases"][0]["ops"]["GET"]["latency_ns"]["p50"] > d["cases"][0]["ops"]["GET"]["dists"]["first_byte"]["latency_ns"]["p50"]'

# --- open loop: latency from the intended start, the uncorrected one kept
run_bc $T/rate run redis server=$T/a.sock tests=GET clients=4 --rate 2000 --time 0.5 $Q -o $T/rate.json
expect_py "rate: requested ~2000/s, achieved ~100%, uncorrected distribution kept" $T/rate.json \
	'1600 < d["cases"][0]["metrics"]["requested_per_sec"]["value"] < 2400 and 85 < d["cases"][0]["metrics"]["achieved_pct"]["value"] < 115 and d["cases"][0]["ops"]["GET"]["dists"]["uncorrected"]["count"] > 500'

# --- --events: a request budget like redis-benchmark -n
run_bc $T/ev run redis server=$T/a.sock tests=SET pipeline=4 --events 10000 --time 0 $Q -o $T/ev.json
expect_py "--events 10000: exactly 10000 requests" $T/ev.json 'd["cases"][0]["ops"]["SET"]["count"] == 10000'
# issue 61: at the default warmup (1 s), 2 threads, a case per test: requests sent in warmup are not counted
run_bc $T/evw run redis server=$T/a.sock tests=SET,GET pipeline=4 --threads 2 --events 10000 --time 0 -q -o $T/evw.json
expect_py "--events 10000 after the default warmup at 2 threads: exactly 10000 requests (count + errors)" $T/evw.json \
	'[(c["status"], sum(o["count"] + o.get("errors", 0) for o in c["ops"].values())) for c in d["cases"]] == [("ok", 10000)] * 2'

# --- AUTH: requirepass and an ACL user
start_redis b --requirepass sekritpw --user alice on '>alicepw' '~*' '+@all'
run_bc $T/na run redis server=$T/b.sock tests=GET --time 0.1 $Q -o $T/na.json
expect_py "AUTH: no password -> the server requires one" $T/na.json \
	'"requires a password" in d["cases"][0]["reason"] and "NOAUTH" in d["cases"][0]["error"]["detail"]'
run_bc $T/wp run redis server=$T/b.sock tests=GET password=wrongpw --time 0.1 $Q -o $T/wp.json
expect_py "AUTH: wrong password -> authentication failed (WRONGPASS)" $T/wp.json \
	'"authentication failed" in d["cases"][0]["reason"] and "WRONGPASS" in d["cases"][0]["error"]["detail"]'
export RD_PW=sekritpw
run_bc $T/rp run redis server=$T/b.sock tests=SET password_env=RD_PW --time 0.1 $Q -o $T/rp.json
expect_rc "AUTH: right password (password_env) ok" 0
echo alicepw >$T/alice.pw
run_bc $T/acl run redis server=$T/b.sock tests=GET user=alice password_file=$T/alice.pw --time 0.1 $Q -o $T/acl.json
expect_rc "AUTH: ACL user with the right password ok" 0
run_bc $T/aclw run redis server=$T/b.sock tests=GET user=alice password=sekritpw --time 0.1 $Q -o $T/aclw.json
expect_py "AUTH: ACL user with the wrong password fails" $T/aclw.json '"WRONGPASS" in d["cases"][0]["error"]["detail"]'
check "AUTH: no password in any output or result" \
	bash -c "! grep -l 'sekritpw\|alicepw\|wrongpw' $T/{na,wp,rp,acl,aclw}.{out,err,json}"

# --- a server killed mid-run: the case fails within a second or two, the run goes on
start_redis k
"$BC" run redis server=$T/k.sock tests=SET,GET --time 5 $Q -o $T/kill.json >$T/kill.out 2>$T/kill.err </dev/null &
bcpid=$!
sleep 1.2
kill -9 $PID_k
killed=$(date +%s%N)
wait $bcpid
ms=$(( ($(date +%s%N) - killed) / 1000000 ))
expect_py "server killed: SET fails saying the server closed the connection" $T/kill.json \
	'd["cases"][0]["status"] == "failed" and "server closed the connection" in d["cases"][0]["reason"]'
expect_py "server killed: the run went on (GET reported: cannot connect)" $T/kill.json \
	'len(d["cases"]) == 2 and "cannot connect" in d["cases"][1]["reason"]'
check "server killed: benchcore done ${ms} ms after the kill (< 3000)" test $ms -lt 3000

# --- no redis-server installed: skipped with the reason
mkdir -p $T/nobin
env PATH=$T/nobin "$BC" run redis tests=GET --time 0.1 $Q -o $T/nobin.json >$T/nobin.out 2>$T/nobin.err </dev/null
expect_py "no redis-server: skipped, saying why" $T/nobin.json \
	'd["cases"][0]["status"] == "skipped" and "redis-server is not installed" in d["cases"][0]["reason"]'

# --- server_bin (issue 60): the private server's program, Redis or Valkey, named and versioned
ver_of() { "$1" --version | sed -n 's/.* v=\([^ ]*\).*/\1/p'; }
RV=$(ver_of redis-server)
run_bc $T/sb run redis tests=SET server_bin=redis-server,$(command -v redis-server) --time 0.1 $Q -o $T/sb.json
expect_rc "server_bin: a sweep over redis-server by name and by path" 0
expect_py "server_bin: each case names its server (redis) and its version ($RV, as redis-server --version says)" $T/sb.json \
	'[(c["status"], c["info"]["server_name"], c["info"]["server_version"]) for c in d["cases"]] == [("ok", "redis", "'$RV'")] * 2 and d["cases"][1]["info"]["server"] == "private '"$(command -v redis-server)"' (unix socket)"'
run_bc $T/sbsplit compare --split server_bin $T/sb.json
expect_rc "server_bin: compare --split server_bin reads the sweep as two systems" 0
expect_grep "server_bin: --split: the first configured value is A" $T/sbsplit.out "^A: .* server_bin=redis-server "
expect_grep "server_bin: --split: the cases matched across the two (a metric row A -> B)" $T/sbsplit.out "requests_per_sec .* -> "
run_bc $T/sbbad run redis tests=SET server_bin=$T/no/such-server --time 0.1 $Q -o $T/sbbad.json
expect_py "server_bin: a program that is not there fails the case, saying which and why" $T/sbbad.json \
	'd["cases"][0]["status"] == "failed" and "server_bin not found" in d["cases"][0]["reason"] and "no/such-server is not an executable file" in d["cases"][0]["error"]["detail"]'
run_bc $T/sbname run redis tests=SET server_bin=no-such-server --time 0.1 $Q -o $T/sbname.json
expect_py "server_bin: a name not in PATH fails the case, naming PATH" $T/sbname.json \
	'd["cases"][0]["status"] == "failed" and "no executable no-such-server in PATH" in d["cases"][0]["error"]["detail"]'
run_bc $T/sbsrv run redis tests=SET server=$T/x.sock server_bin=valkey-server --time 0.1 $Q -o $T/sbsrv.json
expect_py "server_bin: refused beside server (no private server is started then)" $T/sbsrv.json \
	'd["cases"][0]["status"] == "failed" and "server_bin without a private server" in d["cases"][0]["reason"]'
if command -v valkey-server >/dev/null; then
	VV=$(ver_of valkey-server)
	run_bc $T/vk run redis tests=SET,GET,LPUSH server_bin=redis-server,valkey-server --time 0.1 $Q -o $T/vk.json
	expect_rc "valkey: the same tests against a private redis-server and a private valkey-server" 0
	expect_py "valkey: its cases say server_name valkey, version $VV (valkey_version, not its redis_version)" $T/vk.json \
		'sorted({(c["info"]["server_name"], c["info"]["server_version"]) for c in d["cases"]}) == [("redis", "'$RV'"), ("valkey", "'$VV'")] and all(c["info"]["redis_mode"] == "standalone" for c in d["cases"])'
	run_bc $T/vksplit compare --split server_bin $T/vk.json
	expect_rc "valkey: compare --split server_bin: Redis against Valkey" 0
	expect_grep "valkey: --split: B is valkey-server" $T/vksplit.out "^B: .* server_bin=valkey-server "
	expect_grep "valkey: --split: LPUSH matched across the two" $T/vksplit.out "^redis tests=LPUSH"
	expect_grep "valkey: --split: what differs names the server and its version" $T/vksplit.out \
		"^what differs, most likely to explain a difference: .*userland \(redis\.server_name: redis -> valkey; redis\.server_version: $RV -> $VV"
	valkey-server --port 0 --unixsocket $T/vx.sock --save '' --appendonly no --dir $T >$T/vx.log 2>&1 &
	vkpid=$!
	PIDS="$PIDS $vkpid"
	until_seen 600 test -S $T/vx.sock
	run_bc $T/vkext run redis server=$T/vx.sock tests=SET --time 0.1 $Q -o $T/vkext.json
	expect_py "valkey: by address too: server_name valkey, $VV" $T/vkext.json \
		'd["cases"][0]["status"] == "ok" and d["cases"][0]["info"]["server_name"] == "valkey" and d["cases"][0]["info"]["server_version"] == "'$VV'"'
	kill $vkpid; wait $vkpid 2>/dev/null
else
	echo "SKIP: valkey: valkey-server is not installed here (packaged from Debian 13 on): Redis against Valkey not run"
fi

# --- TLS with a CA made here
if redis-server --help 2>&1 | grep -q . && command -v openssl >/dev/null; then
	# P-256 keys: made in milliseconds, where RSA-2048 ones take a second each
	(cd $T && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem -days 1 -subj /CN=bc-test-ca &&
	 openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout srv.key -out srv.csr -subj /CN=localhost &&
	 printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >ext.cnf &&
	 openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out srv.pem -days 1 -extfile ext.cnf &&
	 openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout other.key -out other.pem -days 1 -subj /CN=other) >/dev/null 2>&1
	tport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	start_redis t --tls-port $tport --bind 127.0.0.1 --tls-cert-file $T/srv.pem --tls-key-file $T/srv.key \
		--tls-ca-cert-file $T/ca.pem --tls-auth-clients no
	if grep -q 'Ready to accept' $T/t.log; then
		run_bc $T/tls run redis server=127.0.0.1:$tport tls=true tls_ca=$T/ca.pem tests=SET,GET --time 0.2 $Q -o $T/tls.json
		expect_py "TLS: SET and GET ok over TLS, recorded" $T/tls.json \
			'all(c["status"] == "ok" and c["info"]["tls"] == "on" and c["metrics"]["requests_per_sec"]["value"] > 0 for c in d["cases"])'
		run_bc $T/tlsw run redis server=127.0.0.1:$tport tls=true tls_ca=$T/other.pem tests=GET --time 0.1 $Q -o $T/tlsw.json
		expect_py "TLS: a certificate from another CA is refused, saying so" $T/tlsw.json \
			'"TLS handshake failed" in d["cases"][0]["reason"] and "certificate verification failed" in d["cases"][0]["error"]["detail"]'
	else
		echo "SKIP: TLS: this redis-server has no TLS support ($(tail -1 $T/t.log))"
	fi
else
	echo "SKIP: TLS: openssl not installed"
fi

# --- a 3-node cluster on loopback ports: routed by CLUSTER SLOTS, MOVED followed
free_ports() {	# three ports P with P and P+10000 (the cluster bus) free
	python3 -c '
import random, socket
got = []
while len(got) < 3:
    p = random.randrange(20000, 29000)
    try:
        for q in (p, p + 10000):
            s = socket.socket(); s.bind(("127.0.0.1", q)); s.close()
        got.append(p)
    except OSError:
        pass
print(*got)'
}
if redis-cli --help 2>&1 | grep -q -- '--cluster'; then
	CP=$(free_ports)
	for p in $CP; do
		mkdir -p $T/c$p
		(cd $T/c$p && exec redis-server --port $p --bind 127.0.0.1 --cluster-enabled yes --save '' \
			--appendonly no --cluster-config-file nodes.conf >log 2>&1) &
		PIDS="$PIDS $!"
	done
	for p in $CP; do for _ in $(seq 300); do redis-cli -p $p ping >/dev/null 2>&1 && break; sleep 0.05; done; done
	redis-cli --cluster create $(for p in $CP; do printf '127.0.0.1:%s ' $p; done) --cluster-replicas 0 \
		--cluster-yes >$T/cluster.log 2>&1
	P1=${CP%% *}
	for _ in $(seq 600); do redis-cli -p $P1 cluster info | grep -q cluster_state:ok && break; sleep 0.05; done
	run_bc $T/cl run redis server=127.0.0.1:$P1 cluster=true tests=SET,GET,LPUSH,MSET keyspace=10000 clients=6 \
		--threads 2 --time 0.2 $Q -o $T/cl.json
	expect_py "cluster: SET, GET, LPUSH ok over 3 masters; MSET skipped (CROSSSLOT), saying why" $T/cl.json \
		'[c["status"] for c in d["cases"]] == ["ok", "ok", "ok", "skipped"] and all(c["info"]["cluster_masters"] == "3" for c in d["cases"]) and "different slots" in d["cases"][3]["reason"]'
	check "cluster: no benchcore: keys left on any master" \
		test "$(for p in $CP; do redis-cli -p $p --scan --pattern 'benchcore:*'; done | wc -l)" = 0
	run_bc $T/cln run redis server=127.0.0.1:$P1 tests=SET keyspace=1000 --time 0.1 $Q -o $T/cln.json
	expect_py "cluster without cluster=true: MOVED fails the case, hint says cluster = true" $T/cln.json \
		'"MOVED" in d["cases"][0]["error"]["detail"] + d["cases"][0]["reason"] and "cluster = true" in d["cases"][0]["error"]["hint"]'
	# the reshard starts once the window has (its first interval line), so the client
	# meets moved slots however long the start takes on a loaded machine; reply_timeout=5:
	# a reshard there can hold a node past the 1 s default (this is about MOVED being
	# followed, not about a stopped server)
	"$BC" run redis server=127.0.0.1:$P1 cluster=true tests=SET keyspace=100000 clients=4 reply_timeout=5 \
		--time 3 --warmup 0 --report-interval 0.2 -o $T/mv.json >$T/mv.out 2>$T/mv.err </dev/null &
	bcpid=$!
	for _ in $(seq 200); do grep -qE '^\[ *[0-9.]+s \]' $T/mv.err 2>/dev/null && break; sleep 0.05; done
	P2=$(echo $CP | cut -d' ' -f2)
	redis-cli --cluster reshard 127.0.0.1:$P1 --cluster-from "$(redis-cli -p $P1 cluster myid)" \
		--cluster-to "$(redis-cli -p $P2 cluster myid)" --cluster-slots 50 --cluster-yes >$T/reshard.log 2>&1
	wait $bcpid
	[ -s $T/mv.json ] && "$PY" -S -c "import json,sys; c=json.load(open(sys.argv[1]))['cases'][0]; print('case:', c['status'], c.get('reason') or '', 'redirects', c['info'].get('redirects'))" $T/mv.json
	expect_py "cluster: slots moved mid-run: MOVED followed, the case ok, no errors" $T/mv.json \
		'd["cases"][0]["status"] == "ok" and int(d["cases"][0]["info"]["redirects"]) > 0 and d["cases"][0]["ops"]["SET"]["errors"] == 0'
else
	echo "SKIP: cluster: this redis-cli has no --cluster"
fi
