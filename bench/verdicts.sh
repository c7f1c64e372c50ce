#!/usr/bin/env bash
# Verdict calibration on this machine (issues #19, #26): how often does
# compare call a difference where there is none, does it call two runs of
# one system "the same" (tie = equivalent), and does it find a difference
# that is there?
#   A/A: the config below run twice (labels idle-1, idle-2): every win or
#        loss is false; ties are the equivalences compare can defend.
#   A/B: idle-1 against the same config with cpu max_prime=11000 (about 15%
#        fewer events per second), relabelled max_prime=10000 so that the
#        cases match: the cpu events_per_sec rows are true losses; a win or
#        loss in another module is false.
#   A/A of redis tests=SET,GET with its private server, and of oltp with
#        1 warehouse (private MariaDB): the server's CPU is cpu.server_pct,
#        not other processes, so no case may be suspect because of it; all
#        rows should be ties or inconclusive. Left out when redis-server /
#        mariadbd are not installed (REDIS=0 / OLTP=0 leave them out too).
# Prints the rates; asserts nothing (a shared or virtual machine decides
# more than benchcore does: see the busy column and the suspect counts).
#   bench/verdicts.sh       (TIME=1 s per case, WARMUP=0.5, REPEAT=5; COMPARE_ARGS="")
WARMUP=${WARMUP:-0.5}	# before lib.sh, whose default is 0
. "$(dirname "$0")/lib.sh"
TIME=${TIME:-1}
REPEAT=${REPEAT:-5}
COMPARE_ARGS=${COMPARE_ARGS:-}
REDIS=${REDIS:-$(command -v redis-server >/dev/null && echo 1 || echo 0)}
OLTP=${OLTP:-$( (command -v mariadbd || command -v mysqld) >/dev/null && echo 1 || echo 0)}

conf() {	# LABEL PRIME
	cat <<EOF
label = "$1"; threads = [1, 2]; time = $TIME; warmup = $WARMUP; repeat = $REPEAT;
modules = ( { name = "cpu"; max_prime = $2; }, { name = "rsa"; },
	{ name = "mem"; block_size = ["4K","1M"]; oper = "read"; } );
EOF
}

server_conf() {	# LABEL MODULE-ENTRY
	cat <<EOF
label = "$1"; threads = [1]; time = $TIME; warmup = $WARMUP; repeat = $REPEAT;
modules = ( $2 );
EOF
}

run_file() {	# LABEL (config in $BENCH_TMP/LABEL.conf)
	if ! "$BC" -c "$BENCH_TMP/$1.conf" -o "$BENCH_TMP/$1.json" -q --force >"$BENCH_TMP/$1.log" 2>&1; then
		echo "bench: benchcore -c $1.conf failed:" >&2
		tail -5 "$BENCH_TMP/$1.log" >&2
		exit 1
	fi
}

run_conf() {	# LABEL PRIME
	conf "$1" "$2" > "$BENCH_TMP/$1.conf"
	run_file "$1"
}

machine
echo "# $TIME s per case, $WARMUP s warm-up, $REPEAT repeats; compare $COMPARE_ARGS"
for r in "idle-1 10000" "idle-2 10000" "prime-11000 11000"; do
	# shellcheck disable=SC2086
	run_conf $r
done
SERVERS=""
if [ "$REDIS" = 1 ]; then
	for l in redis-1 redis-2; do
		server_conf $l '{ name = "redis"; tests = ["SET", "GET"]; }' > "$BENCH_TMP/$l.conf"
		run_file $l
	done
	SERVERS="$SERVERS redis"
fi
if [ "$OLTP" = 1 ]; then
	for l in oltp-1 oltp-2; do
		server_conf $l '{ name = "oltp"; warehouses = 1; }' > "$BENCH_TMP/$l.conf"
		run_file $l
	done
	SERVERS="$SERVERS oltp"
fi
python3 - "$BENCH_TMP/prime-11000.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cases"]:
    if c["module"] == "cpu":
        c["params"]["max_prime"] = 10000	# relabelled: the difference is the known one
json.dump(d, open(sys.argv[1], "w"))
EOF
# shellcheck disable=SC2086
"$BC" compare --json $COMPARE_ARGS "$BENCH_TMP/idle-1.json" "$BENCH_TMP/idle-2.json" \
	"$BENCH_TMP/prime-11000.json" > "$BENCH_TMP/cmp.json" || exit 1
python3 - "$BENCH_TMP" <<'EOF'
import json, sys
tmp = sys.argv[1]
d = json.load(open(tmp + "/cmp.json"))

def busy(label):
    """Largest steal and other-process share of any case of a run, percent."""
    cs = json.load(open("%s/%s.json" % (tmp, label)))["cases"]
    def mx(k):
        v = [c.get("cpu", {}).get(k) for c in cs if c.get("cpu", {}).get(k) is not None]
        return "%.1f" % max(v) if v else "n/a"
    return "steal max %s%%, other max %s%%" % (mx("steal_pct"), mx("other_pct"))

def verdict(r):
    return r["verdict"]

for label in ("idle-1", "idle-2", "prime-11000"):
    print("# %-12s %s" % (label, busy(label)))
print()
aa, ab = d["comparisons"]
rows = aa["rows"]
false = [r for r in rows if verdict(r) in ("win", "loss")]
print("A/A idle-2 vs idle-1: %d false verdicts of %d comparisons (%.1f%%): headline %d, secondary %d; suspect %d"
      % (len(false), len(rows), 100.0 * len(false) / max(1, len(rows)),
         sum(r["headline"] for r in false), sum(not r["headline"] for r in false),
         sum(verdict(r) == "suspect" for r in rows)))
for r in false:
    print("  false: %s %s threads=%d %s %+.1f%% p=%.4g p_adj=%.4g" % (r["module"], r["verdict"],
          r["threads"], r["metric"], r["change_pct"], r["p"], r["p_adj"]))
def counts(s):
    return json.dumps({k: v for k, v in s.items() if k != "largest_headline"})
print("  summary:", counts(aa["summary"]))
rows = ab["rows"]
true_rows = [r for r in rows if r["module"] == "cpu" and r["metric"] == "events_per_sec"]
found = [r for r in true_rows if verdict(r) == "loss"]
suspect = [r for r in true_rows if verdict(r) == "suspect" and r.get("direction") == "loss"]
other = [r for r in rows if r["module"] != "cpu"]
false = [r for r in other if verdict(r) in ("win", "loss")]
print("A/B prime-11000 vs idle-1: cpu events_per_sec found as a loss in %d of %d, as a suspect "
      "loss in %d (%s); %d false verdicts in %d rows of the other modules; suspect %d"
      % (len(found), len(true_rows), len(suspect), ", ".join("%+.1f%% %s" % (r["change_pct"], r["verdict"])
         for r in true_rows), len(false), len(other), sum(verdict(r) == "suspect" for r in rows)))
for r in false:
    print("  false: %s %s threads=%d %s %+.1f%% p=%.4g p_adj=%.4g" % (r["module"], r["verdict"],
          r["threads"], r["metric"], r["change_pct"], r["p"], r["p_adj"]))
print("  summary:", counts(ab["summary"]))
ties = [r for r in aa["rows"] if verdict(r) == "tie"]
print("A/A ties (equivalent): %d of %d rows, headline %d of %d"
      % (len(ties), len(aa["rows"]), sum(r["headline"] for r in ties), sum(r["headline"] for r in aa["rows"])))
EOF
for m in $SERVERS; do
	# shellcheck disable=SC2086
	"$BC" compare --json $COMPARE_ARGS "$BENCH_TMP/$m-1.json" "$BENCH_TMP/$m-2.json" > "$BENCH_TMP/cmp-$m.json" || exit 1
	python3 - "$BENCH_TMP" "$m" <<'EOF'
import json, sys
tmp, m = sys.argv[1], sys.argv[2]
rows = json.load(open("%s/cmp-%s.json" % (tmp, m)))["comparisons"][0]["rows"]
def cpu(label, k):
    v = [c.get("cpu", {}).get(k) for c in json.load(open("%s/%s.json" % (tmp, label)))["cases"]]
    v = [x for x in v if x is not None]
    return "%.1f" % max(v) if v else "n/a"
for l in (m + "-1", m + "-2"):
    print("# %-8s server max %s%% (%s us/op), other max %s%%, steal max %s%%"
          % (l, cpu(l, "server_pct"), cpu(l, "server_us_per_op"), cpu(l, "other_pct"), cpu(l, "steal_pct")))
n = {v: sum(r["verdict"] == v for r in rows) for v in ("win", "loss", "tie", "inconclusive", "suspect")}
head = [r for r in rows if r["headline"]]
def pct(v):
    return "?" if v is None else "%+.1f%%" % v
print("A/A %s-2 vs %s-1: %d rows: %d wins, %d losses, %d ties, %d inconclusive, %d suspect; headline %s"
      % (m, m, len(rows), n["win"], n["loss"], n["tie"], n["inconclusive"], n["suspect"],
         ", ".join("%s %+.1f%% [%s .. %s] %s" % (r["params"].get("tests", ""), r["change_pct"],
                   pct(r["ci_low_pct"]), pct(r["ci_high_pct"]), r["verdict"]) for r in head)))
for r in rows:
    if r["verdict"] in ("win", "loss", "suspect"):
        print("  %s: %s threads=%d %s %+.1f%% busy %.1f%% %s" % (r["verdict"], r["params"], r["threads"],
              r["metric"], r["change_pct"], r["busy_pct"], r["reason"] or ""))
EOF
done
