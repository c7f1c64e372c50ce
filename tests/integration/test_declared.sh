#!/usr/bin/env bash
# The run's own processes are not "other" (issue 26): a CPU-burning child a
# module declares with declare_process() (tests/modules/burner.c), and a
# private server benchcore started (svc + stand-in --burn: the
# burning worker is in the server's process group), are recorded as
# cpu.server_pct and left out of cpu.other_pct; the same child undeclared
# counts as other processes. The machine may be shared: the assertions
# compare declared and undeclared cases of one run (rounds interleave them),
# never an absolute "other" share.
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
MP="--module-path $TESTMODS"

run_bc $T/b run burner $MP declare=true,false --time 0.8 --warmup 0.2 --repeat 3 -q --force -o $T/b.json
expect_rc "burner: declared and undeclared cases run" 0
expect_py "burner: every case ok" $T/b.json 'len(d["cases"]) == 6 and all(c["status"] == "ok" for c in d["cases"])'
DEC='[c for c in d["cases"] if c["params"]["declare"]]'
# what the server got is the machine's business (a loaded one leaves it little):
# its share is its CPU seconds over the window's CPU time (duration x CPUs), within
# a point (ticks of 10 ms) or a fifth
SHARE="abs(c['cpu']['server_pct'] - 100 * c['cpu']['server_s'] / (c['duration_s'] * $(nproc))) <= max(1, 0.2 * c['cpu']['server_pct'])"
UND='[c for c in d["cases"] if not c["params"]["declare"]]'
expect_py "declared: the child's CPU is the server's share (cpu.server_pct, server_s, per operation)" $T/b.json \
	"all(c['cpu']['server_s'] > 0 and $SHARE and c['cpu']['server_us_per_op'] > 0 and c['cpu']['servers'].startswith('burner (pid ') for c in $DEC)"
expect_py "undeclared: no server share recorded" $T/b.json \
	"all('server_pct' not in c['cpu'] and 'servers' not in c['cpu'] for c in $UND)"
# the burner takes server_pct of the machine: undeclared it shows as other
expect_py "declared: other_pct is lower than undeclared by at least half the server share" $T/b.json \
	"(lambda dec, und: sum(c['cpu']['other_pct'] for c in und) / 3 - sum(c['cpu']['other_pct'] for c in dec) / 3 >= 0.5 * sum(c['cpu']['server_pct'] for c in dec) / 3)($DEC, $UND)"
expect_py "undeclared: the child counts as other processes" $T/b.json \
	"all(c['cpu']['other_pct'] >= 5 for c in $UND)"
expect_grep "text: the server's CPU is shown" $T/b.out '^    server cpu: [0-9.]+ s \([0-9.]+% of the machine\), [0-9.]+ us per operation: burner \(pid [0-9]+\)'

run_bc $T/bad run burner $MP bad_pid=true --time 0.2 --warmup 0 -q --force -o $T/bad.json
expect_py "declare_process of a pid that is no process: init fails with the reason" $T/bad.json \
	'(lambda c: c["status"] == "failed" and "declare_process: pid 1073741808 is not a process visible on this machine" in c["reason"])(d["cases"][0])'

# A private server is declared by the host itself, with its process group
SRV=$TESTMODS/standin_server
run_bc $T/s run svc $MP server=$SRV flags=--burn --time 0.8 --warmup 0.2 --repeat 2 -q --force -o $T/s.json
expect_rc "private server burning CPU in its group: runs" 0
expect_py "private server: its group's CPU is cpu.server_pct, named with its group" $T/s.json \
	"all(c['status'] == 'ok' and c['cpu']['server_s'] > 0 and $SHARE and c['cpu']['servers'] == 'standin (pid %s, its process group)' % c['info']['server_pid'] for c in d['cases'])"
expect_py "private server: server and other shares add up to no more than the machine" $T/s.json \
	"all(c['cpu']['other_pct'] + c['cpu']['server_pct'] <= 101 for c in d['cases'])"
run_bc $T/cmp compare --json $T/s.json $T/s.json
# busy comes from the interference on the case's CPUs alone (steal and other
# processes): were the server counted, every row would be busy (server_pct >= 5)
OTHER=$("$PY" -S -c 'import json,sys; c=json.load(open(sys.argv[1]))["cases"]; print(max(x["cpu"]["interference_pct"] for x in c))' $T/s.json)
expect_py "compare: the private server's CPU does not make its cases suspect" $T/cmp.out \
	"all(abs(r['busy_pct'] - $OTHER) < 0.01 and r['busy'] == ($OTHER >= 5) for r in d['comparisons'][0]['rows'])"
no_server() { sleep 0.3; ! pgrep -f -- "$TESTMODS/standin_server.*--burn" >/dev/null; }	# its own: test_service runs stand-ins too
check "no stand-in server left" no_server
