# Shared helpers for integration tests. A test script sources this file, then
# calls pass/fail (or the check helpers) once per assertion. Environment from
# tests/run.sh: BC (benchcore binary), BUILD (build dir), TESTMODS (broken test modules).
set -u
BC=${BC:-$PWD/build/benchcore}
BUILD=${BUILD:-build}
TESTMODS=${TESTMODS:-$PWD/$BUILD/testmods}
T=$(mktemp -d /tmp/bc-itest.XXXXXX)
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT

# The python that `python3` names, called directly: a version manager's shim
# (pyenv's is a shell script) costs ~0.15 s a call, and the suite makes
# hundreds. tests/run.sh resolves it once (BC_PY); the JSON checks below also
# skip site-packages (-S: they use the standard library only).
PY=${BC_PY:-$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)}
[ -x "${PY:-}" ] || PY=$(command -v python3)
python3() { "$PY" "$@"; }
export -f python3; export PY

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }

# check DESC CMD...: passes when CMD exits 0.
check() { local d=$1; shift; if "$@"; then pass "$d"; else fail "$d"; fi; }

# run_bc OUTPREFIX ARGS...: runs benchcore, stdout to $OUTPREFIX.out, stderr to
# $OUTPREFIX.err, exit code to $RC.
run_bc() { local o=$1; shift; "$BC" "$@" >"$o.out" 2>"$o.err" </dev/null; RC=$?; }

# expect_rc DESC WANT: compares the last run_bc exit code.
expect_rc() { if [ "$RC" -eq "$2" ]; then pass "$1 (exit $RC)"; else fail "$1: exit $RC, wanted $2"; fi; }

# expect_grep DESC FILE REGEX: FILE contains a line matching REGEX (grep -E).
expect_grep() {
	if grep -Eq -- "$3" "$2"; then pass "$1"; else fail "$1: no /$3/ in $2:"; head -20 "$2"; fi
}
expect_no_grep() {
	if grep -Eq -- "$3" "$2"; then fail "$1: /$3/ found in $2:"; grep -E -- "$3" "$2" | head -5; else pass "$1"; fi
}

# until_seen TENTHS CMD...: waits until CMD succeeds, polling every 0.1 s, at
# most TENTHS times (a phase seen from outside, never a fixed sleep)
until_seen() { local n=$1 i; shift; for ((i = 0; i < n; i++)); do "$@" 2>/dev/null && return 0; sleep 0.1; done; return 1; }

# ref_ms CMD...: CMD's wall time in ms (its output dropped): what this machine
# takes now for the plain form of a timed command, the reference of a bound
ref_ms() { local t0; t0=$(date +%s%N); "$@" >/dev/null 2>&1 </dev/null; echo $(( ($(date +%s%N) - t0) / 1000000 )); }
# in_time DESC MS MECHANISM_MS REF_MS: passes when MS < MECHANISM_MS + 3 x REF_MS: a
# wall-clock bound is the time the mechanism under test may take (a timeout, a
# deadline) plus three times what the plain command took on this machine just before
# (a loaded machine's start and teardown take seconds), not a quiet machine's total
# With the plain command after REF_MS (in_time DESC MS MECH REF CMD...), a time over
# the bound has the plain command measured once more and the larger of the two taken:
# a load that came between the reference and the timed run counts as the machine's
in_time() {
	local desc=$1 ms=$2 mech=$3 ref=$4 again="" b
	shift 4
	b=$(( mech + 3 * ref ))
	if [ "$ms" -ge "$b" ] && [ $# -gt 0 ]; then
		again=$(ref_ms "$@")
		[ "$again" -gt "$ref" ] && ref=$again
		b=$(( mech + 3 * ref )); again=", measured again: $again ms"
	fi
	if [ "$ms" -lt "$b" ]; then pass "$desc ($ms ms < $mech + 3 x $ref$again)"
	else fail "$desc: $ms ms, over $mech + 3 x $ref (the plain command's$again) ms"; fi
}

# jq-free JSON queries through python3: jget FILE EXPR prints eval(EXPR) with d = the document.
jget() { "$PY" -S -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# expect_py DESC FILE EXPR: EXPR (python, d = document) is true.
expect_py() {
	local r; r=$("$PY" -S -c 'import json,sys; d=json.load(open(sys.argv[1])); print(bool(eval(sys.argv[2])))' "$2" "$3" 2>&1)
	if [ "$r" = True ]; then pass "$1"; else fail "$1: $3 -> $r"; fi
}

# start_pg DIR: a private PostgreSQL in DIR (initdb and postgres as nobody: PostgreSQL refuses
# root), on a unix socket in DIR/sock only (listen_addresses = ''), user bc, trust
# authentication. Binaries from `pg_config --bindir`, else the newest /usr/lib/postgresql/*/bin.
# Sets PGBIN, PGSOCK and PGPID (the caller stops it: kill $PGPID); psq DB SQL runs SQL there.
# Returns 1 with the reason in $why when it cannot.
start_pg() {
	local d=$1
	PGBIN=$(pg_config --bindir 2>/dev/null || true)
	[ -x "$PGBIN/initdb" ] || PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
	[ -n "$PGBIN" ] && [ -x "$PGBIN/initdb" ] && [ -x "$PGBIN/postgres" ] ||
		{ why="PostgreSQL's initdb/postgres not installed (scripts/deps.sh installs postgresql)"; return 1; }
	command -v setpriv >/dev/null || { why="no setpriv (util-linux)"; return 1; }
	PGSOCK=$d/sock
	mkdir -p "$d/data" "$PGSOCK" && chmod 755 "$d" && chown nobody "$d/data" "$PGSOCK" || { why="cannot make $d"; return 1; }
	local x; for x in "$d" "$(dirname "$d")"; do chmod o+x "$x" 2>/dev/null; done
	local as=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups env HOME="$d")
	"${as[@]}" "$PGBIN/initdb" -D "$d/data" -U bc --auth=trust -E UTF8 --no-sync >"$d/initdb.log" 2>&1 ||
		{ why="initdb: $(tail -2 "$d/initdb.log" | tr '\n' ' ')"; return 1; }
	"${as[@]}" "$PGBIN/postgres" -D "$d/data" -k "$PGSOCK" -c listen_addresses= -c fsync=${BC_PG_FSYNC:-off} \
		-c shared_buffers=32MB >"$d/pg.log" 2>&1 &
	PGPID=$!
	for x in $(seq 150); do [ -S "$PGSOCK/.s.PGSQL.5432" ] && psq postgres "SELECT 1" >/dev/null 2>&1 && return 0; sleep 0.1; done
	why="postgres did not start: $(tail -3 "$d/pg.log" | tr '\n' ' ')"
	return 1
}
psq() { "$PGBIN/psql" -h "$PGSOCK" -U bc -d "$1" -qAtX -c "$2"; }
