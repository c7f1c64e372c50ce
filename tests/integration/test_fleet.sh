#!/usr/bin/env bash
# contrib/ansible/fleet.yml for real: two hosts made of two network namespaces
# on a veth pair (198.18.31.0/24, the benchmarking range of RFC 2544, only
# inside them), each with its own host name (a UTS namespace) and its own
# sshd on its namespace address, with keys made here. ansible-playbook runs
# inside the first namespace and reaches both over ssh; beta also serves the
# net module, which alpha's run measures against it. Two more inventory hosts
# fail on purpose: gamma (no sshd on its port: unreachable) and delta (its run
# exits 2). Checked: both real hosts' results arrive, checksummed, with their
# own host name and host id, started together; the merged report and compare
# show both; the failures are listed and fail the playbook; a wrong version is
# refused loudly; every run is stored into a private PostgreSQL (benchcore_store) and the
# report drawn from it. Without namespaces or sshd: a clear SKIP line, and the
# playbook runs with Ansible's local connection instead.
# Everything started here (sshd, namespaces, servers) is removed on exit.
. "$(dirname "$0")/lib.sh"
REPO=$(cd "$(dirname "$0")/../.." && pwd)
PLAY=$REPO/contrib/ansible/fleet.yml
NSA=bcf$$a NSB=bcf$$b
ADDR_A=198.18.31.1 ADDR_B=198.18.31.2
made_run_sshd=""; sshd_pids=""; ns_made=""; swapper=""; planted_vt=""; deb_pkg=""
home_had=""; for d in "$HOME/.ansible" "$HOME/.ansible_async"; do [ -e "$d" ] && home_had="$home_had $d"; done

cleanup() {
	[ -n "$swapper" ] && kill "$swapper" 2>/dev/null
	[ -n "${PGPID:-}" ] && kill "$PGPID" 2>/dev/null
	[ -n "$deb_pkg" ] && dpkg-query -W "$deb_pkg" >/dev/null 2>&1 && dpkg --purge "$deb_pkg" >/dev/null 2>&1
	for d in $planted_vt; do rm -rf "$d"; done
	for p in $sshd_pids; do kill "$p" 2>/dev/null; done
	for ns in $ns_made; do
		# what ran in our namespaces (async wrappers, serve) is ours to stop
		for p in $(ip netns pids "$ns" 2>/dev/null); do kill -TERM "$p" 2>/dev/null; done
	done
	sleep 0.2
	for ns in $ns_made; do
		for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
		ip netns del "$ns" 2>/dev/null
	done
	[ -n "$made_run_sshd" ] && rmdir /run/sshd 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! command -v ansible-playbook >/dev/null; then
	echo "SKIP: ansible-playbook is not installed (scripts/deps.sh installs ansible-core): the fleet playbook is not run"
	pass "nothing to run without Ansible (skipped)"
	exit 0
fi

# The program as a host gets it: an installed tree (bin/, lib/benchcore/modules),
# relocatable, unpacked by the playbook (benchcore_install=tarball).
mkdir -p "$T/stage/bin" "$T/stage/lib/benchcore/modules" "$T/results" "$T"/hosts/{alpha,beta,gamma,delta}
cp "$BC" "$T/stage/bin/benchcore"
cp "$BUILD"/modules/*.so "$T/stage/lib/benchcore/modules/"
tar -C "$T/stage" -czf "$T/tree.tar.gz" .
version=$("$BC" --version | sed -n 's/^benchcore \([^ ]*\) (module ABI \([0-9.]*\))$/\1/p')
abi=$("$BC" --version | sed -n 's/^benchcore \([^ ]*\) (module ABI \([0-9.]*\))$/\2/p')

# benchcore_start_delay (from choosing --start-at to it) is not fixed: starting
# the hosts' async jobs takes what the machine gives (14 s of a 2-CPU machine
# loaded 10 times over, where a fixed 15 s was once missed and both runs
# refused a start in the past). A --check run of the same inventory, timed
# first, sets it (see "margin" below).
common_vars() {	# the inventory's [all:vars] shared by both modes
	cat <<EOF
ansible_python_interpreter=/usr/bin/python3
benchcore_install=tarball
benchcore_tarball=$T/tree.tar.gz
benchcore_prefix=$T/hosts/{{ inventory_hostname }}/benchcore
benchcore_workdir_parent=$T/hosts/{{ inventory_hostname }}
benchcore_results=$T/results
benchcore_controller_bin=$BC
benchcore_version=$version
benchcore_abi=$abi
benchcore_start_delay=30
benchcore_poll=1
benchcore_run_timeout=180
fleet_time=0.3
fleet_warmup=0
fleet_repeat=2
EOF
}

write_cfg() {	# everything Ansible writes stays in $T
	mkdir -p "$T/ahome" "$T/async" "$T/rtmp" "$T/ltmp"
	cat > "$T/ansible.cfg" <<EOF
[defaults]
inventory = $T/inventory.ini
remote_tmp = $T/rtmp
local_tmp = $T/ltmp
forks = 5
timeout = 10
retry_files_enabled = False
nocows = True
[ssh_connection]
ssh_args = -F /dev/null -o UserKnownHostsFile=$T/known_hosts -o StrictHostKeyChecking=yes -o IdentitiesOnly=yes -o ControlMaster=no -o ConnectTimeout=5 -o BatchMode=yes
pipelining = True
EOF
}

# playbook LOG [ARGS...]: ansible-playbook in namespace A (ssh mode) or here
margin=""
playbook() {
	local log=$1; shift
	[ -n "$margin" ] && set -- "$@" -e benchcore_start_delay="$margin"
	local env=(env ANSIBLE_CONFIG="$T/ansible.cfg" ANSIBLE_HOME="$T/ahome" ANSIBLE_ASYNC_DIR="$T/async"
		   ANSIBLE_LOCAL_TEMP="$T/ltmp" ANSIBLE_FORCE_COLOR=0 ANSIBLE_NOCOLOR=1)
	if [ "$mode" = ssh ]; then
		ip netns exec "$NSA" "${env[@]}" ansible-playbook "$PLAY" "$@" >"$log" 2>&1 </dev/null
	else
		"${env[@]}" ansible-playbook "$PLAY" "$@" >"$log" 2>&1 </dev/null
	fi
	RC=$?
}

# Two namespaces, a veth pair, an sshd in each (own UTS namespace and host name).
setup_ssh() {
	[ "$(id -u)" -eq 0 ] || { why="not root"; return 1; }
	[ -x /usr/sbin/sshd ] || { why="no /usr/sbin/sshd (openssh-server)"; return 1; }
	command -v ip >/dev/null && command -v unshare >/dev/null || { why="no ip or unshare"; return 1; }
	ip netns add "$NSA" 2>"$T/ns.err" || { why="ip netns add: $(cat "$T/ns.err")"; return 1; }
	ns_made=$NSA
	ip netns add "$NSB" 2>"$T/ns.err" || { why="ip netns add: $(cat "$T/ns.err")"; return 1; }
	ns_made="$NSA $NSB"
	ip link add "v$NSA" netns "$NSA" type veth peer name "v$NSB" netns "$NSB" 2>"$T/ns.err" ||
		{ why="veth: $(cat "$T/ns.err")"; return 1; }
	ip -n "$NSA" addr add "$ADDR_A/24" dev "v$NSA" && ip -n "$NSB" addr add "$ADDR_B/24" dev "v$NSB" &&
	ip -n "$NSA" link set lo up && ip -n "$NSB" link set lo up &&
	ip -n "$NSA" link set "v$NSA" up && ip -n "$NSB" link set "v$NSB" up || { why="addresses"; return 1; }
	[ -d /run/sshd ] || { mkdir -m 755 /run/sshd && made_run_sshd=1; }
	ssh-keygen -q -t ed25519 -N '' -f "$T/client_key" || { why="ssh-keygen"; return 1; }
	cp "$T/client_key.pub" "$T/authorized_keys"
	: > "$T/known_hosts"
	local h ns addr
	for h in a b; do
		[ $h = a ] && ns=$NSA addr=$ADDR_A || ns=$NSB addr=$ADDR_B
		ssh-keygen -q -t ed25519 -N '' -f "$T/hostkey_$h"
		echo "$addr $(cut -d' ' -f1-2 "$T/hostkey_$h.pub")" >> "$T/known_hosts"
		cat > "$T/sshd_$h.conf" <<EOF
ListenAddress $addr:22
HostKey $T/hostkey_$h
PidFile $T/sshd_$h.pid
AuthorizedKeysFile $T/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PrintMotd no
Subsystem sftp /usr/lib/openssh/sftp-server
EOF
		ip netns exec "$ns" unshare --uts sh -c "hostname fleet-$h && exec /usr/sbin/sshd -D -e -f $T/sshd_$h.conf" \
			2>"$T/sshd_$h.log" &
		sshd_pids="$sshd_pids $!"
	done
	for _ in $(seq 50); do
		ip netns exec "$NSA" ssh -F /dev/null -o UserKnownHostsFile="$T/known_hosts" -o BatchMode=yes \
			-o ConnectTimeout=2 -i "$T/client_key" root@$ADDR_B uname -n > "$T/uname_b" 2>/dev/null &&
		ip netns exec "$NSA" ssh -F /dev/null -o UserKnownHostsFile="$T/known_hosts" -o BatchMode=yes \
			-o ConnectTimeout=2 -i "$T/client_key" root@$ADDR_A uname -n > "$T/uname_a" 2>/dev/null && return 0
		sleep 0.1
	done
	why="sshd in the namespaces did not answer: $(tail -3 "$T"/sshd_*.log | tr '\n' ' ')"
	return 1
}

check_results() {	# what both modes must show: HOSTS are the hosts that must deliver
	local a=$T/results/alpha.json b=$T/results/beta.json
	check "alpha's results were fetched" test -s "$a"
	check "beta's results were fetched" test -s "$b"
	expect_py "alpha's file is labelled alpha" "$a" "d['label'] == 'alpha'"
	expect_py "beta's file is labelled beta" "$b" "d['label'] == 'beta'"
	check "two runs, two run ids" test "$(jget "$a" "d['run_id']")" != "$(jget "$b" "d['run_id']")"
	(cd "$T/results" && sha256sum --quiet -c SHA256SUMS) > "$T/sums.out" 2>&1
	check "SHA256SUMS lists and matches both files" sh -c "test \$? = 0 && grep -c '  alpha.json\$\|  beta.json\$' '$T/results/SHA256SUMS' | grep -qx 2"
	local sa sb; sa=$(jget "$a" "d['started_at']"); sb=$(jget "$b" "d['started_at']")
	expect_grep "alpha's run waited for --start-at (its stderr, fetched)" "$T/results/alpha.stderr.txt" "^benchcore: waiting [0-9.]+ s, until .* \(--start-at @"
	expect_grep "beta's too" "$T/results/beta.stderr.txt" "^benchcore: waiting [0-9.]+ s, until .* \(--start-at @"
	check "both runs started together at --start-at ($sa, $sb)" \
		"$PY" -c "import datetime as d,sys; f=lambda s: d.datetime.strptime(s,'%Y-%m-%dT%H:%M:%SZ'); sys.exit(abs((f('$sa')-f('$sb')).total_seconds()) > 1)"
	expect_py "alpha's cases ran ok" "$a" "len(d['cases']) >= 10 and all(c['status'] == 'ok' for c in d['cases'])"
	check "the fleet report was written" test -s "$T/results/fleet.html"
	expect_grep "the report shows alpha" "$T/results/fleet.html" "alpha"
	expect_grep "the report shows beta" "$T/results/fleet.html" "beta"
	expect_grep "compare ran on the lot (beta against alpha)" "$T/results/fleet-compare.txt" "beta"
	expect_grep "gamma is listed as failed" "$T/results/FAILED.txt" "^gamma: unreachable"
	expect_grep "delta is listed with its run's error" "$T/results/FAILED.txt" "^delta: exit 2: .*nosuch"
	check "nothing else is listed as failed" test "$(wc -l < "$T/results/FAILED.txt")" -eq 2
	expect_grep "the playbook names the failures at its end" "$T/play.log" "fleet: 2 host\(s\) failed: gamma: .*delta: exit 2"
	check "the playbook fails when a host failed (exit $RC)" test "$RC" -ne 0
	check "no results from the failed hosts" test ! -e "$T/results/gamma.json" -a ! -e "$T/results/delta.json"
}

mode=ssh
write_cfg
if [ -n "${BC_FLEET_LOCAL:-}" ]; then	# the fallback on purpose (to test it)
	echo "SKIP: BC_FLEET_LOCAL is set: the playbook runs with Ansible's local connection"
	mode=local
elif ! setup_ssh; then
	echo "SKIP: no network namespaces with sshd here ($why): the playbook runs with Ansible's local connection instead"
	mode=local
fi

if [ "$mode" = ssh ]; then
	check "sshd in namespace A has its own host name" grep -qx fleet-a "$T/uname_a"
	check "sshd in namespace B has its own host name" grep -qx fleet-b "$T/uname_b"
	{
		echo "[benchcore_hosts]"
		echo "alpha ansible_host=$ADDR_A"
		echo "beta  ansible_host=$ADDR_B"
		echo "gamma ansible_host=$ADDR_A ansible_port=2222"
		echo "delta ansible_host=$ADDR_B benchcore_run_args='[\"--only\", \"nosuch\"]'" \
		     "benchcore_clock_cmd='python3 -c \"import time; print(time.time() + 5)\"'"
		echo "[benchcore_serve]"
		echo "beta benchcore_serve_bind=$ADDR_B"
		echo "[all:vars]"
		echo "ansible_user=root"
		echo "ansible_ssh_private_key_file=$T/client_key"
		common_vars
	} > "$T/inventory.ini"
else
	port=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	{
		echo "[benchcore_hosts]"
		echo "alpha ansible_connection=local"
		echo "beta  ansible_connection=local"
		echo "gamma ansible_host=127.0.0.1 ansible_port=1 ansible_connection=ssh"
		echo "delta ansible_connection=local benchcore_run_args='[\"--only\", \"nosuch\"]'"
		echo "[benchcore_serve]"
		echo "beta benchcore_serve_bind=127.0.0.1 benchcore_serve_port=$port"
		echo "[all:vars]"
		common_vars
	} > "$T/inventory.ini"
fi

# While alpha runs, its ssh connections are dropped (its sshd's session
# processes killed, the listener kept): the run must survive that. Dropped
# only in the phase that is about: once the playbook polls the runs (its
# output names the polling task only after every host's async job has
# started; a drop before that cuts the connection that starts alpha's run,
# a failed host rather than a survived drop), while alpha's run is there,
# until one session was cut or the run ended. The store's password is
# looked for in every command line meanwhile.
dropper() {
	local a_sshd n=0 i
	a_sshd=${sshd_pids# }; a_sshd=${a_sshd%% *}
	for _ in $(seq 3000); do
		grep -q '^TASK \[wait for the run\]' "$T/play.log" 2>/dev/null && break
		[ -e "$T/play.done" ] && break
		sleep 0.1
	done
	# the async job has started, its benchcore may still be on its way (ansible's
	# wrapper forks it): looked for up to 30 s
	local apid=""
	for _ in $(seq 300); do
		apid=$(pgrep -of "$T/hosts/alpha/benchcore/bin/[b]enchcore -c") && break
		[ -e "$T/play.done" ] && break
		sleep 0.1
	done
	{ echo "polling seen after ${SECONDS} s; alpha's processes:"; pgrep -af "$T/hosts/[a]lpha/"; } >> "$T/dropper.log"
	# each poll's session is short beside the time between polls on a loaded
	# machine: looked for every 20 ms, cut when there, once (the second
	# wait, which takes over, must reach the host: a second cut there would
	# make alpha a failed host)
	for i in $(seq 3000); do
		[ -n "$apid" ] && kill -0 "$apid" 2>/dev/null || { echo "alpha's run gone after $i looks" >> "$T/dropper.log"; break; }
		[ -n "${FLEET_PW:-}" ] && [ $((i % 25)) = 1 ] && pgrep -af -- "$FLEET_PW" >> "$T/pw_seen"
		pkill -TERM -P "$a_sshd" 2>/dev/null && n=$((n + 1))
		[ "$n" -ge 1 ] && break
		sleep 0.02
	done
	echo "$n" > "$T/dropped"
	echo "dropped $n sessions, until ${SECONDS} s" >> "$T/dropper.log"
}
# every host stores its run into a PostgreSQL (its unix socket is a path: the namespaces reach
# it), and the report is drawn from there (docs/archive.md "Fleets"); the URL, with a
# password, in a 0600 vars file (contrib/ansible/README.md), never on a command line
store_args=() FLEET_PW=Fl33t-pw-$$
if start_pg "$T/pg" && psq postgres "CREATE DATABASE fleet"; then
	FLEET_DB="postgresql://bc:$FLEET_PW@/fleet?host=$PGSOCK"
	printf 'benchcore_store: "%s"\nbenchcore_report_from_store: true\n' "$FLEET_DB" > "$T/store.yml"
	chmod 0600 "$T/store.yml"
	store_args=(-e @"$T/store.yml")
else
	echo "SKIP: no private PostgreSQL ($why): the runs are not stored"
fi

# The --start-at margin: a --check run of the two real hosts (what it checks:
# test_playbook), timed: starting the runs' jobs is less work than it (one
# module a host, after the start time is chosen: 22 s of a 39 s check's time
# at load 18), but the machine's load moves between the two: a 9.8 s check
# once gave 14 s ahead while starting the jobs took 22 s (check-full, an ASan
# script with two hogs beside it). Three times its time and 5 s, 30 s at
# least: a later start only costs the runs' wait.
t0=$(date +%s.%N)
playbook "$T/check.log" --check -l alpha,beta,localhost "${store_args[@]}"
t1=$(date +%s.%N)
check "ansible-playbook --check goes through on the real hosts (exit $RC)" test "$RC" = 0
margin=$("$PY" -c "print(max(30, min(180, int(3 * ($t1 - $t0)) + 5)))")
echo "# --check took $("$PY" -c "print(round($t1 - $t0, 1))") s: --start-at $margin s ahead"

[ "$mode" = ssh ] && { dropper & dropper_pid=$!; }
playbook "$T/play.log" "${store_args[@]}"
touch "$T/play.done"
[ -n "${dropper_pid:-}" ] && wait "$dropper_pid"
[ -s "$T/results/alpha.json" ] || tail -40 "$T/play.log"
echo "# the main run ended after ${SECONDS} s"
[ -n "${BC_FLEET_LOGS:-}" ] && cp -r "$T/play.log" "$T/check.log" "$T/results" "$BC_FLEET_LOGS/"	# for debugging the playbook
[ -n "${BC_FLEET_LOGS:-}" ] && [ -e "$T/dropper.log" ] && cp "$T/dropper.log" "$BC_FLEET_LOGS/"
check_results
if [ ${#store_args[@]} -gt 0 ]; then
	"$BC" db list --db "$FLEET_DB" --json > "$T/fleet-db.json" 2>"$T/fleet-db.err"
	expect_py "every delivering host's run is in the archive, under its fetched run_id" "$T/fleet-db.json" \
		"sorted((r['label'], r['run_id']) for r in d) == sorted([('alpha', '$(jget "$T/results/alpha.json" "d['run_id']")'), ('beta', '$(jget "$T/results/beta.json" "d['run_id']")')])"
	expect_grep "the stored runs are the fetched files" "$T/results/alpha.json" '"run_id"'
	"$BC" db export --db "$FLEET_DB" "$(jget "$T/results/alpha.json" "d['run_id']")" | cmp -s - "$T/results/alpha.json" &&
		pass "  alpha's stored run is its fetched file, byte for byte" || fail "alpha's stored run differs from its file"
	expect_grep "the fleet report was drawn from the archive (db:RUN_ID)" "$T/results/fleet.html" "db:[0-9a-f]{32}"
	expect_no_grep "the archive's password is not in the playbook's output" "$T/play.log" "$FLEET_PW"
	[ "$mode" = ssh ] && check "  nor on a command line while alpha's run went ($(sort -u "$T/pw_seen" 2>/dev/null | head -2 | cut -c1-150))" \
		test ! -s "$T/pw_seen"
fi
if [ "$mode" = ssh ]; then
	a=$T/results/alpha.json b=$T/results/beta.json
	expect_py "alpha's file says host name fleet-a" "$a" "d['host']['hostname'] == 'fleet-a'"
	expect_py "beta's file says host name fleet-b" "$b" "d['host']['hostname'] == 'fleet-b'"
	check "one machine-id, two host names: two host ids" \
		test "$(jget "$a" "d['host_id']")" != "$(jget "$b" "d['host_id']")"
	expect_py "alpha measured the net module against beta's serve" "$a" \
		"[c for c in d['cases'] if c['module'] == 'net' and c['status'] == 'ok' and c['metrics'].get('mbit_per_sec', {}).get('value', c['metrics'].get('mbit_per_sec', 0)) and '$ADDR_B:5301' in str(d['config'])]"
	check "alpha's ssh connections were dropped during its run ($(cat "$T/dropped" 2>/dev/null) times)" \
		test "$(cat "$T/dropped" 2>/dev/null || echo 0)" -gt 0
	[ "$(cat "$T/dropped" 2>/dev/null || echo 0)" -gt 0 ] || cat "$T/dropper.log"
	check "  and its run survived: its results arrived (checked above), all cases ok" \
		"$PY" -c "import json,sys; d=json.load(open('$a')); sys.exit(not all(c['status'] == 'ok' for c in d['cases']))"
	expect_grep "the report shows both host names" "$T/results/fleet.html" "fleet-a"
	expect_grep "  (fleet-b too)" "$T/results/fleet.html" "fleet-b"
	expect_grep "a clock 5 s ahead (delta's, made so) is warned about, by name" "$T/play.log" \
		"WARNING: the hosts' clocks differ by more than 1 s \(delta;"
	expect_no_grep "the hosts on one clock are not" "$T/play.log" "WARNING: the hosts' clocks differ by more than 1 s \([^;]*(alpha|beta)[^;]*;"
fi
if [ "$mode" = local ]; then
	expect_py "alpha measured the net module against beta's serve (127.0.0.1:$port)" "$T/results/alpha.json" \
		"[c for c in d['cases'] if c['module'] == 'net' and c['status'] == 'ok' and c['params']['server'] == '127.0.0.1:$port']"
fi
check "benchcore serve was stopped by the playbook" sh -c "! pgrep -f '$T/hosts/beta/benchcore/bin/[b]enchcore serve' >/dev/null"

# A study's config (the cloud VM study, scaled down) on the two real hosts:
# the fleet report carries the studies' views (the index against the first host).
study=$REPO/examples/studies/cloud-vm-quick-tests.conf
if [ -f "$study" ]; then
	mkdir -p "$T/results3"
	echo "# the study run starts after ${SECONDS} s"
	playbook "$T/play3.log" -l alpha,beta,localhost -e benchcore_conf="$study" -e benchcore_results="$T/results3" \
		-e '{"benchcore_run_args": ["--scale", "0.005"]}'
	check "the study config runs on both hosts (exit $RC)" test "$RC" = 0
	[ "$RC" = 0 ] || tail -20 "$T/play3.log"
	[ -n "${BC_FLEET_LOGS:-}" ] && cp "$T/play3.log" "$BC_FLEET_LOGS/"
	expect_py "  alpha ran the study's modules" "$T/results3/alpha.json" \
		"sorted(set(c['module'] for c in d['cases'])) == ['cpu', 'io', 'net', 'rsa', 'sys']"
	expect_grep "  the fleet report shows the studies' index table" "$T/results3/fleet.html" "<h3>Index</h3>"
	expect_grep "  ... with beta against alpha" "$T/results3/fleet.html" "<td>beta</td>"
else
	echo "SKIP: no examples/studies/cloud-vm-quick-tests.conf here: the study part is left out"
fi

# Another user of a host plants what the playbook once used: the fixed work
# directory (/var/tmp/benchcore-fleet, and its name under the parent) and
# its -debs directory, 0777 and theirs, with serve.pid/serve.log symlinks to
# a victim file, and swaps every .deb that appears in -debs for their own.
# The playbook (benchcore_install=deb, a small package of this test's own)
# must use none of it: the genuine package is installed, the planted files
# and the victim are untouched, the run's work directory is fresh, root's,
# 0700. A planted 0777 parent (beta's benchcore_workdir_parent) is refused.
plant() {	# plant DIR: a 0777 directory of nobody's, symlinks to the victim in it
	mkdir -m 0777 "$1" && chown nobody: "$1" &&
	setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "ln -s '$T/victim' '$1/serve.pid' && ln -s '$T/victim' '$1/serve.log'"
}
snapshot() { for d in "$@"; do stat -c '%n %U %a %F' "$d" "$d"/* 2>/dev/null; done; cat "$T/victim"; }
if [ "$mode" = ssh ] && command -v dpkg-deb >/dev/null && command -v setpriv >/dev/null; then
	deb_pkg=bcfleet-test-$$
	mkdeb() {	# mkdeb NAME CONTENT: the package deb_pkg with one file holding CONTENT
		local d=$T/deb/$1
		mkdir -p "$d/DEBIAN" "$d$T/deb-installed"
		printf 'Package: %s\nVersion: 1.0\nArchitecture: all\nMaintainer: benchcore tests <t@example.invalid>\nDescription: test_fleet package\n' \
			"$deb_pkg" > "$d/DEBIAN/control"
		echo "$2" > "$d$T/deb-installed/marker"
		dpkg-deb -Zgzip --build "$d" "$T/deb/$1.deb" >/dev/null
	}
	mkdeb genuine genuine; mkdeb evil evil
	chmod 0755 "$T/deb"; chmod 0644 "$T/deb/evil.deb"
	echo "victim's own" > "$T/victim"
	planted="$T/hosts/alpha/benchcore-fleet $T/hosts/alpha/benchcore-fleet-debs $T/hosts/beta/planted"
	if [ ! -e /var/tmp/benchcore-fleet ] && [ ! -e /var/tmp/benchcore-fleet-debs ]; then	# the old default
		planted_vt="/var/tmp/benchcore-fleet /var/tmp/benchcore-fleet-debs"; planted="$planted $planted_vt"
	fi
	for d in $planted; do plant "$d"; done
	# the other user's swapper: every .deb in a -debs directory becomes theirs
	setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "while :; do for f in $T/hosts/alpha/benchcore-fleet-debs/*.deb \
		${planted_vt:+/var/tmp/benchcore-fleet-debs/*.deb}; do [ -f \"\$f\" ] && ! cmp -s \"\$f\" $T/deb/evil.deb &&
		cp $T/deb/evil.deb \"\$f.x\" && mv -f \"\$f.x\" \"\$f\"; done; sleep 0.01; done" 2>/dev/null &
	swapper=$!
	before=$(snapshot $planted)
	sed -e "s|^beta .*|& benchcore_workdir_parent=$T/hosts/beta/planted|" "$T/inventory.ini" > "$T/inventory4.ini"
	mkdir -p "$T/results4"
	# the version asked for is none: the play stops after the install
	echo "# the planted directories' run starts after ${SECONDS} s"
	playbook "$T/play4.log" -i "$T/inventory4.ini" -l alpha,beta,localhost -e benchcore_install=deb \
		-e "{\"benchcore_debs\": [\"$T/deb/genuine.deb\"]}" -e ansible_become_method=su \
		-e benchcore_version=0.0.0-none -e benchcore_results="$T/results4"
	kill "$swapper" 2>/dev/null; wait "$swapper" 2>/dev/null; swapper=""
	[ -n "${BC_FLEET_LOGS:-}" ] && cp "$T/play4.log" "$BC_FLEET_LOGS/"
	check "planted directories: the playbook installed its package on alpha" \
		test "$(dpkg-query -W -f='${Status}' "$deb_pkg" 2>/dev/null)" = "install ok installed"
	check "  the genuine one, not the one swapped into a planted -debs directory" \
		test "$(cat "$T/deb-installed/marker" 2>/dev/null)" = genuine
	check "  the planted directories, their files and the victim are untouched" test "$(snapshot $planted)" = "$before"
	wd=$(ls -d "$T"/hosts/alpha/benchcore-fleet.* 2>/dev/null | head -1)
	check "  alpha's work directory was made fresh (benchcore-fleet.XXXXXX): root's, 0700" \
		test -n "$wd" -a "$(stat -c '%U %a' "$wd" 2>/dev/null)" = "root 700"
	expect_grep "  a planted 0777 parent (beta's) is refused, named" "$T/play4.log" \
		"beta: benchcore_workdir_parent $T/hosts/beta/planted belongs to uid 65534, neither the remote user \(0\) nor root"
	check "  and nothing was made in it" test -z "$(ls "$T/hosts/beta/planted" | grep -v '^serve\.')"
	[ -s "$T/deb-installed/marker" ] || tail -30 "$T/play4.log"
	dpkg --purge "$deb_pkg" >/dev/null 2>&1; deb_pkg=""
	for d in $planted_vt; do rm -rf "$d"; done; planted_vt=""
else
	echo "SKIP: planted work directories need the namespaces (root), dpkg-deb and setpriv"
fi

# A host with another version fails loudly, before anything runs.
mkdir -p "$T/results2"
echo "# the wrong version's run starts after ${SECONDS} s"
playbook "$T/play2.log" -l alpha,localhost -e benchcore_version=9.9.9 -e benchcore_results="$T/results2"
check "a wrong version fails the playbook (exit $RC)" test "$RC" -ne 0
expect_grep "naming the host, what it runs and what the fleet wants" "$T/play2.log" \
	"alpha runs \\\\?\"benchcore $version \(module ABI $abi\)\\\\?\".*wants benchcore 9.9.9 with module ABI $abi"
check "and nothing ran there" test ! -e "$T/results2/alpha.json"

for d in "$HOME/.ansible" "$HOME/.ansible_async"; do
	case " $home_had " in *" $d "*) ;; *) check "Ansible left nothing in $d" test ! -e "$d" ;; esac
done
