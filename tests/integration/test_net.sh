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
# what was sent (the received rate over 1 - loss) never beyond the default 100 Mbit/s by more
# than 15%; how much of it a loaded machine's receiver took in is the full form's judgement
expect_py "loopback udp_stream: sent at no more than the default 100 Mbit/s (+15%), loss and jitter reported" \
	$T/lo-udp_stream.json "0 < $M['mbit_per_sec']['value'] / (1 - $M['udp_loss_pct']['value'] / 100) < 115 and 0 <= $M['udp_loss_pct']['value'] < 100 and 'udp_jitter_ms' in $M"
if [ "${BC_QUICK:-0}" = 1 ]; then
	echo "QUICK: loopback udp_stream at the default 100 Mbit/s within 15% with loss under 5% (1 check): make check-full"
else
	expect_py "loopback udp_stream: the default 100 Mbit/s within 15%, loss under 5%" $T/lo-udp_stream.json \
		"abs($M['mbit_per_sec']['value'] - 100) < 15 and $M['udp_loss_pct']['value'] < 5"
fi
run_bc $T/udpw run net test=udp_stream bitrate=50 --time 0.4 --warmup 0.6 -q --no-isolate -o $T/udpw.json
# (with the warmup's 0.6 s counted the server would have seen about 2.5 times what the window
# sent; fewer than sent is loss, which a loaded receiver has)
expect_py "udp_stream: the server's loss count covers the measured window only, not the warmup" $T/udpw.json \
	"(lambda n, sent: 0 < n <= 1.1 * sent)(sum(int(x) for x in d['cases'][0]['info']['udp_datagrams'].replace(',', '').split() if x.isdigit()), d['cases'][0]['ops']['send']['count'])"
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
	"$M['gbit_per_sec']['value'] > 0 and d['cases'][0]['info']['zerocopy'] in ('zero-copy', 'kernel fell back to copying') and d['cases'][0]['ops']['send']['errors'] == 0"
run_net $T/ubytes test=udp_stream msg_size=1000 bitrate=40 --time 0.6 --warmup 0
expect_py "udp_stream: send bytes are datagrams x msg_size (not x the batch again)" $T/ubytes.json \
	"d['cases'][0]['ops']['send']['count'] > 0 and d['cases'][0]['ops']['send']['bytes'] == d['cases'][0]['ops']['send']['count'] * 1000"
# The server starts its count when it sees the client's window open (a "mark"
# on the control connection): a loaded server's worker sees it late and the
# window's first datagrams fall before it (census beside a second suite: the
# 1% missed). Never more than sent, whatever the load; within 1% alone.
expect_py "... and the server's count (received + lost) is never more than the datagrams sent" $T/ubytes.json \
	"(lambda n, sent: 0 < n <= sent + 3)(sum(int(x) for x in d['cases'][0]['info']['udp_datagrams'].split() if x.isdigit()), d['cases'][0]['ops']['send']['count'])"
if [ "${BC_QUICK:-0}" = 1 ]; then
	echo "QUICK: the datagrams sent against the server's count within 1% (1 check): make check-full, alone"
else
	expect_py "... and the datagrams sent agree with the server's count (received + lost) within 1%" $T/ubytes.json \
		"(lambda n, sent: abs(n - sent) <= 0.01 * sent + 3)(sum(int(x) for x in d['cases'][0]['info']['udp_datagrams'].split() if x.isdigit()), d['cases'][0]['ops']['send']['count'])"
fi
# (at most: how far below the cap a sender starved by a loaded machine falls is the machine's)
expect_py "... and no interval's MiB/s is over the 40 Mbit/s asked for (15% for an interval's edges), not 7x" $T/ubytes.json \
	"d['cases'][0]['intervals'] and all(i['ops']['send']['mib_per_sec'] < 1.15 * 40e6 / 8 / 2**20 for i in d['cases'][0]['intervals'])"
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
	# emptied here, before the server starts: a server started again under the same name
	# would otherwise have its predecessor's port read from the file before its own
	# redirection empties it (seen once in the Debian 13 root on a loaded machine)
	: >"$T/$n.out"
	# NOFILE=N: the server under ulimit -n N (exec keeps $! the server's pid)
	sh -c 'ulimit -n "$0" && exec "$@"' "${NOFILE:-$(ulimit -n)}" "$BC" serve --port 0 "$@" \
		>"$T/$n.out" 2>"$T/$n.err" </dev/null &
	SPID=$!
	PORT=
	for _ in $(seq 300); do
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

stop_serve

# ------------------------------------------------ serve --new-secret FILE: one command (issue 52)
# the serve side of the cloud study without a secret file or config made by hand
start_serve ns --new-secret "$T/net.secret"
check "--new-secret: a new file of the owner's only (0600) holding a 64-hex-digit secret" \
	sh -c "test \"\$(stat -c %a '$T/net.secret')\" = 600 && grep -Eqx '[0-9a-f]{64}' '$T/net.secret'"
expect_grep "--new-secret: serve names the file and says clients must prove the secret" $T/ns.err \
	"a new secret is in $T/net.secret .*secret_file=FILE"
run_net $T/nsok server=127.0.0.1:$PORT secret_file=$T/net.secret
expect_rc "--new-secret: a client with the file as its secret_file runs" 0
run_net $T/nsno server=127.0.0.1:$PORT
expect_rc "--new-secret: a client without it fails" 1
stop_serve
check "--new-secret: the secret is in no output" \
	sh -c "! grep -qF \"\$(cat '$T/net.secret')\" $T/ns.out $T/ns.err $T/nsok.json $T/nsok.out $T/nsok.err"
cp "$T/net.secret" "$T/net.secret.before"
run_bc $T/ns2 serve --port 0 --new-secret "$T/net.secret"
expect_rc "--new-secret on a file that is there: refused" 2
check "... the file untouched" cmp -s "$T/net.secret" "$T/net.secret.before"
expect_grep "... saying why, and how to serve with that file" $T/ns2.err "cannot make .*File exists"
start_serve srv -c "$T/serve.conf"

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

# ------------------------------------------- serve held or abused (issue 24)
# netpeer.py speaks the control protocol itself, to do what the real client never does.
cat >"$T/netpeer.py" <<'PY'
# A hostile or hand-driven net peer for test_net.sh: speaks the control
# protocol itself (4-byte length + JSON) to reach what the real client never
# does. Usage: netpeer.py SCENARIO PORT [ARGS...]; prints one line per finding.
import hashlib, hmac, json, os, resource, socket, struct, sys, time

def readn(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise EOFError("closed")
        b += c
    return b

def send(s, obj):
    b = json.dumps(obj).encode()
    s.sendall(struct.pack(">I", len(b)) + b)

def recv(s):
    n = struct.unpack(">I", readn(s, 4))[0]
    return json.loads(readn(s, n))

def start(port, secret=os.environ.get("NET_TEST_SECRET"), **p):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    h = recv(s)
    m = {"type": "test", "v": 1, "test": "tcp_stream", "flows": 1, "threads": 1, "msg_size": 1024}
    m.update(p)
    if secret:
        m["auth"] = hmac.new(secret.encode(), b"benchcore-net/1" + bytes.fromhex(h["challenge"]),
                             hashlib.sha256).hexdigest()
    send(s, m)
    return s, recv(s)

def stop(s):
    send(s, {"type": "stop", "v": 1})
    return recv(s)

def raise_nofile(n):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, n)), hard))

def flood(port, n, hold, marker):
    """a test's data port flooded with n connections that never send their header"""
    raise_nofile(n + 100)
    s, r = start(port)
    assert r["type"] == "ready", r
    d = socket.create_connection(("127.0.0.1", r["data_port"]))
    d.sendall(bytes.fromhex(r["cookie"]) + struct.pack(">I", 0))
    socks, failed = [], 0
    for _ in range(n):
        try:
            c = socket.socket()
            c.settimeout(2)
            c.connect(("127.0.0.1", r["data_port"]))
            socks.append(c)
        except OSError:
            failed += 1
    open(marker, "w").write("flooding\n")
    time.sleep(hold)
    res = stop(s)
    print("flood connected=%d failed=%d results=%s conns=%s" % (len(socks), failed, res["type"], res.get("conns")))

def idle(port, n, hold):
    """n control connections that never send a test request"""
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
    print("idle open=%d" % len(socks), flush=True)
    time.sleep(hold)
    print("idle held=%d" % len(socks))

def trickle(port):
    """a length header a byte every 0.4 s, then body bytes: one deadline from accept"""
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    t0 = time.time()
    print("trickle connected", flush=True)
    recv(s)
    how = "?"
    try:
        for b in struct.pack(">I", 200) + b"x" * 200:
            s.send(bytes([b]))
            time.sleep(0.4)
        how = "never"
    except OSError:
        how = "reset"
    # the server's error message, or the close
    try:
        s.settimeout(5)
        m = recv(s)
        how = m.get("code")
    except Exception:
        pass
    print("trickle closed after %.1f s (%s)" % (time.time() - t0, how))

def udp_dgram(cookie, seq, size):
    return (bytes.fromhex(cookie)[:8] + struct.pack(">II", 0, 0) + struct.pack(">QQ", seq, 0)).ljust(size, b"u")

def udp(port, test, spoof):
    """datagrams with the right cookie from spoof (not the control's address) and from 127.0.0.1"""
    s, r = start(port, test=test, msg_size=64)
    assert r["type"] == "ready", r
    dst = ("127.0.0.1", r["udp_port"])
    bad = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    bad.bind((spoof, 0))
    good = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    good.bind(("127.0.0.1", 0))
    for i in range(500):
        bad.sendto(udp_dgram(r["cookie"], i, 64), dst)
    for i in range(40):
        good.sendto(udp_dgram(r["cookie"], i, 64), dst)
        time.sleep(0.002)
    def answers(sock):
        n = 0
        sock.settimeout(0.5)
        try:
            while True:
                sock.recv(2048)
                n += 1
        except socket.timeout:
            return n
    nb, ng = answers(bad), answers(good)
    res = stop(s)
    print("%s spoofed_answers=%d own_answers=%d transactions=%d packets=%d bytes_rx=%d" %
          (test, nb, ng, res["transactions"], res["packets"], res["bytes_rx"]))

def stale(port, secs):
    """a test whose client went quiet while strangers keep connecting to its data port"""
    s, r = start(port)
    assert r["type"] == "ready", r
    t0, socks, how = time.time(), [], "still running"
    s.settimeout(0.1)
    while time.time() - t0 < secs:
        try:
            socks.append(socket.create_connection(("127.0.0.1", r["data_port"]), timeout=1))
        except OSError:
            pass
        try:
            how = recv(s).get("code")
            break
        except socket.timeout:
            pass
        except Exception:
            how = "closed"
            break
    print("stale %s after %.1f s" % (how, time.time() - t0))

def limit(port, threads, flows, msg_size):
    s, r = start(port, threads=threads, flows=flows, msg_size=msg_size)
    print("limit %s %s: %s" % (r["type"], r.get("code"), r.get("message")), flush=True)
    time.sleep(1.5)	# an admitted test holds its buffers meanwhile

def body(port, raw):
    """a test request whose body is raw bytes (escapes in the server's log)"""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    recv(s)
    b = raw.encode().decode("unicode_escape").encode("latin-1")
    s.sendall(struct.pack(">I", len(b)) + b)
    try:
        m = recv(s)
        print("body %s" % m.get("code"))
    except Exception as e:
        print("body closed")

if __name__ == "__main__":
    cmd, port = sys.argv[1], int(sys.argv[2])
    a = sys.argv[3:]
    if cmd == "flood": flood(port, int(a[0]), float(a[1]), a[2])
    elif cmd == "idle": idle(port, int(a[0]), float(a[1]))
    elif cmd == "trickle": trickle(port)
    elif cmd == "udp": udp(port, a[0], a[1])
    elif cmd == "stale": stale(port, float(a[0]))
    elif cmd == "limit": limit(port, int(a[0]), int(a[1]), int(a[2]))
    elif cmd == "body": body(port, a[0])
PY
peer() { python3 "$T/netpeer.py" "$@"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
cat >"$T/att.conf" <<CONF
serve = { secret_env = "NET_TEST_SECRET"; max_clients = 4; };
CONF
NOFILE=1024 start_serve att -c "$T/att.conf"
peer flood "$PORT" 1100 4 "$T/flooding" >"$T/flood.out" 2>&1 &
FPID=$!
for _ in $(seq 300); do [ -e "$T/flooding" ] && break; sleep 0.1; done
c0=$(cpu_ticks "$SPID"); sleep 1.5; c1=$(cpu_ticks "$SPID")
fds=$(ls "/proc/$SPID/fd" | wc -l)
echo "1,100 header-less data connections: server $fds descriptors (ulimit -n 1024), $(( (c1 - c0) * 100 / $(getconf CLK_TCK) * 2 / 3 ))% of a CPU"
check "1,100 header-less data connections: the server holds under 200 descriptors (ulimit -n 1024)" test "$fds" -lt 200
check "... and does not spin (under 40% of a CPU over 1.5 s)" test $(( (c1 - c0) * 100 )) -lt $(( 40 * 3 / 2 * $(getconf CLK_TCK) ))
run_net $T/flood-c server=127.0.0.1:$PORT secret_env=NET_TEST_SECRET test=tcp_rr
expect_rc "... and an authenticated client still runs a test meanwhile" 0
wait $FPID
expect_grep "... the flooded test itself ends with its results (its one real data connection)" $T/flood.out \
	"^flood connected=1100 failed=0 results=results conns=1$"
expect_grep "... and the server says it closed the flood at accept and dropped the header-less ones" $T/att.err \
	"data connections closed at accept .*dropped without a header within 1000 ms"
run_net $T/many server=127.0.0.1:$PORT secret_env=NET_TEST_SECRET flows=200 --threads 2
expect_rc "... while the places for header-less connections still let a 2 x 200-flow stream open every flow" 0
expect_py "... its flows all opened and counted (a refused or dropped one fails the case)" $T/many.json \
	"len(d['cases'][0]['info']['per_flow_mbit_first32'].split(',')) == 32 and $M['gbit_per_sec']['value'] > 0.2"
peer udp "$PORT" udp_rr 127.0.0.77 >"$T/udp-rr.out" 2>&1
expect_grep "udp_rr: 500 datagrams with the cookie from 127.0.0.77 get no answer; the control address's 40 do" \
	$T/udp-rr.out "^udp_rr spoofed_answers=0 own_answers=40 transactions=40 "
peer udp "$PORT" udp_stream 127.0.0.77 >"$T/udp-st.out" 2>&1
expect_grep "udp_stream: datagrams from another address are not counted" $T/udp-st.out \
	"^udp_stream spoofed_answers=0 own_answers=0 transactions=0 packets=40 "
expect_grep "... and the server says it ignored them" $T/att.err "500 datagrams with the test's cookie from another address ignored"
peer limit "$PORT" 1024 65536 $((64 << 20)) >"$T/limit.out" 2>&1 &
LPID=$!
sleep 0.8
rss=$(awk '/^VmRSS/ {print $2}' "/proc/$SPID/status")
wait $LPID
expect_grep "threads=1024 flows=64 per thread msg_size=64M is refused, naming --max-threads" $T/limit.out \
	"^limit error limit: the test asks for 1024 worker threads .*at most 64 \(--max-threads\)"
check "... and the server's RSS stays small ($rss kB < 40 MB)" test "$rss" -lt 40000
peer body "$PORT" '\x1b[2J' >"$T/esc.out" 2>&1
peer body "$PORT" '{"type":"\x1b[31mred\x07","v":1}' >>"$T/esc.out" 2>&1
expect_grep "a body of escape sequences is refused" $T/esc.out "^body bad_request"
check "... and no escape or bell byte from a peer reaches serve's log raw" \
	python3 -c "import sys; b = open(sys.argv[1], 'rb').read(); sys.exit(b'\\x1b' in b or b'\\x07' in b)" "$T/att.err"
expect_grep "... it is shown escaped" $T/att.err "refused a bad control message: .*\\\\x1b"
stop_serve

# unauthenticated connections hold no --max-clients slot, and have a short deadline
cat >"$T/one.conf" <<CONF
serve = { secret_env = "NET_TEST_SECRET"; max_clients = 1; idle_timeout = 30; };
CONF
start_serve one -c "$T/one.conf"
peer idle "$PORT" 100 3 >"$T/idle.out" 2>&1 &
IPID=$!
# the trickle connects once the 100 are open (newer than them: not the one dropped for a
# newcomer), the client once the trickle is in (a loaded machine starts python slowly)
for _ in $(seq 200); do grep -q '^idle open=' "$T/idle.out" && break; sleep 0.05; done
peer trickle "$PORT" >"$T/trickle.out" 2>&1 &
TPID=$!
for _ in $(seq 200); do grep -q '^trickle connected' "$T/trickle.out" && break; sleep 0.05; done
run_net $T/idle-c server=127.0.0.1:$PORT secret_env=NET_TEST_SECRET test=tcp_rr
expect_rc "100 idle connections on a --max-clients 1 server: an authenticated client still runs" 0
expect_grep "... the oldest of more than 64 waiting ones gave up its place, and the server says so" $T/one.err \
	"dropped [0-9]+ unauthenticated connections \(more than 64 waiting"
wait $IPID $TPID
expect_grep "a length header trickled a byte at a time is dropped about 3 s after accept, not renewed to --idle-timeout 30" \
	$T/trickle.out "^trickle closed after [34]\.[0-9] s"
expect_grep "... the server says the handshake's deadline passed" $T/one.err "no test request: timed out \(the handshake's deadline\)"
stop_serve
start_serve stale --idle-timeout 1.5
peer stale "$PORT" 6 >"$T/stale.out" 2>&1
expect_grep "a stranger's connections to a test's data port do not keep it from --idle-timeout" $T/stale.out \
	"^stale idle after (1|2)\.[0-9] s"
stop_serve
start_serve lim --max-threads 4 --max-memory 2M
peer limit "$PORT" 2 2 $((1 << 20)) >"$T/limit2.out" 2>&1
expect_grep "2 workers x 1 MiB messages beyond --max-memory 2M: refused, naming --max-memory" $T/limit2.out \
	"^limit error limit: the test needs 2.3 MiB of server buffers .*2.0 MiB \(--max-memory\)"
run_net $T/lim-c server=127.0.0.1:$PORT --threads 8
expect_rc "a client with 8 threads against --max-threads 4 fails" 1
expect_grep "... saying the server refused it over its limits, naming --max-threads" $T/lim-c.out \
	"over its limits.*|at most 4 \(--max-threads\)"
expect_grep "... with the limit named" $T/lim-c.out "at most 4 \(--max-threads\)"
run_net $T/lim-ok server=127.0.0.1:$PORT --threads 2
expect_rc "... while a test within the limits runs" 0
stop_serve

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
# issue 37: the peer SIGSTOPped 0.3 s into a 3 s window (alive, not answering): the case fails with the
# default reply_timeout (2 s), naming the server, and its end does not wait for the stopped server
start_serve stopped
trap 'kill -CONT $SPID 2>/dev/null; rm -rf "$T"' EXIT
"$BC" run net server=127.0.0.1:$PORT --time 3 --warmup 0 -q -o $T/stopped.json >$T/stopped.out 2>$T/stopped.err </dev/null &
KPID=$!
for _ in $(seq 600); do grep -q 'client .*: tcp_stream, 1 flows' $T/stopped.err && break; sleep 0.05; done
sleep 0.3; kill -STOP "$SPID"; start=$(date +%s%N)
wait $KPID; RC=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
kill -CONT "$SPID"; trap 'rm -rf "$T"' EXIT; stop_serve
expect_rc "the server SIGSTOPped in the window: the run fails" 1
expect_py "... the case failed, the reason names the server that stopped answering" $T/stopped.json \
	"(lambda c: c['status'] == 'failed' and 'net: the server at 127.0.0.1:$PORT stopped answering' in c['reason'] and 'longer than reply_timeout (2 s)' in c['error']['detail'])(d['cases'][0])"
check "... done ${ms} ms after the stop (the window's 2.7 s left, not a wait for results: < 5000)" test $ms -lt 5000
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
mkfifo "$T/fifo.conf"
start=$(date +%s)
run_bc $T/u7 serve -c "$T/fifo.conf"
expect_rc "serve -c FIFO is refused" 2
check "... at once, not waiting for a writer" test $(( $(date +%s) - start )) -le 2
expect_grep "... saying it is a FIFO" $T/u7.err "fifo.conf.*not a regular file \(a FIFO\)"
printf 'serve = { secret_file = "%s/fifo.conf"; };\n' "$T" >"$T/bad3.conf"
run_bc $T/u8 serve -c "$T/bad3.conf"
expect_rc "serve: a FIFO as secret_file is refused" 2
expect_grep "... saying it is a FIFO" $T/u8.err "bad3.conf:1: could not read .*not a regular file \(a FIFO\)"
run_bc $T/u9 serve --max-memory lots
expect_rc "serve: --max-memory takes a size" 2
expect_grep "serve --help lists --max-threads" $T/help.out "--max-threads N +worker threads of all running tests"
expect_grep "serve --help lists --max-memory" $T/help.out "--max-memory SIZE +buffers of all running tests"
run_bc $T/u6 serve --module cpu
expect_rc "serve: a module without a server half" 2
expect_grep "... is refused by name" $T/u6.err "module \"cpu\" has no server half"
# serve's settings are one table: the file's values land, a flag wins over the file (--max-memory,
# and start_serve's --port 0 over the file's port = "auto"), the rest keep the table's defaults
printf 'serve = { max_clients = 3; max_memory = "64M"; port = "auto"; };\n' >"$T/prec.conf"
start_serve prec -c "$T/prec.conf" --max-memory 128M
expect_grep "serve: site.conf's max_clients lands" $T/prec.err "max 3 clients, 64 threads, 128 MiB"
stop_serve
check "... and stops cleanly on SIGTERM" test "$SRC" -eq 0
printf 'serve = { max_threads = 2000; };\n' >"$T/bad4.conf"
run_bc $T/u11 serve -c "$T/bad4.conf"
expect_rc "serve: a value out of the table's range in the file is a config error" 2
expect_grep "... named with file and line" $T/u11.err "bad4.conf:1: invalid value \"2000\" for \"max_threads\""

# ------------------------------------------- bench/net.sh beside another run
# bench/net.sh's reference servers once listened on fixed ports (iperf3 5299, qperf
# 19765, sockperf 11299): a second run on the machine (e.g. in a Debian 13 root, which
# shares the network) made them fail to bind, and the clients measured the other
# run's servers or printed tracebacks and half a table. Listeners that accept and
# hang up hold those ports here; the script must still print its four judged rows.
if command -v iperf3 >/dev/null && command -v qperf >/dev/null && command -v sockperf >/dev/null; then
	"$PY" -c 'import socket, sys, threading
def hold(p):
	s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
	try: s.bind(("0.0.0.0", p)); s.listen(8)
	except OSError: return
	while True:
		c, _ = s.accept(); c.close()
for p in (5299, 19765, 11299): threading.Thread(target=hold, args=(p,), daemon=True).start()
threading.Event().wait(600)' & HOLD=$!
	until_seen 50 sh -c 'ss -Hltn "sport = :11299" | grep -q .'
	TIME=1 ROUNDS=1 BC="$BC" bash bench/net.sh >"$T/bn.out" 2>"$T/bn.err"; BNRC=$?
	kill $HOLD 2>/dev/null; wait $HOLD 2>/dev/null
	check "bench/net.sh beside listeners on its old fixed ports: exit 0 or 1 (targets), not a failure (exit $BNRC)" \
		test "$BNRC" -le 1
	check "... and prints all four judged rows with their ratios" test "$(grep -cE \
		'^(tcp_stream 1 flow vs iperf3|tcp_stream 2 threads vs iperf3 -P 2|tcp_rr 1 B vs qperf tcp_lat|tcp_rr 14 B vs sockperf pp) .* [0-9]+[.][0-9]{3}( |$)' \
		"$T/bn.out")" -eq 4
	expect_no_grep "... with no traceback from a reference tool's parser" $T/bn.err "Traceback"
else
	echo "SKIP: bench/net.sh test: iperf3, qperf or sockperf is not installed (scripts/deps.sh)"
fi

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
	for _ in $(seq 300); do
		PORT=$(sed -n 's/^benchcore serve: listening on .*:\([0-9]*\)$/\1/p' "$T/ns.out"); [ -n "$PORT" ] && break; sleep 0.1
	done
	# the observer: the client side's veth counters (both directions), sampled every 0.1 s
	# while the run lasts; what the link carried is what a loaded machine let it carry
	ip netns exec $NB "$PY" -S -c '
import sys, time, os
d = "/sys/class/net/%s/statistics/" % sys.argv[1]
with open(sys.argv[2], "w") as f:
    while not os.path.exists(sys.argv[3]):
        b = int(open(d + "tx_bytes").read()) + int(open(d + "rx_bytes").read())
        f.write("%.3f %d\n" % (time.monotonic(), b)); f.flush(); time.sleep(0.1)
' bcvb$$ "$T/ns.samples" "$T/ns.done" &
	OBS=$!
	ip netns exec $NB "$BC" run net server=$A:$PORT --time 3 --warmup 1 -q --no-isolate -o $T/ns.json \
		>"$T/ns-c.out" 2>"$T/ns-c.err" </dev/null
	RC=$?
	touch "$T/ns.done"; wait $OBS
	expect_rc "two namespaces: benchcore serve in one, the module in the other" 0
	expect_py "two namespaces shaped to 500 Mbit/s: no more than the cap (+10%)" $T/ns.json \
		"$M['mbit_per_sec']['value'] <= 550"
	# the middle of the busy period (the rate above a fifth of its largest 0.1 s): the measured
	# window's last 3 s of the 4 s the traffic ran, less its edges; frames carry 1514 bytes on the
	# wire for 1448 of payload (benchcore counts payload)
	obs=$("$PY" -S -c '
import sys
s = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if len(l.split()) == 2]
r = [(s[i][0], (s[i][1] - s[i-1][1]) / (s[i][0] - s[i-1][0])) for i in range(1, len(s))]
top = max(x for _, x in r) if r else 0
busy = [t for t, x in r if x > top / 5]
if not busy:
    print(0); sys.exit()
a, b = busy[0] + 1.2, busy[-1] - 0.3
w = [p for p in s if a <= p[0] <= b]
print(round((w[-1][1] - w[0][1]) * 8 / (w[-1][0] - w[0][0]) / 1e6 * 1448 / 1514, 1) if len(w) > 2 else 0)
' "$T/ns.samples")
	expect_py "... and what the veth carried while it measured (${obs} Mbit/s of payload): within 10%" $T/ns.json \
		"$obs > 0 and abs($M['mbit_per_sec']['value'] - $obs) <= 0.1 * $obs"
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
