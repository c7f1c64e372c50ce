#!/usr/bin/env bash
# The results archive at scale (issue 43's closing figures): N copies (default 10,000) of one
# real quick-config results file, each with its own run_id, start time (an hour apart) and
# measured clock (so that no two host objects are the same, as on a real machine),
# added with `benchcore db add` to SQLite and to a private PostgreSQL; per backend: the time
# to add them all, the database's size per run, and the time of history's query
# (bc_archive_history_points, from opening the archive to the last point) for one metric of
# one module over all of them. Goal: the query (the whole history command) under 1 s.
#   bench/archive_scale.sh [QUICK.json] [N]     (no file: runs examples/quick.conf first)
# Size per run is the database's size over N; issue 53's figures compare a build before and
# after compressed documents on the same source file.
# PostgreSQL runs as in the tests (tests/integration/lib.sh start_pg), with fsync on.
set -u
cd "$(dirname "$0")/.." || exit 2
BC=${BC:-./build/benchcore}
SRC=${1:-}
N=${2:-10000}
[ -x "$BC" ] || { echo "bench: $BC not found: run make first" >&2; exit 2; }
ROOT=$PWD BC=$(realpath "$BC")
[ -z "$SRC" ] || SRC=$(realpath "$SRC")
. tests/integration/lib.sh		# T (removed on exit), start_pg
if [ -z "$SRC" ]; then
	echo "# running examples/quick.conf once for the source file (about two minutes)"
	(cd "$T" && "$BC" -c "$ROOT/examples/quick.conf" -o quick.json -q >quick.log 2>&1)
	SRC=$T/quick.json
fi
[ -s "$SRC" ] || { echo "bench: no results file $SRC" >&2; exit 2; }
mkdir -p "$T/runs"
python3 -S - "$SRC" "$N" "$T/runs" <<'PYEOF'
import json, os, sys, datetime
src, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
text = open(src).read()
d = json.loads(text)
rid, started = '"run_id": "%s"' % d["run_id"], '"started_at": "%s"' % d["started_at"]
mhz = '"measured": %r' % d["host"]["cpu_mhz"]["measured"]
assert text.count(rid) == 1 and text.count(started) == 1, "run_id and started_at written once"
assert text.count(mhz) == 1, "the measured clock written once"
t0 = datetime.datetime(2025, 1, 1)
for i in range(n):
    # the file as benchcore wrote it, but for its run_id, start and measured clock (which
    # differs from run to run on a real machine: no two runs' host objects are the same)
    when = (t0 + datetime.timedelta(hours=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
    clock = '"measured": %r' % (d["host"]["cpu_mhz"]["measured"] + (i % 997) * 0.01)
    with open("%s/r%05d.json" % (out, i), "w") as f:
        f.write(text.replace(rid, '"run_id": "%s"' % os.urandom(16).hex()).replace(started, '"started_at": "%s"' % when)
                .replace(mhz, clock))
PYEOF
# the objects of today's sources (a build directory may hold those of renamed files)
CORE_OBJ=$(ls core/*/*.c | grep -v '^core/cli/main.c$' | sed 's|^|build/|; s|\.c$|.o|')
cc -std=gnu11 -O2 -D_GNU_SOURCE -Icore/archive -Icore/base -Icore/result -Icore/values -Icore/stats -Isdk/include \
	$(for d in core/*/; do printf -- '-I%s ' "$d"; done) -o "$T/archive_query" bench/archive_query.c $CORE_OBJ \
	-lconfig -ljansson -lsqlite3 -lpq -lcrypto -lz -ldl -lm -pthread || exit 2
bytes=$(stat -c %s "$SRC")
cases=$(python3 -S -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["cases"]), sum(len(g["metrics"]) for g in d["groups"]))' "$SRC")
echo "# source: $SRC ($bytes bytes, cases and metrics per run: $cases); $N runs; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"

# add DB: db add of every copy in batches (one process per 1000 files), seconds
add_all() {
	local t0 t1
	t0=$(date +%s.%N)
	ls "$T/runs"/*.json | xargs -n 1000 "$BC" db add --db "$1" > "$T/add.log" 2>&1 || { tail -5 "$T/add.log"; return 1; }
	t1=$(date +%s.%N)
	python3 -S -c "print('%.1f' % ($t1 - $t0))"
}
report() {	# NAME DB SECONDS BYTES
	local q1 q2
	# the best of three (the first may read the file from disk; the machine may be busy)
	q1=$(for i in 1 2 3; do "$T/archive_query" "$2" cpu events_per_sec; done | sort -k4 -n | head -1)
	q2=$(for i in 1 2 3; do "$T/archive_query" "$2" mem; done | sort -k4 -n | head -1)
	# the whole command a user types: query, series, change points, the text printed
	hc=$(for i in 1 2 3; do t0=$(date +%s.%N); "$BC" history --module cpu --metric events_per_sec --db "$2" \
		>"$T/history.out" 2>&1; t1=$(date +%s.%N); python3 -S -c "print('%.2f' % ($t1 - $t0))"; done | sort -n | head -1)
	printf '%-10s add %s s (%.1f ms/run)   size %.1f MiB (%.1f KiB/run)   history cpu events_per_sec: %s   mem headline: %s   benchcore history command: %s s (%s lines)\n' \
		"$1" "$3" "$(python3 -S -c "print($3 * 1000 / $N)")" "$(python3 -S -c "print($4 / 1048576)")" \
		"$(python3 -S -c "print($4 / 1024 / $N)")" "$q1" "$q2" "$hc" "$(wc -l < "$T/history.out")"
}

# SQLite
mkdir -p "$T/s" && chmod 700 "$T/s"
s=$(add_all "$T/s/results.db") || exit 1
sqlite3 "$T/s/results.db" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
report sqlite "$T/s/results.db" "$s" "$(stat -c %s "$T/s/results.db")"

# PostgreSQL (fsync on: a committed run is on disk, as in production); BC_BENCH_PG=0 leaves it out
[ "${BC_BENCH_PG:-1}" = 0 ] && exit 0
BC_PG_FSYNC=on start_pg "$T/pg" || { echo "bench: $why" >&2; exit 1; }
trap 'kill $PGPID 2>/dev/null; wait $PGPID 2>/dev/null; rm -rf "$T"' EXIT
psq postgres "CREATE DATABASE bench" || exit 1
empty=$(psq postgres "SELECT pg_database_size('bench')")
URL="postgresql://bc@/bench?host=$PGSOCK"
p=$(add_all "$URL") || exit 1
psq bench "VACUUM ANALYZE" >/dev/null
size=$(( $(psq postgres "SELECT pg_database_size('bench')") - empty ))
report postgresql "$URL" "$p" "$size"
