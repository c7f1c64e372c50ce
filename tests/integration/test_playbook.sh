#!/usr/bin/env bash
# contrib/ansible/fleet.yml without its hosts (issue 48; test_fleet runs it on
# hosts at the full level): the playbook parses; no task puts benchcore_store
# on a command line; the two scripts it runs are run here on what they
# judge: the store URL split into the URL without its password and a pgpass
# line (every URL and key=value form, escapes, a password libpq then really
# asks for, through PGPASSFILE), and the check of the work directory's
# parent up to / (another user's symlink, a 0777 directory above, a sticky
# one, a link of root's). test_fleet runs `ansible-playbook --check` too.
. "$(dirname "$0")/lib.sh"
REPO=$(cd "$(dirname "$0")/../.." && pwd)
PLAY=$REPO/contrib/ansible/fleet.yml
cleanup() { [ -n "${PGPID:-}" ] && kill "$PGPID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT

if ! command -v ansible-playbook >/dev/null; then
	echo "SKIP: ansible-playbook is not installed (scripts/deps.sh installs ansible-core)"
	pass "nothing to check without Ansible (skipped)"
	exit 0
fi
export ANSIBLE_HOME=$T/ahome ANSIBLE_LOCAL_TEMP=$T/ltmp ANSIBLE_ASYNC_DIR=$T/async ANSIBLE_NOCOLOR=1 \
	ANSIBLE_RETRY_FILES_ENABLED=0
mkdir -p "$T/ahome" "$T/ltmp" "$T/async"

(cd "$REPO/contrib/ansible" && ansible-playbook --syntax-check -i inventory.example.ini fleet.yml) > "$T/syn.out" 2>&1
check "the playbook parses (ansible-playbook --syntax-check)" test $? = 0

# every task of the playbook and its task files, their command lines (argv,
# cmd, the free form) and environments: benchcore_store (the URL as given,
# password and all) in none; the pgpass line only in a file's content
"$PY" - "$REPO/contrib/ansible" > "$T/argv.out" 2>&1 <<'PY'
import glob, json, sys, yaml
def tasks(x):
    for t in x if isinstance(x, list) else []:
        if isinstance(t, dict):
            yield t
            for k in ("tasks", "block", "always", "rescue"):
                yield from tasks(t.get(k))
bad, n = [], 0
for f in [sys.argv[1] + "/fleet.yml"] + glob.glob(sys.argv[1] + "/tasks/*.yml"):
    for t in tasks(yaml.safe_load(open(f))):
        for mod in ("ansible.builtin.command", "ansible.builtin.shell", "command", "shell"):
            if mod in t:
                n += 1
                args = dict(t[mod]) if isinstance(t[mod], dict) else {"cmd": t[mod]}
                args.pop("stdin", None)     # the one way in that no one else can read
                text = json.dumps([args, t.get("environment"), t.get("args")]).replace("if benchcore_store", "")
                if "benchcore_store" in text or "pgpass }}" in text or ".pgpass" in text:
                    bad.append("%s: %s" % (f, t.get("name")))
print(n, bad)
sys.exit(1 if bad or n < 5 else 0)
PY
rc=$?
check "no command line of the playbook holds benchcore_store or the pgpass line ($(cat "$T/argv.out"))" test "$rc" = 0

# the playbook's own scripts, as it runs them
"$PY" - "$PLAY" "$REPO/contrib/ansible/tasks/workdir.yml" "$T" <<'PY'
import sys, yaml
def find(x, name):
    if isinstance(x, dict):
        if x.get("name") == name:
            return x
        x = list(x.values())
    if isinstance(x, list):
        for v in x:
            r = find(v, name)
            if r:
                return r
split = find(yaml.safe_load(open(sys.argv[1])), "the archive's URL without its password (benchcore_store)")
parent = find(yaml.safe_load(open(sys.argv[2])), "the work directory's parent, and every directory above it")
open(sys.argv[3] + "/split.py", "w").write(split["ansible.builtin.command"]["argv"][2])
open(sys.argv[3] + "/parent.py", "w").write(parent["ansible.builtin.command"]["argv"][2])
PY
split() { printf '%s' "$1" | "$PY" "$T/split.py"; }
check_split() {	# DESC INPUT URL PGPASS-LINE (null: none)
	local got; got=$(split "$2")
	local want; want=$("$PY" -c 'import json,sys; print(json.dumps({"url": sys.argv[1], "pgpass": None if sys.argv[2] == "null" else sys.argv[2]}))' "$3" "$4")
	if [ "$got" = "$want" ]; then pass "$1"; else fail "$1: $got, wanted $want"; fi
}
check_split "split: a URL's password (percent-encoded @, :, + kept as +) goes to the pgpass line, escaped" \
	'postgresql://bc:p%40ss%3Aw+rd@/fleet?host=/x' 'postgresql://bc@/fleet?host=/x' '*:*:*:*:p@ss\:w+rd'
check_split "split: a backslash is doubled" 'postgresql://bc:a%5Cb@h/d' 'postgresql://bc@h/d' '*:*:*:*:a\\b'
check_split "split: ?password= taken out, the other parameters kept" \
	'postgres://bc@h:5433/d?sslmode=disable&password=s3cr&connect_timeout=5' \
	'postgres://bc@h:5433/d?sslmode=disable&connect_timeout=5' '*:*:*:*:s3cr'
check_split "split: key=value, a quoted password with a space and a quote" \
	"host=/x dbname=fleet password='a b\\'c' user=bc" 'host=/x dbname=fleet user=bc' "*:*:*:*:a b'c"
check_split "split: a URL without a password is left as it is, no pgpass" \
	'postgresql://bc@/fleet?host=/x' 'postgresql://bc@/fleet?host=/x' null
split $'postgresql://bc:a%0Ab@h/d' > "$T/nl.out" 2>&1
check "split: a password with a line break is refused (a pgpass line cannot hold it)" test $? -ne 0

# libpq itself: the URL without the password and the pgpass line, through
# PGPASSFILE, against a PostgreSQL that asks for it
PW='p@ss:w+rd\x'
if start_pg "$T/pg"; then
	psq postgres "ALTER ROLE bc PASSWORD 'p@ss:w+rd\\x'" && psq postgres "CREATE DATABASE fleet" &&
		echo "local all all scram-sha-256" > "$T/pg/data/pg_hba.conf" && psq postgres "SELECT pg_reload_conf()" >/dev/null
	sleep 0.3
	url="postgresql://bc:$("$PY" -c 'import sys, urllib.parse as u; print(u.quote(sys.argv[1], safe=""))' "$PW")@/fleet?host=$T/pg/sock"
	out=$(split "$url")
	"$PY" -c 'import json,sys; print(json.loads(sys.argv[1])["pgpass"])' "$out" > "$T/pgpass"; chmod 600 "$T/pgpass"
	bare=$("$PY" -c 'import json,sys; print(json.loads(sys.argv[1])["url"])' "$out")
	run_bc "$T/nopw" db list --db "$bare"
	check "libpq: the URL without its password is refused by this server (it asks for one; exit $RC)" test "$RC" -ne 0
	PGPASSFILE=$T/pgpass run_bc "$T/withpw" db list --db "$bare"
	expect_rc "libpq: ... and let in with the pgpass line (PGPASSFILE)" 0
	check "  the password is in no message" sh -c "! grep -qF 'p@ss' '$T/nopw.err' '$T/withpw.err' '$T/withpw.out'"
	kill "$PGPID"; PGPID=""
else
	echo "SKIP: no private PostgreSQL ($why): the pgpass line is not tried against libpq"
fi

# the parent check, on planted directories
mkdir -p "$T/p/ok/sub" "$T/p/real/sub" "$T/p/ww/sub" "$T/p/st/sub"
chmod 755 "$T" "$T/p" "$T/p/ok" "$T/p/ok/sub" "$T/p/real" "$T/p/real/sub" "$T/p/st/sub"
chmod 0777 "$T/p/ww"; chmod 1777 "$T/p/st"
ln -s "$T/p/real" "$T/p/rootlink"
ln -s "$T/p/real" "$T/p/nlink" && chown -h nobody "$T/p/nlink"
parent() { "$PY" "$T/parent.py" "$1"; }
check_parent() {	# DESC PATH PATH-USED|"" WHY-REGEX
	local got; got=$(parent "$2")
	if "$PY" -c 'import json,re,sys; d=json.loads(sys.argv[1]); sys.exit(not (d["path"] == sys.argv[2] and re.search(sys.argv[3], d["why"])))' \
		"$got" "$3" "$4"; then pass "$1"; else fail "$1: $got"; fi
}
check_parent "parent: a directory of root's under root's: used" "$T/p/ok/sub" "$T/p/ok/sub" '^$'
check_parent "parent: through root's symlink: used, resolved" "$T/p/rootlink/sub" "$T/p/real/sub" '^$'
check_parent "parent: through another user's symlink: refused, the link named" "$T/p/nlink/sub" "" \
	"^$T/p/nlink/sub: $T/p/nlink belongs to uid 65534, neither the remote user \\(0\\) nor root$"
check_parent "parent: another user's symlink as the parent itself: refused" "$T/p/nlink" "" \
	"^$T/p/nlink belongs to uid 65534"
check_parent "parent: under a 0777 directory (not sticky) above it: refused, that one named" "$T/p/ww/sub" "" \
	"^$T/p/ww/sub: $T/p/ww is writable by others \\(mode 0777\\) and not sticky$"
check_parent "parent: under a sticky 1777 directory: used" "$T/p/st/sub" "$T/p/st/sub" '^$'
check_parent "parent: a missing one: said" "$T/p/none" "" "^$T/p/none cannot be read: No such file"
check_parent "parent: ~ is the user's home" "~" "$(cd ~ && pwd -P)" '^$'
