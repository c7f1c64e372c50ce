#!/usr/bin/env bash
# A run killed outright (SIGKILL: the OOM killer, a power cut) between two
# writes of its results: the file says so ("status": "running", no
# finished_at, N of cases_planned cases), compare and report warn that it is
# partial, --resume completes it ("complete", finished_at), and the next run
# on that file sweeps the temporaries a killed write leaves (OUT.tmp.PID.*)
# whose writer is gone, and nothing else.
. "$(dirname "$0")/lib.sh"
cd $T
printf 'time = 0.3;\nwarmup = 0;\nrepeat = 2;\nthreads = [1, 2];\nreport_interval = 0;\nmodules = ({ name = "cpu"; max_prime = [300, 400]; });\n' >r.conf

"$BC" -c r.conf -o r.json -q >/dev/null 2>&1 </dev/null &
pid=$!
for _ in $(seq 600); do [ -s r.json ] && break; sleep 0.05; done
sleep 0.1; kill -KILL $pid 2>/dev/null; wait $pid 2>/dev/null
n=$(jget r.json 'len(d["cases"])')
check "killed: some of the 8 cases are in the file ($n)" test "$n" -ge 1 -a "$n" -lt 8
expect_py "killed: the file says the run was still going, not complete" r.json 'd["status"] == "running"'
expect_py "killed: it was to hold 8 cases" r.json 'd["cases_planned"] == 8'
expect_py "killed: no finished_at, and interrupted (for readers from before status)" r.json \
	'"finished_at" not in d and d["interrupted"] is True'

run_bc $T/cmp compare r.json r.json
expect_grep "compare warns that the file is partial, naming it and N of M cases" $T/cmp.err \
	"^benchcore compare: warning: r\.json is partial: $n of 8 cases \(its run was still going when it was written, or was killed outright"
run_bc $T/rep report r.json -o r.html
expect_grep "report warns too" $T/rep.err "^benchcore report: warning: r\.json is partial: $n of 8 cases"
expect_grep "  and the page says it beside the file" r.html "partial: $n of 8 cases"

# what a write killed between its temporary and the rename leaves, forged;
# beside it what is not a dead writer's: a live pid's, an older name, a
# user's file, a symlink, another user's
dead=$(sh -c 'echo $$')
echo '{"partial' >r.json.tmp.$dead.AbC123
echo live >r.json.tmp.$$.LiV123
echo old >r.json.tmp.OlD123
echo notes >r.json.tmp.$dead.notes
echo victim >victim; ln -s victim r.json.tmp.$dead.LnK123
kept="r.json.tmp.$$.LiV123 r.json.tmp.OlD123 r.json.tmp.$dead.notes r.json.tmp.$dead.LnK123"
if [ "$(id -u)" = 0 ]; then
	echo theirs >r.json.tmp.$dead.NoB123 && chown nobody r.json.tmp.$dead.NoB123 && kept="$kept r.json.tmp.$dead.NoB123"
fi

run_bc $T/res -c r.conf -o r.json --resume -q
expect_rc "--resume of the killed run's file" 0
expect_py "resumed: 8 cases, complete, finished_at set, not interrupted" r.json \
	'len(d["cases"]) == 8 and d["status"] == "complete" and "finished_at" in d and d["interrupted"] is False and d["cases_planned"] == 8'
check "the dead writer's temporary is swept" test ! -e r.json.tmp.$dead.AbC123
expect_grep "  and said" $T/res.err "removed r\.json\.tmp\.$dead\.AbC123, a temporary file that benchcore pid $dead \(no longer running\) left while writing r\.json"
for f in $kept; do check "  kept: $f" test -L "$f" -o -e "$f"; done
check "  the symlink's target is untouched" test "$(cat victim)" = victim
check "  no temporary of this run stays" test -z "$(ls r.json.tmp.* | grep -v -F -x -f <(printf '%s\n' $kept))"
run_bc $T/cmp2 compare r.json r.json
expect_no_grep "the complete file: no partial warning" $T/cmp2.err "partial"

# Ctrl-C: status interrupted
printf 'time = 1;\nwarmup = 0;\nrepeat = 1;\nreport_interval = 0;\nmodules = ({ name = "cpu"; max_prime = [300, 400]; });\n' >i.conf
"$BC" -c i.conf -o i.json -q >/dev/null 2>&1 </dev/null &
pid=$!
sleep 0.5; kill -INT $pid; wait $pid
expect_py "Ctrl-C: status interrupted, finished_at set" i.json 'd["status"] == "interrupted" and "finished_at" in d and d["interrupted"]'
run_bc $T/cmp3 compare i.json i.json
expect_grep "compare: an interrupted file is partial too" $T/cmp3.err "i\.json is partial: [0-9] of 2 cases \(its run was interrupted\)"
