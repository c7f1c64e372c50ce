#!/usr/bin/env bash
# Core host: CLI, module loading, config validation, scheduling, recording,
# results, isolation of faulty modules, interrupts, secrets.
. "$(dirname "$0")/lib.sh"
MP="--module-path $TESTMODS"

# --- CLI basics
run_bc $T/v --version
expect_rc "--version" 0
expect_grep "--version names the ABI" $T/v.out 'module ABI 1\.4'
run_bc $T/h --help
expect_grep "--help lists run flags" $T/h.out '--threads 1,2,4'
# every flag that --help shows for `run` is accepted by `run`
"$BC" run cpu max_prime=100 --time 0.2 --warmup 0 -q -o $T/flag-base.json >/dev/null 2>&1	# for --baseline
bad=0
for f in $(grep -oE -- '--[a-z-]+' $T/h.out | sort -u); do
	case $f in --help|--version|--markdown|--json|--config|--only|--skip|--module) continue;; esac	# --module: history's, in the usage lines
	if grep -qE -- "$f [A-Za-z0-9,|._]+( |$)" $T/h.out; then val=(1); else val=(); fi
	case $f in --output|--csv) val=($T/flag.out);; --arrival) val=(fixed);; --label) val=(x);;
		--module-path) val=($TESTMODS);; --threads) val=(1);; --time|--warmup|--grace) val=(0.2);;
		--report-interval) val=(0.1);; --events) val=(5);; --rate) val=(100);; --repeat-order) val=(back_to_back);;
		--report) val=($T/flag.html -o $T/flag-r.json);; --scale) val=(0.5);;
		--min-repeat|--max-repeat) val=(3);; --resume) val=(-o $T/flag-r.json);;
		--start-at) val=("@$(date +%s)");; --fail-on) val=(loss --baseline $T/flag-base.json -o $T/flag-r.json);; --profile) val=(small);; --baseline) val=($T/flag-base.json);;
		--store) f=--store=$T/flag.db; val=(-o $T/flag-s.json);;
		--machine) val=(sysctl.vm.swappiness=$(cat /proc/sys/vm/swappiness))	# the value it has: nothing changes
			export BENCHCORE_STATE_DIR=$T/mstate;; esac	# its own lock: another run may hold the machine's
	# a fresh output each time (an existing one is refused without a terminal); --resume
	# continues a run's file, written just before
	rm -f $T/flag.out $T/flag.html $T/flag-r.json $T/flag-s.json
	[ "$f" = --resume ] && "$BC" run cpu max_prime=100 --time 0.2 --warmup 0 -q -o $T/flag-r.json >/dev/null 2>&1
	"$BC" run cpu max_prime=100 --time 0.2 --warmup 0 "$f" "${val[@]}" -q >/dev/null 2>$T/flag.err
	rc=$?; [ $rc -eq 2 ] && { bad=1; echo "flag $f ${val[*]}: rc $rc: $(cat $T/flag.err)"; }
done
[ $bad -eq 0 ] && pass "every run flag in --help is accepted" || fail "some flags in --help are refused"
run_bc $T/u run cpu --bogus
expect_rc "unknown flag is a usage error" 2
expect_grep "unknown flag is named" $T/u.err 'unknown option "--bogus"'
run_bc $T/u2 frobnicate
expect_rc "unknown command" 2

# --- list and help
run_bc $T/l list
expect_grep "list shows cpu with ABI 1.4" $T/l.out '^cpu +[^ ]+ +1\.4 '
run_bc $T/hc help cpu
expect_grep "help cpu shows max_prime and its default" $T/hc.out 'max_prime +int +10000'
run_bc $T/hm help nosuchmodule
expect_rc "help of unknown module" 2

# --- a cpu run: JSON figures agree with each other
run_bc $T/c run cpu max_prime=2000 --threads 1,2 --time 1.2 --warmup 0.2 --report-interval 0.3 -q -o $T/c.json --csv $T/c.csv
expect_rc "cpu run" 0
expect_py "schema and version" $T/c.json 'd["schema"]=="benchcore/1" and d["benchcore_version"]'
expect_py "two cases, threads 1 and 2" $T/c.json '[c["threads"] for c in d["cases"]]==[1,2]'
expect_py "events_per_sec = count / duration" $T/c.json 'all(abs(c["metrics"]["events_per_sec"]["value"]-c["ops"]["event"]["count"]/c["duration_s"])<1e-6*c["metrics"]["events_per_sec"]["value"]+1e-9 for c in d["cases"])'
# (the window never closes early; how late it closes is the machine's: a loaded one wakes
# the thread that ends it late, and the rates divide by what it measured)
expect_py "measured window is the requested time, recorded; never shorter" $T/c.json 'd["config"]["modules"][0]["time"] == 1.2 and all(c["duration_s"] >= 1.2 - 0.001 for c in d["cases"])'
expect_py "percentiles ordered and within [min,max]" $T/c.json 'all(l["min"]<=l["p50"]<=l["p90"]<=l["p95"]<=l["p99"]<=l["p99.9"]<=l["max"] for l in [c["ops"]["event"]["latency_ns"] for c in d["cases"]])'
expect_py "mean latency x events ~ busy time" $T/c.json 'all(abs(c["ops"]["event"]["latency_ns"]["mean"]*c["ops"]["event"]["count"]/1e9 - c["fairness"]["busy_mean_s"]*c["threads"]) < 0.01*c["fairness"]["busy_mean_s"]*c["threads"] for c in d["cases"])'
expect_py "interval reports every 0.3 s (4 in 1.2 s)" $T/c.json 'all(len(c["intervals"]) in (3,4) for c in d["cases"])'
expect_py "fairness over 2 threads: mean = count/2" $T/c.json 'abs(d["cases"][1]["fairness"]["events_mean"]-d["cases"][1]["ops"]["event"]["count"]/2)<1e-6'
expect_py "groups carry repeat statistics" $T/c.json 'len(d["groups"])==2 and d["groups"][0]["metrics"]["events_per_sec"]["values"]'
expect_py "config is recorded" $T/c.json 'd["config"]["modules"][0]["options"]["max_prime"]==[2000]'
expect_grep "CSV header" $T/c.csv '^case,module,params,threads,repeat,status,metric,value,unit,higher_is_better,headline$'
expect_grep "CSV row per metric" $T/c.csv '^2,cpu,max_prime=2000 test=prime,2,1,ok,events_per_sec,'
expect_grep "CSV: the headline column marks the case's headline metric" $T/c.csv '^2,cpu,max_prime=2000 test=prime,2,1,ok,events_per_sec,.*,true,true$'

# --- existing results are not overwritten without --force (issue 53): a pipeline (stderr no
# terminal, or $CI set) is refused before anything runs, so a script never reads the old file;
# a person at a terminal (script(1) gives one) gets a new name and a warning
run_bc $T/c2 run cpu max_prime=100 --time 0.2 --warmup 0 -q -o $T/c.json
expect_rc "existing results file, stderr no terminal: refused" 2
expect_grep "... saying the file exists and nothing ran" $T/c2.err "$T/c\.json exists; nothing was run"
expect_grep "... with --force named" $T/c2.err '^HINT: --force overwrites it'
check "original results kept" python3 -c "import json;assert len(json.load(open('$T/c.json'))['cases'])==2"
check "no other name written" test ! -e $T/c-1.json
run_bc $T/c2c run cpu max_prime=100 --time 0.2 --warmup 0 -q -o $T/cnew.json --csv $T/c.csv
expect_rc "an existing --csv file: refused too" 2
check "... its -o not written either" test ! -e $T/cnew.json
"$BC" run cpu max_prime=100 --time 0.2 --warmup 0 -q -o $T/cforce.json >/dev/null 2>&1 </dev/null
"$BC" run cpu max_prime=100 --time 0.2 --warmup 0 -q -o $T/cforce.json --force >/dev/null 2>&1 </dev/null
check "--force: overwritten in a pipeline (exit 0)" test $? -eq 0
if command -v script >/dev/null; then
	env -u CI script -qec "$(printf '%q ' "$BC" run cpu max_prime=100 --time 0.2 --warmup 0 -q -o $T/c.json)" /dev/null \
		>$T/c3.out 2>&1 </dev/null
	check "at a terminal: exit 0" test $? -eq 0
	expect_grep "at a terminal: a new name chosen" $T/c3.out 'c-1\.json instead'
	check "new results in c-1.json" test -s $T/c-1.json
	CI=true script -qec "$(printf '%q ' "$BC" run cpu max_prime=100 --time 0.2 --warmup 0 -q -o $T/c.json)" /dev/null \
		>$T/c4.out 2>&1 </dev/null
	check "at a terminal with \$CI set: refused (exit 2)" test $? -eq 2
	check "... no c-2.json" test ! -e $T/c-2.json
else
	fail "script(1) (util-linux) is not installed: the terminal's renaming is not checked"
fi

# --- sweeps, events limit, thread_run module with op classes and errors
run_bc $T/s run cpu max_prime=100,200,300 --threads 1,2 --repeat 2 --time 0.2 --warmup 0 -q -o $T/s.json
expect_py "sweep: 3 points x 2 threads x 2 repeats" $T/s.json 'len(d["cases"])==12 and sorted(set(c["params"]["max_prime"] for c in d["cases"]))==[100,200,300]'
expect_py "each case's point names its swept option, nothing else" $T/s.json 'all(c["point"] == "max_prime=%d" % c["params"]["max_prime"] for c in d["cases"])'
expect_grep "the summary tells the points apart" $T/s.out '^[0-9]+ +cpu +max_prime=300 +2 +2 ok'
run_bc $T/s1 run cpu --time 0.1 --warmup 0 -q -o $T/s1.json
expect_py "nothing swept: empty point" $T/s1.json 'd["cases"][0]["point"] == ""'
expect_py "sweep: groups of 2 repeats" $T/s.json 'len(d["groups"])==6 and all(g["repeats"]==2 for g in d["groups"])'
# oversubscription (the studies sweep 1, 6, 12 .. 42 threads on small machines); 2 s so that each of
# 42 threads is scheduled many times over even while other tests load the machine
# (CPU shares: the full form only, with nothing beside it: tests/run.sh's solo)
if [ "${BC_QUICK:-0}" = 1 ]; then echo "QUICK: 6 and 42 threads on $(nproc) CPUs (fairness and CPU time, 5 checks): make check-full"; else
# What a user relies on: every thread of an oversubscribed case is scheduled
# and does work, and the case keeps the CPUs it was left busy. Measured on
# this machine with the other sessions taking 85% of both CPUs: the case got
# 0.3 CPUs, single events waited up to 1.2 s for a CPU, and one of 42
# threads did no event in a 6 s window while the mean thread did 1800: the
# scheduler's doing, not benchcore's. So the run is measured up to three
# times (2, 4, 6 s windows) until the 42-thread case had the machine at
# least half to itself (other processes and steal <= 50%), and judged on
# that one; when none did, the every-thread check says why it is not judged
# (a SKIP line) and the rest are judged on the last run.
ov_judged='all(c["cpu"].get("other_pct", 0) + c["cpu"].get("steal_pct", 0) <= 50 for c in d["cases"])'
ov_ok='[c["threads"] for c in d["cases"]] == [6, 42] and all(c["status"] == "ok" and c["fairness"]["events_min"] > 0 for c in d["cases"])'
ov_py() { "$PY" -S -c 'import json,sys; d=json.load(open(sys.argv[1])); print(bool(eval(sys.argv[2])))' $T/ov.json "$1" 2>&1; }
for secs in 2 4 6; do
	run_bc $T/ov run cpu max_prime=2000 --threads 6,42 --time $secs --warmup 0.2 -o $T/ov.json --force
	[ "$(ov_py "$ov_ok")" = True ] || [ "$(ov_py "$ov_judged")" = True ] && break
	echo "retry: $secs s windows with the machine taken by others: $("$PY" -S -c 'import json,sys; d=json.load(open(sys.argv[1])); print([(c["threads"], c["status"], c["fairness"].get("events_min"), round(c["cpu"].get("utilization", 0), 2), round(c["cpu"].get("other_pct", 0) + c["cpu"].get("steal_pct", 0))) for c in d["cases"]])' $T/ov.json 2>&1) (threads, status, fewest events of a thread, CPUs busy, % others)"
done
if [ "$(ov_py "$ov_ok")" = True ] || [ "$(ov_py "$ov_judged")" = True ]; then
	expect_py "6 and 42 threads on $(nproc) CPUs: ok, and every thread did work" $T/ov.json "$ov_ok"
else
	echo "SKIP: 6 and 42 threads: whether every thread did work is not judged: other processes took more than half of the CPUs in each of three runs"
	expect_py "6 and 42 threads on $(nproc) CPUs: ok" $T/ov.json \
		'[c["threads"] for c in d["cases"]] == [6, 42] and all(c["status"] == "ok" for c in d["cases"])'
fi
expect_py "fairness adds up: mean x threads = events, min <= mean <= max" $T/ov.json \
	'all(abs(c["fairness"]["events_mean"] * c["threads"] - c["ops"]["event"]["count"]) < 0.5 and c["fairness"]["events_min"] <= c["fairness"]["events_mean"] <= c["fairness"]["events_max"] for c in d["cases"])'
expect_grep "fairness line with min/max is printed" $T/ov.out 'fairness: events/thread [0-9.]+, stddev [0-9.]+ \(cv [0-9.]+%\), min [0-9]+ max [0-9]+'
# the lower bound scales with the CPU time other processes and the hypervisor left
# this run (cpu.other_pct, cpu.steal_pct): on a shared machine that is all it can get
expect_py "cpu time of the window: a CPU-bound case keeps its threads busy (as far as the machine let it)" $T/ov.json \
	'all(0.5 * min(c["threads"], '"$(nproc)"') * (1 - (c["cpu"].get("other_pct", 0) + c["cpu"].get("steal_pct", 0)) / 100) <= c["cpu"]["utilization"] <= min(c["threads"], '"$(nproc)"') + 0.2 and c["cpu"]["sys_s"] >= 0 and 0 <= c["cpu"].get("steal_pct", 0) <= 100 for c in d["cases"])'
expect_grep "the cpu line is printed" $T/ov.out '^    cpu: user [0-9.]+ s, sys [0-9.]+ s \([0-9.]+ CPUs busy\)'
fi
run_bc $T/e run cpu max_prime=100 --events 1000 --time 0 --warmup 0 --threads 2 -q -o $T/e.json
expect_py "events limit is exact" $T/e.json 'd["cases"][0]["ops"]["event"]["count"]==1000'
run_bc $T/o run ops $MP --max-error-rate 1 bytes=8K --threads 2 --time 0.5 --warmup 0.1 -q -o $T/o.json
expect_rc "thread_run module" 0
expect_py "bytes = count x 8K" $T/o.json 'd["cases"][0]["ops"]["get"]["bytes"]==8192*d["cases"][0]["ops"]["get"]["count"]'
expect_py "recorded latency is what the module said" $T/o.json 'd["cases"][0]["ops"]["get"]["latency_ns"]["min"]==1000==d["cases"][0]["ops"]["get"]["latency_ns"]["max"]'
expect_py "errors counted by kind" $T/o.json 'abs(d["cases"][0]["ops"]["set"]["errors"]-d["cases"][0]["ops"]["get"]["count"]/4)<=8 and d["cases"][0]["ops"]["set"]["error_kinds"]["timeout"]==d["cases"][0]["ops"]["set"]["errors"]'
expect_py "module metric from totals" $T/o.json 'abs(d["cases"][0]["metrics"]["gets_per_sec"]["value"]-d["cases"][0]["ops"]["get"]["per_sec"])<1e-6*d["cases"][0]["ops"]["get"]["per_sec"]'
expect_py "module info kept" $T/o.json 'd["cases"][0]["info"]["ops_info"]=="present"'
expect_py "a list option's default reaches the module whole" $T/o.json 'd["cases"][0]["info"]["tags"]=="get,set"'

# --- a list option (BENCH_OPT_LIST) is one value, not a sweep; items checked against choices
run_bc $T/lo run ops $MP --max-error-rate 1 tags=SET,ping_inline,get --time 0.1 --warmup 0 -q -o $T/lo.json
expect_py "list option on the command line: one case, items in the choices' spelling" $T/lo.json \
	'len(d["cases"])==1 and d["cases"][0]["info"]["tags"]=="set,PING_INLINE,get"'
printf 'modules = ( { name = "ops"; time = 0.1; warmup = 0; tags = [ "get", "get" ]; } );\n' >$T/lo.conf
run_bc $T/lc -c $T/lo.conf $MP -q -o $T/lc.json
expect_py "list option in site.conf: a [list] is its value (duplicates kept)" $T/lc.json \
	'len(d["cases"])==1 and d["cases"][0]["info"]["tags"]=="get,get"'
run_bc $T/lb run ops $MP --max-error-rate 1 tags=get,bogus --time 0.1
expect_rc "a bad list item is a config error" 2
expect_grep "the bad item and the valid choices are named" $T/lb.err 'invalid item "bogus": valid choices are get, set, PING_INLINE'

# --- a default that is a sweep (BENCH_OPT_SWEEP_DEFAULT): one case per item unless given
run_bc $T/sd run sweepdef $MP --time 0.05 --warmup 0 -q -o $T/sd.json
expect_py "a sweep default gives one case per item, in order" $T/sd.json \
	'[c["info"]["test"] for c in d["cases"]]==["alpha","Beta","gamma"]'
run_bc $T/sg run sweepdef $MP test=DELTA,beta --time 0.05 --warmup 0 -q -o $T/sg.json
expect_py "given values replace the default sweep; enum matched case-insensitively, kept as declared" $T/sg.json \
	'[c["info"]["test"] for c in d["cases"]]==["delta","Beta"]'
run_bc $T/fl run ops $MP --max-error-rate 1 flavour=FANCY --time 0.05 --warmup 0 -q -o $T/fl.json
expect_py "an enum value in another case is accepted and stored in the choices' spelling" $T/fl.json \
	'd["cases"][0]["info"]["flavour"]=="Fancy" and d["cases"][0]["params"]["flavour"]=="Fancy"'

# --- open loop: an overloaded system is reported, not aborted; latency counts queueing
run_bc $T/ol run faulty $MP sleep_us=20000 --rate 200 --arrival fixed --time 1 --warmup 0 -q -o $T/ol.json
expect_py "open loop overload: case ok" $T/ol.json 'd["cases"][0]["status"]=="ok"'
expect_py "open loop overload: late starts reported" $T/ol.json 'd["cases"][0]["open_loop"]["late_starts"]>10 and d["cases"][0]["open_loop"]["max_queue"]>10'
expect_py "open loop overload: latency includes waiting (p99 >> service time)" $T/ol.json 'd["cases"][0]["ops"]["event"]["latency_ns"]["p99"]>200e6'
run_bc $T/ok run faulty $MP sleep_us=1000 --rate 100 --time 1.5 --warmup 0 -q -o $T/ok.json
expect_py "open loop under capacity: throughput = rate" $T/ok.json '70<d["cases"][0]["metrics"]["events_per_sec"]["value"]<130'

# --- faulty modules fail their own case only
run_bc $T/f run faulty $MP fault=none,segv_event,abort_prepare,exit_init,hang_event,init_error,skip,huge_alloc --time 0.5 --warmup 0 --grace 1 -o $T/f.json
expect_rc "a failed case makes exit code 1" 1
expect_py "the healthy case still ran" $T/f.json 'd["cases"][0]["status"]=="ok" and d["cases"][0]["metrics"]["events_per_sec"]["value"]>0'
expect_py "segfault in event -> failed with signal" $T/f.json '"signal 11" in d["cases"][1]["reason"]'
expect_py "abort in prepare -> failed with signal 6" $T/f.json '"signal 6" in d["cases"][2]["reason"] and "prepare" in d["cases"][2]["reason"]'
expect_py "exit in init -> failed, says so" $T/f.json '"must not call exit" in d["cases"][3]["reason"]'
expect_py "hang -> killed after warmup+time+grace" $T/f.json '"timed out after 1.5 s" in d["cases"][4]["reason"]'
expect_py "init error -> reason from set_error" $T/f.json 'd["cases"][5]["reason"]=="init: faulty: init refused on purpose"'
expect_py "skip -> skipped with reason" $T/f.json 'd["cases"][6]["status"]=="skipped" and "nothing to do" in d["cases"][6]["reason"]'
expect_py "huge allocation -> failed, says so (or killed)" $T/f.json 'd["cases"][7]["status"]=="failed" and ("64 TiB" in d["cases"][7]["reason"] or "signal 9" in d["cases"][7]["reason"])'
run_bc $T/hr run ops $MP --max-error-rate 1 hang=true,false --threads 2 --time 0.5 --warmup 0 --grace 1 -o $T/hr.json
expect_rc "endless loop in thread_run: exit 1" 1
expect_py "endless loop in thread_run: killed after warmup+time+grace, next case ran" $T/hr.json '"timed out after 1.5 s" in d["cases"][0]["reason"] and d["cases"][1]["status"]=="ok"'

# --- secrets never reach output
run_bc $T/p run faulty $MP password=hunter2secret --time 0.2 --warmup 0 -o $T/p.json --csv $T/p.csv
check "password not in stdout, stderr, JSON or CSV" bash -c "! grep -q hunter2secret $T/p.out $T/p.err $T/p.json $T/p.csv"
expect_py "password shown as <redacted>" $T/p.json 'd["cases"][0]["params"]["password"]=="<redacted>" and d["config"]["modules"][0]["options"]["password"]==["<redacted>"]'

# --- Ctrl-C: results so far are written, exit 130
# (sent in the second case's window, seen from outside: its interval reports are the
# fourth and later ones, three a case of 3 s; a fixed 2.8 s after the start came before a
# loaded machine's first case had ended. Counted without a fork: a loaded machine's fork
# can take longer than a window)
ticks_at_least() { local n=0 l; while IFS= read -r l; do [[ $l == *thds:* ]] && n=$((n + 1)); done <"$T/i.err"; [ $n -ge "$1" ]; }
"$BC" run cpu max_prime=2000 --threads 1 --repeat 3 --time 3 --warmup 0 --report-interval 1 -o $T/i.json >/dev/null 2>$T/i.err &
pid=$!; until_seen 600 ticks_at_least 4; kill -INT $pid; wait $pid; RC=$?
expect_rc "SIGINT exits 130" 130
expect_py "interrupted run: valid JSON, marked interrupted" $T/i.json 'd["interrupted"] is True and d["cases"][0]["status"]=="ok" and d["cases"][-1]["status"]=="interrupted" and len(d["cases"])==2'

# --- module load errors give exit 2 and name the file and remedy
for m in badmagic:'bad magic' abi2:'built for 2\.0' noentry:'no bench_module_v1_entry' small:'descriptor too small' nocallbacks:'missing callbacks' dup:'duplicate module name'; do
	name=${m%%:*}; re=${m#*:}
	run_bc $T/m_$name run $name $MP --time 0.1
	expect_rc "load error $name" 2
	expect_grep "load error $name explained" $T/m_$name.err "$re"
done
mkdir -p $T/wdir && cp $BUILD/modules/cpu.so $T/wdir/ && chmod 775 $T/wdir
run_bc $T/w run cpu --module-path $T/wdir --time 0.1
expect_grep "group-writable module dir refused" $T/w.err 'writable by its group'
chmod 755 $T/wdir && chmod 666 $T/wdir/cpu.so
BENCHCORE_MODULE_PATH=$T/wdir "$BC" list >$T/wl.out 2>&1
expect_grep "list shows why a module was refused" $T/wl.out 'refusing to load from module file .* writable by others'

# --- docs generated from the options tables are up to date
scripts/gen-docs.sh "$BC" >$T/modules.md 2>&1
check "docs/modules.md matches the modules' options tables (run scripts/gen-docs.sh)" diff -u docs/modules.md $T/modules.md
scripts/gen-docs.sh --settings "$BC" >$T/settings.md 2>&1
check "docs/settings.md matches the settings table (run scripts/gen-docs.sh --settings)" diff -u docs/settings.md $T/settings.md
# every run setting of the table is accepted in site.conf and as its flag, with the same checks
"$BC" help settings >$T/hs.out
expect_grep "help settings lists run settings with their defaults" $T/hs.out '^  prepare_timeout +number +1800 '
printf 'modules = ( { name = "cpu"; time = 0.1; warmup = 0; report_interval = 0.001; } );\n' >$T/ri.conf
run_bc $T/ric -c $T/ri.conf
run_bc $T/rif run cpu --time 0.1 --warmup 0 --report-interval 0.001
check "a setting's rule is the same in site.conf and on the command line (exit 2, same reason)" \
	grep -q 'too short: the shortest interval is 0.01 s' $T/ric.err $T/rif.err
grep -q 'too short' $T/rif.err || fail "the flag's error lacks the rule's reason"
run_bc $T/seedf run cpu --time 0.05 --warmup 0 --seed 4294967296
expect_rc "a seed out of range on the command line is refused" 2
expect_grep "the seed's valid range is named" $T/seedf.err 'valid range is 0 \.\. 4294967295'
run_bc $T/lsf list --bogus
expect_rc "list refuses an unknown flag" 2
run_bc $T/hsf help cpu --bogus
expect_rc "help refuses an unknown flag" 2
run_bc $T/hmp help sweepdef $MP
expect_grep "help MODULE sees --module-path" $T/hmp.out '^sweepdef 1\.0'
run_bc $T/sif sysinfo --bogus
expect_rc "sysinfo refuses an unknown flag" 2

# --- secrets from the environment or a file; a readable config holding one is flagged
echo "s3cr3t-from-file" >$T/pw && chmod 600 $T/pw
cat >$T/sec.conf <<CONF
time = 0.2; warmup = 0;
modules = ( { name = "faulty"; password_file = "$T/pw"; }, { name = "faulty"; password_env = "BC_TEST_PW"; } );
CONF
BC_TEST_PW=s3cr3t-from-env "$BC" -c $T/sec.conf $MP -o $T/sec.json >$T/sec.out 2>$T/sec.err; RC=$?
expect_rc "password_file and password_env accepted" 0
check "secrets from file/env never printed or written" bash -c "! grep -q s3cr3t $T/sec.out $T/sec.err $T/sec.json"
"$BC" -c $T/sec.conf $MP -o $T/sec2.json >$T/sec2.out 2>$T/sec2.err; RC=$?
expect_rc "unset password_env is a config error" 2
expect_grep "unset variable named" $T/sec2.err 'environment variable "BC_TEST_PW" \(for option "password"\) is not set'
printf 'time = 0.2; warmup = 0;\nmodules = ( { name = "faulty"; password = "inline-pw"; } );\n' >$T/inl.conf
chmod 644 $T/inl.conf
"$BC" -c $T/inl.conf $MP -o $T/inl.json >$T/inl.out 2>$T/inl.err
expect_grep "world-readable config with a password is flagged" $T/inl.err 'holds the secret option "password" and is readable by others'
check "inline password not echoed" bash -c "! grep -q inline-pw $T/inl.out $T/inl.err $T/inl.json"

# --- requirements: unmet -> skipped with the reason; --force-module runs anyway; skip_heavy
run_bc $T/nd run needy $MP --time 0.2 --warmup 0 -o $T/nd.json
expect_rc "unmet requirements are not a failure" 0
expect_py "unmet requirements: skipped with the reason" $T/nd.json 'd["cases"][0]["status"]=="skipped" and "needs 4096 CPUs, this machine has" in d["cases"][0]["reason"]'
run_bc $T/nf run needy $MP --force-module --time 0.2 --warmup 0 -o $T/nf.json
expect_py "--force-module runs it" $T/nf.json 'd["cases"][0]["status"]=="ok"'
printf 'skip_heavy = true; time = 0.2; warmup = 0;\nmodules = ( { name = "needy"; }, { name = "cpu"; max_prime = 100; } );\n' >$T/hv.conf
"$BC" -c $T/hv.conf $MP --force-module -o $T/hv.json >/dev/null 2>&1
expect_py "skip_heavy skips heavy modules, others run" $T/hv.json '"heavy" in d["cases"][0]["reason"] and d["cases"][1]["status"]=="ok"'

# --- a module owned by another (non-root) user is refused
mkdir -p $T/odir && cp $BUILD/modules/cpu.so $T/odir/ && chown nobody $T/odir/cpu.so
run_bc $T/own run cpu --module-path $T/odir --time 0.1
expect_grep "module owned by another user refused" $T/own.err 'refusing to load from module file .* owned by another user'

# --- a thread_init that never returns fails its case after thread_init_timeout
run_bc $T/ti run faulty $MP fault=hang_thread_init,none --thread-init-timeout 0.5 --time 0.2 --warmup 0 -o $T/ti.json
expect_rc "hung thread_init fails the case" 1
expect_py "hung thread_init: reason names the timeout, next case ran" $T/ti.json '"did not finish thread_init within 0.5 s" in d["cases"][0]["reason"] and d["cases"][1]["status"]=="ok"'

# --- on a terminal: one progress line rewritten in place; elsewhere plain lines
script -qec "$BC run cpu max_prime=100 --time 1.2 --warmup 0 --report-interval 0.3" /dev/null >$T/tty.out 2>&1
check "terminal: progress line rewritten with \\r" grep -q $'\r\033\[K\[ 0.6s/1.2s \]' $T/tty.out
run_bc $T/pl run cpu max_prime=100 --time 1.2 --warmup 0 --report-interval 0.3
expect_grep "not a terminal: plain interval lines" $T/pl.err '^\[ 0\.6s \] thds: 1 eps: [0-9.]+ lat \(ms, p95\): [0-9.]+ err/s: 0\.00$'

# --- a worker that gives up (thread_run returns an error) fails its case
run_bc $T/tf run ops $MP --max-error-rate 1 fail=true,false --threads 2 --time 0.3 --warmup 0 -o $T/tf.json
expect_rc "thread_run error fails the case" 1
expect_py "thread_run error: reason names the thread and the module's message" $T/tf.json 'd["cases"][0]["status"]=="failed" and d["cases"][0]["reason"]=="thread_run: thread 0: ops: gave up on purpose (caf?)" and d["cases"][1]["status"]=="ok"'
run_bc $T/nt run cpu --time 0
expect_rc "time 0 without an events limit is refused" 2
expect_grep "time 0 without events: says why" $T/nt.err 'time = 0 and no events limit'

# --- the core knows no module: no module's name, no lookup of a module's option by
# name, no module's library in core/ ("cpu" and "io" are also the core's own words:
# the case's CPU time and the host's CPU, the host's disk target)
mods=$("$BC" list 2>/dev/null | awk 'NR>1 && /^$/ {exit} NR>1 && /^[a-z0-9_]+ / {print $1}' | grep -vxE 'cpu|io')
hits=$(for w in $mods; do grep -nwF -- "\"$w\"" core/*/*.c core/*/*.h; done)
optnames=$(for m in $("$BC" list 2>/dev/null | awk 'NR>1 && /^$/ {exit} NR>1 && /^[a-z0-9_]+ / {print $1}'); do
	"$BC" help "$m" --markdown | awk -F'`' '/^\| `/ {print $2}'; done | sort -u)
lookups=$(grep -nE '(bc_opt_find|opt_(int|string|double|bool|enum))\([^;]*"[a-z0-9_]+"' core/*/*.c)
# (OpenSSL's libcrypto is also the core's own: it hashes module files)
libs=$(grep -nwiE 'hiredis|mariadb|mysql|libaio|tpcc' core/*/*.c core/*/*.h)
check "the core names no module, looks up no option by name, links no module's library ($(echo $mods | wc -w) modules, $(echo $optnames | wc -w) options)" \
	test -z "$hits$lookups$libs" -a -n "$optnames"
[ -z "$hits$lookups$libs" ] || printf '%s\n%s\n%s\n' "$hits" "$lookups" "$libs" | head -5
rm -rf $T/dp && mkdir -p $T/dp
run_bc $T/dpj run io path=$T/dp file_size=64K block_size=4K --time 0.1 --warmup 0 --threads 1 -q -o $T/dp.json
expect_py "the disk to fingerprint is the module's declared disk_path_option" $T/dp.json \
	'd["host"]["io"]["path"]=="'"$(realpath $T/dp)"'"'
run_bc $T/nd run ops $MP --time 0.05 --warmup 0 -q -o $T/nd2.json
expect_py "no disk target in the fingerprint when no module declares one" $T/nd2.json '"io" not in d["host"]'

# --- one grouping rule: run's groups[] hold what compare judges (every op class's p50/p99)
run_bc $T/gr run ops $MP --time 0.2 --warmup 0 --repeat 2 --max-error-rate 1 -q -o $T/gr.json
expect_py "groups[]: latency of every op class that ran (set only failed), named as compare names it" $T/gr.json \
	'set(k for k in d["groups"][0]["metrics"] if k.endswith("_ms")) == {"get.p50_ms","get.p99_ms"} and d["groups"][0]["repeats"]==2'
run_bc $T/hl run evloop $MP --time 0.2 --warmup 0 -o $T/hl.json
expect_py "groups[]: the headline is the module's declared one" $T/hl.json 'd["groups"][0]["headline"]=="requests_per_sec"'
expect_grep "the run's summary shows the declared headline as primary metric" $T/hl.out '^1 +evloop .* ok .*requests_per_sec [0-9.]+ '
# --- CSV cells a spreadsheet would run as formulas are kept as text
run_bc $T/cf run ops $MP --label '=HYPERLINK("x")' --time 0.05 --warmup 0 --max-error-rate 1 -q -o $T/cf.json --csv $T/cf.csv
run_bc $T/cfc compare --csv $T/cf.json $T/cf.json
expect_no_grep "compare --csv: no cell starts with = (label)" $T/cfc.out '(^|,)=HYPERLINK'
expect_grep "compare --csv: the label is kept, as text" $T/cfc.out "\"'=HYPERLINK"
