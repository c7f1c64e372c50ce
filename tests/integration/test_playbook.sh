#!/usr/bin/env bash
# contrib/ansible/fleet.yml's secrets and directories (issue 48, item 7), with
# Ansible's local connection on hosts of this machine (as test_fleet's
# fallback does): every run stores into a private PostgreSQL through a URL
# with a password, given to the playbook in a 0600 vars file. Checked while
# the playbook runs and after it: no process's command line and no file that
# Ansible or the playbook leaves (async job files, temp directories, the
# results, the hosts' directories) holds the password; the async job files
# are removed; the report drawn from the archive still works. A parent
# directory reached through another user's symlink, or under a directory
# others may write (not sticky), is refused by name, while a root-owned
# symlink is followed. `ansible-playbook --check` goes through (exit 0) and
# makes nothing; how long it took sets the --start-at margin of the real run.
. "$(dirname "$0")/lib.sh"
REPO=$(cd "$(dirname "$0")/../.." && pwd)
PLAY=$REPO/contrib/ansible/fleet.yml
watcher=""
cleanup() {
	[ -n "$watcher" ] && kill "$watcher" 2>/dev/null
	[ -n "${PGPID:-}" ] && kill "$PGPID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! command -v ansible-playbook >/dev/null; then
	echo "SKIP: ansible-playbook is not installed (scripts/deps.sh installs ansible-core)"
	pass "nothing to run without Ansible (skipped)"
	exit 0
fi
if ! start_pg "$T/pg" || ! psq postgres "CREATE DATABASE fleet"; then
	echo "SKIP: no private PostgreSQL ($why): the store's password cannot be followed"
	pass "nothing to run without PostgreSQL (skipped)"
	exit 0
fi

# the program as a host gets it (benchcore_install=tarball), as test_fleet does
mkdir -p "$T/stage/bin" "$T/stage/lib/benchcore/modules" "$T/results" "$T/ahome" "$T/async" "$T/rtmp" "$T/ltmp" \
	"$T"/hosts/{alpha,beta,gamma}/real "$T/ww/sub"
cp "$BC" "$T/stage/bin/benchcore"
cp "$BUILD"/modules/*.so "$T/stage/lib/benchcore/modules/"
tar -C "$T/stage" -czf "$T/tree.tar.gz" .
version=$("$BC" --version | sed -n 's/^benchcore \([^ ]*\) (module ABI \([0-9.]*\))$/\1/p')
abi=$("$BC" --version | sed -n 's/^benchcore \([^ ]*\) (module ABI \([0-9.]*\))$/\2/p')
printf 'label = "{{ inventory_hostname }}";\nmodules = ( { name = "cpu"; time = 0.3; warmup = 0; threads = 1; } );\n' \
	> "$T/small.conf.j2"

# The parents: alpha's through a symlink of root's (followed), gamma's through
# one of another user's (refused), delta's below a 0777 directory that is not
# sticky (refused: the directory above the parent can be renamed away).
chmod 0700 "$T"/hosts/*/real
ln -s real "$T/hosts/alpha/link"
ln -s real "$T/hosts/gamma/link"
chown -h nobody "$T/hosts/gamma/link"
chmod 0777 "$T/ww"
chmod 0755 "$T/ww/sub"

PW="Pl4ybook-pw-$$"
URL="postgresql://bc:$PW@/fleet?host=$PGSOCK"
# the URL in a vars file (0600), as the README says: not -e URL on the command line
printf 'benchcore_store: "%s"\nbenchcore_report_from_store: true\n' "$URL" > "$T/store.yml"
chmod 0600 "$T/store.yml"

write_inventory() {	# write_inventory START_DELAY
	cat > "$T/inventory.ini" <<EOF
[benchcore_hosts]
alpha benchcore_workdir_parent=$T/hosts/alpha/link
beta  benchcore_workdir_parent=$T/hosts/beta/real
gamma benchcore_workdir_parent=$T/hosts/gamma/link
delta benchcore_workdir_parent=$T/ww/sub
[all:vars]
ansible_connection=local
ansible_python_interpreter=/usr/bin/python3
benchcore_install=tarball
benchcore_tarball=$T/tree.tar.gz
benchcore_prefix=$T/hosts/{{ inventory_hostname }}/benchcore
benchcore_conf=$T/small.conf.j2
benchcore_results=$T/results
benchcore_controller_bin=$BC
benchcore_version=$version
benchcore_abi=$abi
benchcore_start_delay=$1
benchcore_poll=1
benchcore_run_timeout=120
EOF
}
cat > "$T/ansible.cfg" <<EOF
[defaults]
remote_tmp = $T/rtmp
local_tmp = $T/ltmp
forks = 5
retry_files_enabled = False
nocows = True
EOF
playbook() {	# playbook LOG ARGS...
	local log=$1; shift
	env ANSIBLE_CONFIG="$T/ansible.cfg" ANSIBLE_HOME="$T/ahome" ANSIBLE_ASYNC_DIR="$T/async" \
	    ANSIBLE_LOCAL_TEMP="$T/ltmp" ANSIBLE_NOCOLOR=1 ansible-playbook -i "$T/inventory.ini" "$PLAY" "$@" \
	    >"$log" 2>&1 </dev/null
	RC=$?
}

# --- --check: goes through, makes nothing; its time sets the real run's margin
write_inventory 30
t0=$(date +%s.%N)
playbook "$T/check.log" --check -l alpha,beta,localhost -e @"$T/store.yml"
t1=$(date +%s.%N)
check "ansible-playbook --check goes through (exit $RC)" test "$RC" = 0
[ "$RC" = 0 ] || grep -E "fatal|FAILED|ERROR" "$T/check.log" | cut -c1-300 | head -5
expect_no_grep "  without the old 'no attribute path' stop" "$T/check.log" "has no attribute 'path'"
check "  and makes nothing: no work directory, no install, no results" \
	test -z "$(find "$T/hosts" "$T/results" -name 'benchcore*' -o -name '*.json' | head -1)"
# starting the runs' async jobs is about the work of the check run per host;
# three times that (at least 10 s) is the margin from choosing --start-at
margin=$("$PY" -c "print(max(10, min(90, int(3 * ($t1 - $t0)) + 1)))")
echo "# --check took $("$PY" -c "print(round($t1 - $t0, 1))") s: --start-at $margin s ahead"
write_inventory "$margin"

# --- the real run, watched: every process's command line and Ansible's files
watch_leaks() {	# appends what holds the password to $T/leaks; counts the samples with a run going
	local n=0 seen=0 p
	while [ ! -e "$T/stop" ]; do
		for p in /proc/[0-9]*; do
			if grep -qaF -- "$PW" "$p/cmdline" 2>/dev/null; then
				echo "cmdline of ${p#/proc/}: $(tr '\0' ' ' < "$p/cmdline" 2>/dev/null | cut -c1-200)" >> "$T/leaks"
			fi
		done
		grep -rlaF -- "$PW" "$T/async" 2>/dev/null | sed 's/^/file: /' >> "$T/leaks"
		pgrep -f "$T/hosts/[ab][a-z]*/benchcore/bin/benchcore -c" >/dev/null && seen=$((seen + 1))
		n=$((n + 1))
		echo "$n $seen" > "$T/samples"
		sleep 0.05
	done
}
: > "$T/leaks"
watch_leaks & watcher=$!
playbook "$T/play.log" -e @"$T/store.yml"
touch "$T/stop"; wait "$watcher"; watcher=""
read -r nsamples seen < "$T/samples"
[ -s "$T/results/alpha.json" ] || tail -30 "$T/play.log"

check "alpha's results arrived (its parent through root's symlink)" test -s "$T/results/alpha.json"
check "beta's results arrived" test -s "$T/results/beta.json"
"$BC" db list --db "$URL" --json > "$T/db.json" 2>"$T/db.err"
expect_py "both runs are stored in the archive" "$T/db.json" "sorted(r['label'] for r in d) == ['alpha', 'beta']"
expect_grep "the fleet report was drawn from the archive (db:RUN_ID)" "$T/results/fleet.html" "db:[0-9a-f]{32}"
check "compare ran on the archive's runs" test -s "$T/results/fleet-compare.txt"
check "the watcher saw the runs going ($seen of $nsamples samples)" test "${seen:-0}" -gt 0
check "no process's command line and no async job file held the password during the playbook" test ! -s "$T/leaks"
[ -s "$T/leaks" ] && sort -u "$T/leaks" | head -5
left=$(grep -rlaF -- "$PW" "$T" 2>/dev/null | grep -v "^$T/store.yml$" | grep -v "^$T/pg/")
check "no file under the test's directory holds it after the run (${left:-none})" test -z "$left"
check "the async job files were removed ($(ls "$T/async" 2>/dev/null | tr '\n' ' '))" \
	test -z "$(find "$T/async" -type f | head -1)"
expect_no_grep "the playbook's output does not show it" "$T/play.log" "$PW"

check "the playbook fails for the refused parents (exit $RC)" test "$RC" -ne 0
expect_grep "gamma's parent through another user's symlink is refused, named" "$T/results/FAILED.txt" "^gamma: "
expect_grep "  saying whose link it is" "$T/play.log" \
	"gamma: benchcore_workdir_parent $T/hosts/gamma/link is a symlink that belongs to uid 65534, neither the remote user \(0\) nor root"
expect_grep "delta's parent below a 0777 directory is refused, naming that directory" "$T/play.log" \
	"delta: benchcore_workdir_parent $T/ww/sub: $T/ww is writable by others \(mode 0777\) and not sticky"
check "nothing was made in the refused parents" \
	test -z "$(find "$T/hosts/gamma/real" "$T/ww/sub" -mindepth 1)"
check "nothing else failed" test "$(wc -l < "$T/results/FAILED.txt")" -eq 2
if [ -n "${BC_PLAYBOOK_LOGS:-}" ]; then cp "$T"/*.log "$BC_PLAYBOOK_LOGS/"; fi	# for debugging the playbook
