#!/usr/bin/env bash
# repeat = "auto" and warmup = "auto" against a synthetic workload whose
# throughput is exactly what its options say (tests/modules/synth.c), so
# the assertions hold on a busy machine: tight cases stop early, noisy ones
# go on, a baseline decides sooner, a time budget stops new rounds; a
# warmup ends once steady, or runs to max_warmup and says so.
. "$(dirname "$0")/lib.sh"
M="--module-path $TESTMODS"
cd $T
reps() { jget "$1" "sorted(c['repeat'] for c in d['cases'] if c['params']['cv'] == $2)"; }

# --- repeat = auto: one run, a tight case and a noisy one ----------------
run_bc $T/a run synth $M cv=0,0.3 --time 0.3 --warmup 0 --repeat auto --min-repeat 3 --max-repeat 8 \
	--report-interval 0 -q -o $T/a.json
expect_rc "repeat auto, a tight and a noisy case" 0
# (live, a loaded machine's late wake-ups at the 0.3 s windows' edges spread even a cv 0
# case's rates past the 2% threshold: a timing judgement, check-full's alone; unit/test_run
# checks the stop exactly in simulated time)
if [ "${BC_QUICK:-0}" = 1 ]; then echo "QUICK: a live cv 0 case precise before max_repeat (1 check): make check-full"; else
expect_py "the tight case (cv 0) stops before max_repeat, saying precise" $T/a.json \
	'(lambda t: 3 <= len(t) < 8 and t[-1].get("repeat_stop") == "precise" and all("repeat_stop" not in c for c in t[:-1]))(sorted([c for c in d["cases"] if c["params"]["cv"] == 0], key=lambda c: c["repeat"]))'
fi
expect_py "the very noisy case (cv 0.3) is futile after min_repeat: far beyond 2 x max_repeat, it stops" $T/a.json \
	'(lambda t: len(t) == 3 and t[-1].get("repeat_stop") == "futile")(sorted([c for c in d["cases"] if c["params"]["cv"] == 0.3], key=lambda c: c["repeat"]))'
expect_py "every case runs min_repeat 3 at least, each repeat once" $T/a.json \
	'all(sorted(c["repeat"] for c in d["cases"] if c["params"]["cv"] == v)[:3] == [1, 2, 3] for v in (0, 0.3))'
# spreads known exactly: factors 1, 1+s, 1-s in turn (sd = s): at 3% the 95% interval comes
# within the 2% threshold after 9 to 12 repeats (within 2 x 7: it runs to max_repeat 7); at 1.2%, after 4
# (5 if the measured rates wander: an ASan build's timing)
# (3%, to max_repeat 7: unit/test_run, in simulated time, to the repeat; 7 live 1 s cases did
# it here within a loaded machine's noise)
# (live, a loaded machine's late wake-ups at the 0.3 s windows' edges move the rates by
# more than the 1.2%, and the stop with them: a timing judgement, check-full's alone;
# unit/test_run checks the same stop exactly in simulated time)
if [ "${BC_QUICK:-0}" = 1 ]; then echo "QUICK: a live spread of 1.2% precise after 4 or 5 repeats (1 check): make check-full"; else
run_bc $T/s1 run synth $M step=0.012 count_file=$T/count1 --time 0.3 --warmup 0 --repeat auto --min-repeat 3 \
	--max-repeat 8 --report-interval 0 -q -o $T/s1.json
expect_py "a spread of 1.2% is precise after 4 (or 5) repeats" $T/s1.json \
	'(lambda t: 4 <= len(t) <= 5 and t[-1].get("repeat_stop") == "precise")(sorted(d["cases"], key=lambda c: c["repeat"]))'
fi

# --- a baseline decides sooner: +30% against a case known to +-1% ---------
# (busy_threshold = 100 in both files: interference, which a shared machine
# has plenty of and compare weighs, is left out of this test of the stop)
printf 'busy_threshold = 100;\nrepeat = "auto";\nmin_repeat = 3;\nmax_repeat = 12;\ntime = 0.3;\nwarmup = 0;\nreport_interval = 0;\nmodules = ({ name = "synth"; cv = 0.01; ops = %s; });\n' 10000 >base.conf
run_bc $T/b0 -c base.conf $M -q -o $T/base.json
expect_rc "the baseline run" 0
printf 'busy_threshold = 100;\nrepeat = "auto";\nmin_repeat = 3;\nmax_repeat = 12;\ntime = 0.3;\nwarmup = 0;\nreport_interval = 0;\nbaseline = "%s";\nmodules = ({ name = "synth"; cv = 0.01; ops = %s; });\n' $T/base.json 13000 >cand.conf
run_bc $T/b1 -c cand.conf $M -q -o $T/cand.json
expect_rc "a run against the baseline" 0
# A machine loaded far past its CPUs delays synth's workers at the window's
# edges, which spreads both runs' repeats past what 3 or 4 can decide: then
# the pair is measured once more and judged on that (the rule itself is
# unit/test_run's, exactly: decided at 3). What the first pair did is printed.
by4='len(d["cases"]) <= 4 and sorted(d["cases"], key=lambda c: c["repeat"])[-1].get("repeat_stop") == "decided"'
is_true() { [ "$("$PY" -S -c 'import json,sys; d=json.load(open(sys.argv[1])); print(bool(eval(sys.argv[2])))' "$1" "$2" 2>&1)" = True ]; }
stops() { "$PY" -S -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["cases"]), "repeats, the last", [c.get("repeat_stop") for c in d["cases"]][-1])' "$1" 2>&1; }
if ! is_true $T/cand.json "$by4"; then
	echo "retry: against the baseline: $(stops $T/cand.json) (a loaded machine's spread); the pair measured again"
	run_bc $T/b0 -c base.conf $M -q -o $T/base.json --force
	run_bc $T/b1 -c cand.conf $M -q -o $T/cand.json --force
fi
expect_py "against the baseline, a +30% difference is decided at min_repeat (3; 4 when a loaded machine spreads a repeat: compare's test wants p x 2 < 0.05), saying decided" $T/cand.json "$by4"
run_bc $T/b2 -c cand.conf $M -q -o $T/cand2.json --time 0.3
# --baseline on the command line: the same stop from `run`, and it overrides the config's baseline
run_bc $T/b6 run synth $M cv=0.01 ops=13000 --repeat auto --min-repeat 3 --max-repeat 12 --time 0.3 --warmup 0 \
	--report-interval 0 --baseline $T/base.json --busy-threshold 100 -q -o $T/cand3.json
if ! is_true $T/cand3.json "$by4"; then
	echo "retry: --baseline: $(stops $T/cand3.json); measured again"
	run_bc $T/b6 run synth $M cv=0.01 ops=13000 --repeat auto --min-repeat 3 --max-repeat 12 --time 0.3 --warmup 0 \
		--report-interval 0 --baseline $T/base.json --busy-threshold 100 -q -o $T/cand3.json --force
fi
expect_py "--baseline: a +30% difference is decided at min_repeat (3, or 4) from the command line too" $T/cand3.json "$by4"
run_bc $T/b7 -c cand.conf $M -q -o $T/cand4.json --baseline $T/nothere.json
expect_rc "--baseline overrides the config's baseline (a missing one is refused before running)" 2
expect_grep "the refusal names the command line's file, not the config's" $T/b7.err 'baseline .*nothere\.json'
expect_py "the results record how the run stopped its cases: baseline, repeat = auto's limits, no warmup = auto" $T/cand3.json \
	'd["config"]["baseline"].endswith("/base.json") and d["config"]["modules"][0]["repeat_auto"] == {"min_repeat": 3, "max_repeat": 12, "time_budget": 0} and "warmup_auto" not in d["config"]["modules"][0]'
run_bc $T/b8 run synth $M cv=0.01 ops=13000 --repeat auto --min-repeat 3 --max-repeat 12 --time 0.3 --warmup 0 \
	--report-interval 0 --baseline $T/cand.json --busy-threshold 100 -q -o $T/cand3.json --resume
expect_rc "--resume with another baseline: refused (the stops would follow another file)" 2
expect_grep "the refusal names the baseline as what changed" $T/b8.err 'first difference: "baseline"'
cp $T/base.json $T/base2.json
run_bc $T/b11 run synth $M cv=0.01 ops=13000 --repeat auto --min-repeat 3 --max-repeat 12 --time 0.3 --warmup 0 \
	--report-interval 0 --baseline $T/base2.json -q -o $T/cand5.json
expect_py "the baseline's content is recorded too (sha256)" $T/cand5.json \
	'd["config"]["baseline_sha256"] == __import__("hashlib").sha256(open("'$T/base2.json'", "rb").read()).hexdigest()'
"$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); d["label"] = "rewritten"; json.dump(d, open(sys.argv[1], "w"))' $T/base2.json
run_bc $T/b12 run synth $M cv=0.01 ops=13000 --repeat auto --min-repeat 3 --max-repeat 12 --time 0.3 --warmup 0 \
	--report-interval 0 --baseline $T/base2.json -q -o $T/cand5.json --resume
expect_rc "--resume against a baseline rewritten since (same name): refused" 2
expect_grep "the refusal names the baseline's content as what changed" $T/b12.err 'first difference: "baseline_sha256"'
run_bc $T/b9 run synth $M --time 0.1 --warmup 0 --repeat 2 -q -o $T/fixed.json
expect_py "a fixed run records neither repeat_auto, warmup_auto nor a baseline" $T/fixed.json \
	'"baseline" not in d["config"] and not set(d["config"]["modules"][0]) & {"repeat_auto", "warmup_auto"}'
run_bc $T/b10 run synth $M --time 0.1 --warmup 0 --repeat 2 --baseline $T/base.json -q -o $T/fixed2.json
expect_py "a baseline with a fixed repeat: every repeat runs" $T/fixed2.json 'len(d["cases"]) == 2'
expect_grep "and a warning says the baseline changes nothing there" $T/b10.err 'baseline is only used by repeat = "auto"'
# a baseline whose own spread (20%) no repeat here can narrow: the candidate's verdict is out of reach
printf 'repeat = "auto";\nmin_repeat = 3;\nmax_repeat = 12;\ntime = 0.3;\nwarmup = 0;\nreport_interval = 0;\n%smodules = ({ name = "synth"; step = 0.2; count_file = "%s"; });\n' "" $T/cf20 >wide.conf
run_bc $T/b4 -c wide.conf $M -q -o $T/wide.json
expect_py "a spread of 20% is futile after min_repeat 3 (not run to 12)" $T/wide.json \
	'len(d["cases"]) == 3 and sorted(d["cases"], key=lambda c: c["repeat"])[-1].get("repeat_stop") == "futile"'
printf 'repeat = "auto";\nmin_repeat = 3;\nmax_repeat = 12;\ntime = 0.3;\nwarmup = 0;\nreport_interval = 0;\nbaseline = "%s";\nmodules = ({ name = "synth"; step = 0.2; count_file = "%s"; });\n' $T/wide.json $T/cf20 >wide2.conf
run_bc $T/b5 -c wide2.conf $M -q -o $T/wide2.json
expect_py "against that baseline the candidate is futile after min_repeat 3 too: no repeat of its own decides it" $T/wide2.json \
	'len(d["cases"]) == 3 and sorted(d["cases"], key=lambda c: c["repeat"])[-1].get("repeat_stop") == "futile"'
printf 'baseline = "%s/nothere.json";\nmodules = ({ name = "synth"; });\n' $T >nob.conf
run_bc $T/b3 -c nob.conf $M -q -o $T/nob.json
expect_rc "a baseline that is not there: refused before running" 2
expect_grep "a missing baseline names the file" $T/b3.err 'baseline .*nothere\.json'

# --- one judge (issue 38): "decided" is compare's win, loss or tie on the files --
# +10% at 0.5%, 3% and 20% noise, 1 and 2 threads, against one baseline: an auto
# run, then compare on the two files it made; every case auto called decided
# must be a win, loss or tie there
judge_pair() {	# judge_pair TAG BUSYFLAGS...
	local tag=$1; shift
	run_bc $T/j-$tag-a run synth $M cv=0.005,0.03,0.2 ops=10000 --threads 1,2 --repeat auto --min-repeat 3 \
		--max-repeat 6 --time 0.2 --warmup 0 --report-interval 0 "$@" -q -o $T/j-$tag-a.json
	run_bc $T/j-$tag-b run synth $M cv=0.005,0.03,0.2 ops=11000 --threads 1,2 --repeat auto --min-repeat 3 \
		--max-repeat 6 --time 0.2 --warmup 0 --report-interval 0 "$@" --baseline $T/j-$tag-a.json \
		-q -o $T/j-$tag-b.json
	run_bc $T/j-$tag-c compare --json $T/j-$tag-a.json $T/j-$tag-b.json
	"$PY" -S - $T/j-$tag-b.json $T/j-$tag-c.out <<'PYEOF' >$T/j-$tag.txt
import json, sys
run = json.load(open(sys.argv[1])); cmp = json.load(open(sys.argv[2]))["comparisons"][0]
def key(m, p, t):	# ops says where it ran (placement): matched across the files without it
    return (m, json.dumps({k: v for k, v in p.items() if k != "ops"}, sort_keys=True), t)
verdict = {key(r["module"], r["params"], r["threads"]): r["verdict"] for r in cmp["rows"] if r["headline"]}
decided = [key(c["module"], c["params"], c["threads"]) for c in run["cases"] if c.get("repeat_stop") == "decided"]
bad = [k for k in decided if verdict.get(k) not in ("win", "loss", "tie")]
print(len(decided), len(bad), bad)
PYEOF
}
# (interference left out: unit/test_run's test_one_judge, in simulated time; here the live
# run with interference weighed, which only the real machine has)
judge_pair busy
read -r nd nbad rest <$T/j-busy.txt
if [ "${nbad:-1}" = 0 ]; then
	pass "one judge, interference weighed: the $nd decided cases are each a win, loss or tie in compare"
else
	fail "one judge, interference weighed: $(cat $T/j-busy.txt)"
fi

# --- time_budget ------------------------------------------------------------
# (a 30% spread: precise needs about 860 repeats, futile only past 2 x 1000, so nothing
# but the budget can stop it, whatever a loaded machine adds to the spread; a 2%
# spread stopped as futile when the load's noise outgrew it)
run_bc $T/tb run synth $M step=0.3 count_file=$T/count3 --time 0.3 --warmup 0 --repeat auto --min-repeat 2 --max-repeat 1000 \
	--time-budget 1 --report-interval 0 -q -o $T/tb.json
expect_rc "repeat auto with a 1 s budget" 0
expect_py "the budget stops new rounds: far fewer than max_repeat, the last says budget" $T/tb.json \
	'(lambda t: 2 <= len(t) < 20 and t[-1].get("repeat_stop") == "budget")(sorted(d["cases"], key=lambda c: c["repeat"]))'
run_bc $T/mm run synth $M --repeat auto --min-repeat 5 --max-repeat 3
expect_rc "min_repeat above max_repeat: refused" 2

# --- warmup = auto ----------------------------------------------------------
run_bc $T/w1 run synth $M ramp_s=1 --time 0.3 --warmup auto --max-warmup 6 --warmup-window 0.5 -q -o $T/w1.json
expect_rc "warmup auto on a 1 s ramp" 0
expect_py "warmup auto: steady once the ramp is over (1 s) and the window (0.5 s) has seen it, well before max_warmup" $T/w1.json \
	'(lambda c: c["warmup_steady"] is True and 1.0 <= c["warmup_s"] < 3.0)(d["cases"][0])'
expect_py "warmup = auto's limits are in the results' config" $T/w1.json \
	'd["config"]["modules"][0]["warmup_auto"] == {"max_warmup": 6, "warmup_window": 0.5}'
run_bc $T/w2 run synth $M wobble=0.3 --time 0.3 --warmup auto --max-warmup 1.5 --warmup-window 0.5 -q -o $T/w2.json
expect_rc "warmup auto on a workload that never settles" 0
expect_py "never steady: ran to max_warmup, recorded false, and warned" $T/w2.json \
	'(lambda c: c["warmup_steady"] is False and abs(c["warmup_s"] - 1.5) < 0.3 and any("no steady state" in w for w in c["warnings"]))(d["cases"][0])'
# bursty (+-30%, +-60% every 150 ms) and ramping warmups, 1 s and 3 s windows: unit/test_run
# (test_warmup_auto, test_warmup_shapes) in simulated time, where each took 3 to 12 s here.
# mem's own warmup needs the machine: the full form (up to 30 s live)
if [ "${BC_QUICK:-0}" = 1 ]; then echo "QUICK: mem's warmup, live (1 check): make check-full"; else
# mem records nothing until measuring() (a batch begun in warmup stays out of the window): it
# reports its warmup batches with warmup_n(), or the auto warmup saw a rate of 0 and never settled
run_bc $T/wm run mem block_size=1M oper=read buffer_size=16M --time 0.3 --warmup auto --max-warmup 30 --warmup-window 1 -q -o $T/wm.json
expect_py "mem's warmup reaches a steady state (warmup_n), well before max_warmup" $T/wm.json \
	'(lambda c: c["warmup_steady"] is True and c["warmup_s"] < 25)(d["cases"][0])'
fi
run_bc $T/w7 run synth $M --warmup auto --warmup-window 0
expect_rc "warmup_window 0: refused" 2
run_bc $T/w3 run synth $M --time 0.3 --warmup 0.2 -q -o $T/w3.json
expect_py "a fixed warmup records no warmup_steady" $T/w3.json '"warmup_steady" not in d["cases"][0]'
run_bc $T/w4 compare $T/w2.json $T/w2.json
expect_grep "compare flags a case whose warmup never became steady" $T/w4.out 'warmup never steady'
run_bc $T/w5r report $T/w2.json $T/w3.json -o $T/w.html
expect_grep "report flags it in the files' table" $T/w.html "1 whose warmup never became steady"
run_bc $T/w6r report $T/w2.json $T/w2.json -o $T/w2.html
expect_grep "... and beside the verdict of its case" $T/w2.html "warmup never steady in 1 case\(s\) of A, 1 of B"

# --- the ETA follows what is left: unit/test_run (test_eta) checks its lines to the second
# in simulated time, where a live run could only check them within its measured spread
