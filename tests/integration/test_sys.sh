#!/usr/bin/env bash
# The sys module (UnixBench's and lmbench's system tests): every test runs and
# its count of loops is the count of the work an observer benchcore does not
# control saw done (strace -f -c: the system calls, forks and execs made),
# the headline is in UnixBench's unit, process tests fork from the helper and
# never from the case, file_copy leaves nothing and touches no other file.
. "$(dirname "$0")/lib.sh"
run_sys() { local o=$1; shift; run_bc $o run sys "$@" --warmup 0 -q -o $o.json; }

for t in syscall getpid pipe context_switch spawn execl file_copy shell; do
	# (shell: a loop is tens of ms, a loaded machine's hundreds: a window of 1 s)
	run_sys $T/$t test=$t --time $([ $t = shell ] && echo 1 || echo 0.3)
	expect_rc "sys test=$t runs" 0
	expect_py "sys test=$t: ok, loops counted, a loop's latency recorded" $T/$t.json \
		"[c['status'] == 'ok' and c['ops']['loop']['count'] > 0 and c['metrics']['loops_per_sec']['value'] > 0 and c['ops']['loop']['latency_ns']['p50'] > 0 for c in d['cases']] == [True]"
done
expect_py "file_copy: kib_per_sec is loops x buffer_size / 1024 per second" $T/file_copy.json \
	"abs(d['cases'][0]['metrics']['kib_per_sec']['value'] - d['cases'][0]['metrics']['loops_per_sec']['value'] * 1024 / 1024) < 1e-6 * d['cases'][0]['metrics']['kib_per_sec']['value']"
expect_py "shell: loops_per_min is 60 x loops_per_sec" $T/shell.json \
	"abs(d['cases'][0]['metrics']['loops_per_min']['value'] - 60 * d['cases'][0]['metrics']['loops_per_sec']['value']) < 1e-6 * d['cases'][0]['metrics']['loops_per_min']['value']"

if command -v strace >/dev/null; then
	# obs OUT SYSCALLS ARGS...: strace -f -c over a sys run; OUT.st has the table
	obs() { local o=$1 calls=$2; shift 2; strace -f -c -o $o.st -e trace=$calls "$BC" run sys "$@" --warmup 0 -q -o $o.json >/dev/null 2>&1 </dev/null; }
	# calls NAME FILE: the count strace saw
	calls() { awk -v n="$1" '$NF == n { print ($4 ~ /^[0-9]+$/) ? $4 : $5 }' "$2"; }
	# within desc, loops, seen, most extra: loops <= seen <= loops x 1.1 + extra (the
	# system calls on the case's thread: syscall, getpid)
	within() {
		local tail=$(( $2 / 10 ))
		if [ -n "$3" ] && [ "$3" -ge "$2" ] && [ "$3" -le $(( $2 + tail + $4 )) ]; then pass "$1 ($2 loops, $3 seen)"
		else fail "$1: $2 loops counted, strace saw ${3:-none}"; fi
	}
	loops() { "$PY" -S -c "import json,sys; print(json.load(open(sys.argv[1]))['cases'][0]['ops']['loop']['count'])" $1; }
	obs $T/o1 umask test=syscall --time 0.3
	within "syscall: one umask per loop counted" "$(loops $T/o1.json)" "$(calls umask $T/o1.st)" 20
	obs $T/o2 getpid test=getpid --time 0.3
	within "getpid: one getpid per loop counted" "$(loops $T/o2.json)" "$(calls getpid $T/o2.st)" 40

	# The helper's tests: only the calls inside the case's measured window count
	# (tests/integration/strace_window.py: the helper's forks before it, for batches
	# recorded before the window opened, and after it, for the batches in flight as
	# it closed, are not loops counted). A loop counted is one of a batch recorded in
	# the window, so the calls seen there differ from the loops by at most two batches
	# at either edge: the bound is twice the largest batch the case asked for.
	# obsw OUT SYSCALLS ARGS...: strace -f -ttt over a sys run, its log in OUT.st
	obsw() { local o=$1 calls=$2; shift 2; strace -f -ttt -o $o.st -e trace=$calls,write,execve "$BC" run sys "$@" --warmup 0 -q -o $o.json >/dev/null 2>&1 </dev/null; }
	# win OUT PATTERN...: "helper other" calls in the window per pattern, then the largest batch
	win() { local o=$1; shift; "$PY" "$(dirname "$0")/strace_window.py" $o.st $o.json "$@"; }
	# within_win DESC LOOPS SEEN LARGEST_BATCH [CALLS_PER_LOOP]
	within_win() {
		local k=${5:-1} edge
		edge=$(( k * (2 * $4 + 2) ))	# (+ 2 loops: a call as the window's edge is read)
		if [ -n "$3" ] && [ "$3" -ge $(( k * $2 - edge )) ] && [ "$3" -le $(( k * $2 + edge )) ]; then
			pass "$1 ($2 loops, $3 seen in the window, batches of at most $4)"
		else fail "$1: $2 loops counted, strace saw ${3:-none} in the window (at most $k x $2 +- $edge: batches of at most $4)"; fi
	}
	# (1 s: under strace a fork can take tens of ms on a loaded machine)
	obsw $T/o4 clone,clone3,fork,vfork test=spawn --time 1
	read -r c co f fo mb <<<"$(win $T/o4 'clone3?\(' '(v?fork)\(')"
	within_win "spawn: one fork per loop counted, in the helper" "$(loops $T/o4.json)" "$((c + f))" "$mb"
	# the process tests fork from the helper, never from the case's process
	check "spawn: the forks in the window are the helper's (sys-helper: $((c + f))), none the case process's ($co clones, $fo forks)" \
		test $((c + f)) -ge 1 -a "$co" -eq 0 -a "$fo" -eq 0
	obsw $T/o5 execve test=execl --time 0.3
	read -r e eo mb <<<"$(win $T/o5 'execve\(.*"--chain"')"
	within_win "execl: one exec per loop counted, in the helper" "$(loops $T/o5.json)" "$e" "$mb"
	obsw $T/o6 write test=context_switch --time 0.3
	# a counter (8 bytes) written there (the helper) and back (its partner, a process
	# it forked) per loop
	read -r w wo mb <<<"$(win $T/o6 'write\(\d+, "[^"]*"(\.\.\.)?, 8\)')"
	within_win "context_switch: a counter written there per loop counted" "$(loops $T/o6.json)" "$w" "$mb"
	within_win "context_switch: and written back per loop counted" "$(loops $T/o6.json)" "$wo" "$mb"
	# file_copy and pipe: the loops' reads and writes are the helper's (a small single-threaded
	# process, as UnixBench's programs: in the case's multithreaded process each call costs
	# more); a read another process's call interrupted is printed without its data
	obsw $T/o7 read test=file_copy path=$T buffer_size=1K max_blocks=64 --time 1
	read -r rd rdo wr wro mb <<<"$(win $T/o7 'read\(3, +("bbbbbbbb|<unfinished)' 'write\(4, "bbbbbbbb')"
	within_win "file_copy: one 1K read of the source per loop counted, in the helper" "$(loops $T/o7.json)" "$rd" "$mb"
	within_win "file_copy: one 1K write to the copy per loop counted, in the helper" "$(loops $T/o7.json)" "$wr" "$mb"
	check "file_copy: the case's own process copies nothing in the window ($rdo reads, $wro writes)" test "$rdo" -eq 0 -a "$wro" -eq 0
	obsw $T/o9 write test=pipe --time 1
	read -r pw pwo mb <<<"$(win $T/o9 'write\(\d+, "p{8}')"
	within_win "pipe: one 512-byte write per loop, in the helper" "$(loops $T/o9.json)" "$pw" "$mb"
	check "pipe: none in the case's own process ($pwo)" test "$pwo" -eq 0
	obsw $T/o8 execve test=shell concurrency=2 --time 1
	# a loop: the outer script, 2 copies of the inner one, each exec'ing sort, od, sort,
	# grep, tee, wc and rm: 1 + 2 x 8 execs, by the helper's children
	read -r e eo mb <<<"$(win $T/o8 'execve\(')"
	within_win "shell at concurrency 2: 17 execs per loop counted" "$(loops $T/o8.json)" "$((e + eo))" "$mb" 17
else
	fail "strace not installed (scripts/deps.sh installs it)"
fi

# context_switch: the context switches the kernel counted for benchcore and every
# process it and its helper waited for (getrusage RUSAGE_CHILDREN of a parent this test
# runs: the helper and its partner are reaped, so theirs are in it): each loop is a
# round trip, the helper and its partner each blocking once on a read
"$PY" -S - "$BC" $T/cs.json >$T/cs.out <<'PYEOF'
import json, resource, subprocess, sys
subprocess.run([sys.argv[1], "run", "sys", "test=context_switch", "--time", "0.3", "--warmup", "0", "-q", "-o", sys.argv[2]],
               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.load(open(sys.argv[2]))["cases"][0]["ops"]["loop"]["count"], ru.ru_nvcsw + ru.ru_nivcsw)
PYEOF
read -r n cs <$T/cs.out
if [ -n "$cs" ] && [ "$n" -gt 100 ] && [ "$cs" -ge $((2 * n - n / 20)) ] && [ "$cs" -le $((2 * n + n / 2 + 5000)) ]; then
	pass "context_switch: the kernel counted two switches a loop ($n loops, $cs switches)"
else fail "context_switch: $n loops counted, the kernel counted ${cs:-no} switches"; fi

# context_switch beside nothing (issue 52): its partner process is half of the
# workload, declared like the helper, so what the case's CPU saw of other
# processes is the machine's own load only. On a shared machine that load is
# not 0: an observer (cpu_observer.py, no busy loop of its own) samples CPU 0
# and the case's process tree (the case, its helper, the partner) over the
# window; benchcore's interference_pct is what the observer saw the others take
# (within 5 points). Before, the partner's ~half of CPU 0 was "other" (49.8%).
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
	OBS="$(dirname "$0")/cpu_observer.py"
	"$PY" "$OBS" none taskset -c 0 "$BC" run sys test=context_switch --time 1 --warmup 0.2 --report-interval 0.1 \
		-o $T/csi.json >$T/csi.samples 2>$T/csi.err </dev/null
	"$PY" "$OBS" --window $T/csi.samples "$(jget $T/csi.json "d['cases'][0]['duration_s']" 2>/dev/null)" >$T/csi.obs 2>>$T/csi.err
	echo "    context_switch: benchcore: $(jget $T/csi.json "{k: v for k, v in d['cases'][0]['cpu'].items() if k in ('interference_pct', 'servers', 'server_pct', 'cpus_use')}" 2>&1)"
	echo "    context_switch: observer: $(cat $T/csi.obs)"
	expect_py "context_switch: the helper's partner is declared as the workload's" $T/csi.json \
		"\"sys-helper's partner\" in d['cases'][0]['cpu']['servers']"
	r=$("$PY" -S -c 'import json, sys
c = json.load(open(sys.argv[1]))["cases"][0]["cpu"]
o = json.load(open(sys.argv[2]))
print(abs(c["interference_pct"] - o["cpu0_interference_tree_pct"]) <= 5, round(c["interference_pct"], 1), round(o["cpu0_interference_tree_pct"], 1))' \
		$T/csi.json $T/csi.obs 2>&1)
	if [ "${r%% *}" = True ]; then pass "context_switch beside nothing: interference is the machine's other load only (benchcore, observer: ${r#* })"
	else fail "context_switch beside nothing: interference_pct is not what the others took of CPU 0 (benchcore, observer: ${r#* })"; fi
else
	pass "context_switch interference: skipped (needs 2 CPUs and taskset)"
fi

# file_copy: its own files only, removed after; no other file touched
mkdir -p $T/fc && echo keep >$T/fc/other.txt && ln -s $T/fc/other.txt $T/fc/link
run_sys $T/fc1 test=file_copy path=$T/fc buffer_size=256 max_blocks=500 --time 0.3 --threads 1,2
expect_rc "file_copy in a directory holding other files" 0
check "file_copy leaves only what was there" test "$(ls -A $T/fc | tr '\n' ' ')" = "link other.txt "
check "file_copy touched no other file" test "$(cat $T/fc/other.txt)" = keep
run_sys $T/fc2 test=file_copy path=$T/fc/other.txt --time 0.2
expect_rc "file_copy with path a regular file fails its case" 1
check "file_copy: the file named as path is untouched" test "$(cat $T/fc/other.txt)" = keep
run_sys $T/fc3 test=file_copy path=$T/nonexistent --time 0.2
expect_rc "file_copy with path missing fails its case" 1
expect_py "file_copy: the reason names the path" $T/fc3.json "'nonexistent' in d['cases'][0]['reason']"

# threads = N runs N copies at once (UnixBench -c N)
run_sys $T/par test=spawn --threads 2 --time 0.3
expect_py "spawn at 2 threads: two copies, each did loops" $T/par.json \
	"d['cases'][0]['threads'] == 2 and d['cases'][0]['status'] == 'ok' and d['cases'][0]['fairness']['events_min'] > 0"
# (this build's helper only: another build's tests may run beside these)
check "no sys-helper process is left" sh -c "! pgrep -f '$(cd "$(dirname "$BC")" && pwd -P)/modules/sys-helpe[r] serve' >/dev/null"

# --- cpu test = dhrystone | whetstone (UnixBench's dhry2reg, whetstone-double)
run_bc $T/dh run cpu test=dhrystone --time 0.3 --warmup 0 -q -o $T/dh.json
expect_rc "cpu test=dhrystone runs (its published final values checked every batch)" 0
expect_py "dhrystone: loops_per_sec is 10000 loops a timed event, dmips = lps / 1757" $T/dh.json \
	"[abs(c['metrics']['loops_per_sec']['value'] - 10000 * c['metrics']['events_per_sec']['value']) < 1e-6 * c['metrics']['loops_per_sec']['value'] and abs(c['metrics']['dmips']['value'] * 1757 - c['metrics']['loops_per_sec']['value']) < 1e-3 * c['metrics']['loops_per_sec']['value'] for c in d['cases']] == [True]"
# every module of Whetstone is run: module 7's results once went nowhere and the compiler
# dropped its sin, cos and atan (the figure was 1.27 x UnixBench's); cpu.so calls them now
undef=$(nm -D --undefined-only "$(dirname "$BC")/modules/cpu.so" 2>/dev/null | awk '{print $NF}' | sed 's/@.*//' | tr '\n' ' ')
check "whetstone: module 7's atan and cos (or sincos) are called, module 11's exp and log ($undef)" \
	sh -c "echo ' $undef' | grep -q ' atan ' && echo ' $undef' | grep -Eq ' (cos|sincos) ' && echo ' $undef' | grep -q ' exp ' && echo ' $undef' | grep -q ' log '"
run_bc $T/wh run cpu test=whetstone --time 0.3 --warmup 0 -q -o $T/wh.json
expect_rc "cpu test=whetstone runs" 0
expect_py "whetstone: mwips is passes (a million Whetstone instructions each) per second" $T/wh.json \
	"[abs(c['metrics']['mwips']['value'] - c['metrics']['events_per_sec']['value']) < 1e-6 * c['metrics']['mwips']['value'] and c['metrics']['mwips']['value'] > 0 for c in d['cases']] == [True]"
run_bc $T/pr run cpu --time 0.2 --warmup 0 -q -o $T/pr.json
expect_py "cpu's default is still sysbench's prime loop, no UnixBench metric" $T/pr.json \
	"[c['params']['test'] == 'prime' and 'mwips' not in c['metrics'] and 'loops_per_sec' not in c['metrics'] for c in d['cases']] == [True]"

# --- compare --index unixbench: UnixBench's table and score, recomputed by hand
run_bc $T/ubbase run cpu max_prime=300 --time 0.1 --warmup 0 --repeat 2 -q -o $T/ubbase.json
"$PY" -S - $T/ubbase.json $T/ubfx.json <<'PYEOF'
import copy, json, sys
d = json.load(open(sys.argv[1]))
proto = d["cases"][0]
tests = [  # module, params, metric, the two repeats' values
    ("cpu", {"test": "dhrystone", "max_prime": 10000}, "loops_per_sec", [23340000, 23340000]),
    ("cpu", {"test": "whetstone", "max_prime": 10000}, "mwips", [5500, 5500]),
    ("sys", {"test": "syscall", "buffer_size": 1024, "max_blocks": 2000, "concurrency": 1, "path": "/x"}, "loops_per_sec", [1500000, 1500000]),
    ("sys", {"test": "pipe", "buffer_size": 1024, "max_blocks": 2000, "concurrency": 1, "path": "/x"}, "loops_per_sec", [124400, 124400]),
    ("sys", {"test": "file_copy", "buffer_size": 1024, "max_blocks": 2000, "concurrency": 1, "path": "/x"}, "kib_per_sec", [396000, 396000]),
]
cases = []
for i, (mod, params, metric, vals) in enumerate(tests):
    for r, v in enumerate(vals):
        c = copy.deepcopy(proto)
        c["id"] = len(cases) + 1; c["module"] = mod; c["params"] = params; c["repeat"] = r + 1
        c["metrics"] = {metric: {"value": v, "unit": "x", "higher_is_better": True}}
        c["headline"] = metric
        cases.append(c)
d["cases"] = cases
d["groups"] = []
json.dump(d, open(sys.argv[2], "w"))
PYEOF
run_bc $T/ubi compare --index unixbench $T/ubfx.json
expect_rc "compare --index unixbench on a fixture" 0
# indexes: 23340000/116700*10 = 2000, 5500/55*10 = 1000, 1500000/15000*10 = 1000,
# 124400/12440*10 = 100, 396000/3960*10 = 1000; score = (2000*1000*1000*100*1000)^(1/5) = 724.78
expect_grep "dhrystone's index is result / 116700 x 10" $T/ubi.out '^Dhrystone 2 using register variables +116700\.0 +23340000\.0 lps +2000\.0 \+-0\.0%$'
expect_grep "pipe's index is result / 12440 x 10" $T/ubi.out '^Pipe Throughput +12440\.0 +124400\.0 lps +100\.0 \+-0\.0%$'
expect_grep "file copy 1024/2000's index is its KB/s / 3960 x 10" $T/ubi.out '^File Copy 1024 bufsize 2000 maxblocks +3960\.0 +396000\.0 KBps +1000\.0 \+-0\.0%$'
expect_grep "the score is the geometric mean of the indexes present" $T/ubi.out '^System Benchmarks Index Score +724\.8$'
expect_grep "a missing test is named with the case that would give it" $T/ubi.out '^  Execl Throughput \(sys test=execl\)$'
expect_grep "the score says how many tests it covers" $T/ubi.out 'the score is over the 5 tests present'
run_bc $T/ubn compare --index unixbench $T/ubbase.json
expect_rc "compare --index unixbench on a file without any of its tests" 2
expect_grep "it says which config runs them" $T/ubn.out "none of the set.s tests"

# --- two files: each one's score against the first's, the ratio's interval and compare's verdict
"$PY" -S - $T/ubbase.json $T <<'PYEOF'
import copy, json, sys
d = json.load(open(sys.argv[1]))
proto = d["cases"][0]
proto.pop("cpu", None)		# no interference: the verdicts are the data's alone
proto["warnings"] = []
sysp = {"buffer_size": 1024, "max_blocks": 2000, "concurrency": 1, "path": "/x"}
tests = [("cpu", {"test": "dhrystone", "max_prime": 10000}, "loops_per_sec"),
         ("sys", dict(sysp, test="pipe"), "loops_per_sec"), ("sys", dict(sysp, test="syscall"), "loops_per_sec")]
def fixture(name, vals):
    cases = []
    for (mod, params, metric), vs in zip(tests, vals):
        for r, v in enumerate(vs):
            c = copy.deepcopy(proto)
            c.update(id=len(cases) + 1, module=mod, params=params, repeat=r + 1, headline=metric,
                     metrics={metric: {"value": v, "unit": "x", "higher_is_better": True}})
            cases.append(c)
    e = dict(d, cases=cases, groups=[], label=name)
    json.dump(e, open("%s/ub%s.json" % (sys.argv[2], name), "w"))
spread = lambda v: [v, v * 1.01, v * 0.99]
fixture("A", [spread(1000000), spread(100000), spread(50000)])
fixture("B", [spread(1200000), spread(120000), spread(60000)])	# every test 1.2 x A's
fixture("C", [spread(1000000), spread(100200), spread(49900)])	# within 1% of A's
PYEOF
run_bc $T/ub2 compare --index unixbench $T/ubA.json $T/ubB.json $T/ubC.json
expect_rc "compare --index unixbench A B C" 0
# by hand: A's indexes 1e6/116700 x 10 = 85.69, 1e5/12440 x 10 = 80.39, 5e4/15000 x 10 = 33.33,
# score (85.69 x 80.39 x 33.33)^(1/3) = 61.23; B's 1.2 x that = 73.48. The ratio 1.2, each
# test's log spread 0.01 a repeat: se = sqrt(2 x 1e-4 / 3) a test, sqrt(3) times smaller over
# three (0.00471), 12 degrees of freedom, t(80%) = 1.356: 1.2 x exp(+-0.00639) = [1.192, 1.208]
expect_grep "B's score against A's: ratio, 80% interval, compare's verdict (win)" $T/ub2.out \
	'^  B, 1 copy: 73\.5 against 61\.2, ratio 1\.200 \[1\.192, 1\.208\] \(80%\) over 3 tests: win$'
expect_grep "C's score within 2% of A's, 3 repeats a test: a tie" $T/ub2.out \
	'^  C, 1 copy: 61\.2 against 61\.2, ratio 1\.000 \[0\.99[0-9], 1\.00[0-9]\] \(80%\) over 3 tests: tie '
expect_grep "each file's table is still printed" $T/ub2.out '^ubB \(|^B \('
run_bc $T/ub2j compare --index unixbench --json $T/ubA.json $T/ubB.json
expect_rc "compare --index unixbench --json A B" 0
cp $T/ub2j.out $T/ub2j.json
expect_py "--json: the scores, the ratio, its interval and the verdict" $T/ub2j.json \
	"[(round(c['score_a'], 1), round(c['score_b'], 1), round(c['ratio'], 3), round(c['low'], 3), round(c['high'], 3), c['verdict'], c['level']) for c in d['comparisons']] == [(61.2, 73.5, 1.2, 1.192, 1.208, 'win', 0.8)]"
expect_py "--json: each file's tests with index and interval" $T/ub2j.json \
	"[round(t['index'], 1) for t in d['files'][0]['tables'][0]['tests']] == [85.7, 80.4, 33.3] and d['files'][1]['tables'][0]['score'] > 73"
"$PY" -S - $T/ubA.json $T/ubD.json <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["cases"] = [c for c in d["cases"] if c["repeat"] == 1]	# one repeat a test
d["label"] = "D"
json.dump(d, open(sys.argv[2], "w"))
PYEOF
run_bc $T/ub3 compare --index unixbench $T/ubA.json $T/ubD.json
expect_grep "one repeat a test: no interval, inconclusive, says why" $T/ub3.out \
	'^  D, 1 copy: .* ratio [0-9.]+ over 3 tests: inconclusive \(3 of its tests have fewer than 2 repeats'
run_bc $T/ub4 compare --index $T/ubA.json $T/ubB.json
expect_grep "--index against a first results file is still the index against it" $T/ub4.out '^index \(baseline = 100\)'
# the report: the same table and the ratio with its verdict, only when asked
run_bc $T/rep report --index unixbench $T/ubA.json $T/ubB.json -o $T/rep.html
expect_rc "report --index unixbench A B" 0
expect_grep "report: UnixBench's table, a test's baseline, result and index" $T/rep.html \
	"<td>Pipe Throughput</td><td class='num'>12440\.0</td><td class='num'>100000\.0</td><td>lps</td><td class='num'>80\.4</td>"
expect_grep "report: the score" $T/rep.html "<th>System Benchmarks Index Score</th><td></td><td></td><td></td><th class='num'>61\.2</th>"
expect_grep "report: B's score against A's, the ratio, its interval and the verdict" $T/rep.html \
	"<td class='num'>73\.5</td><td class='num'>61\.2</td><td class='num'>1\.200</td><td class='num'>1\.192 \.\. 1\.208 \(80%\)</td><td class='num'>3</td><td class='win'>win</td>"
run_bc $T/rep0 report $T/ubA.json $T/ubB.json -o $T/rep0.html
check "report without --index has no UnixBench section" sh -c "! grep -q 'System Benchmarks Index Score' $T/rep0.html"
run_bc $T/rep1 report --index nosuchset $T/ubA.json -o $T/rep1.html
expect_grep "report --index with a set that is not there says so on the page" $T/rep1.html "no reference set .*nosuchset"

# file_copy's file is max_blocks KiB (UnixBench's -m), whatever the buffer: the
# plan checks two such files a thread against the free space at path
if mkdir -p $T/small && mount -t tmpfs -o size=3M tmpfs $T/small 2>/dev/null; then
	run_sys $T/fs1 test=file_copy path=$T/small buffer_size=256 max_blocks=2000 --time 0.2
	expect_py "file_copy at 256 bytes, max_blocks 2000: 2 x 2000 KiB does not fit 3 MiB, skipped with the figures" $T/fs1.json \
		"d['cases'][0]['status'] == 'skipped' and '2 files of 2000 KiB a thread' in d['cases'][0]['reason']"
	run_sys $T/fs2 test=file_copy path=$T/small buffer_size=4K max_blocks=500 --time 0.2
	expect_py "file_copy at 4K, max_blocks 500: 2 x 500 KiB fits, runs" $T/fs2.json "d['cases'][0]['status'] == 'ok'"
	umount $T/small
else
	echo "SKIP: file_copy sizes: cannot mount a tmpfs here"
fi
