#!/usr/bin/env bash
# mem parity: `benchcore run mem` against `sysbench memory` on equal settings
# (seq access, global scope as sysbench's default, no total size so time
# bounds both), read and write, 4K and 1M blocks, 1 and 2 threads. Each
# point runs sysbench, then benchcore as shipped (width=auto), then
# benchcore width=word (sysbench's own 8-byte accesses, the strict same-work
# check). Target: MiB/s ratio >= 0.97 for both columns.
# Runs are interleaved (sysbench, benchcore, benchcore word, next point, ...)
# ROUNDS times; the ratio is the median of the per-round ratios, because two
# threads writing one shared block swing 2-3x with where the hypervisor puts
# the vCPUs, and each round's three runs are seconds apart.
# Then the physical ceilings measured with buffers 4x larger than the LLC.
#   bench/mem.sh    (TIME=3 s per run; ROUNDS=5; THREADS="1 2"; BLOCKS="4K 1M"; OPERS="read write")
. "$(dirname "$0")/lib.sh"
TIME=${TIME:-3}
ROUNDS=${ROUNDS:-5}
THREADS=${THREADS:-1 2}
BLOCKS=${BLOCKS:-4K 1M}
OPERS=${OPERS:-read write}
machine
echo "# mem seq, scope=global, $TIME s per run, $ROUNDS interleaved rounds; target: benchcore/sysbench MiB/s >= 0.97"
W=$BENCH_TMP/rounds
: >"$W"
for r in $(seq 1 "$ROUNDS"); do
for oper in $OPERS; do
for blk in $BLOCKS; do
for n in $THREADS; do
	sb=$(sysbench memory --memory-block-size="$blk" --memory-oper="$oper" \
		--memory-access-mode=seq --memory-scope=global --memory-total-size=0 \
		--threads="$n" --time="$TIME" run)
	sb_mib=$(echo "$sb" | sed -n 's/.*MiB transferred (\([0-9.]*\) MiB\/sec).*/\1/p')
	common=(mem block_size="$blk" oper="$oper" access=seq scope=global --threads "$n"
		--time "$TIME" --warmup "$WARMUP")
	bc_run "$BENCH_TMP/v.json" "${common[@]}" || exit 1
	bc_run "$BENCH_TMP/w.json" "${common[@]}" width=word || exit 1
	v=$(bc_get "$BENCH_TMP/v.json" 'c["metrics"]["mib_per_sec"]["value"]')
	vw=$(bc_get "$BENCH_TMP/v.json" 'c["info"]["width"]')
	w=$(bc_get "$BENCH_TMP/w.json" 'c["metrics"]["mib_per_sec"]["value"]')
	echo "$oper $blk $n $sb_mib $v $vw $w" >>"$W"
done
done
done
echo "round $r of $ROUNDS done"
done

python3 - "$W" >"$BENCH_TMP/table" <<'PY'
import statistics as st, sys
rows = {}
for line in open(sys.argv[1]):
    oper, blk, n, sb, v, vw, w = line.split()
    rows.setdefault((oper, blk, n), []).append((float(sb), float(v), vw, float(w)))
print("%-6s %-6s %-4s %10s %10s %-7s %7s %10s %7s   %s" % ("oper", "block", "thr", "sysbench",
      "bc auto", "(width)", "ratio", "bc word", "ratio", "per-round ratios auto | word"))
for (oper, blk, n), rs in rows.items():
    ra = st.median(v / sb for sb, v, _, _ in rs)
    rw = st.median(w / sb for sb, _, _, w in rs)
    print("%-6s %-6s %-4s %10.1f %10.1f %-7s %7.3f %10.1f %7.3f   %s | %s" % (oper, blk, n,
          st.median(r[0] for r in rs), st.median(r[1] for r in rs), "(" + rs[0][2] + ")", ra,
          st.median(r[3] for r in rs), rw,
          " ".join("%.2f" % (v / sb) for sb, v, _, _ in rs),
          " ".join("%.2f" % (w / sb) for sb, _, _, w in rs)))
    print("RATIO %.4f\nRATIO %.4f" % (ra, rw))
PY
table_judge "$BENCH_TMP/table" 0.97
echo "(MiB/s columns are medians; a ratio is the median of the per-round ratios)"

# The ceiling: what the memory itself delivers once the caches cannot help.
# Buffers of 4x the last-level cache per thread, local scope.
llc=$(for d in /sys/devices/system/cpu/cpu0/cache/index*; do
	[ "$(cat "$d/type")" = Instruction ] || echo "$(cat "$d/level") $(cat "$d/size")"; done |
	sort -n | tail -1 | awk '{print $2}')
llc_b=$(python3 -c 'import sys; s=sys.argv[1]; m={"K":1<<10,"M":1<<20,"G":1<<30}; print(int(s[:-1])*m[s[-1]] if s[-1] in m else int(s))' "${llc:-32M}")
big=$((llc_b * 4 / 1048576))M
echo
echo "# physical ceiling (LLC ${llc:-unknown}; buffers of $big per thread, scope=local, hugepages=true)"
printf '%-44s %-4s %12s\n' measurement thr MiB/s
for n in $THREADS; do
	bc_run "$BENCH_TMP/c.json" mem oper=copy block_size="$big" scope=local hugepages=true \
		--threads "$n" --time "$TIME" --warmup "$WARMUP" || exit 1
	printf '%-44s %-4s %12.1f\n' "memcpy of $big blocks (bytes copied)" "$n" \
		"$(bc_get "$BENCH_TMP/c.json" 'c["metrics"]["mib_per_sec"]["value"]')"
	bc_run "$BENCH_TMP/r.json" mem oper=read block_size=1M buffer_size="$big" scope=local \
		hugepages=true --threads "$n" --time "$TIME" --warmup "$WARMUP" || exit 1
	printf '%-44s %-4s %12.1f\n' "seq read, 1M blocks through $big" "$n" \
		"$(bc_get "$BENCH_TMP/r.json" 'c["metrics"]["mib_per_sec"]["value"]')"
	bc_run "$BENCH_TMP/wr.json" mem oper=write block_size=1M buffer_size="$big" scope=local \
		hugepages=true --threads "$n" --time "$TIME" --warmup "$WARMUP" || exit 1
	printf '%-44s %-4s %12.1f\n' "seq write, 1M blocks through $big" "$n" \
		"$(bc_get "$BENCH_TMP/wr.json" 'c["metrics"]["mib_per_sec"]["value"]')"
done
echo "# sysbench's figures above exceed these ceilings whenever its block fits in a cache."
finish
