#!/usr/bin/env bash
# redis module (issue #16) against real redis-server instances this test
# starts on unix sockets and loopback ports: the default test list with no
# config (private server), keys outside the prefix kept, AUTH (requirepass and
# an ACL user), error replies failing the case with the server's message,
# per-request latency under a pipeline, a server killed mid-run, rate mode,
# TLS with a CA made here, a 3-node cluster. Skips what is not installed.
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
	for _ in $(seq 100); do [ -S $T/$name.sock ] && return 0; sleep 0.05; done
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

# --- errors: an error reply fails the case with the server's message
cli a SET 'benchcore:key:__rand_int__' astring >/dev/null
run_bc $T/wt run redis server=$T/a.sock tests=custom 'command=LPUSH __key__ __data__' --time 0.3 $Q -o $T/wt.json
expect_rc "WRONGTYPE: the run fails" 1
expect_py "WRONGTYPE: the reason is the server's message, counted as an error" $T/wt.json \
	'"WRONGTYPE Operation against a key holding the wrong kind of value" in d["cases"][0]["reason"] and d["cases"][0]["ops"]["custom"]["count"] == 0'
cli a CONFIG SET maxmemory 1 >/dev/null
run_bc $T/oom run redis server=$T/a.sock tests=SET,PING_MBULK keyspace=100000 --time 0.3 $Q -o $T/oom.json
cli a CONFIG SET maxmemory 0 >/dev/null
expect_py "OOM: SET fails with the server's message and a hint, PING still runs" $T/oom.json \
	'd["cases"][0]["status"] == "failed" and "OOM command not allowed" in d["cases"][0]["reason"] and "maxmemory" in d["cases"][0]["error"]["hint"] and d["cases"][1]["status"] == "ok"'
run_bc $T/ct run redis server=$T/a.sock clients=1 --threads 2 tests=GET --time 0.1 $Q -o $T/ct.json
expect_py "clients < threads: refused, saying clients is the total" $T/ct.json \
	'"fewer clients than threads" in d["cases"][0]["reason"] and "in total" in d["cases"][0]["error"]["hint"]'

# --- pipeline 16: each request timed on its own, not the batch's first byte
run_bc $T/p16 run redis server=$T/a.sock tests=GET pipeline=16 clients=4 data_size=16K --time 0.3 $Q -o $T/p16.json
expect_py "pipeline 16: first_byte (redis-benchmark's stamp) has one value per batch of 16" $T/p16.json \
	'15 <= d["cases"][0]["ops"]["GET"]["count"] / d["cases"][0]["ops"]["GET"]["dists"]["first_byte"]["count"] <= 17'
expect_py "pipeline 16: per-request p50 above the batch's first-byte p50 (not one figure for all 16)" $T/p16.json \
	'd["cases"][0]["ops"]["GET"]["latency_ns"]["p50"] > d["cases"][0]["ops"]["GET"]["dists"]["first_byte"]["latency_ns"]["p50"]'

# --- open loop: latency from the intended start, the uncorrected one kept
run_bc $T/rate run redis server=$T/a.sock tests=GET clients=4 --rate 2000 --time 0.5 $Q -o $T/rate.json
expect_py "rate: requested ~2000/s, achieved ~100%, uncorrected distribution kept" $T/rate.json \
	'1600 < d["cases"][0]["metrics"]["requested_per_sec"]["value"] < 2400 and 85 < d["cases"][0]["metrics"]["achieved_pct"]["value"] < 115 and d["cases"][0]["ops"]["GET"]["dists"]["uncorrected"]["count"] > 500'

# --- --events: a request budget like redis-benchmark -n
run_bc $T/ev run redis server=$T/a.sock tests=SET pipeline=4 --events 10000 --time 0 $Q -o $T/ev.json
expect_py "--events 10000: exactly 10000 requests" $T/ev.json 'd["cases"][0]["ops"]["SET"]["count"] == 10000'

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
	for p in $CP; do for _ in $(seq 50); do redis-cli -p $p ping >/dev/null 2>&1 && break; sleep 0.05; done; done
	redis-cli --cluster create $(for p in $CP; do printf '127.0.0.1:%s ' $p; done) --cluster-replicas 0 \
		--cluster-yes >$T/cluster.log 2>&1
	P1=${CP%% *}
	for _ in $(seq 100); do redis-cli -p $P1 cluster info | grep -q cluster_state:ok && break; sleep 0.05; done
	run_bc $T/cl run redis server=127.0.0.1:$P1 cluster=true tests=SET,GET,LPUSH,MSET keyspace=10000 clients=6 \
		--threads 2 --time 0.2 $Q -o $T/cl.json
	expect_py "cluster: SET, GET, LPUSH ok over 3 masters; MSET skipped (CROSSSLOT), saying why" $T/cl.json \
		'[c["status"] for c in d["cases"]] == ["ok", "ok", "ok", "skipped"] and all(c["info"]["cluster_masters"] == "3" for c in d["cases"]) and "different slots" in d["cases"][3]["reason"]'
	check "cluster: no benchcore: keys left on any master" \
		test "$(for p in $CP; do redis-cli -p $p --scan --pattern 'benchcore:*'; done | wc -l)" = 0
	run_bc $T/cln run redis server=127.0.0.1:$P1 tests=SET keyspace=1000 --time 0.1 $Q -o $T/cln.json
	expect_py "cluster without cluster=true: MOVED fails the case, hint says cluster = true" $T/cln.json \
		'"MOVED" in d["cases"][0]["error"]["detail"] + d["cases"][0]["reason"] and "cluster = true" in d["cases"][0]["error"]["hint"]'
	"$BC" run redis server=127.0.0.1:$P1 cluster=true tests=SET keyspace=100000 clients=4 --time 1.5 $Q \
		-o $T/mv.json >$T/mv.out 2>$T/mv.err </dev/null &
	bcpid=$!
	sleep 0.4
	P2=$(echo $CP | cut -d' ' -f2)
	redis-cli --cluster reshard 127.0.0.1:$P1 --cluster-from "$(redis-cli -p $P1 cluster myid)" \
		--cluster-to "$(redis-cli -p $P2 cluster myid)" --cluster-slots 50 --cluster-yes >$T/reshard.log 2>&1
	wait $bcpid
	expect_py "cluster: slots moved mid-run: MOVED followed, the case ok, no errors" $T/mv.json \
		'd["cases"][0]["status"] == "ok" and int(d["cases"][0]["info"]["redirects"]) > 0 and d["cases"][0]["ops"]["SET"]["errors"] == 0'
else
	echo "SKIP: cluster: this redis-cli has no --cluster"
fi
