#!/usr/bin/env bash
# --start-at TIME: a run waits for the wall clock, says so, starts on time;
# a time in the past is refused before anything runs; Ctrl-C (or SIGTERM)
# during the wait exits 130 and writes no results, leaves no lock.
# Also: every result carries a run id and a host id (docs/results.md).
. "$(dirname "$0")/lib.sh"
cd "$T"
quick=(--time 0.2 --warmup 0 --report-interval 0 -q)

at=$(( $(date +%s) + 2 ))
run_bc w run cpu "${quick[@]}" -o w.json --start-at "@$at"
expect_rc "run waits for --start-at and runs" 0
expect_grep "the wait is printed with its UTC time" w.err "^benchcore: waiting [0-9.]+ s, until $(date -u -d "@$at" +%Y-%m-%dT%H:%M:%SZ) \(--start-at @$at\)"
expect_py "the run started at TIME, not before" w.json "d['started_at'] >= '$(date -u -d "@$at" +%Y-%m-%dT%H:%M:%SZ)'"
expect_py "run_id is 32 hex digits" w.json "len(d['run_id']) == 32 and int(d['run_id'], 16) >= 0"
expect_py "host_id is 32 hex digits" w.json "len(d['host_id']) == 32 and int(d['host_id'], 16) >= 0"
run_bc w2 run cpu "${quick[@]}" -o w2.json
check "two runs have two run ids, one host id" \
	test "$(jget w.json "d['run_id']")" != "$(jget w2.json "d['run_id']")" -a \
	     "$(jget w.json "d['host_id']")" = "$(jget w2.json "d['host_id']")"

ago=$(date -d '-1 hour' +%Y-%m-%dT%H:%M:%S)
run_bc past run cpu "${quick[@]}" -o past.json --start-at "$ago"
expect_rc "a time an hour ago is refused" 2
expect_grep "and said to be in the past" past.err "error: --start-at $ago .* s in the past"
check "nothing was written for the refused run" test ! -e past.json -a ! -e past.json.lock

# A zoned time of day 60 s away is 60 s away in any local zone: Kiritimati
# (UTC+14) has tomorrow's date from 10:00Z, Pago Pago (UTC-11) yesterday's
# until 11:00Z, so one of them always has another date than UTC. The wait
# line is read, then the run is stopped.
hmsz=$(date -u -d '+60 sec' +%H:%M:%SZ)
for tz in Pacific/Kiritimati Pacific/Pago_Pago; do
	n=${tz#*/}
	TZ=$tz "$BC" run cpu "${quick[@]}" -o "$n.json" --start-at "$hmsz" >"$n.out" 2>"$n.err" </dev/null &
	pid=$!
	for _ in $(seq 300); do grep -q waiting "$n.err" 2>/dev/null && break; sleep 0.1; done
	kill -TERM "$pid" 2>/dev/null; wait "$pid"
	s=$(sed -n 's/^benchcore: waiting \([0-9.]*\) s.*/\1/p' "$n.err")
	check "TZ=$tz, --start-at $hmsz: waits about 60 s (${s:-no wait line}), not a day more or refused" \
		awk -v s="${s:-x}" 'BEGIN { exit !(s ~ /^[0-9.]+$/ && s > 50 && s <= 61) }'
done

run_bc huge run cpu "${quick[@]}" -o huge.json --start-at 1e300
expect_rc "a huge epoch is refused" 2
expect_grep "as out of range, saying the range, not a date of year -219246529" huge.err \
	'error: --start-at: "1e300" is out of range'
expect_grep "the range is said" huge.err '9999-12-31T23:59:59Z'

run_bc bad -c /dev/null --start-at tomorrow
expect_rc "a word that is not a time is a usage error" 2
expect_grep "naming the accepted forms" bad.err "is not a time"

printf 'modules = ( { name = "cpu"; time = 0.2; warmup = 0; } );\n' > s.conf
for sig in INT TERM; do
	"$BC" -c s.conf -q -o "$sig.json" --start-at "@$(( $(date +%s) + 60 ))" >"$sig.out" 2>"$sig.err" &
	pid=$!
	for _ in $(seq 300); do grep -q waiting "$sig.err" 2>/dev/null && break; sleep 0.1; done
	kill -"$sig" "$pid"
	wait "$pid"; RC=$?
	expect_rc "SIG$sig during the wait exits 130" 130
	expect_grep "saying nothing ran" "$sig.err" "interrupted .* while waiting to start: nothing ran, no results written"
	check "no results file and no lock after SIG$sig" test ! -e "$sig.json" -a ! -e "$sig.json.lock"
	expect_no_grep "no case started" "$sig.out" "\[case 1\]"
done
