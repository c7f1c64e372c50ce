#!/usr/bin/env bash
# Hostile inputs to the readers (compare, report) and the config loader: no forged
# output lines, no reversed page, no blocking on FIFOs, no duplicate keys, no
# negative counts, no merged metrics, output proportional to input.
. "$(dirname "$0")/lib.sh"
FX=tests/fixtures

# --- compare's text cannot be forged by a label or a host field
python3 - $FX/cmp-a.json $T/esc.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["label"] = "evil\nsummary, A against B:\nB: 9 wins\x1b[2J"
d["host"]["os"] = "Debian\x1b]0;owned\x07"
d["host"]["kernel"] = "another kernel"
json.dump(d, open(sys.argv[2], "w"))
PY
run_bc $T/ce compare $FX/cmp-a.json $T/esc.json
expect_rc "compare of a file with control characters in its label" 0
expect_no_grep "a label's newline cannot start a line of its own" $T/ce.out '^summary, A against B:'
expect_no_grep "no raw escape character reaches the terminal" $T/ce.out $'\x1b'
expect_grep "the label is shown with visible escapes" $T/ce.out 'evil\\x0asummary, A against B:\\x0aB: 9 wins\\x1b\[2J'
expect_grep "a host field's escape sequence is shown, not run" $T/ce.out 'Debian\\x1b\]0;owned\\x07'

# --- report: a right-to-left override is escaped and every label isolated
python3 - $FX/cmp-a.json $T/rlo.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["label"] = "abc\u202edcba"
json.dump(d, open(sys.argv[2], "w"), ensure_ascii=False)
PY
run_bc $T/rr report $FX/cmp-a.json $T/rlo.json -o $T/rlo.html
expect_rc "report of a file with a right-to-left override in its label" 0
expect_no_grep "no right-to-left override in the page" $T/rlo.html $'\u202e'
expect_grep "the override is shown as an escape, inside <bdi>" $T/rlo.html '<bdi>abc\\u202edcba</bdi>'

# --- report: output proportional to the input (a long label is not repeated per point)
python3 - $FX/cmp-sweep.json $T/long.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["label"] = "L" * 200000
json.dump(d, open(sys.argv[2], "w"))
PY
run_bc $T/lr report $FX/cmp-sweep.json $T/long.json -o $T/long.html
in_size=$(stat -c %s $T/long.json); out_size=$(stat -c %s $T/long.html)
check "a 200 KB label makes a page at most a few times the input ($out_size bytes for $in_size)" \
	test "$out_size" -lt $((in_size * 8))

# --- results a reader must refuse
python3 - $FX/cmp-a.json $T <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); t = sys.argv[2]
s = json.dumps(d)
open(t + "/dup.json", "w").write(s.replace('"cases":', '"label": "second", "cases":', 1) if '"label"' in s else s[:-1] + ', "schema": "benchcore/1"}')
d2 = json.loads(s); d2["cases"][0]["fairness"]["events_stddev"] = -5.0
json.dump(d2, open(t + "/negsd.json", "w"))
d3 = json.loads(s); op = next(iter(d3["cases"][0]["ops"])); d3["cases"][0]["ops"][op]["count"] = -3
json.dump(d3, open(t + "/negcount.json", "w"))
d4 = json.loads(s)
for c in d4["cases"]: c["module"] = "cpu\nx"
json.dump(d4, open(t + "/nlmod.json", "w"))
PY
run_bc $T/dup compare $FX/cmp-a.json $T/dup.json
expect_rc "a results file with a key given twice is refused" 2
expect_grep "the duplicate key is named" $T/dup.err 'duplicate object key'
run_bc $T/nsd compare $FX/cmp-a.json $T/negsd.json
expect_rc "a negative standard deviation is refused" 2
expect_grep "the field is named" $T/nsd.err 'fairness.events_stddev: not a number >= 0'
run_bc $T/nc compare $FX/cmp-a.json $T/negcount.json
expect_rc "a negative count is refused" 2
expect_grep "the count is named" $T/nc.err 'count: not a count'
run_bc $T/nl compare $T/nlmod.json $T/nlmod.json
expect_rc "a newline in a module name is refused (compare of a file with itself matched none of its cases)" 2
expect_grep "the field and the character are named" $T/nl.err 'cases\[0\]\.module: a control character \(\\x0a\) is in no module'"'"'s name'

# --- two op names that agree in their first 600 bytes stay two metrics
python3 - $FX/cmp-a.json $T/longop.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cases"]:
    if not c.get("ops"):
        continue
    op = next(iter(c["ops"]))
    v = c["ops"].pop(op)
    c["ops"]["x" * 600 + "A"] = v
    c["ops"]["x" * 600 + "B"] = json.loads(json.dumps(v))
json.dump(d, open(sys.argv[2], "w"))
PY
run_bc $T/lo compare --json $T/longop.json $T/longop.json
expect_py "long op names: every percentile of both ops is its own row" $T/lo.out \
	'set(r["metric"][600:] for r in d["comparisons"][0]["rows"] if r["metric"].startswith("x"*600)) == {"A.p50_ms","A.p99_ms","B.p50_ms","B.p99_ms"}'

# --- inputs that are not regular files are refused at once, never waited on
mkfifo $T/fifo.json $T/fifo.conf
start=$(date +%s)
timeout 10 "$BC" compare $T/fifo.json $T/fifo.json >$T/ff.out 2>$T/ff.err; RC=$?
expect_rc "compare of a FIFO is refused (not waited on)" 2
expect_grep "the FIFO is named" $T/ff.err 'fifo.json: not a regular file \(a FIFO\)'
timeout 10 "$BC" compare /dev/zero $FX/cmp-a.json >$T/dz.out 2>$T/dz.err; RC=$?
expect_rc "compare of /dev/zero is refused" 2
expect_grep "a device is named as such" $T/dz.err '/dev/zero: not a regular file \(a device\)'
timeout 10 "$BC" -c $T/fifo.conf >$T/fc.out 2>$T/fc.err; RC=$?
expect_rc "a FIFO as the config file is refused" 2
printf '@include "%s"\nmodules = ({ name = "cpu"; });\n' $T/fifo.conf >$T/inc.conf
timeout 10 "$BC" -c $T/inc.conf >$T/ic.out 2>$T/ic.err; RC=$?
expect_rc "a config that includes a FIFO is refused" 2
expect_grep "the included FIFO and its includer are named" $T/ic.err 'fifo.conf": not a regular file \(a FIFO\)'
printf '@include "%s"\nmodules = ({ name = "cpu"; });\n' $T/self.conf >$T/self.conf
timeout 10 "$BC" -c $T/self.conf >$T/sc.out 2>$T/sc.err; RC=$?
expect_rc "a config that includes itself is refused" 2
python3 -c "print('# ' + 'x' * 2000000)" >$T/big.conf
timeout 10 "$BC" -c $T/big.conf >$T/bc.out 2>$T/bc.err; RC=$?
expect_rc "a config over 1 MiB is refused" 2
expect_grep "its size is named" $T/bc.err 'too large'
check "no input check took long (all of the above in $(( $(date +%s) - start )) s)" test $(( $(date +%s) - start )) -lt 20

# --- text that is not UTF-8: refused up front from a user, made to fit from a module
run_bc $T/l1 run cpu --label $'caf\xe9' --time 0.05 --warmup 0 -o $T/l1.json
expect_rc "a Latin-1 label is refused before anything runs" 2
expect_grep "the reason is named" $T/l1.err 'not valid UTF-8'
check "no results file for a refused label" test ! -e $T/l1.json
mkdir -p $T/lat
run_bc $T/p1 run io path=$T/lat/$'d\xe9j\xe0' --time 0.05 --warmup 0 -o $T/p1.json
expect_rc "an io path in Latin-1 is refused (never silently dropped)" 2
expect_grep "the option and the reason are named" $T/p1.err 'option "path" \(string\): not valid UTF-8'
printf 'label = "caf\xe9";\nmodules = ({ name = "cpu"; time = 0.05; warmup = 0; });\n' >$T/l1.conf
run_bc $T/lc -c $T/l1.conf -o $T/lc.json
expect_rc "a Latin-1 label in site.conf is refused" 2
expect_grep "site.conf's line is named" $T/lc.err 'l1.conf:1: invalid value'
run_bc $T/m1 run ops --module-path $TESTMODS fail=true --time 0.2 --warmup 0 -o $T/m1.json
expect_rc "a module's Latin-1 error and info: the case fails as it should, the run goes on" 1
expect_py "its text is kept with the bad bytes replaced, the results file is whole" $T/m1.json \
	'd["cases"][0]["info"]["latin1"]=="caf?" and "gave up on purpose (caf?)" in d["cases"][0]["reason"]'

# --- outputs: only regular files (or -), never an input, never claimed when lost
run_bc $T/rn report $FX/cmp-a.json -o /dev/null
expect_rc "report -o /dev/null is refused (the device is never replaced)" 2
expect_grep "why is named" $T/rn.err 'not a regular file \(a device\)'
check "/dev/null is still a character device" test -c /dev/null
cp $FX/cmp-a.json $T/in.json
run_bc $T/ri report $T/in.json -o $T/in.json
expect_rc "report -o onto one of its inputs is refused" 2
expect_py "the input is intact" $T/in.json 'd["schema"]=="benchcore/1"'
run_bc $T/rm report $FX/cmp-a.json -o $T/missing/r.html
expect_rc "report into a missing directory: refused up front" 2
"$BC" compare $FX/cmp-a.json $FX/cmp-slow.json >/dev/full 2>$T/cfull.err; RC=$?
expect_rc "compare to a full stdout is a failure, not exit 0" 2
expect_grep "and says so" $T/cfull.err 'writing the output failed: No space left on device'
"$BC" sysinfo >/dev/full 2>$T/sfull.err; RC=$?
expect_rc "sysinfo to a full stdout is a failure" 2

# --- a password on the command line is readable by every user: say so, point at _env/_file
run_bc $T/pw run faulty --module-path $TESTMODS password=hunter2 --time 0.05 --warmup 0 -q
expect_grep "a secret on the command line is warned about" $T/pw.err 'password" was given on the command line, where every user .* use password_env=VARIABLE or password_file=PATH'
expect_no_grep "the warning does not repeat the secret" $T/pw.err 'hunter2'

# --- a secret's _file that is a FIFO (or a directory) is refused at once, never waited on
mkfifo $T/pw.fifo
# the reference: the same run refused for a _file that does not exist (nothing to wait on)
ref=$(ref_ms "$BC" run faulty --module-path $TESTMODS password_file=$T/pw.none --time 0.05 --warmup 0 -q)
t0=$(date +%s%N)
timeout 10 "$BC" run faulty --module-path $TESTMODS password_file=$T/pw.fifo --time 0.05 --warmup 0 -q \
	>$T/pf.out 2>$T/pf.err </dev/null; RC=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
expect_rc "password_file naming a FIFO: a usage error" 2
in_time "password_file naming a FIFO: refused at once, never waited on (the 10 s timeout would say)" "$ms" 500 "$ref"
expect_grep "password_file naming a FIFO: the message names the file and why" $T/pf.err "could not read \"$T/pw.fifo\" \(for option \"password\"\): not a regular file \(a FIFO\)"
run_bc $T/pd run faulty --module-path $TESTMODS password_file=$T --time 0.05 --warmup 0 -q
expect_rc "password_file naming a directory: a usage error" 2
expect_grep "password_file naming a directory: says so" $T/pd.err 'not a regular file \(a directory\)'

# --- run: outputs checked before the first case, locked, and never claimed when lost
run_bc $T/of run cpu max_prime=100 --time 0.05 --warmup 0 -q -o /dev/full
expect_rc "run -o /dev/full: refused before anything runs" 2
check "no /dev/full-1 was created" test ! -e /dev/full-1
run_bc $T/om run cpu max_prime=100 --time 0.05 --warmup 0 -q -o $T/nodir/x.json
expect_rc "run -o into a missing directory: refused up front" 2
expect_no_grep "nothing ran" $T/om.out '^\[case'
run_bc $T/os run cpu max_prime=100 --time 0.05 --warmup 0 -q -o $T/same --csv $T/same
expect_rc "-o X --csv X is refused (one would replace the other)" 2
(trap '' XFSZ; ulimit -f 2; "$BC" run cpu max_prime=100 --time 0.05 --warmup 0 -q -o $T/big.json >$T/ob.out 2>$T/ob.err); RC=$?
expect_rc "results that cannot be written (file size limit): exit 3, not 0" 3
expect_grep "the run says the results were not saved" $T/ob.err 'the results were NOT saved to .*big.json'
expect_no_grep "and never that they were" $T/ob.err 'results written to'
"$BC" run cpu max_prime=100 --time 0.05 --warmup 0 -o - >$T/stdout.json 2>$T/stdout.err; RC=$?
expect_rc "run -o -: JSON on stdout" 0
expect_py "stdout holds exactly the results document (the text went to stderr)" $T/stdout.json 'd["schema"]=="benchcore/1" and len(d["cases"])==1'
expect_grep "the case text is on stderr" $T/stdout.err '^\[case 1\] cpu'
# the second run must meet the first while it runs: a loaded machine's second
# run (ASan, beside another suite) took longer to start than the first's 1.5 s
# window; when the first was over before the second looked, longer again
for lt in 1.5 6 24; do
	rm -f $T/lock.json
	"$BC" run cpu max_prime=100 --time $lt --warmup 0 -q -o $T/lock.json >$T/l1.out 2>$T/l1.err &
	first=$!
	until_seen 300 test -e $T/lock.json.lock
	run_bc $T/l2 run cpu max_prime=100 --time 0.05 --warmup 0 -q -o $T/lock.json
	kill -0 $first 2>/dev/null && break
	grep -q 'another benchcore run' $T/l2.err && break
	wait $first
done
expect_rc "a second run writing the same results file is refused" 2
expect_grep "naming the other run" $T/l2.err "another benchcore run \(pid $first\) is writing"
wait $first; RC=$?
expect_rc "the first run is not disturbed" 0
expect_py "and its results are whole" $T/lock.json 'len(d["cases"])==1 and d["cases"][0]["status"]=="ok"'
check "the lock file is removed when the run ends" test ! -e $T/lock.json.lock
run_bc $T/big run cpu max_prime=3,4,5,6,7,8,9,10,11,12 --threads 1,2,3,4,5,6,7,8,9,10 --repeat 101 -q
expect_rc "a plan beyond max_cases is refused (even with -q)" 2
expect_grep "its size and duration are said, and how to confirm" $T/big.err 'the plan has 10100 cases, about 111100 s \(1\.3 days\).*max_cases = 10000'
expect_grep "the confirming flag is named" $T/big.err 'give --max-cases 10100'

# --- an extreme (finite) metric is printed in a form a person can read
run_bc $T/tm run rogue --module-path $TESTMODS fault=tiny_metric --time 0.1 --warmup 0 -o $T/tm.json
expect_grep "-1e308 is printed as -1e+308, not as a 300-digit number" $T/tm.out '^    ratio +-1e\+308 '
expect_no_grep "no line of hundreds of digits" $T/tm.out '[0-9]{40}'
expect_py "the results keep the value itself" $T/tm.json 'd["cases"][0]["metrics"]["ratio"]["value"] == -1e308'

# --- a long interval series goes beside the results, not into memory and every rewrite
run_bc $T/sc run cpu max_prime=100 --time 3.3 --warmup 0 --report-interval 0.01 -q -o $T/sc.json
expect_py "a case with more than 300 intervals names its series file instead of holding it" $T/sc.json \
	'"intervals" not in d["cases"][0] and d["cases"][0]["intervals_file"]=="sc.json.intervals.jsonl" and d["cases"][0]["intervals_count"] > 300'
expect_py "the series file holds every interval of that case" $T/sc.json.intervals.jsonl \
	'd["case"]==1 and len(d["intervals"]) > 300 and all("events_per_sec" in i for i in d["intervals"])'
run_bc $T/si run cpu max_prime=100 --time 0.2 --warmup 0 --report-interval 0.05 -q -o $T/si.json
expect_py "a short series stays inline" $T/si.json 'len(d["cases"][0]["intervals"]) >= 3 and "intervals_file" not in d["cases"][0]'
check "and no series file is made for it" test ! -e $T/si.json.intervals.jsonl

# --- list: a module directory refused whole is named as the directory, with why
mkdir -p $T/permdir && cp $BUILD/modules/cpu.so $T/permdir/ && chmod 777 $T/permdir
run_bc $T/pl list --module-path $T/permdir
expect_grep "list names a refused directory by its path" $T/pl.out "^\(directory\) $T/permdir: not searched"
expect_grep "... and says why" $T/pl.out "refusing to load from module directory \"$T/permdir\": .*writable by others"
expect_no_grep "... never as a file of it" $T/pl.out '\(directory\)\.so'

# --- option values print in their shortest round-trip form: 1.1, not 1.1000000000000001
printf 'time = 0.1; warmup = 0; repeat = 1; threads = [1];\nmodules = ( { name = "checkable"; factor = [1.1, 2.2]; words = 8; } );\n' >$T/rt.conf
run_bc $T/rt -c $T/rt.conf --module-path "$TESTMODS" -o $T/rt.json --csv $T/rt.csv -q
expect_grep "the run's CSV: factor=1.1" $T/rt.csv '^1,checkable,.*factor=1\.1 '
expect_py "... the results keep the exact double" $T/rt.json '[c["params"]["factor"] for c in d["cases"]] == [1.1, 2.2]'
for v in "" --table --index --csv; do
	run_bc $T/rc$v compare $v $T/rt.json $T/rt.json
	expect_grep "compare ${v:-(text)}: factor=1.1" $T/rc$v.out 'factor=1\.1[ ,]'
	expect_no_grep "... never 1.1000000000000001" $T/rc$v.out 'factor=1\.10000000'
done

# --- compare: a metric no measurement gives is refused; huge values print in 6 digits; no clock, no nan
python3 - $FX/cmp-a.json $T <<'PY'
import json, sys
for name, edit in (("neg", lambda c: c["metrics"]["events_per_sec"].update(value=-990.0)),
                   ("huge", lambda c: c["metrics"]["events_per_sec"].update(value=1e300)),
                   ("noclk", lambda c: (c.pop("cpu_mhz_mean", None), c.pop("cpu_freq", None)))):
    d = json.load(open(sys.argv[1]))
    for c in d["cases"]:
        if "metrics" in c:
            edit(c)
    json.dump(d, open(sys.argv[2] + "/" + name + ".json", "w"))
PY
run_bc $T/cn compare $FX/cmp-a.json $T/neg.json
expect_rc "compare refuses a negative throughput" 2
expect_grep "... naming the file, the case and the metric" $T/cn.err \
	"^benchcore compare: $T/neg.json: cases\[0\] \(case 1, cpu, 1 thread\): metric events_per_sec is -990, which no measurement gives$"
expect_grep "... and why" $T/cn.err '^DETAIL: A throughput \(higher is better\) cannot be negative\.$'
run_bc $T/cnr report $FX/cmp-a.json $T/neg.json -o $T/cn.html
expect_rc "report refuses it too" 2
for v in "" --table --per-ghz --index; do
	run_bc $T/ch$v compare $v $FX/cmp-a.json $T/huge.json
	check "compare ${v:-(text)} of 1e300: no 300-digit figure (longest line $(wc -L <$T/ch$v.out))" test "$(wc -L <$T/ch$v.out)" -lt 400
	expect_grep "... in 6 significant digits" $T/ch$v.out '[0-9]e\+(300|29[0-9])'
done
run_bc $T/cg compare --per-ghz $FX/cmp-a.json $T/noclk.json
expect_no_grep "per-ghz of a file without a clock: never nan" $T/cg.out 'nan'
expect_grep "... says there is no clock" $T/cg.out 'no clock recorded'

# --- the run's summary labels each row by every option that differs between the module's entries
cat >$T/ent.conf <<'CONF'
time = 0.1; warmup = 0; repeat = 1; threads = [1];
modules = ( { name = "checkable"; kind = ["add", "xor"]; words = 8; },
            { name = "checkable"; kind = "add"; words = 16; } );
CONF
run_bc $T/ent -c $T/ent.conf --module-path "$TESTMODS" -o $T/ent.json
expect_grep "summary: an entry's row names the option the entries set differently" $T/ent.out '^1 +checkable words=8 kind=add +1 +1 ok'
expect_grep "... and the one swept in an entry" $T/ent.out '^2 +checkable words=8 kind=xor +1 +1 ok'
expect_grep "... the other entry's row apart from both" $T/ent.out '^3 +checkable words=16 kind=add +1 +1 ok'
