#!/usr/bin/env bash
# io module: values a user relies on, cleanup, and the safety refusals.
# Runs on a disk-backed directory (not tmpfs) so O_DIRECT works; ~30 s.
# A case's failure reason is printed on stdout ("reason: ..."), usage errors on stderr.
. "$(dirname "$0")/lib.sh"

# A directory on a real disk: /var/tmp unless it is tmpfs, then the build dir.
D=/var/tmp
[ "$(stat -f -c %T "$D" 2>/dev/null)" = tmpfs ] && D=$PWD/$BUILD
D=$(mktemp -d "$D/bc-io-test.XXXXXX")
FULL=""	# a small tmpfs the full-file-system test mounts, unmounted whatever happens
kids=""	# the case's processes while the full-file-system test has them stopped
trap '[ -n "$kids" ] && kill -CONT $kids 2>/dev/null; [ -n "$FULL" ] && umount "$FULL" 2>/dev/null; rm -rf "$T" "$D"' EXIT
S="--time 1 --warmup 0.2 --report-interval 0 -q --force"
COMMON="path=$D file_size=8M"

# --- a plain run: the JSON adds up ---------------------------------------
run_bc "$T/rr" run io $S $COMMON rw=randrw block_size=16K -o "$T/rr.json"
expect_rc "randrw run succeeds" 0
expect_py "case ok" "$T/rr.json" "d['cases'][0]['status'] == 'ok'"
expect_py "read_iops = read count / seconds" "$T/rr.json" \
	"abs(d['cases'][0]['metrics']['read_iops']['value'] - d['cases'][0]['ops']['read']['count'] / d['cases'][0]['duration_s']) <= 0.01 * d['cases'][0]['metrics']['read_iops']['value'] + 1"
expect_py "write_iops = write count / seconds" "$T/rr.json" \
	"abs(d['cases'][0]['metrics']['write_iops']['value'] - d['cases'][0]['ops']['write']['count'] / d['cases'][0]['duration_s']) <= 0.01 * d['cases'][0]['metrics']['write_iops']['value'] + 1"
expect_py "iops = read_iops + write_iops" "$T/rr.json" \
	"abs(d['cases'][0]['metrics']['iops']['value'] - d['cases'][0]['metrics']['read_iops']['value'] - d['cases'][0]['metrics']['write_iops']['value']) < 1e-6 * d['cases'][0]['metrics']['iops']['value'] + 1e-6"
expect_py "bytes = count x block_size (read and write)" "$T/rr.json" \
	"all(d['cases'][0]['ops'][o]['bytes'] == d['cases'][0]['ops'][o]['count'] * 16384 and d['cases'][0]['ops'][o]['count'] > 0 for o in ('read', 'write'))"
expect_py "read_mib_per_sec = read bytes / 2^20 / seconds" "$T/rr.json" \
	"abs(d['cases'][0]['metrics']['read_mib_per_sec']['value'] * 1048576 * d['cases'][0]['duration_s'] - d['cases'][0]['ops']['read']['bytes']) <= 0.01 * d['cases'][0]['ops']['read']['bytes']"
expect_py "completion latency percentiles present and ordered" "$T/rr.json" \
	"0 < d['cases'][0]['ops']['read']['latency_ns']['p50'] <= d['cases'][0]['ops']['read']['latency_ns']['p99']"
expect_py "submission latency reported (read_slat_p50_ns)" "$T/rr.json" \
	"d['cases'][0]['metrics']['read_slat_p50_ns']['value'] > 0"
# slat is the host's distribution "slat": the metrics are its figures, and it
# covers the measured window like clat (counts differ by at most the I/Os in
# flight at either edge: iodepth 16).
expect_py "slat metrics = the host's ops.*.dists.slat (p50, p99, mean), read and write" "$T/rr.json" \
	"all((lambda c, l: c['metrics'][o + '_slat_p50_ns']['value'] == l['p50'] and c['metrics'][o + '_slat_p99_ns']['value'] == l['p99'] and abs(c['metrics'][o + '_slat_mean_ns']['value'] - l['mean']) <= 1e-6 * l['mean'])(d['cases'][0], d['cases'][0]['ops'][o]['dists']['slat']['latency_ns']) for o in ('read', 'write'))"
expect_py "slat counted in the measured window only (count ~ ops count, +-16)" "$T/rr.json" \
	"all(abs(d['cases'][0]['ops'][o]['dists']['slat']['count'] - d['cases'][0]['ops'][o]['count']) <= 16 for o in ('read', 'write'))"
expect_py "fs_type and mount_options recorded" "$T/rr.json" \
	"d['cases'][0]['info']['fs_type'] not in ('', 'tmpfs') and 'mount_options' in d['cases'][0]['info']"
check "data files removed after the run" test -z "$(ls "$D")"

# --- the studies' matrix from one run: 2 rw x 2 block sizes x threads 1,2 ----
mx_ok="len(d['cases']) == 8 and all(c['status'] == 'ok' and c['metrics']['iops']['value'] > 0 and 'p99' in c['ops'][c['params']['rw'][4:]]['latency_ns'] for c in d['cases'])"
mx_bad() {	# the cases that are not so, with their status and reason
	"$PY" -S -c "import json,sys; d=json.load(open(sys.argv[1])); print('cases:', len(d['cases']), [(c['params']['rw'], c['params']['block_size'], c['threads'], c['status'], c.get('reason'), c['metrics'].get('iops', {}).get('value')) for c in d['cases'] if c['status'] != 'ok' or 'p99' not in c['ops'].get(c['params']['rw'][4:], {}).get('latency_ns', {})])" "$T/mx.json" 2>&1 | head -3
}
run_bc "$T/mx" run io $S --time 0.5 $COMMON rw=randread,randwrite block_size=4K,16K \
	--threads 1,2 -o "$T/mx.json"
expect_rc "rw x block_size x threads matrix runs" 0
# A thread of a 0.5 s window on a machine loaded far past its CPUs may
# complete no I/O at all (the case is ok, with no IOPS and no p99): that is
# the machine, not the matrix. The matrix is measured once more, with 2 s
# windows, and judged on that; what the first one lacked is printed.
if [ "$("$PY" -S -c 'import json,sys; d=json.load(open(sys.argv[1])); print(bool(eval(sys.argv[2])))' "$T/mx.json" "$mx_ok" 2>&1)" != True ]; then
	echo "retry: the 0.5 s matrix had cases without IOPS or p99 ($(mx_bad)); measured again with 2 s windows"
	run_bc "$T/mx" run io $S --time 2 $COMMON rw=randread,randwrite block_size=4K,16K --threads 1,2 -o "$T/mx.json"
	mx_bad
fi
expect_py "8 ok cases with IOPS and p99" "$T/mx.json" "$mx_ok"
expect_py "randread cases report no write metrics" "$T/mx.json" \
	"all('write_iops' not in c['metrics'] for c in d['cases'] if c['params']['rw'] == 'randread')"
check "per-thread files removed after the thread sweep" test -z "$(ls "$D")"
# buffers: page-aligned memory on 4 KiB pages by default, as dd and fio use
# (with THP = always the kernel may still put them on huge pages: said so)
if grep -q '\[always\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; then
	want_pages="(4k \\(page-aligned|huge on)"
else
	want_pages="4k \\(page-aligned, as dd and fio use\\)$"
fi
expect_py "info.buffer_pages of the default buffers: '$want_pages' for every case (THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null))" "$T/mx.json" \
	"all(__import__('re').match(r'$want_pages', c['info']['buffer_pages']) and c['params']['buffer_hugepages'] is False for c in d['cases'])"

# --- an events limit is honoured exactly, with iodepth I/Os in flight --------
run_bc "$T/ev" run io -q --force --report-interval 0 --time 0 --warmup 0 --events 3000 $COMMON \
	rw=randread -o "$T/ev.json"
expect_rc "libaio run with --events" 0
expect_py "--events 3000: exactly 3000 reads recorded" "$T/ev.json" \
	"d['cases'][0]['ops']['read']['count'] == 3000"
run_bc "$T/ev2" run io -q --force --report-interval 0 --time 0 --warmup 0.2 --events 5001 $COMMON \
	--threads 2 rw=randrw -o "$T/ev2.json"
expect_rc "2 libaio threads, randrw, warmup, --events" 0
expect_py "--events 5001 over 2 threads after a warmup: reads + writes = 5001" "$T/ev2.json" \
	"d['cases'][0]['ops']['read']['count'] + d['cases'][0]['ops']['write']['count'] == 5001"
run_bc "$T/ev3" run io -q --force --report-interval 0 --time 0 --warmup 0.2 --events 777 $COMMON \
	engine=psync rw=randread -o "$T/ev3.json"
expect_py "psync, warmup, --events 777: exactly 777 reads, no slat distribution" "$T/ev3.json" \
	"d['cases'][0]['ops']['read']['count'] == 777 and 'dists' not in d['cases'][0]['ops']['read'] and 'read_slat_p50_ns' not in d['cases'][0]['metrics']"

# --- psync, sequential, fsync_every ----------------------------------------
run_bc "$T/ps" run io $S $COMMON engine=psync rw=write block_size=100K fsync_every=8 \
	buffer_hugepages=false -o "$T/ps.json"
expect_rc "psync sequential write with fsync_every" 0
expect_py "fsyncs = writes / 8 (+-1)" "$T/ps.json" \
	"abs(d['cases'][0]['ops']['fsync']['count'] - d['cases'][0]['ops']['write']['count'] // 8) <= 1 and d['cases'][0]['ops']['fsync']['count'] > 0"

expect_py "psync, sequential write: mb_per_sec (dd's MB/s, 10^6 bytes) = write bytes / 1e6 / seconds, beside mib_per_sec" "$T/ps.json" \
	"(lambda c: c['metrics']['mb_per_sec']['unit'] == 'MB/s' and abs(c['metrics']['mb_per_sec']['value'] * 1e6 * c['duration_s'] - c['ops']['write']['bytes']) <= 0.01 * c['ops']['write']['bytes'] and abs(c['metrics']['mb_per_sec']['value'] - c['metrics']['mib_per_sec']['value'] * 1.048576) <= 1e-6 * c['metrics']['mb_per_sec']['value'])(d['cases'][0])"
expect_py "mb_per_sec only in dd-style cases (psync, read or write): not with libaio or random I/O" "$T/mx.json" \
	"all('mb_per_sec' not in c['metrics'] for c in d['cases'])"

run_bc "$T/af" run io $S $COMMON rw=randwrite fsync_every=64 -o "$T/af.json"
expect_rc "libaio randwrite with fsync_every" 0
expect_py "libaio: one fsync per 64+ writes, queue drained before each" "$T/af.json" \
	"0 < d['cases'][0]['ops']['fsync']['count'] <= d['cases'][0]['ops']['write']['count'] // 64 + 1"

# --- the studies' dd test: io's MiB/s against dd on the same file, each buffer kind
# engine=psync direct=true block_size=100K over the whole file once (--events N)
# against dd bs=100K count=N oflag=direct / iflag=direct. A shared disk drifts
# from one second to the next and a synchronous stream's rate on a loaded host
# is mostly its wake-up latency, which moved single runs of either tool by 2x
# here; so each round runs dd between the two buffer kinds (which kind goes
# first alternates), the ratio is taken within the round, the median over 7
# rounds is judged, and every run is SCHED_FIFO (chrt -f 1, where allowed).
# The bounds are wider than the issue's 15%, for the shared disk: at a load of
# 9-16 on 2 CPUs, 30 runs of this (32-64 MiB, 5-7 rounds) gave io/dd read
# 0.91-1.34 with the default buffer (one 1.45) and 1.36-2.45 with huge pages
# (the old default: one DMA segment per request, less work than dd's), so
# 0.75-1.40 passes the one and fails the other. Writes are judged loosely: dd
# fills its buffer from /dev/zero before each block, and its write measured
# 1.1-1.9x slower than io's (and fio's, bench/io.sh) whatever io's buffer kind,
# so they cannot tell the kinds apart.
DDD=$D/dd; mkdir "$DDD"; DDF=$DDD/benchcore-io.0.dat
DDN=655		# whole 100K blocks in 64 MiB (dd must stop short of the trailer)
RT=""; chrt -f 1 true 2>/dev/null && RT="chrt -f 1"
run_bc "$T/ddl" run io -q --force --keep --time 0 --warmup 0 --events 1 path="$DDD" file_size=64M \
	files=shared engine=psync rw=read block_size=100K
seq_one() {	# kind rw round
	local o=$T/seq.$1.$2.$3 hp=""	# page: the default, no option given
	case $1 in
	dd)	if [ "$2" = write ]; then
			$RT dd if=/dev/zero of="$DDF" bs=100K count=$DDN oflag=direct conv=notrunc 2>"$o.txt"
		else
			$RT dd if="$DDF" of=/dev/null bs=100K count=$DDN iflag=direct 2>"$o.txt"
		fi;;
	*)	[ "$1" = huge ] && hp=buffer_hugepages=true
		$RT "$BC" run io -q --force --keep --time 0 --warmup 0 --report-interval 0 --events $DDN \
			path="$DDF" file_size=64M files=shared engine=psync rw="$2" block_size=100K \
			$hp -o "$o.json" >/dev/null 2>&1;;
	esac
}
ROUNDS=7
# the quick form: one round for the buffer kinds' records; the ratios, a timing
# judgement of two tools on a shared disk, to the full form (make check beside
# a second suite, load 5: io/dd write 0.73 over 7 rounds, its 0.75 bound missed)
[ "${BC_QUICK:-0}" = 1 ] && ROUNDS=1
for r in $(seq $ROUNDS); do
	for rw in write read; do
		# dd between the two kinds, each kind first in every other round
		if [ $((r % 2)) = 1 ]; then o="page dd huge"; else o="huge dd page"; fi
		for k in $o; do seq_one "$k" "$rw" "$r"; done
	done
done
"$PY" -S - "$T" "$ROUNDS" > "$T/seq.json" <<'PYEOF'
import json, re, statistics, sys
t, rounds = sys.argv[1], int(sys.argv[2])
def mib(kind, rw, r):
    p = "%s/seq.%s.%s.%d" % (t, kind, rw, r)
    if kind == "dd":
        m = re.search(r"^(\d+) bytes.*copied, ([0-9.e+-]+) s", open(p + ".txt").read(), re.M)
        return int(m.group(1)) / 1048576 / float(m.group(2))
    return json.load(open(p + ".json"))["cases"][0]["metrics"]["mib_per_sec"]["value"]
out = {}
for rw in ("write", "read"):
    for k in ("page", "huge"):
        out["%s_%s" % (k, rw)] = statistics.median(mib(k, rw, r) / mib("dd", rw, r) for r in range(1, rounds + 1))
json.dump(out, sys.stdout)
PYEOF
ratios=$(jget "$T/seq.json" "', '.join('%s %.2f' % kv for kv in sorted(d.items()))")
if grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; then
	want_huge="4k on 1 of 1 threads: transparent huge pages not granted$"
else
	want_huge="huge \\(buffer_hugepages = true\\)$"
fi
expect_py "a dd-style case records its buffer kind: the default's page-aligned memory" "$T/seq.page.read.1.json" \
	"(lambda c: c['status'] == 'ok' and c['params']['buffer_hugepages'] is False and __import__('re').match(r'$want_pages', c['info']['buffer_pages']))(d['cases'][0])"
expect_py "a dd-style case records its buffer kind: buffer_hugepages = true" "$T/seq.huge.read.1.json" \
	"(lambda c: c['status'] == 'ok' and c['params']['buffer_hugepages'] is True and __import__('re').match(r'$want_huge', c['info']['buffer_pages']))(d['cases'][0])"
expect_py "dd-style read: mb_per_sec (MB/s) = mib_per_sec x 1.048576" "$T/seq.page.read.1.json" \
	"(lambda m: m['mb_per_sec']['unit'] == 'MB/s' and abs(m['mb_per_sec']['value'] - m['mib_per_sec']['value'] * 1.048576) <= 1e-6 * m['mb_per_sec']['value'])(d['cases'][0]['metrics'])"
if [ "${BC_QUICK:-0}" = 1 ]; then
	echo "QUICK: io's read and write MiB/s against dd's over 7 rounds (2 checks; this round's io/dd: $ratios): make check-full"
else
	expect_py "default buffer: io's read MiB/s 0.75-1.40 x dd's (median of $ROUNDS rounds, ${RT:-no chrt}; io/dd: $ratios)" "$T/seq.json" \
		"0.75 <= d['page_read'] <= 1.40"
	expect_py "default buffer: io's write MiB/s 0.75-2.2 x dd's (dd zero-fills each block)" "$T/seq.json" \
		"0.75 <= d['page_write'] <= 2.2"
fi
run_bc "$T/ddc" compare --match-ignore buffer_hugepages "$T/seq.huge.read.1.json" "$T/seq.page.read.1.json"
# (interference measured in the cases, on a loaded machine, is named before the settings)
expect_grep "compare names the buffer kind on its what-differs line" "$T/ddc.out" \
	"^what differs, most likely to explain a difference: ((interference \(steal and other processes took [^)]*\)|clock \([^)]*\)); )*I/O buffer \(io\.buffer_pages: [^ ].* -> [^ ].*\)$"
run_bc "$T/ddx" run io -q --force --time 0 --warmup 0 --events 1 path="$DDD" file_size=64M files=shared \
	engine=psync rw=read block_size=100K
rmdir "$DDD"

# --- allocate = true: dd's write to a new file (issue 52) ---------------------
# dd oflag=direct to a new file allocates as it writes (on xfs 689 MB/s where the
# same stream over a laid-out file ran at 1092); io's default overwrites the file
# it laid out. allocate = true writes a new, unnamed file (O_TMPFILE) per thread.
# Seen from outside: the case's open file in the directory, unnamed ("#N
# (deleted)"), its blocks growing while the case runs; nothing left after.
mkdir "$D/al"
"$BC" run io -q --force --time 3 --warmup 0 --report-interval 0 path="$D/al" file_size=1G rw=write \
	engine=psync block_size=100K allocate=true -o "$T/al.json" >"$T/al.out" 2>"$T/al.err" </dev/null &
albc=$!
# alfile: the case's descriptor of a file in $D/al (the case is benchcore's child)
alfile() { local p f; for p in $(pgrep -P $albc); do for f in /proc/$p/fd/*; do
	case "$(readlink "$f" 2>/dev/null)" in "$D/al/#"*" (deleted)") echo "$f"; return 0;; esac; done; done; return 1; }
alblocks() { stat -L -c %b "$1" 2>/dev/null; }
# grown: its blocks grew since the last look (a file emptied when full grows again)
grown() { local b; b=$(alblocks "$alf") || return 1; [ "$b" -gt "$allast" ] && return 0; allast=$b; return 1; }
alf=""; until_seen 200 alfile >/dev/null && alf=$(alfile)
allast=$( [ -n "$alf" ] && alblocks "$alf")
check "allocate: the case writes an unnamed new file in path (${alf:-none seen}: $(readlink "$alf" 2>/dev/null))" test -n "$alf" -a -n "$allast"
check "allocate: its blocks grow as it is written (from ${allast:-?} 512-byte blocks)" until_seen 100 grown
wait $albc; RC=$?
expect_rc "allocate = true, rw = write runs" 0
expect_py "allocate: the case records the new file written as it went (params and info.write_file)" "$T/al.json" \
	"(lambda c: c['status'] == 'ok' and c['params']['allocate'] is True and c['info']['write_file'].startswith('new, allocated as written (allocate = true)') and c['ops']['write']['count'] > 0)(d['cases'][0])"
expect_py "allocate: the file system written is recorded (host.io)" "$T/al.json" \
	"d['host']['io']['path'] == '$D/al' and d['host']['io']['fs_type'] != ''"
check "allocate: nothing is left in path" test -z "$(ls -A "$D/al")"
run_bc "$T/al2" run io $S path="$D/al" file_size=8M rw=write engine=psync block_size=100K -o "$T/al2.json"
expect_py "allocate = false (the default): the case records an overwrite of a laid-out file" "$T/al2.json" \
	"d['cases'][0]['info']['write_file'] == 'laid out first, overwritten in place (allocate = false)'"
run_bc "$T/al3" run io $S path="$D/al" file_size=8M rw=read allocate=true -o "$T/al3.json"
expect_rc "allocate = true with rw = read fails its case" 1
expect_py "allocate with a read: the reason says what allocate needs" "$T/al3.json" \
	"d['cases'][0]['error']['message'].startswith('allocate = true needs rw = write') and d['cases'][0]['error']['hint']"
if [ "${BC_QUICK:-0}" = 1 ]; then echo "QUICK: io allocate = true against dd to a new file, within 15% (1 check): make check-full"
elif [ "${SAN:-0}" = 1 ]; then echo "SKIP: io allocate = true against dd within 15%: a figure, judged on the plain build (ASan's io read 0.747 of dd beside another script)"; else
	# dd bs=100K oflag=direct to a new file against io allocate = true on the same
	# directory, the whole 128 MiB once each, interleaved over 15 rounds (dd first
	# in every other one), every run SCHED_FIFO where allowed; the median of the
	# rounds' ratios is judged (bench/io_allocate.sh prints the same with the
	# overwrite beside it). A shared virtual disk swings single runs of either
	# by 30% and more (rounds of 128 MiB at load 18: io/dd 0.83 to 1.41, no lean
	# either way): 7 rounds of 64 MiB gave medians of 1.04 to 1.18, 11 rounds of
	# 128 MiB 1.02 to 1.21; dd's fill from /dev/zero is 2% of its time
	aln=1310
	for r in $(seq 15); do
		for k in $([ $((r % 2)) = 1 ] && echo "dd io" || echo "io dd"); do
			if [ $k = dd ]; then
				$RT dd if=/dev/zero of="$D/al/dd.new" bs=100K count=$aln oflag=direct 2>"$T/aln.dd.$r.txt"
				rm -f "$D/al/dd.new"
			else
				$RT "$BC" run io -q --force --time 0 --warmup 0 --report-interval 0 --events $aln path="$D/al" \
					file_size=$((aln * 100))K engine=psync rw=write block_size=100K allocate=true \
					-o "$T/aln.io.$r.json" >/dev/null 2>&1
			fi
		done
	done
	alr=$("$PY" -S - "$T" <<'PYEOF'
import json, re, statistics, sys
t = sys.argv[1]
def dd(r):
    m = re.search(r"^(\d+) bytes.*copied, ([0-9.e+-]+) s", open("%s/aln.dd.%d.txt" % (t, r)).read(), re.M)
    return int(m.group(1)) / 1e6 / float(m.group(2))
def io(r):
    return json.load(open("%s/aln.io.%d.json" % (t, r)))["cases"][0]["metrics"]["mb_per_sec"]["value"]
print("%.3f" % statistics.median(io(r) / dd(r) for r in range(1, 16)))
PYEOF
)
	check "allocate = true: io's write within 15% of dd's to a new file (median io/dd over 15 rounds: ${alr:-none}, ${RT:-no chrt})" \
		"$PY" -S -c "import sys; sys.exit(not 0.85 <= float(sys.argv[1]) <= 1.15)" "${alr:-0}"
fi
rmdir "$D/al"

# --- keep, reuse, verify -----------------------------------------------------
run_bc "$T/vw" run io $S $COMMON files=shared rw=randwrite verify=true --keep -o "$T/vw.json"
expect_rc "verify write run" 0
check "keep = true keeps the data file" test -f "$D/benchcore-io.0.dat"
run_bc "$T/vr" run io $S $COMMON files=shared rw=randread verify=true --keep -o "$T/vr.json"
expect_rc "verify read of the kept file runs clean" 0
expect_py "verify read: no errors, file reused" "$T/vr.json" \
	"d['cases'][0]['ops']['read']['errors'] == 0 and d['cases'][0]['ops']['read']['count'] > 0 and 'layout_mib_per_sec' not in d['cases'][0]['info']"
run_bc "$T/kf" run io $S --threads 2 path="$D/benchcore-io.0.dat" file_size=8M rw=randread --keep -o "$T/kf.json"
expect_rc "path = a kept benchcore file, 2 threads share it" 0
# (with keep the run's benchcore-io.lock stays too: stale once the run is over)
check "only the one kept file exists" test "$(ls "$D" | grep -vx benchcore-io.lock)" = benchcore-io.0.dat
# Corrupt one byte inside the data region (the trailer stays intact).
printf 'X' | dd of="$D/benchcore-io.0.dat" bs=1 seek=$((4096 * 3 + 100)) conv=notrunc status=none
run_bc "$T/vc" run io $S --time 2 $COMMON files=shared rw=read block_size=4K verify=true --keep -o "$T/vc.json"
expect_rc "verify detects a corrupted block: case fails" 1
expect_py "failure names verify and the offset" "$T/vc.json" \
	"d['cases'][0]['status'] == 'failed' and 'verify' in d['cases'][0]['reason'] and '12288' in d['cases'][0]['reason']"
expect_py "the bad block is counted as a verify error" "$T/vc.json" \
	"d['cases'][0]['ops']['read']['error_kinds'].get('verify', 0) >= 1"
run_bc "$T/cl" run io $S --time 0.3 $COMMON files=shared rw=randread -o "$T/cl.json"
check "without keep the kept file is removed at the end" test ! -e "$D/benchcore-io.0.dat"

# --- a worker that fails mid-run fails the case, naming its thread -----------
# The file shrinks under a running read: O_DIRECT reads past the end come back
# short. (Cut to 4 KiB, the file has no trailer left: removed by hand.)
mkdir "$D/tr"
run_bc "$T/tr0" run io $S --time 0.3 path="$D/tr" file_size=8M files=shared --keep
# (cut once the window is open, its first interval report printed: a fixed
# sleep cut a loaded machine's file before the case had read it)
"$BC" run io --force --time 20 --warmup 0 --report-interval 0.1 path="$D/tr/benchcore-io.0.dat" \
	file_size=8M rw=randread -o "$T/tr.json" >"$T/tr.out" 2>"$T/tr.err" </dev/null &
pid=$!
until_seen 300 grep -q 'thds:' "$T/tr.err"; truncate -s 4096 "$D/tr/benchcore-io.0.dat"; wait "$pid"; RC=$?
expect_rc "a read that comes back short fails the case" 1
expect_py "reason: thread_run: thread 0: the failed read, from the host's error()" "$T/tr.json" \
	"(lambda c: c['status'] == 'failed' and c['reason'].startswith('thread_run: thread 0: read of 4096 bytes at offset ') and c['reason'].endswith('failed: short transfer (0 bytes): the file is shorter than laid out (cut by another process?)') and c['error']['thread'] == 0)(d['cases'][0])"
expect_py "the failing case ended at once, not after --time 20" "$T/tr.json" \
	"d['cases'][0]['duration_s'] < 10"
rm -rf "$D/tr"

# --- a write that fills the file system names it ---------------------------
# An 8 MiB tmpfs, a new 4 MiB file written in 192 KiB blocks (allocate =
# true: truncated and written anew each pass), and once the window is open a
# file that leaves it 3 MiB + 64 KiB: the write that crosses the end comes
# back short, as a full btrfs or ext4 gives it (then ENOSPC), and the reason
# says the file system is full, not only "short transfer".
if [ "$(id -u)" = 0 ] && mkdir "$T/full" && mount -t tmpfs -o size=8M benchcore-test "$T/full" 2>/dev/null; then
	FULL=$T/full; mkdir "$FULL/d"
	"$BC" run io --time 20 --warmup 0 --report-interval 0.1 path="$FULL/d" file_size=4M allocate=true \
		direct=false rw=write block_size=192K -o "$T/full.json" >"$T/full.out" 2>"$T/full.err" </dev/null &
	pid=$!
	until_seen 300 grep -q 'thds:' "$T/full.err"
	# (the fill is taken when the case's file is short enough: right after a pass; the
	# case is stopped while it is tried: a fallocate that fails holds the pages it got
	# until it gives up, and a case write meanwhile came back short while the file
	# system was full only for that moment, so its reason rightly said no more)
	for i in $(seq 2000); do
		kids=$(pgrep -P "$pid"); [ -n "$kids" ] && kill -STOP $kids
		fallocate -l $((5 * 1024 * 1024 - 64 * 1024)) "$FULL/fill" 2>/dev/null; ok=$?
		[ -n "$kids" ] && kill -CONT $kids; kids=""
		[ $ok = 0 ] && break
		sleep 0.01
	done
	wait "$pid"; RC=$?
	expect_rc "a write that fills the file system fails the case" 1
	expect_py "its reason: the short write, and the file system full (less than a block free)" "$T/full.json" \
		"(lambda r: 'write of 196608 bytes at offset ' in r and 'failed: short transfer (' in r and r.endswith('No space left on device (the file system has less than a block free)'))(d['cases'][0]['reason'])"
	umount "$FULL" && FULL=""
else
	pass "a write that fills the file system: skipped (needs root and a tmpfs mount)"
fi

# --- Ctrl-C: during the layout and during the measurement ------------------
# (each SIGINT sent once the phase it names is under way, seen from outside:
# the data file there, the first interval report printed; a fixed sleep sent a
# loaded machine's before the layout began)
ctrl_c() {	# name, what to wait for (a command), args...
	local n=$1 cond=$2; shift 2
	"$BC" run io --force --report-interval 0.1 "$@" -o "$T/$n.json" >"$T/$n.out" 2>"$T/$n.err" </dev/null &
	local pid=$!
	until_seen 300 eval "$cond"; kill -INT "$pid"; wait "$pid"; RC=$?
}
ctrl_c ci1 'ls "$D" | grep -q "^benchcore-io\.0\.dat$"' --time 5 path="$D" file_size=3G rw=randread
expect_rc "Ctrl-C during layout: exit 130" 130
check "Ctrl-C during layout: partial file removed" test -z "$(ls "$D")"
ctrl_c ci2 'grep -q "thds:" "$T/ci2.err"' --time 20 --warmup 0 path="$D" file_size=8M rw=randwrite
expect_rc "Ctrl-C during the measurement: exit 130" 130
check "Ctrl-C during the measurement: files removed" test -z "$(ls "$D")"

# --- a foreign file at the target name is never touched ------------------
head -c 100000 /dev/urandom > "$D/benchcore-io.0.dat"
sum0=$(sha256sum < "$D/benchcore-io.0.dat"); m0=$(stat -c %Y "$D/benchcore-io.0.dat")
run_bc "$T/ff" run io $S $COMMON rw=randwrite -o "$T/ff.json"
expect_rc "foreign file at the target name: case fails" 1
expect_grep "refusal names the file and says why" "$T/ff.out" \
	"benchcore-io\.0\.dat.*not created by benchcore"
expect_py "refusal: the promise as error.detail, the remedy as error.hint" "$T/ff.json" \
	"(lambda e: 'never writes, truncates or removes' in e['detail'] and e['hint'].startswith('move the file away') and 'Hint' not in d['cases'][0]['reason'])(d['cases'][0]['error'])"
expect_grep "text output prints the detail on its own line" "$T/ff.out" "^ *detail: benchcore never writes"
expect_grep "text output prints the hint on its own line" "$T/ff.out" "^ *hint: move the file away"
check "foreign file unchanged (checksum, mtime)" test "$(sha256sum < "$D/benchcore-io.0.dat") $(stat -c %Y "$D/benchcore-io.0.dat")" = "$sum0 $m0"
run_bc "$T/fp" run io $S path="$D/benchcore-io.0.dat" file_size=8M rw=randwrite -o "$T/fp.json"
expect_rc "path = a foreign regular file: case fails" 1
expect_grep "refusal for path = foreign file" "$T/fp.out" "existing file that benchcore did not create"
check "foreign file still unchanged" test "$(sha256sum < "$D/benchcore-io.0.dat")" = "$sum0"
# Same name as a symlink to another file: refused, target untouched.
rm -f "$D/benchcore-io.0.dat"; echo precious > "$T/victim"; ln -s "$T/victim" "$D/benchcore-io.0.dat"
run_bc "$T/sl" run io $S $COMMON rw=randwrite -o "$T/sl.json"
expect_rc "symlink at the target name: case fails" 1
check "symlink target untouched" test "$(cat "$T/victim")" = precious
rm -f "$D/benchcore-io.0.dat"

# --- tmpfs with direct = true ------------------------------------------------
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
	run_bc "$T/tf" run io $S path=/dev/shm file_size=1M -o "$T/tf.json"
	# found by needs() in the plan (issue 42): a configuration error before anything runs
	expect_rc "tmpfs + direct: refused in the plan" 2
	expect_grep "tmpfs: clear message, naming the path and tmpfs" "$T/tf.err" "direct = true, but direct I/O is not supported at \"/dev/shm\""
	expect_grep "tmpfs: why, as the detail" "$T/tf.err" "^DETAIL: it is on tmpfs"
	expect_grep "tmpfs: the remedy as a hint line" "$T/tf.err" "^HINT: set direct = false"
	check "tmpfs: nothing ran, no results file" test ! -e "$T/tf.json"
	expect_no_grep "tmpfs: no raw EINVAL" "$T/tf.err" "Invalid argument"
	M=$(mktemp -d /dev/shm/bc-io-test.XXXXXX)
	run_bc "$T/tb" run io $S path="$M" file_size=1M direct=false -o "$T/tb.json"
	expect_rc "tmpfs + direct = false runs" 0
	check "tmpfs files removed" test -z "$(ls "$M")"
	rm -rf "$M"
fi

# --- block devices -----------------------------------------------------------
dev=$(awk '$5 == "/" { for (i = 7; $i != "-"; i++); print $(i + 2) }' /proc/self/mountinfo | tail -1)
if [ -b "$dev" ]; then
	run_bc "$T/bd" run io $S path="$dev" -o "$T/bd.json"
	expect_rc "block device without allow_device: case fails" 1
	expect_grep "device refusal" "$T/bd.out" "reason: init: refusing to use block device"
	expect_grep "device refusal: hint names allow_device" "$T/bd.out" "^ *hint: set allow_device = true"
	run_bc "$T/bm" run io $S path="$dev" allow_device=true -o "$T/bm.json"
	expect_rc "mounted block device with allow_device: case fails" 1
	expect_grep "mounted device refused always" "$T/bm.out" "is mounted at"
	expect_py "mounted device: hint names a directory under the mount point" "$T/bm.json" \
		"d['cases'][0]['error']['hint'].startswith('set path to a directory under')"
else
	pass "block device tests skipped: no block device behind /"
fi

# --- option validation by the core, from the options table -----------------
for bad in "rw=randomread" "block_size=100" "iodepth=0" "rwmix_read=101" "direct=maybe" "file_size=1K"; do
	run_bc "$T/bo" run io $S $COMMON "$bad"
	expect_rc "bad option $bad: usage error" 2
	expect_grep "bad option $bad: message names it" "$T/bo.err" "${bad%%=*}"
done
run_bc "$T/bs" run io $S $COMMON block_size=1000
expect_rc "block_size not a multiple of 512 with direct: case fails" 1
expect_grep "block_size/direct message" "$T/bs.out" "multiple of 512"
check "nothing left behind" test -z "$(ls "$D")"

# --- not enough free space for the data files: skipped with the reason, nothing created
run_bc "$T/big" run io path=$D file_size=1000T --time 0.2 --warmup 0 -q -o "$T/big.json"
expect_rc "too big for the disk: a skip, not a failure" 0
# (the module's needs(), checked before the plan is shown, stops it before init)
expect_py "too big for the disk: skipped, says how much is needed and free" "$T/big.json" \
	'd["cases"][0]["status"]=="skipped" and "io needs 1000.0 TiB at " in d["cases"][0]["reason"] and " free" in d["cases"][0]["reason"]'
expect_py "too big for the disk: the reason says what to lower" "$T/big.json" \
	'"lower file_size" in d["cases"][0]["reason"]'
run_bc "$T/bigf" run io path=$D file_size=1000T --time 0.2 --warmup 0 -q --force-module -o "$T/bigf.json"
expect_py "too big for the disk, --force-module: io's own check still refuses it, with its hint" "$T/bigf.json" \
	'd["cases"][0]["status"]=="skipped" and "not enough free space" in d["cases"][0]["reason"] and d["cases"][0]["error"]["hint"] == "lower file_size"'
check "too big for the disk: no file created" test -z "$(ls $D | grep benchcore-io)"

# --- one run at a time per directory: a second run is refused, the first keeps its files
mkdir -p $T/shared
# (the first run's window, 8 s, outlasts the second run's start on a loaded machine,
# where a start takes seconds: with 2 s the first had ended before the second looked)
"$BC" run io path=$T/shared file_size=1M block_size=4K direct=false --time 8 --warmup 0 -q -o $T/lk1.json >$T/lk1.out 2>$T/lk1.err &
lk1=$!
until_seen 300 test -e $T/shared/benchcore-io.lock -a -e $T/shared/benchcore-io.0.dat
run_bc $T/lk2 run io path=$T/shared file_size=1M block_size=4K direct=false --time 0.1 --warmup 0 -q -o $T/lk2.json
check "the first run was still running when the second ended" kill -0 $lk1
expect_rc "a second io run on a directory in use fails its case" 1
expect_py "it names the other run and leaves its files alone" $T/lk2.json \
	'"another benchcore run is using" in d["cases"][0]["reason"] and d["cases"][0]["status"]=="failed"'
wait $lk1; RC=$?
expect_rc "the first run is not disturbed" 0
expect_py "and measured its whole window" $T/lk1.json 'd["cases"][0]["status"]=="ok" and d["cases"][0]["duration_s"] >= 8 - 0.001'
check "afterwards: no data files and no lock left" test -z "$(ls -A $T/shared)"
run_bc $T/lk3 run io path=$T/shared file_size=1M block_size=4K direct=false --time 0.1 --warmup 0 -q -o $T/lk3.json
expect_rc "a stale lock (its run is over) does not block the next run" 0
