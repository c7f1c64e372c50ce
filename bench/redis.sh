#!/usr/bin/env bash
# redis module vs redis-benchmark (7.0 on Debian 12, 8.0 on 13), side by side on the same redis-server.
#
#   bench/redis.sh          (N=200000 requests per test at -P 1, N16=1000000 at -P 16;
#                            ROUNDS=3; TRANSPORT=tcp or unix)
#
# Two settings, as in the issue: `-c 50 -P 1 -t set,get,lpush,lrange_100` and
# `-c 50 -P 16 -t set,get`. Both tools send the same number of requests per
# test (benchcore: --events N --time 0 --warmup 0; redis-benchmark: -n N, one
# -t per invocation), to one redis-server this script starts (loopback TCP on
# a free port, or a unix socket), with no persistence.
# Client CPU per request: redis-benchmark's user+sys (getrusage of the child,
# whole process) / N; benchcore's cpu.user_s + cpu.sys_s of the case (the
# case process over its measured window) / requests. redis-benchmark's
# LRANGE_100 run also does its LPUSH fill (N requests): its CPU is taken as
# that run's minus a separate `-t lpush` run's (the same N LPUSHes).
# Targets: requests/s ratio >= 1.0 and CPU per request ratio
# (benchcore / redis-benchmark) <= 1.0. p50 is shown for both (redis-benchmark
# stamps a pipelined batch once; benchcore times each request: at -P 16 the
# two p50 are not the same measure).
# Rounds are interleaved (odd rounds redis-benchmark first), medians compared.
. "$(dirname "$0")/lib.sh"
N=${N:-200000}
N16=${N16:-1000000}
ROUNDS=${ROUNDS:-3}
TRANSPORT=${TRANSPORT:-tcp}
command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null ||
	{ echo "bench/redis.sh: redis-server and redis-benchmark are needed (scripts/deps.sh)" >&2; exit 2; }

machine
echo "# $(redis-server --version | cut -d' ' -f1-3); $(redis-benchmark --version 2>&1 | head -1); transport $TRANSPORT; N=$N (-P 1), N16=$N16 (-P 16); $ROUNDS rounds"
python3 - "$BC" "$BENCH_TMP" "$N" "$N16" "$ROUNDS" "$TRANSPORT" >"$BENCH_TMP/table" <<'PY' || exit 1
import json, os, resource, socket, statistics as st, subprocess, sys, time
bc, tmp, n1, n16, rounds, transport = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
sock = os.path.join(tmp, "redis.sock")
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
srv = subprocess.Popen(["redis-server", "--port", str(port) if transport == "tcp" else "0", "--bind", "127.0.0.1",
                        "--unixsocket", sock, "--save", "", "--appendonly", "no", "--dir", tmp],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
for _ in range(100):
    if os.path.exists(sock): break
    time.sleep(0.05)
rb_addr = ["-h", "127.0.0.1", "-p", str(port)] if transport == "tcp" else ["-s", sock]
bc_addr = "127.0.0.1:%d" % port if transport == "tcp" else sock

def rb(test, p, n):
    """redis-benchmark -t test: {name: (rps, p50_ms)}, client CPU seconds."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(["redis-benchmark", *rb_addr, "-c", "50", "-P", str(p), "-n", str(n), "-t", test, "--csv"],
                         capture_output=True, text=True, check=True).stdout
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    rows = {}
    for line in out.splitlines()[1:]:
        f = [x.strip('"') for x in line.split('","')]
        rows[f[0].split(" ")[0]] = (float(f[1]), float(f[4]))
    return rows, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)

def bench(test, p, n):
    """benchcore: rps, p50_ms, CPU seconds per request."""
    out = os.path.join(tmp, "bc.json")
    subprocess.run([bc, "run", "redis", "server=" + bc_addr, "tests=" + test, "clients=50", "pipeline=%d" % p,
                    "--events", str(n), "--time", "0", "--warmup", "0", "-q", "--force", "-o", out],
                   capture_output=True, check=True)
    c = json.load(open(out))["cases"][0]
    cnt = sum(o["count"] for o in c["ops"].values())
    return (c["metrics"]["requests_per_sec"]["value"], c["metrics"]["p50_ms"]["value"],
            (c["cpu"]["user_s"] + c["cpu"]["sys_s"]) / cnt)

settings = [(1, n1, ["SET", "GET", "LPUSH", "LRANGE_100"]), (16, n16, ["SET", "GET"])]
res = {}
try:
    for r in range(1, rounds + 1):
        for p, n, tests in settings:
            for order in ((0, 1) if r % 2 else (1, 0)):
                for t in tests:
                    if order == 0:
                        rows, cpu = rb(t.lower(), p, n)
                        if t == "LRANGE_100":
                            cpu -= rb("lpush", p, n)[1]
                        rps, p50 = rows[t]
                        res.setdefault((p, t), {}).setdefault("rb", []).append((rps, p50, cpu / n))
                    else:
                        res.setdefault((p, t), {}).setdefault("bc", []).append(bench(t, p, n))
        print("round %d of %d done" % (r, rounds), file=sys.stderr)
finally:
    srv.terminate(); srv.wait()
print("%-3s %-11s %12s %12s %7s   %9s %9s   %10s %10s %7s" % ("P", "test", "rb req/s", "bc req/s", "ratio",
      "rb p50ms", "bc p50ms", "rb cpu/req", "bc cpu/req", "ratio"))
for (p, t), v in res.items():
    med = lambda side, i: st.median(x[i] for x in v[side])
    rr = st.median(b[0] / a[0] for a, b in zip(v["rb"], v["bc"]))
    cr = st.median(b[2] / a[2] for a, b in zip(v["rb"], v["bc"]))
    print("%-3d %-11s %12.0f %12.0f %7.3f   %9.3f %9.3f   %8.2fus %8.2fus %7.3f" % (p, t, med("rb", 0), med("bc", 0), rr,
          med("rb", 1), med("bc", 1), med("rb", 2) * 1e6, med("bc", 2) * 1e6, cr))
    print("RATIO %.4f" % rr)
    print("CPURATIO %.4f" % cr)
PY
grep -v '^RATIO\|^CPURATIO' "$BENCH_TMP/table"
for rr in $(sed -n 's/^RATIO //p' "$BENCH_TMP/table"); do judge "$rr" 1.0; done
for cr in $(sed -n 's/^CPURATIO //p' "$BENCH_TMP/table"); do judge "$cr" 0 1.0; done
echo "(medians over rounds; ratios are medians of per-round benchcore/redis-benchmark ratios;"
echo " targets: req/s ratio >= 1.0, cpu/req ratio <= 1.0)"
finish
