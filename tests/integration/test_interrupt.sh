#!/usr/bin/env bash
# Ctrl-C and SIGTERM at every stage: the results so far are written (valid
# JSON, marked interrupted), exit 130, no files or processes left behind.
. "$(dirname "$0")/lib.sh"
D=$T/io; mkdir -p $D
export TMPDIR=$T/tmp; mkdir -p $TMPDIR	# scratch directories go here

no_children() {	# no process of this run is left
	sleep 0.3
	! pgrep -f -- "-o $T/$1.json" >/dev/null
}
left_files() { ls $D 2>/dev/null | grep -c 'benchcore-io' ; }

# signal SIG to a run writing $T/NAME.json once the phase is seen (issue 47: a
# loaded machine, or ASan, reaches a phase seconds later than a fixed sleep
# assumes): PATTERN in its stderr (the plan's last line, or the window's first
# interval report) and a process of its case; T0 the start, TSIG the signal (ns)
interrupt() {	# name sig pattern args...
	local name=$1 sig=$2 pat=$3; shift 3
	T0=$(date +%s%N)
	"$BC" "$@" -o $T/$name.json >$T/$name.out 2>$T/$name.err </dev/null &
	local pid=$!
	until_seen 600 grep -Eq -- "$pat" $T/$name.err || fail "$name: /$pat/ not seen in its stderr within 60 s"
	until_seen 300 pgrep -P $pid >/dev/null || fail "$name: no process of its case within 30 s"
	kill -$sig $pid; TSIG=$(date +%s%N)
	wait $pid; RC=$?
}
PLANNED='^plan: [0-9]+ cases?, '	# the plan's last line: the first case starts next
WINDOW='^\[ 1s \]'			# the measured window's first interval report

# a signal in the run's first moments, while its modules are probed (one whose
# constructor hangs for the probe's 1 s): a background job's shell ignores
# SIGINT, so before benchcore's handler it would be lost and the run would go
# on to its end (5 s); it stops once the probe is over, with nothing run
mkdir -p $T/hang && cp "$TESTMODS/ctor_hang.so" $T/hang/
BCTEST_CTOR_FAULTS=1 BENCHCORE_PROBE_TIMEOUT=1 "$BC" run cpu --module-path $T/hang --warmup 0 --time 5 -q \
	-o $T/early.json >$T/early.out 2>$T/early.err </dev/null &
pid=$!
for _ in $(seq 100); do [ -n "$(pgrep -P $pid)" ] && break; sleep 0.02; done
t0=$(date +%s%N); kill -INT $pid; wait $pid; RC=$?; ms=$(( ($(date +%s%N) - t0) / 1000000 ))
expect_rc "SIGINT while the modules are probed (a background job): exit 130" 130
check "... the run did not go on to its 5 s (${ms} ms after the signal)" test $ms -lt 4000
expect_py "... no case ran; the results say interrupted" $T/early.json 'd["interrupted"] and d["cases"] == []'
check "... no process left" no_children early

interrupt warm INT "$PLANNED" run cpu --warmup 5 --time 5
expect_rc "SIGINT during warmup exits 130" 130
expect_py "during warmup: results written, case interrupted" $T/warm.json 'd["interrupted"] and d["cases"][0]["status"]=="interrupted"'
check "during warmup: no process left" no_children warm

interrupt meas TERM "$WINDOW" run cpu max_prime=1000 --warmup 0.2 --time 5 --threads 1,2
expect_rc "SIGTERM during the measured window exits 130" 130
# the window it kept is what ran of it: more than nothing, and no longer than the time from
# the start to the signal less the warmup (how much of that a loaded machine spent starting
# is not expected)
lim=$(( (TSIG - T0) / 1000000 - 200 + 50 ))
expect_py "during measure: partial case has figures, its window at most the ${lim} ms from start to signal less the warmup" \
	$T/meas.json 'd["cases"][0]["status"]=="interrupted" and d["cases"][0]["ops"]["event"]["count"]>0 and 0<d["cases"][0]["duration_s"]<='"$lim"'/1000'

expect_py "during measure: later cases not run" $T/meas.json 'len(d["cases"])==1'
check "during measure: no process left" no_children meas

interrupt prep INT "$PLANNED" run io path=$D file_size=6G rw=randread --time 5
expect_rc "SIGINT during io prepare (file layout) exits 130" 130
expect_py "during prepare: case interrupted, reason says prepare" $T/prep.json 'd["cases"][0]["status"]=="interrupted" and "prepare" in (d["cases"][0]["reason"] or "")'
check "during prepare: the partial data file was removed" test "$(left_files)" -eq 0
check "during prepare: no process left" no_children prep

interrupt iom INT "$WINDOW" run io path=$D file_size=32M rw=randread --warmup 0 --time 5
expect_rc "SIGINT during an io measurement exits 130" 130
check "during io measure: data files removed" test "$(left_files)" -eq 0
expect_py "during io measure: figures kept" $T/iom.json 'd["cases"][0]["ops"]["read"]["count"]>0'

# a second Ctrl-C does not wait for the case to end cleanly, and still cleans up
"$BC" run io path=$D file_size=6G rw=randread --time 5 -o $T/twice.json >$T/twice.out 2>$T/twice.err </dev/null &
pid=$!
until_seen 600 grep -Eq -- "$PLANNED" $T/twice.err || fail "twice: the plan not seen within 60 s"
until_seen 300 pgrep -P $pid >/dev/null || fail "twice: no process of its case within 30 s"
kill -INT $pid; kill -INT $pid; start=$(date +%s%N); wait $pid; RC=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
expect_rc "second SIGINT exits 130" 130
check "second SIGINT: out within 5 s (took ${ms} ms)" test $ms -lt 5000
check "second SIGINT: data files removed" test "$(left_files)" -eq 0
expect_py "second SIGINT: results still valid JSON" $T/twice.json 'd["interrupted"]'
check "second SIGINT: no process left" no_children twice

check "no scratch directory left in TMPDIR" test -z "$(ls -A $TMPDIR)"
check "no temporary results file left" bash -c "! ls $T/*.tmp.* 2>/dev/null | grep -q ."
