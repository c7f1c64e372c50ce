#!/usr/bin/env bash
# --events N runs exactly N events in the measured window, for every module
# that runs here without a server of its own (redis and oltp: their scripts,
# with the servers they start), at the default warmup (1 s), at 1 and 2
# threads: a batch claimed in warmup that ends in the window is charged or
# left out, never counted free (sys getpid 100,000 recorded 114k), and a
# module that batches takes a batch's events, not one (mem 20,000 wrote 33
# million). An event is an operation recorded or failed (count + errors);
# the case says when more ran than the budget allowed, and that fails here.
. "$(dirname "$0")/lib.sh"

# A directory on a real disk for io: /var/tmp unless it is tmpfs, then the build dir.
D=/var/tmp
[ "$(stat -f -c %T "$D" 2>/dev/null)" = tmpfs ] && D=$PWD/$BUILD
D=$(mktemp -d "$D/bc-events-test.XXXXXX")
trap 'rm -rf "$T" "$D"' EXIT

# exact N THREADS NAME MODULE ARGS...: a run of --events N at the default warmup
exact() {
	local n=$1 th=$2 name=$3
	shift 3
	run_bc "$T/$name" run "$@" --events "$n" --time 0 --threads "$th" --report-interval 0 -q --force \
		--no-isolate -o "$T/$name.json"
	if [ "$RC" -ne 0 ]; then
		fail "$name: --events $n at $th thread(s): exit $RC"
		tail -3 "$T/$name.err"
		return
	fi
	# status, events (count + errors) and the budget's warnings of every case
	local got
	got=$(jget "$T/$name.json" "[(c['status'], sum(o['count'] + o.get('errors', 0) for o in c['ops'].values()), [w for w in c.get('warnings', []) if 'than the budget allowed' in w]) for c in d['cases']]")
	if [ "$got" = "[('ok', $n, [])]" ]; then pass "$name: --events $n at $th thread(s), default warmup: exactly $n events"
	else fail "$name: --events $n at $th thread(s), default warmup: $got"; fi
}

for th in 1 2; do
	exact 1000 $th cpu-$th cpu max_prime=2000
	exact 20000 $th mem-$th mem
	exact 20000 $th memr-$th mem oper=read access=rnd
	exact 100000 $th getpid-$th sys test=getpid
	exact 20000 $th pipe-$th sys test=pipe
	exact 100 $th execl-$th sys test=execl
	exact 200 $th rsa-$th rsa
	exact 20000 $th sha-$th rsa algo=sha256
	exact 3000 $th io-$th io path="$D" file_size=8M rw=randread
	exact 2000 $th tcprr-$th net test=tcp_rr
	exact 5000 $th tcps-$th net test=tcp_stream
done
exact 20000 1 syscall sys test=syscall
exact 2000 1 ctxsw sys test=context_switch
exact 100 1 spawn sys test=spawn
exact 500 1 fcopy sys test=file_copy
exact 200 1 tcpcrr net test=tcp_crr
exact 2000 1 udprr net test=udp_rr
exact 2000 1 udps net test=udp_stream bitrate=50
