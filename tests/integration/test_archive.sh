#!/usr/bin/env bash
# The results archive (docs/archive.md), SQLite and a private PostgreSQL through the same
# functions: a run's file -> archive -> the same file byte for byte; db add idempotent by
# run_id (the same file again, a forged run_id, another document under a stored one, a
# partial run replaced by its resumed whole and not the other way round); db list's
# filters; db: references in compare and report; --store on a real run, on Ctrl-C and its
# --resume (one row); two stores at once (every run lands); a SIGKILL in the middle of a
# long db add (the archive intact, each run absent or whole, its points and facts with it);
# hostile labels; a newer schema refused naming both versions; a URL's password never
# printed; history's points, shared facts and a version 1 archive brought up to date
# (unit/test_archive) against PostgreSQL too. SQLite's own: a symlink, a world-writable
# directory, a read-only file and a read-only mount refused; a full disk (a small tmpfs):
# a clear error, the results file written, exit 3 naming the store.
# PostgreSQL runs as nobody (it refuses root) from `pg_config --bindir` or
# /usr/lib/postgresql/*/bin, on a unix socket in $T only (listen_addresses = ''; lib.sh's start_pg).
# BC_QUICK=1 leaves out the concurrent real runs and the SIGKILL loop's repeats.
. "$(dirname "$0")/lib.sh"
[ -n "${T:-}" ] && [ -d "$T" ] || { echo "FAIL: lib.sh did not make a temp dir"; exit 1; }
QUICK=${BC_QUICK:-0}
export TMPDIR=$T/tmp; mkdir -p "$TMPDIR"
unset BENCHCORE_DB
export XDG_DATA_HOME=$T/xdg HOME=$T/home
mkdir -p "$HOME"
SQ=$(command -v sqlite3 || true)

# --- one real run's file, and copies of it as other runs (new run_id and started_at)
run_bc $T/r0 run cpu --time 0.2 --warmup 0 --repeat 2 --threads 1,2 -q -o $T/a.json --label base
expect_rc "a real run for the archive" 0
NPTS=$(python3 -S -c '
import json,sys
d=json.load(open(sys.argv[1]))
print(sum(len([m for m in g["metrics"]]) for g in d["groups"]))' $T/a.json 2>/dev/null || echo 0)
# copies N DIR: DIR/c000.json ... one run each, started a minute apart
copies() {
	mkdir -p "$2"
	python3 -S - "$T/a.json" "$1" "$2" <<'EOF'
import json, os, sys
src, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
d = json.load(open(src))
for i in range(n):
    d["run_id"] = os.urandom(16).hex()
    d["started_at"] = "2026-11-%02dT%02d:%02d:00Z" % (1 + i // 1440, (i // 60) % 24, i % 60)
    json.dump(d, open("%s/c%04d.json" % (out, i), "w"))
EOF
}
copies 40 $T/many
# the top-level string field $2 of a results file benchcore wrote (one per line, indented by one)
jfield() { sed -n "s/^ \"$2\": \"\\(.*\\)\",\$/\\1/p" "$1" | head -1; }
ID_A=$(jfield $T/a.json run_id)

# runs_in DB: how many runs db list sees
runs_in() { "$BC" db list --db "$1" 2>/dev/null | tail -n +2 | wc -l; }

# --- the tests both backends go through; $1 the archive (a file or a URL), $2 its name
backend_tests() {
	local DB=$1 N=$2
	# round trip
	run_bc $T/$N.add db add --db "$DB" $T/a.json
	expect_rc "$N: db add a run" 0
	expect_grep "$N: db add says added" $T/$N.add.out "run $ID_A added"
	run_bc $T/$N.exp db export --db "$DB" "$ID_A" -o $T/$N.back.json
	expect_rc "$N: db export" 0
	check "$N: round trip: file -> archive -> the same file, byte for byte" cmp -s $T/a.json $T/$N.back.json
	"$BC" db export --db "$DB" "${ID_A:0:10}" > $T/$N.back2.json 2>/dev/null
	check "$N: db export to stdout by a run_id prefix, the same bytes" cmp -s $T/a.json $T/$N.back2.json
	# idempotent
	run_bc $T/$N.add2 db add --db "$DB" $T/a.json
	expect_rc "$N: the same file again" 0
	expect_grep "$N: ... is said stored already" $T/$N.add2.out "already stored"
	[ "$(runs_in "$DB")" = 1 ] && pass "$N: one run after adding it twice" || fail "$N: runs: $(runs_in "$DB")"
	# fixtures (no run_id: one from their content, the same each time)
	run_bc $T/$N.fx db add --db "$DB" tests/fixtures/cmp-a.json tests/fixtures/cmp-slow.json tests/fixtures/run-0.1.json
	expect_rc "$N: files from before run_id" 0
	run_bc $T/$N.fx2 db add --db "$DB" tests/fixtures/cmp-a.json
	expect_grep "$N: ... idempotent too" $T/$N.fx2.out "already stored"
	# list and its filters
	"$BC" db list --db "$DB" --json > $T/$N.list.json
	expect_py "$N: db list: 4 runs, oldest first, with host, label, config, version, cases" $T/$N.list.json \
		'len(d) == 4 and [r["started"] for r in d] == sorted(r["started"] for r in d) and d[-1]["run_id"] == "'$ID_A'" and d[-1]["label"] == "base" and d[-1]["cases"] == 4 and d[-1]["benchcore_version"] and d[-1]["status"] == "complete"'
	"$BC" db list --db "$DB" --json --host db2 > $T/$N.l2.json
	expect_py "$N: db list --host" $T/$N.l2.json 'len(d) == 1 and d[0]["label"] == "sysB-slow"'
	"$BC" db list --db "$DB" --json --label sysA --module mem > $T/$N.l3.json
	expect_py "$N: db list --label --module" $T/$N.l3.json 'len(d) == 1 and d[0]["host"] == "db1"'
	"$BC" db list --db "$DB" --json --module mem --since 2026-12-01 > $T/$N.l4.json
	expect_py "$N: db list --since (a run of mem before it is left out)" $T/$N.l4.json 'len(d) == 0'
	run_bc $T/$N.lt db list --db "$DB"
	expect_grep "$N: db list's table" $T/$N.lt.out "^run_id +started +host +label +config +version +status +cases"
	# db: references in compare and report: the same verdicts as from the files
	"$BC" compare --json tests/fixtures/cmp-slow.json tests/fixtures/cmp-a.json > $T/$N.cf.json 2>/dev/null
	"$BC" compare --json --db "$DB" db:sysB-slow db:latest@db1 > $T/$N.cd.json 2>$T/$N.cd.err
	python3 -S - $T/$N.cf.json $T/$N.cd.json <<'EOF' > $T/$N.cmp.txt
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
strip = lambda c: [{k: v for k, v in r.items() if k not in ("file", "path")} for r in c.get("rows", c.get("cases", []))]
print("same" if [strip(c) for c in a["comparisons"]] == [strip(c) for c in b["comparisons"]] and a["comparisons"] else "differ")
EOF
	expect_grep "$N: compare db:LABEL db:latest@HOST: the files' verdicts" $T/$N.cmp.txt "^same$"
	BENCHCORE_DB=$DB run_bc $T/$N.cr compare db:$ID_A $T/a.json
	expect_rc "$N: compare db:RUN_ID FILE (BENCHCORE_DB)" 0
	expect_grep "$N: ... names the stored run" $T/$N.cr.out "db:$ID_A"
	run_bc $T/$N.rep report --db "$DB" db:base db:sysA -o $T/$N.html
	expect_rc "$N: report from stored runs" 0
	expect_grep "$N: ... the page names both systems" $T/$N.html "sysA"
	run_bc $T/$N.none compare --db "$DB" db:nosuchlabel $T/a.json
	expect_rc "$N: an unknown reference" 2
	expect_grep "$N: ... is said, with what a reference is" $T/$N.none.err "no run nosuchlabel in the results archive"
	# forged and duplicated run_ids
	python3 -S -c '
import json,sys
d=json.load(open(sys.argv[1])); d["run_id"]="x\x27; DROP TABLE runs; --"; json.dump(d,open(sys.argv[2],"w"))
e=json.load(open("tests/fixtures/cmp-slow.json")); e["run_id"]=d and sys.argv[3]; json.dump(e,open(sys.argv[4],"w"))' \
		$T/a.json $T/$N.forged.json "$ID_A" $T/$N.dup.json
	run_bc $T/$N.fg db add --db "$DB" $T/$N.forged.json $T/$N.dup.json
	expect_rc "$N: a forged run_id and a copied one: refused" 1
	expect_grep "$N: ... the forged one: not one benchcore writes" $T/$N.fg.err "is not one benchcore writes"
	expect_grep "$N: ... the copied one names the stored run" $T/$N.fg.err "another document under run_id $ID_A"
	[ "$(runs_in "$DB")" = 4 ] && pass "$N: ... nothing added, nothing dropped" || fail "$N: runs: $(runs_in "$DB")"
	"$BC" db export --db "$DB" "$ID_A" | cmp -s - $T/a.json && pass "$N: ... the stored run unchanged" || fail "$N: stored run changed"
	# a partial run, then the same run resumed further: one row, replaced; never backwards
	python3 -S -c '
import json,sys
d=json.load(open(sys.argv[1])); d["run_id"]="ab"*16; d["status"]="interrupted"; d["interrupted"]=True
d["cases"]=d["cases"][:1]; d["cases_planned"]=4; json.dump(d,open(sys.argv[2],"w"))
d=json.load(open(sys.argv[1])); d["run_id"]="ab"*16; json.dump(d,open(sys.argv[3],"w"))' $T/a.json $T/$N.part.json $T/$N.whole.json
	"$BC" db add --db "$DB" $T/$N.part.json > $T/$N.p1.out 2>&1
	run_bc $T/$N.p2 db add --db "$DB" $T/$N.whole.json
	expect_grep "$N: the run resumed further replaces its partial row" $T/$N.p2.out "replaced its partial row"
	run_bc $T/$N.p3 db add --db "$DB" $T/$N.part.json
	expect_rc "$N: ... its partial file again: refused" 1
	expect_grep "$N: ... saying the stored one is further along" $T/$N.p3.err "same run further along"
	"$BC" db list --db "$DB" --json > $T/$N.l5.json
	expect_py "$N: ... one row, complete, 4 cases" $T/$N.l5.json 'len([r for r in d if r["run_id"] == "ab"*16]) == 1 and [r for r in d if r["run_id"] == "ab"*16][0]["cases"] == 4 and [r for r in d if r["run_id"] == "ab"*16][0]["status"] == "complete"'
	# a forged "resume" (issue 48): the same run_id, start and host id, a stored case changed or
	# dropped: refused, the stored partial run kept; the honest resume replaces it
	python3 -S -c '
import json,sys
d=json.load(open(sys.argv[1])); d["run_id"]="ef"*16; d["status"]="interrupted"; d["interrupted"]=True
full=list(d["cases"]); d["cases"]=full[:2]; d["cases_planned"]=len(full); json.dump(d,open(sys.argv[2],"w"))
d["status"]="complete"; d["interrupted"]=False; d["cases"]=full; json.dump(d,open(sys.argv[3],"w"))
c=json.loads(json.dumps(full)); c[0]["metrics"]=c[1]["metrics"]; d["cases"]=c; json.dump(d,open(sys.argv[4],"w"))
d["cases"]=full[1:]; json.dump(d,open(sys.argv[5],"w"))' \
		$T/a.json $T/$N.rp.json $T/$N.rw.json $T/$N.rchanged.json $T/$N.rdropped.json
	"$BC" db add --db "$DB" $T/$N.rp.json > /dev/null 2>&1
	run_bc $T/$N.rc db add --db "$DB" $T/$N.rchanged.json
	expect_rc "$N: a forged resume (a stored case changed): refused" 1
	expect_grep "$N: ... naming the case" $T/$N.rc.err "not the stored run efefefef.* resumed: its case"
	run_bc $T/$N.rd db add --db "$DB" $T/$N.rdropped.json
	expect_rc "$N: a forged resume (a stored case dropped): refused" 1
	"$BC" db export --db "$DB" "$(printf 'ef%.0s' {1..16})" | cmp -s - $T/$N.rp.json && pass "$N: ... the stored partial run kept" || fail "$N: the stored partial run changed"
	run_bc $T/$N.rw db add --db "$DB" $T/$N.rw.json
	expect_grep "$N: ... the honest resume replaces it" $T/$N.rw.out "replaced its partial row"
	# hostile strings: escapes, quotes, SQL, a newline in a label and a host name
	python3 -S -c '
import json,sys
d=json.load(open(sys.argv[1])); d["run_id"]="cd"*16; d["label"]="\x1b[31mred\x27); DROP TABLE points; --\nnext"
d["host"]["hostname"]="h\x07\x1b]0;title\x07\"x"; json.dump(d,open(sys.argv[2],"w"))' $T/a.json $T/$N.hostile.json
	run_bc $T/$N.ho db add --db "$DB" $T/$N.hostile.json
	expect_rc "$N: hostile label and host name: stored" 0
	"$BC" db list --db "$DB" > $T/$N.hl.out
	if grep -q $'\x1b\|\x07' $T/$N.hl.out; then fail "$N: db list printed a raw escape"; else pass "$N: db list prints no raw escape or bell"; fi
	"$BC" db export --db "$DB" "cd" > /dev/null 2>&1
	"$BC" db export --db "$DB" "$(printf 'cd%.0s' {1..16})" | cmp -s - $T/$N.hostile.json && pass "$N: ... exported as it was" || fail "$N: hostile export differs"
	# issue 48: a label with control characters is referred to as db:LABEL, by its raw text
	# and by the text db list shows, and is echoed printable
	local raw shown='\x1b[31mred'"'"'); DROP TABLE points; --\x0anext'
	raw=$(printf '\033[31mred'"'"'); DROP TABLE points; --\nnext')
	run_bc $T/$N.lr compare --db "$DB" "db:$raw" $T/a.json
	expect_rc "$N: ... db:LABEL with its raw control characters" 0
	expect_grep "$N: ... names the stored run" $T/$N.lr.out '^A: \\x1b\[31mred.*\\x0anext \(db:\\x1b'
	if grep -q $'\x1b' $T/$N.lr.out $T/$N.lr.err; then fail "$N: ... a raw escape echoed"; else pass "$N: ... echoed printable"; fi
	run_bc $T/$N.ls compare --db "$DB" "db:$shown" $T/a.json
	expect_rc "$N: ... db:LABEL as db list shows it" 0
	run_bc $T/$N.ln compare --db "$DB" "db:$(printf 'no\033[2Jsuch\nlabel')" $T/a.json
	expect_rc "$N: ... an unknown one: refused" 2
	if grep -q $'\x1b' $T/$N.ln.err; then fail "$N: ... the unknown label echoed raw"; else pass "$N: ... the unknown label echoed printable"; fi
	[ "$(runs_in "$DB")" = 7 ] && pass "$N: ... and every table is still there" || fail "$N: runs: $(runs_in "$DB")"
	# --store on a real run; then Ctrl-C and --resume: one row, the whole run
	run_bc $T/$N.run run cpu --time 0.2 --warmup 0 --threads 1 -q -o $T/$N.run.json --store="$DB"
	expect_rc "$N: run --store=DB" 0
	expect_grep "$N: ... says it is stored" $T/$N.run.err "stored: run $(jfield $T/$N.run.json run_id) added to"
	"$BC" db export --db "$DB" "$(jfield $T/$N.run.json run_id)" | cmp -s - $T/$N.run.json && pass "$N: ... the stored run is its file" || fail "$N: stored run differs from its file"
	"$BC" run cpu --time 0.3 --warmup 0 --repeat 4 --threads 1,2 -q -o $T/$N.int.json --store="$DB" >$T/$N.int.out 2>$T/$N.int.err </dev/null &
	local pid=$!
	for _ in $(seq 600); do grep -q '"status"' $T/$N.int.json 2>/dev/null && break; sleep 0.05; done
	sleep 0.5; kill -INT $pid; wait $pid; RC=$?
	expect_rc "$N: a run interrupted (Ctrl-C)" 130
	local IID; IID=$(jfield $T/$N.int.json run_id)
	expect_grep "$N: ... is stored as it stands" $T/$N.int.err "stored: run $IID added"
	run_bc $T/$N.res run cpu --time 0.3 --warmup 0 --repeat 4 --threads 1,2 -q -o $T/$N.int.json --store="$DB" --resume
	expect_rc "$N: ... --resume --store" 0
	expect_grep "$N: ... replaces its partial row" $T/$N.res.err "stored: run $IID replaced its partial row"
	"$BC" db list --db "$DB" --json > $T/$N.l6.json
	expect_py "$N: ... one row for the run, complete with 8 cases" $T/$N.l6.json \
		'[(r["status"], r["cases"]) for r in d if r["run_id"] == "'$IID'"] == [("complete", 8)]'
	# two stores at once: every run lands
	local before; before=$(runs_in "$DB")
	"$BC" db add --db "$DB" $T/many/c00[0-1]*.json > $T/$N.c1.out 2>&1 & local p1=$!
	"$BC" db add --db "$DB" $T/many/c00[2-3]*.json > $T/$N.c2.out 2>&1 & local p2=$!
	wait $p1; local r1=$?; wait $p2; local r2=$?
	[ $r1 = 0 ] && [ $r2 = 0 ] && [ "$(runs_in "$DB")" = $((before + 40)) ] && pass "$N: two db add at once: all 40 runs land" ||
		fail "$N: two db add at once: exits $r1 $r2, runs $(runs_in "$DB") (wanted $((before + 40)))"
	if [ "$QUICK" = 1 ]; then
		echo "QUICK: $N: two real runs storing at once (1 check) left out"
	else
		"$BC" run cpu --time 0.3 --warmup 0 --threads 1 -q -o $T/$N.s1.json --store="$DB" >/dev/null 2>&1 & p1=$!
		"$BC" run cpu --time 0.3 --warmup 0 --threads 1 -q -o $T/$N.s2.json --store="$DB" >/dev/null 2>&1 & p2=$!
		wait $p1; r1=$?; wait $p2; r2=$?
		"$BC" db list --db "$DB" --json > $T/$N.l7.json
		expect_py "$N: two runs storing at once: both land" $T/$N.l7.json \
			"$r1 == 0 and $r2 == 0 and {'$(jfield $T/$N.s1.json run_id)', '$(jfield $T/$N.s2.json run_id)'} <= {r['run_id'] for r in d}"
	fi
}

# kill_mid_store DB NAME COUNT_SQL: db add of 400 runs SIGKILLed after ~0.3 s, then every
# run is whole (each copy of a.json has all its points) and adding them again completes the set.
kill_mid_store() {
	local DB=$1 N=$2 count=$3 tries=2 ok=1
	[ "$QUICK" = 1 ] && tries=1
	[ -d $T/kill ] || copies 400 $T/kill
	for t in $(seq $tries); do
		"$BC" db add --db "$DB" $T/kill/*.json >/dev/null 2>&1 & local pid=$!
		sleep 0.$((2 + t)); kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
		# per run: its points and its facts (all or none of them: there are no runs without
		# points here), and no row of either without its run
		local bad; bad=$($count "SELECT count(*) FROM runs r WHERE started LIKE '2026-11-01T%' AND ((SELECT count(*) FROM run_points p WHERE p.rid = r.rid) <> $NPTS OR NOT EXISTS (SELECT 1 FROM run_facts h WHERE h.rid = r.rid))")
		[ "$bad" = 0 ] || ok=0
		local orphans; orphans=$($count "SELECT (SELECT count(*) FROM run_points p WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.rid = p.rid)) + (SELECT count(*) FROM run_facts h WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.rid = h.rid))")
		[ "$orphans" = 0 ] || ok=0
	done
	[ $ok = 1 ] && pass "$N: db add SIGKILLed mid-way ($tries times): every stored run whole, no stray points or facts" ||
		fail "$N: after SIGKILL: runs without all $NPTS points: $bad, stray points: $orphans"
	local stored; stored=$($count "SELECT count(*) FROM runs WHERE started LIKE '2026-11-01T%'")
	run_bc $T/$N.kre db add --db "$DB" $T/kill/*.json
	local after; after=$($count "SELECT count(*) FROM runs WHERE started LIKE '2026-11-01T%'")
	# the 400 and the 40 of the concurrency check
	[ "$RC" = 0 ] && [ "$after" = 440 ] && pass "$N: ... adding them again completes the set ($stored were in)" ||
		fail "$N: ... re-add: exit $RC, $after runs"
}

newer_schema() {
	local DB=$1 N=$2 sql=$3
	$sql "UPDATE bc_meta SET value = '7' WHERE key = 'schema_version'; UPDATE bc_meta SET value = 'benchcore 9.1.0' WHERE key = 'written_by'"
	run_bc $T/$N.new db list --db "$DB"
	expect_rc "$N: an archive of a newer schema: refused" 2
	expect_grep "$N: ... naming both versions" $T/$N.new.err "schema version 7; this benchcore \(0\.[0-9.]+\) knows up to version [0-9]+"
	expect_grep "$N: ... and who wrote it" $T/$N.new.err "benchcore 9.1.0"
	run_bc $T/$N.new2 db add --db "$DB" $T/many/c0000.json
	expect_rc "$N: ... db add refused too" 2
	run_bc $T/$N.new3 run cpu --time 0.1 --warmup 0 --threads 1 -q -o $T/$N.new3.json --store="$DB"
	expect_rc "$N: ... a run with --store: refused before it runs" 2
	[ ! -e $T/$N.new3.json ] && pass "$N: ... so no run was made for it" || fail "$N: a results file was written"
	$sql "UPDATE bc_meta SET value = '2' WHERE key = 'schema_version'"
}

# --- tags (issue 53): db tag RUN_ID baseline, db:baseline@HOST, db untag, and an archive of
# schema version 1 brought up to 2 by the first db tag; $3 runs SQL on the archive
mkdir -p $T/tagruns
python3 -S - $T/a.json $T/tagruns <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1]))
for i in range(2):	# October: apart from the runs other checks count
    d["run_id"] = os.urandom(16).hex()
    d["started_at"] = "2026-10-15T0%d:00:00Z" % i
    json.dump(d, open("%s/c%04d.json" % (sys.argv[2], i), "w"))
EOF
HOSTNAME_A=$(python3 -S -c 'import json,sys; print(json.load(open(sys.argv[1]))["host"]["hostname"])' $T/a.json)
tag_tests() {
	local DB=$1 N=$2 sql=$3 t1 t2
	t1=$(jget $T/tagruns/c0000.json 'd["run_id"]'); t2=$(jget $T/tagruns/c0001.json 'd["run_id"]')
	"$BC" db add --db "$DB" $T/tagruns/c0000.json $T/tagruns/c0001.json >/dev/null 2>&1
	run_bc $T/$N.tag db tag --db "$DB" "${t1:0:12}" baseline
	expect_rc "$N: db tag RUN_ID baseline" 0
	expect_grep "$N: ... says so" $T/$N.tag.out "^run $t1 tagged baseline$"
	"$BC" db export --db "$DB" "baseline@$HOSTNAME_A" >$T/$N.bl.json 2>/dev/null
	check "$N: db:baseline@HOST reads the tagged run" cmp -s $T/tagruns/c0000.json $T/$N.bl.json
	"$BC" db list --db "$DB" --json >$T/$N.tl.json
	expect_py "$N: db list --json: the tag on that run only" $T/$N.tl.json \
		'[r["run_id"] for r in d if r["tags"] == ["baseline"]] == ["'$t1'"]'
	BENCHCORE_DB="$DB" run_bc $T/$N.cmp compare --fail-on loss "db:baseline@$HOSTNAME_A" $T/tagruns/c0001.json
	expect_rc "$N: compare --fail-on loss db:baseline@HOST NEW.json (the same figures)" 0
	BENCHCORE_DB="$DB" run_bc $T/$N.hist history --module cpu "db:baseline@$HOSTNAME_A" $T/tagruns/c0001.json
	expect_rc "$N: history reads db:baseline@HOST among its files" 0
	run_bc $T/$N.tag2 db tag --db "$DB" "$t2" baseline
	"$BC" db export --db "$DB" "baseline@$HOSTNAME_A" >$T/$N.bl2.json 2>/dev/null
	check "$N: tagging another run of the host moves the tag" cmp -s $T/tagruns/c0001.json $T/$N.bl2.json
	run_bc $T/$N.untag1 db untag --db "$DB" "$t1" baseline
	expect_rc "$N: db untag of a run without the tag: refused" 2
	expect_grep "$N: ... saying so" $T/$N.untag1.err "has no tag baseline"
	run_bc $T/$N.untag db untag --db "$DB" "$t2" baseline
	expect_rc "$N: db untag" 0
	run_bc $T/$N.gone db export --db "$DB" "baseline@$HOSTNAME_A"
	expect_rc "$N: db:baseline@HOST after untag: no such run" 2
	expect_grep "$N: ... the references named" $T/$N.gone.err "TAG@HOST"
	run_bc $T/$N.badtag db tag --db "$DB" "$t2" "Base line"
	expect_rc "$N: a tag with a space and upper case: refused" 2
	run_bc $T/$N.latest db tag --db "$DB" "$t2" latest
	expect_rc "$N: the tag latest: refused" 2
	run_bc $T/$N.norun db tag --db "$DB" 0123456789abcdef baseline
	expect_rc "$N: db tag of no such run" 2
	# (an archive of version 1 brought up to 2, then tagged: test_merge_archive.sh)
}

# === SQLite
SDB=$T/s/results.db
mkdir -p $T/s && chmod 700 $T/s
backend_tests "$SDB" sqlite
if [ -n "$SQ" ]; then
	sq() { "$SQ" "$SDB" "$1"; }
	tag_tests "$SDB" sqlite sq
	check "sqlite: the file is in WAL mode" test "$(sq 'PRAGMA journal_mode')" = wal
	check "sqlite: integrity_check ok after all that" test "$(sq 'PRAGMA integrity_check')" = ok
	check "sqlite: schema_version row 2" test "$(sq "SELECT value FROM bc_meta WHERE key = 'schema_version'")" = 2
	# issue 53: documents stored deflated, exported as written (a 4 cases' 18 KB file shrinks
	# about 4x; a quick config's 150 KB one about 10x: bench/archive_scale.sh)
	zb=$(sq "SELECT length(zdoc) FROM documents WHERE run_id = '$ID_A' AND document = ''")
	ab=$(stat -c %s $T/a.json)
	[ -n "$zb" ] && [ $((zb * 3)) -le "$ab" ] && pass "sqlite: the document is stored compressed ($ab bytes -> $zb)" ||
		fail "sqlite: the document stored as ${zb:-text} bytes for a file of $ab"
	cp $SDB $T/s/dmg.db
	"$SQ" $T/s/dmg.db "UPDATE documents SET zdoc = substr(zdoc, 1, length(zdoc) / 2) WHERE run_id = '$ID_A'"
	run_bc $T/dmg db export --db $T/s/dmg.db "$ID_A"
	expect_rc "sqlite: a damaged stored document: export fails" 2
	expect_grep "... naming the run and why" $T/dmg.err "stored document of run $ID_A is damaged"
	kill_mid_store "$SDB" sqlite sq
	check "sqlite: integrity_check ok after the kills" test "$(sq 'PRAGMA integrity_check')" = ok
	newer_schema "$SDB" sqlite sq
else
	fail "sqlite3 (the CLI) is not installed: scripts/deps.sh installs it"
fi
# the store setting of a config: the run goes there without a flag; --store=DB overrides it
printf 'time = 0.1; warmup = 0; threads = [1];\nstore = "%s";\nmodules = ( { name = "cpu"; } );\n' \
	"$T/s/conf.db" > $T/store.conf
run_bc $T/sc -c $T/store.conf -o $T/sc.json -q
expect_rc "store = \"FILE\" in a config" 0
check "... the run is in that archive" test "$(runs_in $T/s/conf.db)" = 1
run_bc $T/sc2 -c $T/store.conf -o $T/sc2.json -q --store=$T/s/flag.db
check "... --store=DB wins over it" test "$(runs_in $T/s/flag.db)" = 1 -a "$(runs_in $T/s/conf.db)" = 1
run_bc $T/sc3 run cpu --time 0.1 --warmup 0 --threads 1 -q --store
expect_rc "--store without a results file: refused" 2
expect_grep "... saying it needs -o" $T/sc3.err "give -o FILE.json too"

# the default archive: $XDG_DATA_HOME/benchcore/results.db, made 0700
run_bc $T/def db add $T/a.json
expect_rc "the default archive" 0
check "... is \$XDG_DATA_HOME/benchcore/results.db" test -f $XDG_DATA_HOME/benchcore/results.db
check "... its directory made 0700" test "$(stat -c %a $XDG_DATA_HOME/benchcore)" = 700
check "... its file 0600" test "$(stat -c %a $XDG_DATA_HOME/benchcore/results.db)" = 600
unset XDG_DATA_HOME
run_bc $T/def2 db add $T/a.json
check "... else ~/.local/share/benchcore/results.db" test -f $HOME/.local/share/benchcore/results.db

# a symlink, a world-writable directory
ln -s $SDB $T/s/link.db
run_bc $T/ln db add --db $T/s/link.db $T/many/c0001.json
expect_rc "a symlinked archive: refused" 2
expect_grep "... saying so" $T/ln.err "is a symbolic link: refused"
run_bc $T/ln2 db list --db $T/s/link.db
expect_rc "... for reading too" 2
mkdir -p $T/ww && chmod 1777 $T/ww
run_bc $T/ww db add --db $T/ww/r.db $T/a.json
expect_rc "an archive in a world-writable directory: refused" 2
expect_grep "... saying why" $T/ww.err "refusing to use directory \"$T/ww\": it is writable by others"
check "... and nothing made there" test ! -e $T/ww/r.db
# a read-only file, a read-only mount
mkdir -p $T/ro && cp $SDB $T/ro/r.db && chmod 444 $T/ro/r.db
run_bc $T/ro db add --db $T/ro/r.db $T/many/c0039.json
expect_rc "a read-only archive file: refused" 2
expect_grep "... saying so" $T/ro.err "is read-only \(mode 0444\): not written"
run_bc $T/ro2 db list --db $T/ro/r.db
expect_rc "... still listed" 0
run_bc $T/ro3 run cpu --time 0.1 --warmup 0 --threads 1 -q -o $T/ro3.json --store=$T/ro/r.db
expect_rc "... a run storing into it: refused before it runs" 2
MNT=$T/mnt; mkdir -p $MNT
if mount -t tmpfs -o size=64m,mode=0700 tmpfs $MNT 2>/dev/null; then
	trap 'umount -l $MNT 2>/dev/null; rm -rf "$T"' EXIT
	cp $SDB $MNT/r.db
	mount -o remount,ro $MNT
	run_bc $T/rom db add --db $MNT/r.db $T/many/c0039.json
	expect_rc "an archive on a read-only mount: refused" 2
	expect_grep "... saying it cannot be written" $T/rom.err "cannot be written|read-only"
	umount $MNT
	# a full disk: the run's file is written, the store fails clearly, exit 3
	mount -t tmpfs -o size=600k,mode=0700 tmpfs $MNT
	"$BC" db add --db $MNT/r.db tests/fixtures/run-0.1.json >/dev/null 2>&1
	dd if=/dev/zero of=$MNT/fill bs=4k 2>/dev/null
	run_bc $T/full run cpu --time 0.2 --warmup 0 --threads 1,2 -q -o $T/full.json --store=$MNT/r.db
	expect_rc "a full disk: the run exits 3" 3
	expect_grep "... saying the store failed" $T/full.err "the run was not stored; its results are in"
	expect_grep "... and why" $T/full.err "full|disk I/O"
	expect_py "... its results file written whole" $T/full.json 'd["status"] == "complete" and len(d["cases"]) == 2'
	run_bc $T/full2 db add --db $MNT/r.db $T/a.json
	check "... db add on the full disk fails too (exit $RC)" test "$RC" -ne 0
	rm -f $MNT/fill
	check "... space freed: the archive intact" test "$("$SQ" $MNT/r.db 'PRAGMA integrity_check')" = ok
	run_bc $T/full3 db add --db $MNT/r.db $T/full.json
	expect_rc "... and the run stored now" 0
	[ "$(runs_in $MNT/r.db)" = 2 ] && pass "... the archive holds its two runs" || fail "... runs: $(runs_in $MNT/r.db)"
	umount $MNT
else
	pass "skipped: a tmpfs cannot be mounted here (the read-only mount and full disk cases need one)"
fi
run_bc $T/nf db list --db $T/nothere.db
expect_rc "db list of no archive" 2
expect_grep "... says there is none" $T/nf.err "no results archive at"

# === PostgreSQL: a private server, as nobody, on a unix socket in $T (lib.sh's start_pg)
PG=$T/pg
start_pg $PG || { [ -n "${PGPID:-}" ] && kill $PGPID 2>/dev/null
	case "$why" in *"not installed"*) pass "skipped: $why";; *) fail "$why";; esac; exit 0; }
trap 'kill $PGPID 2>/dev/null; wait $PGPID 2>/dev/null; umount -l $MNT 2>/dev/null; rm -rf "$T"' EXIT
psq postgres "CREATE DATABASE arch" && psq postgres "CREATE DATABASE unit" && psq postgres "CREATE DATABASE unitv1" ||
	{ fail "CREATE DATABASE"; exit 0; }
PW=Pw-s3cret-91
PGURL="postgresql://bc:$PW@/arch?host=$PGSOCK"
backend_tests "$PGURL" pg
pq() { psq arch "$1"; }
kill_mid_store "$PGURL" pg pq
newer_schema "$PGURL" pg pq
tag_tests "$PGURL" pg pq
if grep -l -- "$PW" $T/pg.*.out $T/pg.*.err >/dev/null 2>&1; then
	fail "pg: the URL's password was printed: $(grep -l -- "$PW" $T/pg.*.out $T/pg.*.err | head -3)"
else
	pass "pg: the URL's password is in no output of any command"
fi
expect_grep "pg: ... which name it redacted" $T/pg.add.out "postgresql://bc:\*\*\*@/arch"
run_bc $T/pgbad db list --db "postgresql://bc:$PW@/nosuchdb?host=$PGSOCK"
expect_rc "pg: a database that does not exist" 2
expect_grep "pg: ... said, with the URL redacted" $T/pgbad.err "postgresql://bc:\*\*\*@/nosuchdb.*does not exist"
expect_no_grep "pg: ... and no password" $T/pgbad.err "$PW"
# history's points from PostgreSQL: the unit test's checks against this server
if [ -x "$BUILD/tests/test_archive" ]; then
	BC_ARCHIVE_TEST_DB="postgresql://bc@/unit?host=$PGSOCK" BC_ARCHIVE_TEST_DB_V1="postgresql://bc@/unitv1?host=$PGSOCK" \
		"$BUILD/tests/test_archive" >$T/unit.out 2>&1
	RC=$?
	expect_rc "pg: unit/test_archive (history's points, shared facts, a replaced run's facts, a version 1 archive brought up to date, refusals, a newer schema) against PostgreSQL" 0
	[ "$RC" = 0 ] || tail -20 $T/unit.out
fi
