#!/bin/bash
# The journal of original values as an attack surface (issue 59, docs/machine.md
# "Always put back"): a journal tells root which files to write and which
# commands to run, so every reader (benchcore restore, a plain root run, a run
# that changes settings) refuses one that another user could have written: a
# directory others can write, one that is another user's or a symbolic link, a
# journal file that is another user's, writable by others or a link, a file
# record naming a file no setting writes. The attacker is user nobody. Then a
# custom set command that outlives a SIGKILLed run (its process group ended by
# restore before anything is put back) and one that leaves a child in the
# background (ended when it returns), and restore's count of values already at
# their originals. Nothing of the machine is changed (the settings are custom
# commands on files in the scratch directory; the one sysctl record is at its
# original): not machine-wide.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" != 0 ] || ! command -v runuser >/dev/null || ! id nobody >/dev/null 2>&1; then
	pass "journal trust: skipped (needs root, runuser and user nobody)"
	exit 0
fi
MODS="--module-path $PWD/$BUILD/modules"
BGPID=""
cleanup() {
	[ -n "$BGPID" ] && kill -9 "$BGPID" 2>/dev/null
	pkill -9 -f "bc-jt-$$" 2>/dev/null	# the test's own set commands, by their marker
	rm -rf "$T"
}
trap cleanup EXIT
as_nobody() { runuser -u nobody -- sh -c "$1"; }

echo original >"$T/victim"
chmod 600 "$T/victim"
# the issue's journal: a file record writing a file of root's, a cmd record running a command as root
journal() {
	printf 'benchcore machine journal 1\nfile\t%s\tPWNED\toriginal\ncmd\tevil\ttrue\tid > %s; echo written\torig\twritten\t5\n' \
		"${2:-$T/victim}" "$T/pwned" >"$1"
}
untouched() {
	check "$1: the file record's file is untouched" [ "$(cat "$T/victim")" = original ]
	check "$1: the cmd record's command did not run" test ! -e "$T/pwned"
}

# ---- a directory others can write: the journal written by nobody ----
mkdir -m 0777 "$T/st"
as_nobody "$(declare -f journal); T=$T journal $T/st/journal"
check "the attacker (nobody) wrote a journal into a 0777 state directory" [ "$(stat -c %U "$T/st/journal")" = nobody ]
BENCHCORE_STATE_DIR=$T/st run_bc "$T/r1" restore
expect_rc "restore: a journal in a directory others can write is refused" 1
expect_grep "restore: ... naming the directory and why" "$T/r1.err" \
	"refusing the state directory $T/st: it can be written by others \(uid 0, mode 0777\)"
expect_grep "restore: ... that it holds a journal, not read" "$T/r1.err" "It holds a journal \($T/st/journal\): not read"
expect_grep "restore: ... with a hint (nothing changed, left in place)" "$T/r1.err" "HINT: benchcore changed nothing and left it in place"
untouched "restore"
check "restore: the refused journal is kept where it was" test -s "$T/st/journal"
BENCHCORE_STATE_DIR=$T/st run_bc "$T/p1" run cpu $MODS --time 0.2 --warmup 0 -o "$T/p1.json"
expect_rc "a plain root run beside a refused journal runs (it changes no setting)" 0
expect_grep "a plain run: ... says the journal was refused" "$T/p1.err" "refusing the state directory $T/st"
expect_grep "a plain run: ... and that nothing was restored from it" "$T/p1.err" "nothing was restored from the journal refused above"
untouched "a plain run"
echo orig >"$T/knob"
cat >"$T/knob.conf" <<EOF
module_path = [ "$PWD/$BUILD/modules" ];
time = 0.2; warmup = 0;
machine = { custom = { name = "knob"; set = "echo {value} > $T/knob # bc-jt-$$"; read = "cat $T/knob"; values = [ "new" ]; }; };
modules = ( { name = "cpu"; max_prime = 1000; } );
EOF
BENCHCORE_STATE_DIR=$T/st run_bc "$T/s1" -c "$T/knob.conf"
expect_rc "a run that changes settings on that directory is refused" 2
expect_grep "a settings run: ... naming the directory" "$T/s1.err" "refusing the state directory $T/st"
untouched "a settings run"
check "a settings run: ... and changed nothing" [ "$(cat "$T/knob")" = orig ]

# ---- nobody's own directory, directly and through nobody's symbolic link ----
mkdir -m 0755 "$T/nb"
chown nobody "$T/nb"
as_nobody "mkdir -m 0700 $T/nb/st && $(declare -f journal); T=$T journal $T/nb/st/journal && ln -s $T/nb/st $T/nb/lnk"
BENCHCORE_STATE_DIR=$T/nb/st run_bc "$T/r2" restore
expect_rc "restore: a state directory of another user's is refused" 1
expect_grep "restore: ... naming its owner" "$T/r2.err" "refusing the state directory $T/nb/st: it belongs to another user \(uid $(id -u nobody)"
BENCHCORE_STATE_DIR=$T/nb/lnk run_bc "$T/r3" restore
expect_rc "restore: a state directory given through a symbolic link is refused" 1
expect_grep "restore: ... saying it is a link" "$T/r3.err" "refusing the state directory $T/nb/lnk: it is a symbolic link"
untouched "another user's directory"

# ---- root's 0700 directory, but the journal file is not root's, or a link ----
mkdir -m 0700 "$T/st4"
journal "$T/st4/journal"
chown nobody "$T/st4/journal"
BENCHCORE_STATE_DIR=$T/st4 run_bc "$T/r4" restore
expect_rc "restore: a journal file of another user's is refused" 1
expect_grep "restore: ... naming the file and its owner" "$T/r4.err" "refusing the journal $T/st4/journal: it belongs to another user"
chown root "$T/st4/journal"
chmod 0666 "$T/st4/journal"
BENCHCORE_STATE_DIR=$T/st4 run_bc "$T/r5" restore
expect_rc "restore: a journal others can write is refused" 1
expect_grep "restore: ... saying so" "$T/r5.err" "refusing the journal $T/st4/journal: it can be written by others"
mkdir -m 0700 "$T/st6"
ln -s "$T/st4/journal" "$T/st6/journal"
BENCHCORE_STATE_DIR=$T/st6 run_bc "$T/r6" restore
expect_rc "restore: a journal that is a symbolic link is refused" 1
expect_grep "restore: ... saying so" "$T/r6.err" "refusing the journal $T/st6/journal: it is a symbolic link"
untouched "journal files not to be trusted"

# ---- root's own journal, but a file record outside sysfs and /proc/sys ----
chmod 0600 "$T/st4/journal"
BENCHCORE_STATE_DIR=$T/st4 run_bc "$T/r7" restore
expect_rc "restore: a file record naming a file no setting writes is refused (the whole journal)" 1
expect_grep "restore: ... naming the record and the file" "$T/r7.err" \
	"refusing the journal $T/st4/journal: its record 1 \(file\) names $T/victim, not a file a setting writes"
journal "$T/st4/journal" "/sys/../$T/victim"
chmod 0600 "$T/st4/journal"
BENCHCORE_STATE_DIR=$T/st4 run_bc "$T/r8" restore
expect_rc "restore: a file record leaving /sys by .. is refused" 1
expect_grep "restore: ... naming where it really leads" "$T/r8.err" "really $T/victim, not a file a setting writes"
untouched "file records outside sysfs"
check "the refused journal is still there" test -s "$T/st4/journal"

# ---- restore counts a value already at its original apart (not as restored) ----
SW=/proc/sys/vm/swappiness
mkdir -m 0700 "$T/st9"
printf 'benchcore machine journal 1\nfile\t%s\t%s\t%s\n' $SW "$(cat $SW)" "$(( ($(cat $SW) + 7) % 100 ))" >"$T/st9/journal"
chmod 0600 "$T/st9/journal"
BENCHCORE_STATE_DIR=$T/st9 run_bc "$T/r9" restore
expect_rc "restore: a journal whose value is already at its original" 0
expect_grep "restore: ... says so, not \"restored 1\"" "$T/r9.out" "^restored 0 machine settings; 1 already at its original$"
check "restore: ... and the journal is gone" test ! -e "$T/st9/journal"

# ---- a set command that outlives a SIGKILLed run: restore ends its group first ----
export BENCHCORE_STATE_DIR=$T/state
echo orig >"$T/v"
cat >"$T/slow.conf" <<EOF
module_path = [ "$PWD/$BUILD/modules" ];
time = 30; warmup = 0;
machine = { custom = { name = "v"; set = "sleep 3; echo {value} > $T/v # bc-jt-$$-slow"; read = "cat $T/v"; values = [ "new" ]; }; };
modules = ( { name = "cpu"; max_prime = 1000; } );
EOF
"$BC" -c "$T/slow.conf" -q -o "$T/slow.json" >/dev/null 2>"$T/slow.err" </dev/null & BGPID=$!
# killed while the set command sleeps (before it writes)
sleeping() { pgrep -f "bc-jt-$$-slo[w]" >/dev/null; }
until_seen 300 sleeping
t_kill=$(date +%s%N)
kill -9 $BGPID; wait $BGPID 2>/dev/null; BGPID=""
check "the run had journalled its set command's process group before running it" \
	awk -F'\t' '$1 == "cmd" && NF >= 8 && $8 ~ /^[0-9]+ [0-9]+ [0-9a-f]+$/ { f = 1 } END { exit !f }' "$T/state/journal"
run_bc "$T/rk" restore
expect_rc "restore after SIGKILL during a slow set command" 0
expect_grep "restore: ... the value it had not written yet is already at its original" "$T/rk.out" "1 already at its original"
expect_grep "restore: ... the command's process group was killed first" "$T/rk.err" "custom v: killed [0-9]+ process(es)? its set command had left running"
check "restore: nothing of the set command is left running" sh -c "! pgrep -f 'bc-jt-$$-slo[w]' >/dev/null"
check "restore: the journal is gone" test ! -e "$T/state/journal"
# past the moment the command would have written (3 s after it started, before the kill)
left_ms=$(( 3500 - ($(date +%s%N) - t_kill) / 1000000 ))
[ "$left_ms" -gt 0 ] && sleep "$(awk -v m="$left_ms" 'BEGIN { printf "%.3f", m / 1000 }')"
check "the knob is the original and stays so (3.5 s after the kill)" [ "$(cat "$T/v")" = orig ]

# ---- a set command's background child is ended when the command returns ----
echo orig >"$T/v2"
cat >"$T/bg.conf" <<EOF
module_path = [ "$PWD/$BUILD/modules" ];
time = 0.2; warmup = 0;
machine = { custom = { name = "v2"; set = "(sleep 2; echo late > $T/late # bc-jt-$$-bg
) & echo {value} > $T/v2"; read = "cat $T/v2"; values = [ "new" ]; }; };
modules = ( { name = "cpu"; max_prime = 1000; } );
EOF
run_bc "$T/bg" -c "$T/bg.conf" -o "$T/bg.json"
expect_rc "a run whose set command leaves a child in the background" 0
check "... the child was ended with the command's group (none left after the run)" \
	sh -c "! pgrep -f 'bc-jt-$$-b[g]' >/dev/null"
check "... and the knob is back to its original" [ "$(cat "$T/v2")" = orig ]
exit 0
