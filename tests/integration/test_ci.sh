#!/usr/bin/env bash
# contrib/ci's workflows (issue 53): the GitHub Actions workflow and the GitLab CI jobs parse
# as YAML and have the shape their CI reads (a schema-ish check: triggers, jobs, steps with run
# or uses, rules, JUnit reports); then their shell steps RUN, in order, against a private
# SQLite archive: the default branch's job stores a run and tags it the baseline, the merge
# request's job gates against it. The baseline is set between the steps so the verdict is
# known: a copy of the new run's own figures (a tie: exit 0) and one with ten times its rate
# (a loss no interference explains: exit 4). The build steps are skipped ($BC is this build's).
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
GH=contrib/ci/github-benchcore.yml
GL=contrib/ci/gitlab-benchcore.yml
XSD=tests/junit.xsd

# --- the YAML: parses, and the shape each CI reads ---------------------------------------
"$PY" - "$GH" "$GL" >"$T/shape" 2>&1 <<'PY'
import sys
def check(ok, what):
    print(("PASS: " if ok else "FAIL: ") + what)
try:
    import yaml
except ImportError:
    print("FAIL: python3-yaml is not installed (scripts/deps.sh installs it)")
    sys.exit(0)
gh = yaml.safe_load(open(sys.argv[1]))
gl = yaml.safe_load(open(sys.argv[2]))
on = gh.get("on", gh.get(True))		# YAML 1.1 reads the key on as true
check(isinstance(gh, dict) and gh.get("name") and on, "github: a name and triggers")
check(set(on) == {"push", "pull_request"} and on["push"]["branches"] == ["main"], "github: push to main and pull requests")
jobs = gh.get("jobs", {})
check(set(jobs) == {"baseline", "gate"}, "github: a baseline job and a gate job")
ok = True
for name, j in jobs.items():
    ok &= isinstance(j.get("runs-on"), (str, list)) and isinstance(j.get("steps"), list) and bool(j.get("if"))
    for s in j["steps"]:
        ok &= isinstance(s, dict) and (("run" in s) != ("uses" in s)) and set(s) <= {"name", "id", "if", "run", "uses", "with", "env", "shell"}
        if "uses" in s:
            ok &= "@" in s["uses"]
check(ok, "github: every job has runs-on, if and steps; every step run or uses (pinned @), only known keys")
check(all(any("junit" in s.get("run", "") for s in j["steps"]) for j in jobs.values()), "github: both jobs write JUnit")
check(any("GITHUB_STEP_SUMMARY" in s.get("run", "") and "--format markdown" in s.get("run", "") for s in jobs["gate"]["steps"]), "github: the gate's Markdown is the job summary")
check(any("--fail-on loss" in s.get("run", "") for s in jobs["gate"]["steps"]), "github: the gate fails on a loss")
check(any(s.get("uses", "").startswith("actions/upload-artifact@") and "gate.xml" in s["with"]["path"] for s in jobs["gate"]["steps"]), "github: the JUnit file uploaded")
kw = {"variables", "stages", "include", "default", "workflow"}
gjobs = {k: v for k, v in gl.items() if k not in kw and not k.startswith(".")}
check(set(gjobs) == {"benchcore-baseline", "benchcore-gate"}, "gitlab: a baseline job and a gate job")
ok = True
for name, j in gjobs.items():
    ok &= isinstance(j.get("script"), list) and all(isinstance(x, str) for x in j["script"])
    ok &= isinstance(j.get("rules"), list) and all("if" in r for r in j["rules"])
    ok &= bool(j.get("extends") in gl and isinstance(j["artifacts"]["reports"]["junit"], str))
check(ok, "gitlab: every job has script lines, rules with if, and a JUnit report")
check("CI_DEFAULT_BRANCH" in gjobs["benchcore-baseline"]["rules"][0]["if"], "gitlab: the baseline on the default branch")
check("merge_request_event" in gjobs["benchcore-gate"]["rules"][0]["if"], "gitlab: the gate on merge requests")
PY
cat "$T/shape"

# steps FILE JOB: the job's shell steps, one file each, in order ($T/steps/JOB.N.sh), the build left out
"$PY" - "$GH" "$GL" "$T/steps" <<'PY'
import os, sys, yaml
gh, gl, out = yaml.safe_load(open(sys.argv[1])), yaml.safe_load(open(sys.argv[2])), sys.argv[3]
os.makedirs(out)
for job, j in gh["jobs"].items():
    n = 0
    for s in j["steps"]:
        if "run" in s and s.get("id") != "build":
            n += 1
            open("%s/gh-%s.%d.sh" % (out, job, n), "w").write(s["run"])
for job in ("benchcore-baseline", "benchcore-gate"):
    for n, line in enumerate(gl[job]["script"], 1):
        open("%s/gl-%s.%d.sh" % (out, job, n), "w").write(line + "\n")
PY

# run_step FILE: as the CI runs it (bash -e, pipefail), in the job's directory, with the
# workflow's variables (this build, a private archive, a short workload)
W=$T/work
mkdir -p "$W"
export BC=$BC BENCHCORE_DB=$T/archive/results.db BENCH_MODULE=cpu BENCH_REPEAT=3 BENCH_TIME=0.2 BENCH_WARMUP=0.1
export GITHUB_STEP_SUMMARY=$T/summary.md CI=true
mkdir -p "$T/archive"
run_step() { (cd "$W" && bash --noprofile --norc -eo pipefail "$1") >"$1.out" 2>"$1.err" </dev/null; RC=$?; }
HOST=$(hostname)

# retag F FACTOR [PRIME]: store a copy of results file F (a new run_id, its figures times
# FACTOR, max_prime PRIME when given: another case) and tag it baseline
retag() {
	"$PY" -S - "$1" "$2" "$T/base.json" "${3:-}" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
d["run_id"] = os.urandom(16).hex()
f = float(sys.argv[2])
for c in d["cases"]:
    for m in c.get("metrics", {}).values():
        if m.get("higher_is_better") and isinstance(m.get("value"), (int, float)):
            m["value"] *= f
    if sys.argv[4]:
        c["params"]["max_prime"] = int(sys.argv[4])
d.pop("groups", None)
json.dump(d, open(sys.argv[3], "w"))
PY
	"$BC" db add "$T/base.json" >/dev/null && "$BC" db tag "$("$PY" -S -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_id"])' "$T/base.json")" baseline >/dev/null
}

for ci in gh gl; do
	[ $ci = gh ] && B=baseline G=gate || B=benchcore-baseline G=benchcore-gate
	rm -rf "$T/archive"/* "$W"/* "$GITHUB_STEP_SUMMARY"
	# the default branch: every step passes; the run stored and tagged
	ok=1
	for s in $(ls "$T/steps/$ci-$B".*.sh | sort -t. -k2 -n); do
		run_step "$s"
		[ "$RC" = 0 ] || { ok=0; fail "$ci: $B step $(basename "$s"): exit $RC: $(tail -3 "$s.err")"; }
	done
	[ $ok = 1 ] && pass "$ci: the default branch's steps all pass"
	run_bc "$T/$ci.list" db list --json
	expect_py "$ci: ... the run stored and tagged baseline" "$T/$ci.list.out" \
		'len(d) == 1 and d[0]["tags"] == ["baseline"]'
	check "$ci: ... history's JUnit valid" bash -c "xmllint --noout --schema '$XSD' '$W/history.xml' >/dev/null 2>&1"
	# a merge request whose figures equal the baseline's: the gate passes
	steps=($(ls "$T/steps/$ci-$G".*.sh | sort -t. -k2 -n))
	run_step "${steps[0]}"
	expect_rc "$ci: the merge request's run step" 0
	retag "$W/bench.json" 1
	run_step "${steps[1]}"
	expect_rc "$ci: the gate against a baseline with the same figures passes" 0
	check "$ci: ... its JUnit valid" bash -c "xmllint --noout --schema '$XSD' '$W/gate.xml' >/dev/null 2>&1"
	expect_grep "$ci: ... the Markdown written" "$W/gate.md" '^## benchcore compare$'
	# the baseline ten times faster: a loss, the gate fails with 4 (on a machine so loaded
	# that its interference could explain even that, a suspect loss: the gate passes, as
	# compare --json says)
	retag "$W/bench.json" 10
	run_step "${steps[1]}"
	v=$("$BC" compare --json "db:baseline@$HOST" "$W/bench.json" 2>/dev/null | "$PY" -S -c 'import json,sys; print([r["verdict"] for r in json.load(sys.stdin)["comparisons"][0]["rows"] if r["headline"]][0])')
	if [ "$v" = loss ]; then
		expect_rc "$ci: the gate against a baseline ten times faster fails" 4
		expect_grep "$ci: ... the loss in the Markdown, failing the gate" "$W/gate.md" '\*\*loss\*\* \(fails the gate\)'
		check "$ci: ... its JUnit valid with a failure" bash -c "xmllint --noout --schema '$XSD' '$W/gate.xml' >/dev/null 2>&1 && grep -q '<failure' '$W/gate.xml'"
	else
		expect_rc "$ci: a baseline ten times faster is a $v here (a loaded machine): the gate passes" 0
	fi
	# a baseline without the merge request's case: the gate fails with 4, the case named
	retag "$W/bench.json" 1 10001
	run_step "${steps[1]}"
	expect_rc "$ci: the gate against a baseline without the new case fails" 4
	expect_grep "$ci: ... the Markdown lists it" "$W/gate.md" '^- only in B: cpu max\\_prime=10000'
	check "$ci: ... its JUnit valid with the missing case a failure" bash -c "xmllint --noout --schema '$XSD' '$W/gate.xml' >/dev/null 2>&1 && grep -q 'type=\"missing\"' '$W/gate.xml'"
	if [ $ci = gh ]; then
		expect_grep "gh: the job summary holds the comparison" "$GITHUB_STEP_SUMMARY" '^## benchcore compare$'
	fi
done
