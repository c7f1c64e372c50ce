#!/usr/bin/env bash
# Latency merged across repeats and hosts (docs/results.md "Merged
# percentiles"): every case keeps its op classes' histograms
# (ops.OP.latency_hist), and the p99 of several repeats (groups[].merged)
# or several hosts' files (the report's line under a latency chart) is the
# p99 of the union of their records, read off the merged histograms, not
# the mean of their p99s. The synthetic module's latency is exactly what its
# options say (tests/modules/synth.c: step=0.5 makes the repeats' rates 1,
# 1.5 and 0.5 times ops in turn), so the two differ by far; the union's
# figure is recomputed here by an independent decoder of the encoding.
. "$(dirname "$0")/lib.sh"
M="--module-path $TESTMODS"
cd $T

# host A: rates 1x, 1.5x (10 us, 6.7 us a record); host B: 0.5x, 1x (20 us, 10 us)
run_bc $T/a run synth $M ops=100000 step=0.5 count_file=$T/count --time 0.3 --warmup 0 --repeat 2 \
	--report-interval 0 --label hostA -q -o $T/A.json
expect_rc "host A's run" 0
run_bc $T/b run synth $M ops=100000 step=0.5 count_file=$T/count --time 0.3 --warmup 0 --repeat 2 \
	--report-interval 0 --label hostB -q -o $T/B.json
expect_rc "host B's run" 0
expect_py "every ok case keeps its histogram, holding the op class's every record" $T/A.json \
	"all(c['ops']['event']['latency_hist']['count'] == c['ops']['event']['count'] > 0 and
	     c['ops']['event']['latency_hist']['encoding'] == 'loglin-zigzag-leb128-base64' for c in d['cases'])"

# The union's percentiles from the files' histograms, decoded here (base64,
# zig-zag LEB128, runs of empty buckets; midpoints of the log-linear buckets).
cat > $T/union.py <<'PY'
import base64, json, math, sys
def buckets(h):
    b, i, z, shift, out = base64.b64decode(h['data']), 0, 0, 0, {}
    for byte in b:
        z |= (byte & 0x7f) << shift
        shift += 7
        if byte & 0x80:
            continue
        v = (z >> 1) ^ -(z & 1)
        z = shift = 0
        if v < 0:
            i += -v
        else:
            out[i] = out.get(i, 0) + v
            i += 1
    return out
def mid(i):
    if i < 128:
        return i
    k = i - 128
    e = k // 128 + 7
    return ((128 + k % 128) << (e - 7)) + ((1 << (e - 7)) - 1) // 2
def union(files, pct):
    allb, lo, hi = {}, float('inf'), 0
    for f in files:
        for c in json.load(open(f))['cases']:
            o = c['ops']['event']
            for i, n in buckets(o['latency_hist']).items():
                allb[i] = allb.get(i, 0) + n
            lo, hi = min(lo, o['latency_ns']['min']), max(hi, o['latency_ns']['max'])
    n = sum(allb.values())
    rank, seen = max(1, math.ceil(pct / 100 * n)), 0
    for i in sorted(allb):
        seen += allb[i]
        if seen >= rank:
            return min(max(mid(i), lo), hi) / 1e6
def mean_p99(f):
    g = json.load(open(f))['groups'][0]['metrics']['event.p99_ms']
    return g['mean']
what = sys.argv[1]
if what == 'union':
    print('%.4g' % union(sys.argv[2:], 99))
else:
    print('%.4g' % (sum(mean_p99(f) for f in sys.argv[2:]) / len(sys.argv[2:])))
PY
u_a=$(python3 $T/union.py union $T/A.json)
expect_py "host A's groups[]: event.p99_ms merged is the p99 of its two repeats' records together ($u_a ms)" $T/A.json \
	"'%.4g' % d['groups'][0]['metrics']['event.p99_ms']['merged'] == '$u_a'"
expect_py "... and not the mean of the repeats' p99s (more than 10% below it)" $T/A.json \
	"d['groups'][0]['metrics']['event.p99_ms']['mean'] < 0.9 * $u_a"

# benchcore merge (one system's parts: host A's synth beside a cpu part) keeps
# the histograms, and its groups[] the merged p99 of the repeats.
run_bc $T/cpu run cpu max_prime=200 --time 0.2 --warmup 0 --report-interval 0 --label hostA -q -o $T/A-cpu.json
run_bc $T/m merge $T/A.json $T/A-cpu.json -o $T/M.json
expect_rc "benchcore merge of host A's two parts" 0
expect_py "... keeps every case's histogram and groups[]' merged p99 of synth's repeats ($u_a ms)" $T/M.json \
	"(all('latency_hist' in c['ops']['event'] for c in d['cases'] if c['module'] == 'synth') and
	  ['%.4g' % g['metrics']['event.p99_ms']['merged'] for g in d['groups'] if g['module'] == 'synth'] == ['$u_a'])"

# The fleet view: the report of both hosts says the p99 of all their records.
run_bc $T/r report $T/A.json $T/B.json -o $T/fleet.html
expect_rc "the report of both hosts" 0
u=$(python3 $T/union.py union $T/A.json $T/B.json)
old=$(python3 $T/union.py mean $T/A.json $T/B.json)
expect_grep "the report gives the p99 of both hosts' records together ($u ms, from their merged histograms)" \
	$T/fleet.html "event at 1 thread, all 2 files' records together \(their latency histograms merged\):.* p99 $u ms"
check "... where averaging the hosts' p99s would say $old ms (off by more than 30%)" \
	python3 -c "import sys; u, o = $u, $old; sys.exit(0 if abs(o - u) > 0.3 * u else 1)"

# A file without histograms (one written before them): said, not merged.
python3 -c "
import json, sys
d = json.load(open('$T/B.json'))
for c in d['cases']:
    for o in c['ops'].values():
        o.pop('latency_hist', None)
json.dump(d, open('$T/B-old.json', 'w'))"
run_bc $T/r2 report $T/A.json $T/B-old.json -o $T/fleet-old.html
expect_rc "the report of a host with histograms and one without" 0
expect_grep "... says which file has no histograms and that the chart shows each file's mean" $T/fleet-old.html \
	"no percentiles of all the files together: <bdi>hostB</bdi> has no latency histograms"
expect_no_grep "... and gives no merged figure" $T/fleet-old.html "records together"

# A hostile histogram: refused with the field named, never a crash.
python3 -c "
import json
d = json.load(open('$T/A.json'))
d['cases'][1]['ops']['event']['latency_hist']['data'] = '////////////Ag=='
json.dump(d, open('$T/bad.json', 'w'))"
run_bc $T/c compare $T/bad.json $T/A.json
expect_rc "a histogram with a varint past 64 bits" 2
expect_grep "... is named in the error" $T/c.err "cases\[1\]\.ops\.event\.latency_hist\.data: not a histogram: a varint longer than 64 bits"
