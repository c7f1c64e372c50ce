#!/usr/bin/env bash
# --resume: an interrupted run continues in its own results file and ends
# with every case exactly once; a changed config, module or flag is refused
# with the file left as it was. Every kind of interruption (SIGINT between
# cases and during one, SIGTERM, SIGKILL with a temporary mid-rewrite, a
# crashed case, a resume interrupted again, a complete run) is
# unit/test_resume's, in simulated time; here one live run killed outright
# (the real case child, its process group) and resumed, a kill in a real
# prepare, and the refusals.
. "$(dirname "$0")/lib.sh"
cd $T
printf 'time = 0.3;\nwarmup = 0;\nrepeat = 2;\nthreads = [1, 2];\nreport_interval = 0;\nmodules = ({ name = "cpu"; max_prime = [300, 400]; });\n' >r.conf

# count_ok FILE: "cases slots-each-once ok-count"
slots() { jget "$1" '(len(d["cases"]), sorted(set(__import__("collections").Counter((c["params"]["max_prime"], c["threads"], c["repeat"]) for c in d["cases"]).values())), sum(c["status"] == "ok" for c in d["cases"]))'; }

# killed outright mid-run, resumed
"$BC" -c r.conf -o r.json -q >/dev/null 2>&1 </dev/null &
pid=$!
for i in $(seq 1 60); do [ -s r.json ] && break; sleep 0.05; done
sleep 0.35; kill -KILL $pid 2>/dev/null; wait $pid 2>/dev/null
n1=$(jget r.json 'len(d["cases"])')
check "killed: the file holds the cases written before the kill ($n1 of 8)" test "$n1" -ge 1 -a "$n1" -lt 8
run_bc $T/fin -c r.conf -o r.json --resume
expect_rc "the last resume runs what is left" 0
expect_grep "resume: the plan says how many were kept and how many run" $T/fin.err '^plan: resuming r\.json: [0-9]+ cases? kept, [0-9]+ to run'
expect_py "after the kill: 8 cases, each exactly once, all ok" r.json \
	'len(d["cases"]) == 8 and len(set((c["params"]["max_prime"], c["threads"], c["repeat"]) for c in d["cases"])) == 8 and all(c["status"] == "ok" for c in d["cases"])'
expect_py "ids stay unique across the resumes" r.json 'len(set(c["id"] for c in d["cases"])) == 8'
expect_py "resumed[] records each resume that wrote (at, kept, rerun)" r.json \
	'len(d["resumed"]) >= 1 and all(set(x) == {"at", "kept", "rerun"} for x in d["resumed"])'
expect_py "groups[] covers every case once (2 repeats per group)" r.json 'all(g["repeats"] == 2 for g in d["groups"])'

# refused: the file stays byte for byte
cp r.json before.json
run_bc $T/c1 -c r.conf -o r.json --resume --time 0.5
expect_rc "resume with another --time: refused" 2
expect_grep "refused: the config changed, and why that matters" $T/c1.err 'cannot resume: the config is not the one the run started with'
check "refused: the results file is unchanged" cmp -s r.json before.json
mkdir -p mods && cp "$(dirname "$BC")/modules/cpu.so" mods/ && printf 'x' >>mods/cpu.so
run_bc $T/c2 -c r.conf -o r.json --resume --module-path $T/mods
expect_rc "resume with another cpu.so: refused" 2
expect_grep "refused: the module file is named" $T/c2.err 'cannot resume: module "cpu" is not the file that measured the cases so far'
check "refused (module): the results file is unchanged" cmp -s r.json before.json
run_bc $T/c3 -c r.conf --resume
expect_rc "--resume without -o" 2
run_bc $T/c4 -c r.conf -o nothere.json --resume
expect_rc "--resume of a file that is not there" 2
expect_grep "--resume of a missing file says so" $T/c4.err 'cannot resume from "nothere.json"'
printf '{"schema": "benchcore/1"}' >bad.json
run_bc $T/c5 -c r.conf -o bad.json --resume
expect_rc "--resume of a file that is not a run" 2
"$PY" -S -c 'import json; d = json.load(open("r.json")); d["host"]["kernel"] = "0.0-other"; json.dump(d, open("k.json", "w"))'
run_bc $T/c6 -c r.conf -o k.json --resume
expect_rc "--resume on another kernel: refused" 2
expect_grep "refused: the machine changed, the fact named" $T/c6.err 'host\.kernel was "0\.0-other"'
check "nothing left behind: no lock files" test -z "$(ls *.lock 2>/dev/null)"

# killed in prepare: the prepared data is laid out again, the cases run once
MP="--module-path $TESTMODS"
printf 'time = 0.2;\nwarmup = 0;\nrepeat = 2;\nreport_interval = 0;\nmodules = ({ name = "prep"; log = "%s"; prepare_s = 1; size = [1, 2]; });\n' $T/prep.log >p.conf
"$BC" -c p.conf $MP -o p.json -q >/dev/null 2>&1 </dev/null &
pid=$!
# the first case written, the second data point's 1 s prepare under way
for i in $(seq 1 100); do [ "$(jget p.json 'len(d["cases"])' 2>/dev/null || echo 0)" -ge 1 ] && break; sleep 0.05; done
sleep 0.4; kill -KILL $pid 2>/dev/null; wait $pid 2>/dev/null
check "killed in a prepare: the case before it is kept" test "$(jget p.json 'len(d["cases"])')" -ge 1
run_bc $T/pr -c p.conf $MP -o p.json --resume -q
expect_rc "after a kill in prepare: the resumed run completes" 0
expect_py "after a kill in prepare: each case once, all ok" p.json \
	'sorted((c["params"]["size"], c["repeat"]) for c in d["cases"]) == [(1, 1), (1, 2), (2, 1), (2, 2)] and all(c["status"] == "ok" for c in d["cases"])'
# forged files: each refused naming the case, exit 2, the file byte for byte
printf 'time = 0.2;\nwarmup = 0;\nrepeat = 1;\nreport_interval = 0;\nmodules = ({ name = "cpu"; max_prime = [300, 400]; });\n' >f.conf
run_bc $T/f0 -c f.conf -o f.json -q
expect_rc "a whole run to forge from" 0
"$PY" -S - f.json <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
a, b = d["cases"]
def forge(name, cases):
	x = copy.deepcopy(d); x["cases"] = cases; json.dump(x, open(name + ".json", "w"))
def change(c, **kw):
	c = copy.deepcopy(c); c.update(kw); return c
forge("dupcase", [a, change(a, id=2)])
forge("dupid", [a, change(b, id=a["id"])])
forge("foreign", [a, change(b, module="mem")])
forge("params", [a, change(b, params=dict(b["params"], max_prime=999))])
forge("threads", [a, change(b, threads=3)])
forge("repeat", [a, change(b, repeat=2)])
forge("noid", [a, change(b, id=0)])
forge("maxid", [change(a, id=2**63 - 1)])
forge("bigid", [change(a, id=2**32)])
PY
for f in dupcase:'is an earlier case again' dupid:'has the id of an earlier case' \
	 foreign:'is of a module the config does not run' params:'is not a case of this plan' \
	 threads:'is not a case of this plan' repeat:'is not a case of this plan' noid:'has no id benchcore writes' \
	 maxid:'has an id that leaves no room'; do
	n=${f%%:*} why=${f#*:}
	sum=$(sha256sum $n.json)
	run_bc $T/fg$n -c f.conf -o $n.json --resume -q
	expect_rc "forged ($n): refused" 2
	expect_grep "forged ($n): the case named (index, id, module, threads, repeat, params), and why" $T/fg$n.err \
		"^benchcore: error: cannot resume: cases\[[01]\], id [0-9]+ \((cpu|mem), threads [0-9]+, repeat [0-9]+, \{\"max_prime\":[0-9]+[^}]*\}\) $why"
	check "forged ($n): the file is untouched" test "$(sha256sum $n.json)" = "$sum"
done
expect_grep "the foreign module's case is the one named" $T/fgforeign.err 'cases\[1\], id 2 \(mem, threads 1, repeat 1, \{"max_prime":400[^}]*\}\)'
run_bc $T/fgbig -c f.conf -o bigid.json --resume -q
expect_rc "a kept case of id 2^32: resumed" 0
expect_py "ids are 64-bit: the new case is 2^32 + 1, not 1 (no 32-bit wrap)" bigid.json \
	'sorted(c["id"] for c in d["cases"]) == [2**32, 2**32 + 1]'
