#!/usr/bin/env bash
# The net module and `benchcore serve`: every test type on loopback (the
# in-process server), a served module with a secret right, wrong and
# missing, a busy server, an unreachable one, one killed mid-test, hostile
# control messages, the serve command line, and two network namespaces
# joined by a veth pair shaped to 500 Mbit/s.
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
SECRET="s3cr3t-$$-tulip-anvil"
export NET_TEST_SECRET=$SECRET
run_net() { local o=$1; shift; run_bc "$o" run net --time 0.4 --warmup 0.1 -q --no-isolate -o "$o.json" "$@"; }
M="d['cases'][0]['metrics']"

# ---------------------------------------------------------------- loopback
for t in tcp_stream tcp_rr tcp_crr udp_stream udp_rr; do
	run_net $T/lo-$t test=$t
	expect_rc "loopback $t runs with no configuration" 0
	expect_py "loopback $t: the result says the server was in-process loopback" $T/lo-$t.json \
		"d['cases'][0]['info']['server'] == 'in-process loopback'"
done
for t in tcp_rr tcp_crr udp_rr; do
	expect_py "loopback $t: transactions/s, latency percentiles from the host histogram" $T/lo-$t.json \
		"$M['transactions_per_sec']['value'] > 200 and 0 < d['cases'][0]['ops']['transaction']['latency_ns']['p50'] < 50e6"
	expect_py "loopback $t: no gbit_per_sec (it would read 0.00), payload mbit_per_sec kept" $T/lo-$t.json \
		"'gbit_per_sec' not in $M and $M['mbit_per_sec']['value'] > 0"
done
expect_grep "tcp_rr: the run's summary line shows transactions/s as the primary metric" $T/lo-tcp_rr.out \
	"^1 +net .* ok +[0-9.]+ +transactions_per_sec [0-9.]+ trans/s"
expect_grep "tcp_stream: the summary line shows Gbit/s" $T/lo-tcp_stream.out \
	"^1 +net .* ok +[0-9.]+ +gbit_per_sec [0-9.]+ Gbit/s"
run_bc $T/cmp compare $T/lo-tcp_rr.json $T/lo-tcp_rr.json
expect_grep "compare of two tcp_rr results judges transactions_per_sec" $T/cmp.out \
	"^ +1 +transactions_per_sec +\\^"
expect_no_grep "... and shows no gbit_per_sec for it" $T/cmp.out "gbit_per_sec"
run_bc $T/cmpj compare --json $T/lo-tcp_rr.json $T/lo-tcp_rr.json
expect_py "compare counts transactions_per_sec as the tcp_rr headline (its primary metric)" $T/cmpj.out \
	"[r['metric'] for r in d['comparisons'][0]['rows'] if r['headline']] == ['transactions_per_sec']"
expect_py "loopback tcp_stream: Gbit/s, sender RTT and cwnd from TCP_INFO, server CPU" $T/lo-tcp_stream.json \
	"$M['gbit_per_sec']['value'] > 0.2 and $M['rtt_us']['value'] > 0 and $M['cwnd']['value'] > 0 and $M['server_cpu_pct']['value'] > 0"
expect_py "loopback udp_stream: the default 100 Mbit/s within 15%, loss under 5%, jitter reported" $T/lo-udp_stream.json \
	"abs($M['mbit_per_sec']['value'] - 100) < 15 and $M['udp_loss_pct']['value'] < 5 and 'udp_jitter_ms' in $M"
run_bc $T/udpw run net test=udp_stream bitrate=50 --time 0.4 --warmup 0.6 -q --no-isolate -o $T/udpw.json
expect_py "udp_stream: the server's loss count covers the measured window only, not the warmup" $T/udpw.json \
	"(lambda n, sent: 0.9 * sent <= n <= 1.1 * sent)(sum(int(x) for x in d['cases'][0]['info']['udp_datagrams'].replace(',', '').split() if x.isdigit()), d['cases'][0]['ops']['send']['count'])"
run_net $T/rev test=tcp_stream reverse=true flows=3 --threads 2
expect_rc "reverse stream, 3 flows x 2 threads" 0
expect_py "reverse: received bytes, per-flow figures and a fairness index over 6 flows" $T/rev.json \
	"'recv' in d['cases'][0]['ops'] and $M['gbit_per_sec']['value'] > 0.2 and 0 < $M['fairness']['value'] <= 1 and len(d['cases'][0]['info']['per_flow_mbit'].split(',')) == 6"
run_net $T/bidir test=tcp_stream bidir=true flows=2 msg_size=64K
expect_py "bidir: both directions on every flow" $T/bidir.json \
	"d['cases'][0]['ops']['send']['bytes'] > 0 and d['cases'][0]['ops']['recv']['bytes'] > 0"
run_net $T/zc test=tcp_stream zerocopy=true msg_size=64K
expect_rc "zerocopy: a MSG_ZEROCOPY stream runs on loopback" 0
expect_py "... delivers (acknowledged Gbit/s), says what the kernel did, counts no error" $T/zc.json \
	"$M['gbit_per_sec']['value'] > 0.2 and d['cases'][0]['info']['zerocopy'] in ('zero-copy', 'kernel fell back to copying') and d['cases'][0]['ops']['send']['errors'] == 0"
run_net $T/zc-rr test=tcp_rr zerocopy=true
expect_rc "zerocopy with a test other than tcp_stream is refused" 1
expect_grep "... saying where it applies" $T/zc-rr.out "zerocopy applies to this side's tcp_stream sends only"
run_net $T/bad-udp test=udp_rr msg_size=8
expect_rc "a udp msg_size smaller than the header is refused" 1
expect_grep "... with the size it needs" $T/bad-udp.out "msg_size does not fit a UDP datagram"

# ----------------------------------------------------------- serve helpers
# start_serve NAME ARGS...: benchcore serve in the background on a free port;
# sets SPID and PORT (the port from its "listening on" line).
start_serve() {
	local n=$1; shift
	"$BC" serve --port 0 "$@" >"$T/$n.out" 2>"$T/$n.err" </dev/null &
	SPID=$!
	PORT=
	for _ in $(seq 50); do
		PORT=$(sed -n 's/^benchcore serve: listening on .*:\([0-9]*\)$/\1/p' "$T/$n.out")
		[ -n "$PORT" ] && return 0
		sleep 0.1
	done
	fail "benchcore serve $n did not start"; cat "$T/$n.err"
}
stop_serve() { kill -TERM "$SPID" 2>/dev/null; wait "$SPID"; SRC=$?; }

# ------------------------------------------------ serve with a secret
cat >"$T/serve.conf" <<CONF
serve = { secret_env = "NET_TEST_SECRET"; max_clients = 1; idle_timeout = 1.5; };
CONF
start_serve srv -c "$T/serve.conf"
expect_grep "serve says it authenticates, without the secret" $T/srv.err "clients must prove the secret"
run_net $T/ok server=127.0.0.1:$PORT secret_env=NET_TEST_SECRET
expect_rc "served test with the right secret" 0
expect_py "... measured against the named server" $T/ok.json \
	"d['cases'][0]['info']['server'] == '127.0.0.1:$PORT' and $M['gbit_per_sec']['value'] > 0.1"
run_net $T/wrong server=127.0.0.1:$PORT secret=not-the-one
expect_rc "a wrong secret fails the case" 1
expect_grep "... saying authentication failed" $T/wrong.out "authentication failed"
run_net $T/missing server=127.0.0.1:$PORT
expect_rc "a missing secret fails the case" 1
expect_grep "... saying the server requires a secret" $T/missing.out "authentication required.*|requires a secret"

# busy: a first client holds the only slot, a second is turned away
run_bc $T/long run net server=127.0.0.1:$PORT secret_env=NET_TEST_SECRET --time 1.5 --warmup 0 -q --no-isolate &
LPID=$!
sleep 0.5
run_net $T/busy server=127.0.0.1:$PORT secret_env=NET_TEST_SECRET
expect_rc "a second client beyond --max-clients 1 fails" 1
expect_grep "... being told the server is busy" $T/busy.out "net server is busy"
wait $LPID
expect_grep "the first client finished its test meanwhile" $T/long.out "^1 of 1 cases ok"

# hostile clients: garbage, a huge length, a bad JSON body, a short message
cat >"$T/hostile.py" <<'PY'
import json, socket, struct, sys, time
port = int(sys.argv[1])
def talk(payload, wait=5):
    s = socket.create_connection(("127.0.0.1", port), timeout=wait)
    n = struct.unpack(">I", s.recv(4))[0]
    hello = b""
    while len(hello) < n:
        hello += s.recv(n - len(hello))
    s.sendall(payload)
    t0 = time.time()
    try:
        hdr = s.recv(4)
        n = struct.unpack(">I", hdr)[0]
        body = b""
        while len(body) < n:
            body += s.recv(n - len(body))
        msg = json.loads(body)
    except Exception as e:
        msg = {"code": "closed"}
    s.close()
    return msg.get("code"), time.time() - t0
print("garbage", *talk(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
print("huge", *talk(struct.pack(">I", 0xFFFFFFF0) + b"{}"))
print("badjson", *talk(struct.pack(">I", 9) + b"{not json"))
print("wrongtype", *talk(struct.pack(">I", 22) + b'{"type":"stop","v":1} '))
print("short", *talk(b"\x00\x00"))
PY
python3 "$T/hostile.py" "$PORT" >"$T/hostile.out" 2>&1
expect_grep "garbage on the control port: refused as too long" $T/hostile.out "^garbage too_long"
expect_grep "a huge length prefix: refused before any body is read" $T/hostile.out "^huge too_long (0\.|[0-9.]+e-)"
expect_grep "a body that is not JSON: bad_request" $T/hostile.out "^badjson bad_request"
expect_grep "a message out of order: bad_request" $T/hostile.out "^wrongtype bad_request"
expect_grep "a short message: dropped after --idle-timeout, not a hang" $T/hostile.out "^short timeout (1|2)\."
expect_grep "the server logs each refusal" $T/srv.err "refused a bad control message: length prefix"
run_net $T/after server=127.0.0.1:$PORT secret_env=NET_TEST_SECRET
expect_rc "after the hostile clients a normal test still succeeds" 0
stop_serve
check "serve exits 0 on SIGTERM" test "$SRC" -eq 0
expect_grep "... and says it stopped" $T/srv.err "stopped$"
if grep -rqF -- "$SECRET" "$T"/*.out "$T"/*.err "$T"/*.json; then
	fail "the secret appears in an output file: $(grep -rlF -- "$SECRET" "$T" | head -3)"
else
	pass "the secret appears in no output, log or result file"
fi

# --------------------------------------------------- faults of the peer
run_bc $T/unreach run net server=127.0.0.1:1 --time 0.3 --warmup 0 -q --no-isolate
expect_rc "an unreachable server fails the case" 1
expect_grep "... saying it cannot reach it, and how to fix it" $T/unreach.out "cannot reach the net server"
start_serve kill --max-clients 2
"$BC" run net server=127.0.0.1:$PORT --time 4 --warmup 0 -q --no-isolate >$T/killed.out 2>$T/killed.err </dev/null &
KPID=$!
sleep 1
kill -KILL "$SPID"; wait "$SPID" 2>/dev/null
start=$(date +%s)
wait $KPID; RC=$?
expect_rc "a server killed mid-test fails the case" 1
expect_grep "... with a lost data connection" $T/killed.out "lost a data connection"
check "... well before the test's end, not a hang" test $(( $(date +%s) - start )) -le 3
start_serve dur --max-duration 0.5
run_bc $T/dur run net server=127.0.0.1:$PORT --time 2 --warmup 0 -q --no-isolate
expect_rc "a test longer than --max-duration is stopped" 1
expect_grep "... and the client says why" $T/dur.out "max-duration"
run_net $T/rogue server=127.0.0.1:$PORT secret_env=NET_TEST_SECRET
expect_rc "mutual authentication: a client with a secret refuses a server that cannot prove it" 1
expect_grep "... saying the server failed to authenticate" $T/rogue.out "the net server failed to authenticate"
expect_grep "... and why" $T/rogue.out "did not prove it knows the secret"
stop_serve
run_net $T/lo-secret secret_env=NET_TEST_SECRET
expect_rc "a secret with the in-process server: both sides prove it" 0
start_serve once --once --idle-timeout 1
run_bc $T/once run net server=127.0.0.1:$PORT test=tcp_rr --time 2 --warmup 0 -q --no-isolate
expect_rc "a busy 2 s test is never taken for idle by --idle-timeout 1" 0
wait "$SPID"; SRC=$?
check "serve --once exits 0 after one test" test "$SRC" -eq 0

# ---------------------------------------------------- the serve command line
run_bc $T/help serve --help
expect_grep "serve --help shows the default port, the module's serve_port" $T/help.out "--port N .*default 5301, module net"
run_bc $T/u1 serve --bogus
expect_rc "serve: an unknown flag is a usage error" 2
run_bc $T/u2 serve --secret=x
expect_rc "serve: a secret on the command line is refused" 2
expect_grep "... pointing at the config file" $T/u2.err "config file only"
run_bc $T/u3 serve --max-clients 0
expect_rc "serve: --max-clients 0 is out of range" 2
printf 'serve = {\n  secret = "x";\n  colour = "blue";\n};\n' >"$T/bad.conf"
run_bc $T/u4 serve -c "$T/bad.conf"
expect_rc "serve: an unknown key in serve = { } is a config error" 2
expect_grep "... named with file and line" $T/u4.err "bad.conf:3: unknown setting \"colour\" in serve"
printf 'serve = { secret_file = "%s/nope"; };\n' "$T" >"$T/bad2.conf"
run_bc $T/u5 serve -c "$T/bad2.conf"
expect_grep "serve: an unreadable secret_file is named" $T/u5.err "bad2.conf:1: could not read .*nope"
run_bc $T/u6 serve --module cpu
expect_rc "serve: a module without a server half" 2
expect_grep "... is refused by name" $T/u6.err "module \"cpu\" has no server half"

# --------------------------------------------- two hosts: network namespaces
NA=bc-ns-$$-a NB=bc-ns-$$-b
cleanup_ns() { ip netns del $NA 2>/dev/null; ip netns del $NB 2>/dev/null; }
trap 'cleanup_ns; rm -rf "$T"' EXIT
if ! ip netns add $NA 2>/dev/null || ! ip netns add $NB 2>/dev/null; then
	echo "SKIP: two-host tests: cannot create network namespaces here (needs root and CONFIG_NET_NS)"
else
	# a /30 of our own inside our own namespaces: 10.199.<pid-derived>.0/30
	o3=$(( $$ % 250 ))
	A=10.199.$o3.1 Bh=10.199.$o3.2
	ip link add bcva$$ netns $NA type veth peer name bcvb$$ netns $NB
	ip -n $NA addr add $A/30 dev bcva$$ && ip -n $NA link set bcva$$ up && ip -n $NA link set lo up
	ip -n $NB addr add $Bh/30 dev bcvb$$ && ip -n $NB link set bcvb$$ up && ip -n $NB link set lo up
	for ns in $NA:bcva$$ $NB:bcvb$$; do
		ip netns exec ${ns%%:*} tc qdisc add dev ${ns##*:} root tbf rate 500mbit burst 1mb latency 50ms
	done
	ip netns exec $NA "$BC" serve --bind $A --port 0 >"$T/ns.out" 2>"$T/ns.err" </dev/null &
	NSPID=$!
	for _ in $(seq 50); do
		PORT=$(sed -n 's/^benchcore serve: listening on .*:\([0-9]*\)$/\1/p' "$T/ns.out"); [ -n "$PORT" ] && break; sleep 0.1
	done
	ip netns exec $NB "$BC" run net server=$A:$PORT --time 3 --warmup 1 -q --no-isolate -o $T/ns.json \
		>"$T/ns-c.out" 2>"$T/ns-c.err" </dev/null
	RC=$?
	expect_rc "two namespaces: benchcore serve in one, the module in the other" 0
	expect_py "two namespaces shaped to 500 Mbit/s: measured within 10% (the study's cap)" $T/ns.json \
		"abs($M['mbit_per_sec']['value'] - 500) <= 50"
	echo "two-host tcp_stream: $(jget $T/ns.json "round($M['mbit_per_sec']['value'], 1)") Mbit/s"
	if ip netns exec $NB tc qdisc replace dev bcvb$$ root netem delay 5ms 2>"$T/netem.err"; then
		ip netns exec $NA tc qdisc replace dev bcva$$ root netem delay 5ms
		ip netns exec $NB "$BC" run net server=$A:$PORT test=tcp_rr --time 1 --warmup 0.2 -q --no-isolate \
			-o $T/netem.json >/dev/null 2>&1
		expect_py "netem 5 ms each way: tcp_rr p50 about 10 ms" $T/netem.json \
			"9e6 < d['cases'][0]['ops']['transaction']['latency_ns']['p50'] < 12e6"
	else
		echo "SKIP: netem delay test: tc qdisc netem is not available in this kernel ($(head -1 $T/netem.err))"
	fi
	kill -TERM $NSPID; wait $NSPID
	cleanup_ns
fi
