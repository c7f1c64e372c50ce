#!/usr/bin/env bash
# One headline everywhere (issues 26, 37): for every in-tree module, the
# metric each case's JSON names (case.headline), the run's summary table
# names, the run's CSV marks, groups[] records, compare's summary counts
# (--json and --csv headline flags) and the report's verdict table tags
# "(headline)" is one and the same: the module's declared headline metric,
# or, without one (rsa), its first higher-is-better metric the case
# reported (sign_per_sec, 20x below events_per_sec with op=both). Read as
# data (the results file, compare --json and --csv); the text of each is a
# golden file (tests/integration/test_golden.sh, unit/test_run). Cheap runs (0.5 s, 2 repeats); redis
# and oltp with benchcore's private server when the binary is installed.
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
D=/var/tmp
[ "$(stat -f -c %T "$D" 2>/dev/null)" = tmpfs ] && D=$PWD/$BUILD
D=$(mktemp -d "$D/bc-headline.XXXXXX")
trap 'rm -rf "$T" "$D"' EXIT
S=(--time 0.5 --warmup 0 --repeat 2 --report-interval 0 -q --force)

# name | expected headline | module and options
RUNS=(
	"cpu|events_per_sec|cpu max_prime=2000"
	"mem|mib_per_sec|mem block_size=4K oper=read"
	"io|iops|io path=$D file_size=8M rw=randread block_size=4K"
	"rsa|sign_per_sec|rsa"
	"net-stream|gbit_per_sec|net test=tcp_stream --no-isolate"
	"net-rr|transactions_per_sec|net test=tcp_rr --no-isolate"
)
if command -v redis-server >/dev/null; then
	RUNS+=("redis|requests_per_sec|redis tests=SET,GET")
else
	echo "SKIP: redis: no redis-server installed"
fi
if command -v mariadbd >/dev/null || command -v mysqld >/dev/null; then
	RUNS+=("oltp|tpmc|oltp warehouses=1 --threads 1")
else
	echo "SKIP: oltp: no mariadbd installed"
fi

for r in "${RUNS[@]}"; do
	IFS='|' read -r name want args <<<"$r"
	# shellcheck disable=SC2086
	run_bc "$T/$name" run $args "${S[@]}" -o "$T/$name.json" --csv "$T/$name.csv"
	if [ "$RC" -ne 0 ] || [ ! -s "$T/$name.json" ]; then
		fail "$name: benchcore run failed (exit $RC): $(tail -3 "$T/$name.err")"
		continue
	fi
	run_bc "$T/$name-cj" compare --json "$T/$name.json" "$T/$name.json"
	run_bc "$T/$name-cc" compare --csv "$T/$name.json" "$T/$name.json"
	run_bc "$T/$name-rp" report "$T/$name.json" "$T/$name.json" -o "$T/$name.html"
	python3 - "$T/$name" "$want" <<'PY'
import csv, json, re, sys
p, want = sys.argv[1], sys.argv[2]
name = p.rsplit("/", 1)[1]
def say(ok, what, got):
    print("%s: %s: %s%s" % ("PASS" if ok else "FAIL", name, what, "" if ok else " (got %s, wanted %s)" % (got, want)))
d = json.load(open(p + ".json"))
ok = [c for c in d["cases"] if c["status"] == "ok"]
say(len(ok) == len(d["cases"]) and ok, "every case ok", [c["status"] for c in d["cases"]])
got = sorted({c["headline"] for c in d["cases"]})
say(got == [want], "each case's headline (cases[].headline) is the one the rule picks", got)
got = sorted({g["headline"] for g in d["groups"]})
say(got == [want], "groups[].headline is the declared headline", got)
# the summary table prints, per case, its group's headline and the case's value of it
# (its text: tests/golden/run.txt)
key = lambda x: (x["module"], json.dumps(x["params"], sort_keys=True), x["threads"])
gh = {key(g): g["headline"] for g in d["groups"]}
got = sorted({str(gh.get(key(c))) for c in d["cases"]})
say(got == [want] and all(want in c["metrics"] for c in d["cases"]),
    "the run summary's column: every case's group names it, and the case has its value", got)
rows = list(csv.DictReader(open(p + ".csv")))
got = sorted({r["metric"] for r in rows if r["headline"] == "true"})
n = sum(r["headline"] == "true" for r in rows)
say(got == [want] and n == len(d["cases"]), "the run CSV marks it once per case", (got, n))
cj = json.load(open(p + "-cj.out"))["comparisons"][0]
got = sorted({r["metric"] for r in cj["rows"] if r["headline"]})
say(got == [want], "compare --json counts it as the headline", got)
s = cj["summary"]["headline"]
say(sum(s.values()) == len(d["groups"]), "compare's headline counts: one row per case group", s)
got = sorted({r["metric"] for r in csv.DictReader(open(p + "-cc.out")) if r["headline"] == "1"})
say(got == [want], "compare --csv flags it", got)
# what compare's text lists as the largest headline differences (its text: tests/golden/compare.txt)
got = sorted({x["metric"] for x in cj["summary"].get("largest_headline", [])})
say(got in ([], [want]), "compare's largest headline differences are of it", got)
html = open(p + ".html").read()
got = sorted(set(re.findall(r"<td>([a-z_.0-9]+)(?: \([^<]*\))?</td><td>(?:higher|lower)</td>(?:(?!</tr>).)*\(headline\)", html)))
say(got == [want], "the report tags it (headline)", got)
PY
done

# A window that counted nothing (synth at 1 operation a second in a 0.3 s window:
# its first operation ends after it) is written as it was, ok at 0, and
# compare reads benchcore's own file: the reader refuses a headline of 0 only
# where the case counted operations (issue 59's forged baseline). A loaded
# machine did this to sys context_switch at 1 thread in study 3 at --scale
# 0.01 (a 0.1 s window), and compare refused the run's own file.
run_bc $T/zero run synth ops=1 --time 0.3 --warmup 0 --module-path "$TESTMODS" -o $T/zero.json
expect_py "a window that counted nothing: events_per_sec 0 from 0 operations" $T/zero.json \
	'd["cases"][0]["metrics"]["events_per_sec"]["value"] == 0 and sum(o["count"] for o in d["cases"][0]["ops"].values()) == 0'
run_bc $T/zeroc compare $T/zero.json $T/zero.json
expect_no_grep "... and compare reads the run's own file (no 'headline of an ok case' refusal)" $T/zeroc.err 'the headline of an ok case'
python3 - "$T/zero.json" "$T/zerof.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["cases"][0]["ops"]["event"]["count"] = 1000
json.dump(d, open(sys.argv[2], "w"))
PY
run_bc $T/zerof compare $T/zerof.json $T/zero.json
expect_rc "a headline of 0 beside 1000 operations counted: refused" 2
expect_grep "... naming the case, the metric and the count" $T/zerof.err 'metrics.events_per_sec.value is 0, the headline of an ok case'
