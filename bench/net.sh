#!/usr/bin/env bash
# net parity on loopback: `benchcore run net` (in-process server) against
#   tcp_stream, 1 flow, 1 thread    iperf3 -c 127.0.0.1 -t TIME (receiver Gbit/s)
#   tcp_stream, 2 threads           iperf3 -c 127.0.0.1 -t TIME -P 2 (one thread per
#                                   stream from iperf3 3.16 on, one for both before)
#   tcp_rr, 1 byte                  qperf tcp_lat msg_size=1 (mean one-way latency)
#   tcp_rr, 14 bytes                sockperf ping-pong -m 14 --mps=max (14 is its
#                                   smallest message: its header)
#   tcp_stream, 1 flow, against a separate `benchcore serve` (two processes,
#                                   as iperf3 runs): for information
# Targets: Gbit/s and transactions/s >= 1.0 x the reference; p50 round trip no
# higher than the reference's (qperf and sockperf report half the round trip:
# it is doubled here; qperf gives a mean only, so its rate is 1 / (2 x mean)).
# Both sides warm up for 1 s (iperf3 -O 1, benchcore --warmup 1). Rounds are
# interleaved (reference, benchcore; next round benchcore first) ROUNDS times,
# and each ratio is the median of the rounds' ratios.
#   bench/net.sh        (TIME=10 ROUNDS=3)
. "$(dirname "$0")/lib.sh"
TIME=${TIME:-10}
ROUNDS=${ROUNDS:-3}
for t in iperf3 qperf sockperf; do
	command -v $t >/dev/null || { echo "bench/net.sh: $t is not installed (scripts/deps.sh)" >&2; exit 2; }
done
W=$BENCH_TMP/rounds
: >"$W"
PIDS=()
stop_refs() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; PIDS=(); }
trap 'stop_refs; rm -rf "$BENCH_TMP"' EXIT
# The reference servers listen on free ports picked now (three distinct ones, the
# sockets held together): fixed ports collided with any other run of this script
# on the machine (e.g. one in a Debian 13 root, which shares the host's network),
# and the clients then measured the other run's server or failed halfway.
read -r IPORT QPORT KPORT <<<"$(python3 -c 'import socket
s = [socket.socket() for _ in range(3)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')"
iperf3 -s -p "$IPORT" >"$BENCH_TMP/iperf3.log" 2>&1 & PIDS+=($!)
qperf --listen_port "$QPORT" >"$BENCH_TMP/qperf.log" 2>&1 & PIDS+=($!)
"$BC" serve --port 0 >"$BENCH_TMP/serve.out" 2>/dev/null & PIDS+=($!)
sockperf sr --tcp -i 127.0.0.1 -p "$KPORT" >"$BENCH_TMP/sockperf.log" 2>&1 & PIDS+=($!)
# wait_listen TOOL PID PORT LOG: up to 5 s for TOOL to listen on PORT; exit 2 with its log if it died or never did
wait_listen() {
	local i
	for i in $(seq 50); do
		ss -Hltn "sport = :$3" 2>/dev/null | grep -q . && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	echo "bench/net.sh: the $1 server did not listen on 127.0.0.1:$3:" >&2
	tail -3 "$4" >&2
	exit 2
}
wait_listen iperf3 "${PIDS[0]}" "$IPORT" "$BENCH_TMP/iperf3.log"
wait_listen qperf "${PIDS[1]}" "$QPORT" "$BENCH_TMP/qperf.log"
wait_listen sockperf "${PIDS[3]}" "$KPORT" "$BENCH_TMP/sockperf.log"
for i in $(seq 50); do grep -q '^benchcore serve: listening' "$BENCH_TMP/serve.out" && break; sleep 0.1; done
SPORT=$(sed -n 's/^benchcore serve: listening on .*:\([0-9]*\)$/\1/p' "$BENCH_TMP/serve.out")
[ -n "$SPORT" ] || { echo "bench/net.sh: benchcore serve did not say its port" >&2; exit 2; }

ref_stream() {	# P: receiver Gbit/s of iperf3 -P P
	iperf3 -c 127.0.0.1 -p "$IPORT" -t "$TIME" -O 1 -P "$1" -J 2>/dev/null |
		python3 -c 'import json,sys
d=json.load(sys.stdin)
if "error" in d: sys.exit("bench/net.sh: iperf3: " + d["error"])
print(d["end"]["sum_received"]["bits_per_second"]/1e9)'
}
ref_qperf() {	# prints "trans/s p50_us" from qperf's mean one-way latency
	qperf 127.0.0.1 --listen_port "$QPORT" -t "$TIME" -m 1 -vu tcp_lat 2>/dev/null |
		python3 -c 'import re,sys
t=sys.stdin.read(); m=re.search(r"latency\s*=\s*([0-9.]+)\s*(ns|us|ms)", t)
if not m: sys.exit("bench/net.sh: qperf printed no latency: " + " ".join(t.split())[-200:])
v=float(m.group(1))*{"ns":1e-3,"us":1,"ms":1e3}[m.group(2)]
print(1e6/(2*v), 2*v)'
}
ref_sockperf() {	# prints "trans/s p50_us" (sockperf's p50 is half the round trip)
	kill -0 "${PIDS[2]}" 2>/dev/null || { echo "bench: the sockperf server died:" >&2; tail -3 "$BENCH_TMP/sockperf.log" >&2; }
	sockperf pp --tcp -i 127.0.0.1 -p "$KPORT" -t "$TIME" -m 14 --mps=max 2>&1 |
		python3 -c 'import re,sys
t=sys.stdin.read()
d=re.search(r"RunTime=([0-9.]+) sec; SentMessages=\d+; ReceivedMessages=(\d+)", t)
p=re.search(r"percentile 50.000 =\s*([0-9.]+)", t)
if not (d and p): sys.exit("bench/net.sh: sockperf printed no run time or p50: " + " ".join(t.split())[-200:])
print(int(d.group(2))/float(d.group(1)), 2*float(p.group(1)))'
}
bc_stream() {	# threads [options]: Gbit/s
	local n=$1; shift
	bc_run "$BENCH_TMP/s.json" net test=tcp_stream --threads "$n" --time "$TIME" --warmup 1 "$@" || exit 1
	bc_get "$BENCH_TMP/s.json" "c['metrics']['gbit_per_sec']['value']"
}
bc_rr() {	# msg_size: "trans/s p50_us"
	bc_run "$BENCH_TMP/r.json" net test=tcp_rr msg_size="$1" --time "$TIME" --warmup 1 || exit 1
	bc_get "$BENCH_TMP/r.json" "'%s %s' % (c['metrics']['transactions_per_sec']['value'], c['ops']['transaction']['latency_ns']['p50'] / 1e3)"
}

machine
# iperf3 3.16 gave each -P stream its own thread (Debian 12's 3.12 runs both in one
# thread, Debian 13's 3.18 in two): the 2-thread row means a different thing on each
iperf_streams=$(iperf3 --version | python3 -c 'import re,sys
m = re.search(r"iperf (\d+)\.(\d+)", sys.stdin.read())
print("a thread per stream" if m and (int(m[1]), int(m[2])) >= (3, 16) else "both streams in one thread")')
echo "# iperf3 -P 2: $iperf_streams (iperf3 3.16 moved each stream to its own thread)"
echo "# $(iperf3 --version | head -1); qperf $(dpkg-query -W -f='${Version}' qperf 2>/dev/null); sockperf $(dpkg-query -W -f='${Version}' sockperf 2>/dev/null)"
echo "# loopback, $TIME s per run, $ROUNDS interleaved rounds; target: ratio >= 1.0, p50 no higher"
for r in $(seq 1 "$ROUNDS"); do
	for what in s1 s2 rr1 rr14 s1x; do
		case $what in
		s1) a() { ref_stream 1; }; b() { bc_stream 1; };;
		s2) a() { ref_stream 2; }; b() { bc_stream 2; };;
		rr1) a() { ref_qperf; }; b() { bc_rr 1; };;
		rr14) a() { ref_sockperf; }; b() { bc_rr 14; };;
		s1x) a() { ref_stream 1; }; b() { bc_stream 1 server=127.0.0.1:$SPORT; };;
		esac
		if [ $((r % 2)) = 1 ]; then ref=$(a); bcv=$(b); else bcv=$(b); ref=$(a); fi
		# a tool that gave no figure has said why on stderr: stop rather than tabulate half a round
		[ -n "$ref" ] && [ -n "$bcv" ] || { echo "bench/net.sh: no figure for $what in round $r (reference: '$ref', benchcore: '$bcv')" >&2; exit 1; }
		echo "$what $ref $bcv" >>"$W"
	done
	echo "round $r of $ROUNDS done"
done
python3 - "$W" >"$BENCH_TMP/table" <<'PY'
import statistics as st, sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    rows.setdefault(f[0], []).append([float(x) for x in f[1:]])
name = {"s1": "tcp_stream 1 flow vs iperf3", "s2": "tcp_stream 2 threads vs iperf3 -P 2",
        "s1x": "(info) 1 flow, benchcore serve process",
        "rr1": "tcp_rr 1 B vs qperf tcp_lat", "rr14": "tcp_rr 14 B vs sockperf pp"}
print("%-38s %12s %12s %7s   %s" % ("case", "reference", "benchcore", "ratio", "p50 round trip us (ref / bc)"))
for k in ("s1", "s2", "rr1", "rr14", "s1x"):
    if k not in rows:
        continue
    v = rows[k]
    if k.startswith("s"):
        ref, bc = st.median(x[0] for x in v), st.median(x[1] for x in v)
        ratio = st.median(x[1] / x[0] for x in v)
        print("%-38s %10.2f G %10.2f G %7.3f" % (name[k], ref, bc, ratio))
        if k != "s1x":
            print("RATIO %.3f" % ratio)
    else:
        ref, bc = st.median(x[0] for x in v), st.median(x[2] for x in v)
        ratio = st.median(x[2] / x[0] for x in v)
        p_ref, p_bc = st.median(x[1] for x in v), st.median(x[3] for x in v)
        print("%-38s %10.0f/s %10.0f/s %7.3f   %.1f / %.1f" % (name[k], ref, bc, ratio, p_ref, p_bc))
        print("RATIO %.3f" % ratio)
        print("RATIO %.3f" % (p_ref / p_bc))
PY
table_judge "$BENCH_TMP/table" 1.0
finish
