#!/usr/bin/env bash
# A merged run in the archive (issue 52 item 3): merging a `--only cpu,mem` part with an
# `--only io` part keeps both parts' facts (host.io with the io part's case) and counts its cases
# once (cases_planned); stored beside its parts, in either order, in SQLite and a private
# PostgreSQL, the merged run replaces them: db list shows one run with its own count,
# db:LABEL and db:latest give the merged run, history counts one run, and each part is
# still exported byte for byte by its run_id. An archive of schema 1 holding a merged run
# and its parts is brought up to date with the parts marked, each run's host object and
# module info moved to facts (the same ones, each once) and history's text unchanged.
. "$(dirname "$0")/lib.sh"
[ -n "${T:-}" ] && [ -d "$T" ] || { echo "FAIL: lib.sh did not make a temp dir"; exit 1; }
unset BENCHCORE_DB
export XDG_DATA_HOME=$T/xdg HOME=$T/home
mkdir -p "$HOME" $T/io $T/s && chmod 700 $T/s
printf 'label = "parts";\ntime = 0.2;\nwarmup = 0;\nthreads = [1];\nmodules = ({ name = "cpu"; max_prime = 500; }, { name = "mem"; block_size = "4K"; total_size = "1M"; }, { name = "io"; path = "%s"; file_size = "1M"; rw = ["randread"]; });\n' $T/io >$T/p.conf
run_bc $T/p1 -c $T/p.conf --only cpu,mem -q -o $T/p1.json
expect_rc "part 1: cpu and mem" 0
run_bc $T/p2 -c $T/p.conf --only io -q -o $T/p2.json
expect_rc "part 2: io" 0
expect_py "part 2 has host.io, part 1 none" $T/p2.json "'io' in d['host'] and 'fs_type' in d['host']['io']"
run_bc $T/mg merge $T/p1.json $T/p2.json -o $T/m.json
expect_rc "merge of the two parts" 0
expect_py "merge: host.io stays with the io part's case (it was dropped before, then claimed for every case: issue 61 item 4)" $T/m.json \
	"'io' not in d['host'] and [c['run'].get('host', {}).get('io') for c in d['cases']] == [None, None, json.load(open('$T/p2.json'))['host']['io']]"
expect_py "merge: cases_planned is the merged run's count, not part 1's" $T/m.json \
	"d['cases_planned'] == len(d['cases']) == 3 and d['status'] == 'complete'"
run_bc $T/cmp compare --json $T/p2.json $T/m.json
expect_py "compare: no file-system difference between the io part and the merged run" $T/cmp.out \
	"not [x for x in d['comparisons'][0].get('host_differences', []) if x['field'].startswith('io.')]"
ID1=$(python3 -S -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_id"])' $T/p1.json)
ID2=$(python3 -S -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_id"])' $T/p2.json)
IDM=$(python3 -S -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_id"])' $T/m.json)

# merged_checks DB NAME: what the archive says once the parts and the merged run are in
merged_checks() {
	local DB=$1 N=$2
	run_bc $T/$N.ls db list --db "$DB" --json
	expect_py "$N: db list shows one run, the merged one, with its own count" $T/$N.ls.out \
		"[(r['run_id'], r['cases'], r['cases_planned']) for r in d] == [('$IDM', 3, 3)]"
	run_bc $T/$N.lt db list --db "$DB"
	expect_no_grep "$N: ... no \"N of M\" count" $T/$N.lt.out " of "
	run_bc $T/$N.lab db export --db "$DB" "$IDM" -o $T/$N.m.json
	run_bc $T/$N.cl compare --json --db "$DB" db:parts $T/m.json
	expect_py "$N: db:LABEL is the merged run (all three modules), not the last part" $T/$N.cl.out \
		"sorted({r['module'] for r in d['comparisons'][0]['rows']}) == ['cpu', 'io', 'mem'] and not d['comparisons'][0]['only_in_b']"
	run_bc $T/$N.la compare --json --db "$DB" db:latest $T/m.json
	expect_py "$N: db:latest is the merged run too" $T/$N.la.out \
		"sorted({r['module'] for r in d['comparisons'][0]['rows']}) == ['cpu', 'io', 'mem']"
	run_bc $T/$N.h history --module cpu --db "$DB"
	expect_grep "$N: history counts one run, not part 1 and the merged run" $T/$N.h.out "^history: 1 run,"
	run_bc $T/$N.x1 db export --db "$DB" "$ID1" -o $T/$N.p1.json
	check "$N: part 1 is still exported byte for byte by its run_id" cmp -s $T/p1.json $T/$N.p1.json
	check "$N: ... and the merged run" cmp -s $T/m.json $T/$N.m.json
}

# SQLite: the parts first, then the merged run
run_bc $T/sa db add --db $T/s/a.db $T/p1.json $T/p2.json
expect_rc "sqlite: the parts stored" 0
run_bc $T/sb db add --db $T/s/a.db $T/m.json
expect_rc "sqlite: the merged run stored after them" 0
merged_checks $T/s/a.db sqlite
# the merged run first, then a part
run_bc $T/sc db add --db $T/s/b.db $T/m.json $T/p2.json $T/p1.json
expect_rc "sqlite: the merged run stored before its parts" 0
merged_checks $T/s/b.db sqlite-rev

# an archive of schema 1 (the parts and the merged run, before merged runs replaced their
# parts): opened for writing, its merged run replaces the parts
if command -v sqlite3 >/dev/null; then
	cp $T/s/a.db $T/s/old.db
	# schema 1 kept each document's text, uncompressed, in documents.document
	sqlite3 $T/s/old.db "UPDATE documents SET document = CAST(readfile('$T/p1.json') AS TEXT) WHERE run_id = '$ID1';
		UPDATE documents SET document = CAST(readfile('$T/p2.json') AS TEXT) WHERE run_id = '$ID2';
		UPDATE documents SET document = CAST(readfile('$T/m.json') AS TEXT) WHERE run_id = '$IDM';
		ALTER TABLE documents DROP COLUMN zdoc; DROP TABLE run_parts; ALTER TABLE runs DROP COLUMN merged_into;
		DROP TABLE run_tags;
		-- schema 1 kept each run's host object and module info as JSON text in its row, and
		-- every point whole (what it measures, the run's start and host) in points
		UPDATE runs SET host_json = (SELECT json_group_object(f.key, json(f.value)) FROM run_facts h
				JOIN facts f ON f.fact_id = h.fact_id WHERE h.rid = runs.rid AND f.kind = 'host'),
			info_json = (SELECT json_group_object(f.key, json(f.value)) FROM run_facts h
				JOIN facts f ON f.fact_id = h.fact_id WHERE h.rid = runs.rid AND f.kind = 'info');
		CREATE TABLE points (run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
			seq BIGINT NOT NULL, started TEXT NOT NULL, host TEXT NOT NULL, module TEXT NOT NULL,
			params_key TEXT NOT NULL, params_text TEXT NOT NULL, threads BIGINT NOT NULL, metric TEXT NOT NULL,
			unit TEXT NOT NULL, higher_is_better INTEGER NOT NULL, headline INTEGER NOT NULL,
			mean DOUBLE PRECISION, ci_low DOUBLE PRECISION, ci_high DOUBLE PRECISION, n BIGINT NOT NULL,
			module_version TEXT, PRIMARY KEY (run_id, seq));
		INSERT INTO points SELECT r.run_id, p.seq, r.started, r.host, s.module, s.params_key, s.params_text,
			s.threads, s.metric, s.unit, s.higher_is_better, s.headline, p.mean, p.ci_low, p.ci_high, p.n,
			s.module_version FROM run_points p JOIN series s ON s.series_id = p.series_id JOIN runs r ON r.rid = p.rid;
		CREATE INDEX points_history ON points (module, metric, host, started);
		CREATE INDEX points_headline ON points (module, headline, host, started);
		DROP TABLE run_points; DROP TABLE series; DROP TABLE run_facts; DROP TABLE facts;
		DROP INDEX runs_rid; ALTER TABLE runs DROP COLUMN rid;
		UPDATE bc_meta SET value = '1' WHERE key = 'schema_version'"
	check "schema 1: ... host_json whole in its runs rows, no facts table" \
		test "$(sqlite3 $T/s/old.db "SELECT count(*) FROM runs WHERE json_valid(host_json) AND host_json LIKE '%hostname%'") $(sqlite3 $T/s/old.db "SELECT count(*) FROM sqlite_master WHERE name = 'facts'")" = "3 0"
	run_bc $T/o0 db list --db $T/s/old.db --json
	expect_py "schema 1: a reader brings it up to date first (one run)" $T/o0.out "len(d) == 1"
	merged_checks $T/s/old.db sqlite-v1
	# every run holds the facts it held before (its host object and module info, member by
	# member), each once; history gives the same text
	facts_of() { sqlite3 "$1" "SELECT r.run_id, f.kind, f.key, f.value FROM run_facts h JOIN facts f ON f.fact_id = h.fact_id
		JOIN runs r ON r.rid = h.rid ORDER BY 1, 2, 3"; }
	facts_of $T/s/a.db >$T/facts.a; facts_of $T/s/old.db >$T/facts.old
	check "schema 1: ... each run's facts carried ($(wc -l <$T/facts.a) member rows)" cmp -s $T/facts.a $T/facts.old
	check "schema 1: ... each distinct fact once" test "$(sqlite3 $T/s/old.db "SELECT count(*) FROM facts")" = \
		"$(sqlite3 $T/s/old.db "SELECT count(DISTINCT kind || key || value) FROM facts")"
	for f in text csv; do
		"$BC" history --module cpu --format $f --db $T/s/a.db >$T/h.a 2>&1
		"$BC" history --module cpu --format $f --db $T/s/old.db >$T/h.old 2>&1
		check "schema 1: ... history --format $f as before" cmp -s $T/h.a $T/h.old
	done
	check "schema 1: ... its version row now $(sqlite3 $T/s/old.db "SELECT value FROM bc_meta WHERE key = 'schema_version'")" \
		test "$(sqlite3 $T/s/old.db "SELECT value FROM bc_meta WHERE key = 'schema_version'")" -gt 1
	run_bc $T/o1 db tag --db $T/s/old.db "$IDM" baseline
	expect_rc "schema 1: ... and once up to date takes a tag (db tag, issue 53)" 0
else
	fail "sqlite3 (the CLI) is not installed: scripts/deps.sh installs it"
fi

# PostgreSQL: a private server, as nobody, on a unix socket in $T (lib.sh's start_pg)
start_pg $T/pg || { [ -n "${PGPID:-}" ] && kill $PGPID 2>/dev/null
	case "$why" in *"not installed"*) pass "skipped: $why";; *) fail "$why";; esac; exit 0; }
trap 'kill $PGPID 2>/dev/null; wait $PGPID 2>/dev/null; rm -rf "$T"' EXIT
psq postgres "CREATE DATABASE ma" && psq postgres "CREATE DATABASE mb" || { fail "CREATE DATABASE"; exit 0; }
run_bc $T/pa db add --db "postgresql://bc@/ma?host=$PGSOCK" $T/p1.json $T/p2.json $T/m.json
expect_rc "pg: the parts, then the merged run" 0
merged_checks "postgresql://bc@/ma?host=$PGSOCK" pg
run_bc $T/pb db add --db "postgresql://bc@/mb?host=$PGSOCK" $T/m.json $T/p1.json $T/p2.json
expect_rc "pg: the merged run, then its parts" 0
merged_checks "postgresql://bc@/mb?host=$PGSOCK" pg-rev
