#!/usr/bin/env bash
# Host API 1.1 as a module author uses it (tests/modules/evloop.c), and a
# module built against the frozen 1.0 header (tests/abi10/old10.c).
. "$(dirname "$0")/lib.sh"
export BENCHCORE_MODULE_PATH=$TESTMODS

# --- the 1.0 fixture loads and runs unchanged
run_bc $T/o10 run old10 --max-error-rate 1 --threads 2 --time 1 --warmup 0.2 -q -o $T/o10.json
expect_rc "a module built for ABI 1.0 runs on this host" 0
expect_py "1.0 module: gets recorded, one put error per ten gets, metric from totals" $T/o10.json \
 "(lambda c: (lambda g: (lambda e: c['status']=='ok' and g>1000 and abs(e-g/10)<=2 and abs(c['metrics']['gets_per_sec']['value']-g/c['duration_s'])<1e-6*g/c['duration_s']+1)(c['ops']['put']['error_kinds']['busy']))(c['ops']['get']['count']))(d['cases'][0])"
expect_py "1.0 module: latency as recorded (2000 ns); no headline_metric in 1.0: the headline is its own gets_per_sec, in the case and its group" $T/o10.json \
 "(lambda c: abs(c['ops']['get']['latency_ns']['p50']-2000)<=10 and c['headline']=='gets_per_sec' and d['groups'][0]['headline']=='gets_per_sec')(d['cases'][0])"
run_bc $T/o10b run old10 --max-error-rate 1 batch=8 --threads 1 --time 0.5 --warmup 0 -q -o $T/o10b.json
expect_py "1.0 module: record_n counts a batch as n operations" $T/o10b.json \
 "(lambda c: c['ops']['get']['count'] % 8 == 0 and c['ops']['get']['count'] > 0)(d['cases'][0])"
run_bc $T/l list
expect_grep "list shows the 1.0 module with its ABI" $T/l.out '^old10 +1\.0 +1\.0 '

# --- op classes from options, secondary distribution, percentile in finish, headline
cat > $T/ev.conf <<CONF
time = 1; warmup = 0.2; threads = 2;
modules = ( { name = "evloop"; tests = "alpha,beta,gamma"; } );
CONF
run_bc $T/ev -c $T/ev.conf -o $T/ev.json
expect_rc "evloop runs" 0
expect_py "op classes come from the tests option, in order" $T/ev.json \
 "list(d['cases'][0]['ops'].keys())==['alpha','beta','gamma'] and all(o['count']>0 for o in d['cases'][0]['ops'].values())"
# (a record and its record_dist are two calls: the window may close between them, once per
# thread at most: 2 threads here)
expect_py "the uncorrected distribution is reported under its op class" $T/ev.json \
 "(lambda o: (lambda u: 0 <= o['count'] - u['count'] <= 2 and u['latency_ns']['p50']>0 and 'p99' in u['latency_ns'])(o['dists']['uncorrected']))(d['cases'][0]['ops']['alpha'])"
expect_py "percentile() in finish equals the reported p50" $T/ev.json \
 "(lambda c: c['metrics']['p50_from_finish_ns']['value']==c['ops']['alpha']['latency_ns']['p50'])(d['cases'][0])"
expect_py "the module's headline and thresholds are recorded for compare" $T/ev.json \
 "(lambda c: c['headline']=='requests_per_sec' and c['thresholds']=={'requests_per_sec':3.0})(d['cases'][0])"
expect_py "cases record the CPU share of other processes beside steal" $T/ev.json \
 "(lambda c: 'other_pct' in c and 'steal_pct' in c and c['other_pct']>=0)(d['cases'][0]['cpu'])"

# --- claim(): an exact --events budget with requests in flight on many connections
run_bc $T/evn run evloop conns=8 --threads 2 --events 5000 --time 0 --warmup 0.2 -q -o $T/evn.json
expect_py "claim() honours --events exactly with 16 connections in flight" $T/evn.json \
 "d['cases'][0]['status']=='ok' and d['cases'][0]['ops']['ping']['count']==5000"

# --- the stop fd ends a loop blocked in epoll_wait(-1) on time
start=$(date +%s%N)
run_bc $T/idle run evloop idle=true --threads 2 --time 1 --warmup 0 --grace 20 -q -o $T/idle.json
el=$(( ($(date +%s%N) - start) / 1000000 ))
expect_py "a thread blocked on the stop fd leaves at the end of the window" $T/idle.json \
 "d['cases'][0]['status']=='ok' and d['cases'][0]['duration_s']<1.5"
# (the watchdog: time + grace, 21 s; the plain run's time on this machine now the reference)
in_time "the idle case ended with its 1 s window, not at the watchdog" $el 0 \
	"$(ref_ms "$BC" run cpu max_prime=100 --threads 2 --time 1 --warmup 0 -q -o $T/idle-ref.json)"

# --- open loop: next_arrival paces many connections per thread without sleeping
# (an achieved rate: the full form only, with nothing beside it)
if [ "${BC_QUICK:-0}" = 1 ]; then echo "QUICK: the open loop's achieved rate and latency (3 checks): make check-full"; else
run_bc $T/ol run evloop conns=8 --threads 2 --rate 4000 --time 2 --warmup 0.5 -q -o $T/ol.json
expect_py "open loop: achieved rate within 10% of --rate 4000" $T/ol.json \
 "abs(d['cases'][0]['ops']['ping']['per_sec']-4000)<400"
expect_py "open loop: latency from the intended start is never below the uncorrected one" $T/ol.json \
 "(lambda o: o['latency_ns']['p50']>=o['dists']['uncorrected']['latency_ns']['p50'] and o['latency_ns']['max']>=o['dists']['uncorrected']['latency_ns']['max'])(d['cases'][0]['ops']['ping'])"
expect_py "open loop: the schedule is recorded" $T/ol.json "d['cases'][0]['open_loop']['rate']==4000"
fi

# --- errors with detail and hint, from a worker thread
run_bc $T/fl run evloop fail_thread=1 --threads 2 --time 1 --warmup 0 -o $T/fl.json
expect_rc "a worker's error fails the case" 1
expect_py "the reason names the thread and the message; detail and hint are kept" $T/fl.json \
 "(lambda c: c['status']=='failed' and c['reason']=='thread_run: thread 1: injected failure' and c['error']['detail']=='the fail_thread option asked for it' and c['error']['hint']=='set fail_thread = -1' and c['error']['thread']==1)(d['cases'][0])"
expect_grep "the text output shows the detail" $T/fl.out '^ +detail: the fail_thread option asked for it'
expect_grep "the text output shows the hint" $T/fl.out '^ +hint: set fail_thread = -1'

# --- error kinds beyond the table fold into "other", first kind named
run_bc $T/ek run evloop --max-error-rate 1 error_kinds=40 --threads 1 --time 0.5 --warmup 0 -q -o $T/ek.json
expect_py "40 error kinds: the first 32 counted, the rest folded into other with its first kind" $T/ek.json \
 "(lambda o: (lambda k: len(k)==33 and abs(k['other']-8*k['k0'])<=8 and o['error_kinds_folded']['first_kind']=='k32' and sum(k.values())==o['errors'])(o['error_kinds']))(d['cases'][0]['ops']['ping'])"

# --- set_op_classes refuses what would corrupt the results
run_bc $T/dup run evloop tests=a+b+a --threads 1 --time 0.2 --warmup 0 -q -o $T/dup.json
expect_py "duplicate op classes fail init with a clear reason" $T/dup.json \
 "(lambda c: c['status']=='failed' and 'op class \"a\" given twice' in c['reason'])(d['cases'][0])"
many=$(python3 -c 'print("+".join("t%d"%i for i in range(300)))')
run_bc $T/many run evloop tests=$many --threads 1 --time 0.2 --warmup 0 -q -o $T/many.json
expect_py "more than 256 op classes fail init" $T/many.json \
 "(lambda c: c['status']=='failed' and '300 op classes given, 1 .. 256 allowed' in c['reason'])(d['cases'][0])"
many=$(python3 -c 'print("+".join("t%d"%i for i in range(40)))')
run_bc $T/m40 run evloop tests=$many --threads 2 --time 0.5 --warmup 0 -q -o $T/m40.json
expect_py "40 op classes (more than 1.0's 16) are all recorded" $T/m40.json \
 "(lambda c: c['status']=='ok' and len(c['ops'])==40 and all(o['count']>0 for o in c['ops'].values()))(d['cases'][0])"

# --- prepare progress
run_bc $T/pp run evloop prepare_units=30 --threads 1 --time 0.2 --warmup 0 -o $T/pp.json --report-interval 0.1
expect_grep "prepare progress lines show done/total, unit, rate and ETA" $T/pp.err '\[ prepare \] [0-9]+/30 units \([0-9.]+%\) [0-9]+ units/s ETA [0-9]+s'
expect_grep "the last progress line reports completion" $T/pp.err '\[ prepare \] 30/30 units \(100\.0%\)'
expect_py "the case records what prepare did and how long it took" $T/pp.json \
 "(lambda p: p['done']==30 and p['total']==30 and p['unit']=='units' and p['seconds']>=0.3)(d['cases'][0]['prepare'])"

# --- a busy machine: a CPU hog beside a cpu case is seen, warned about, and
# compare calls the verdict suspect instead of a clean loss (CPU shares: the
# full form only, with nothing beside it)
if [ "${BC_QUICK:-0}" = 1 ]; then echo "QUICK: a quiet run against one beside two CPU hogs (4 checks): make check-full"; else
run_bc $T/base run cpu max_prime=2000 --threads 1 --time 0.3 --warmup 0 --repeat 5 --label quiet -q -o $T/base.json
hogs=()
for i in 1 2; do timeout 60 sh -c 'while :; do :; done' & hogs+=($!); done
run_bc $T/busy run cpu max_prime=2000 --threads 1 --time 0.3 --warmup 0 --repeat 5 --label busy -o $T/busy.json
kill "${hogs[@]}" 2>/dev/null; wait "${hogs[@]}" 2>/dev/null
run_bc $T/cmpbusy compare $T/base.json $T/busy.json --json
# a win or loss may stand beside the hogs only when the judge weighed the
# interference measured on both sides and found the difference larger than it
# could cause (the reason says "stands"): on a machine loaded by others the
# quiet side is busy too, and its own slow rounds can make such a difference
expect_py "compare marks the busy side's headline verdict suspect, or a win or loss that the measured interference cannot explain" $T/cmpbusy.out \
 "all(r['busy'] and (r['verdict'] in ('suspect', 'tie', 'inconclusive') or 'stands:' in (r['reason'] or '')) for r in d['comparisons'][0]['rows'] if r['metric'] == 'events_per_sec')"
expect_py "other processes' CPU share is measured (two hogs on two CPUs: >= 25%)" $T/busy.json \
 "all(c['cpu']['other_pct'] >= 25 for c in d['cases'])"
expect_grep "a busy machine is warned about" $T/busy.err 'warning: steal and other processes took [0-9.]+% of the time of the CPUs this case could run on \([0-9,-]+\) during the measured window'
expect_py "the warning is kept in the case" $T/busy.json \
 "any('of the time of the CPUs this case could run on' in w for w in d['cases'][0].get('warnings', []))"
fi
