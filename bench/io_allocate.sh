#!/usr/bin/env bash
# io's sequential O_DIRECT write against dd's, both ways a file can be written
# (issue 52): to a new file, allocated as it is written (dd to a new file, as
# the cloud study does; io allocate = true), and over a file written before
# (dd conv=notrunc; io allocate = false, its default, on the file it laid out).
#
#   bench/io_allocate.sh          ROUNDS=5 MIB=256 DIR=/var/tmp/benchcore-bench-alloc
#   WRAP="chrt -f 1" bench/io_allocate.sh   every run under a prefix (SCHED_FIFO)
#
# One stream, 100K blocks, the whole MIB once (--events N, dd count=N). Runs are
# interleaved (dd new, io allocate, dd notrunc, io overwrite, ...) ROUNDS times,
# since a shared or virtual disk drifts; the median of each is printed with the
# ratios io / dd. Target: io allocate = true within 15% of dd to a new file.
# dd fills its buffer from /dev/zero before each block (a memset, ~20 us a 100K
# block on the reference VM), which io does not: dd is a little slower on that
# count whichever way it writes.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-5}
MIB=${MIB:-256}
DIR=${DIR:-/var/tmp/benchcore-bench-alloc}
N=$((MIB * 1048576 / 102400))	# whole 100K blocks
SIZE=$((N * 100))K

mkdir -p "$DIR"
fstype=$(df --output=fstype "$DIR" | tail -1 | tr -d " ")
case $fstype in tmpfs|ramfs) echo "bench/io_allocate.sh: $DIR is on $fstype; set DIR to a directory on a disk" >&2; exit 2;; esac
machine
echo "# target: $DIR ($fstype); $N blocks of 100K ($MIB MiB) once, $ROUNDS rounds, every run under: ${WRAP:-nothing}"
KEEP=$DIR/keep; mkdir -p "$KEEP"
trap '"$BC" run io -q --force --time 0 --warmup 0 --events 1 path="$KEEP" file_size=$SIZE engine=psync rw=read \
	block_size=100K -o "$BENCH_TMP/clean.json" >/dev/null 2>&1 || true; rm -f "$DIR"/dd-new.* "$DIR/dd-old"
	rmdir "$KEEP" "$DIR" 2>/dev/null || true; rm -rf "$BENCH_TMP"' EXIT
# the overwrite's files, written once: io's laid-out file (kept), dd's own
"$BC" run io -q --force --keep --time 0 --warmup 0 --events 1 path="$KEEP" file_size=$SIZE engine=psync \
	rw=read block_size=100K -o "$BENCH_TMP/layout.json" >/dev/null 2>&1
dd if=/dev/zero of="$DIR/dd-old" bs=100K count=$N oflag=direct status=none

dd_mbs() { sed -nE 's/^([0-9]+) bytes.*copied, ([0-9.e+-]+) s.*/\1 \2/p' "$1" | awk '{ printf "%.1f\n", $1 / $2 / 1e6 }'; }
io_run() {	# out.json path allocate (the laid-out file kept for the next round; a new file has nothing to keep)
	local keep=--keep; [ "$3" = true ] && keep=
	${WRAP:-} "$BC" run io -q --force $keep --time 0 --warmup 0 --report-interval 0 --events $N path="$2" \
		file_size=$SIZE engine=psync direct=true rw=write block_size=100K allocate="$3" \
		-o "$1" >/dev/null 2>>"$BENCH_TMP/bc.log"
	bc_get "$1" "'%.1f' % c['metrics']['mb_per_sec']['value'] if c['status'] == 'ok' else 'failed: ' + c['reason']"
}
: >"$BENCH_TMP/rows"
for r in $(seq "$ROUNDS"); do
	${WRAP:-} dd if=/dev/zero of="$DIR/dd-new.$r" bs=100K count=$N oflag=direct 2>"$BENCH_TMP/ddn.$r"
	rm -f "$DIR/dd-new.$r"
	a=$(io_run "$BENCH_TMP/alloc.$r.json" "$DIR" true)
	${WRAP:-} dd if=/dev/zero of="$DIR/dd-old" bs=100K count=$N oflag=direct conv=notrunc 2>"$BENCH_TMP/ddo.$r"
	o=$(io_run "$BENCH_TMP/over.$r.json" "$KEEP/benchcore-io.0.dat" false)
	echo "$(dd_mbs "$BENCH_TMP/ddn.$r") $a $(dd_mbs "$BENCH_TMP/ddo.$r") $o" >>"$BENCH_TMP/rows"
	echo "round $r: MB/s dd new $(dd_mbs "$BENCH_TMP/ddn.$r"), io allocate $a, dd notrunc $(dd_mbs "$BENCH_TMP/ddo.$r"), io overwrite $o"
done
# medians of the figures, and of the ratios within a round (the disk drifts between rounds)
read -r dn ia do io_ ra ro rd ri <<<"$(python3 -c 'import statistics as s, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
m = lambda f: s.median(f(r) for r in rows)
print(*("%.1f" % m(lambda r: r[i]) for i in range(4)), *("%.3f" % m(f) for f in (
      lambda r: r[1] / r[0], lambda r: r[3] / r[2], lambda r: r[0] / r[2], lambda r: r[1] / r[3])))' "$BENCH_TMP/rows")"
echo
echo "medians over $ROUNDS rounds (MB/s, 10^6 bytes/s; io/dd: the median of each round's ratio):"
printf "%-34s %8s %8s %7s\n" "write" "dd" "io" "io/dd"
judge "$ra" 0.85 1.15
printf "%-34s %8s %8s %7s %s\n" "new file (allocate = true)" "$dn" "$ia" "$ra" "$V (within 15%)"
printf "%-34s %8s %8s %7s %s\n" "laid out first (allocate = false)" "$do" "$io_" "$ro" "(printed, not judged)"
echo "a new file against an overwrite (median of the rounds' ratios): dd $rd, io $ri"
[ "$MISSES" = 0 ]
