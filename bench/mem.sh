#!/usr/bin/env bash
# mem parity: `benchcore run mem` against `sysbench memory` on equal settings
# (seq access, global scope as sysbench's default, no total size so time
# bounds both), read and write, 4K and 1M blocks, 1 and 2 threads. Each
# point runs sysbench, then benchcore as shipped (width=vector: 32-byte
# accesses), then benchcore width=word (sysbench's own 8-byte accesses, the
# strict same-work check). Target: MiB/s ratio >= 0.97 for both columns.
# Then the physical ceilings measured with buffers 4x larger than the LLC.
#   bench/mem.sh            (TIME=5 s per run; THREADS="1 2"; BLOCKS="4K 1M"; OPERS="read write")
. "$(dirname "$0")/lib.sh"
TIME=${TIME:-5}
THREADS=${THREADS:-1 2}
BLOCKS=${BLOCKS:-4K 1M}
OPERS=${OPERS:-read write}
machine
echo "# mem seq, scope=global, $TIME s per run; target: benchcore/sysbench MiB/s >= 0.97"
printf '%-6s %-6s %-4s %12s %12s %7s %6s %12s %7s %6s\n' oper block thr sysbench bc_vector ratio target bc_word ratio target
for oper in $OPERS; do
for blk in $BLOCKS; do
for n in $THREADS; do
	sb=$(sysbench memory --memory-block-size="$blk" --memory-oper="$oper" \
		--memory-access-mode=seq --memory-scope=global --memory-total-size=0 \
		--threads="$n" --time="$TIME" run)
	sb_mib=$(echo "$sb" | sed -n 's/.*MiB transferred (\([0-9.]*\) MiB\/sec).*/\1/p')
	common=(mem block_size="$blk" oper="$oper" access=seq scope=global --threads "$n"
		--time "$TIME" --warmup "$WARMUP")
	bc_run "$BENCH_TMP/v.json" "${common[@]}" width=vector || exit 1
	bc_run "$BENCH_TMP/w.json" "${common[@]}" width=word || exit 1
	v=$(bc_get "$BENCH_TMP/v.json" 'c["metrics"]["mib_per_sec"]["value"]')
	w=$(bc_get "$BENCH_TMP/w.json" 'c["metrics"]["mib_per_sec"]["value"]')
	rv=$(ratio "$v" "$sb_mib"); judge "$rv" 0.97; vv=$V
	rw=$(ratio "$w" "$sb_mib"); judge "$rw" 0.97; vw=$V
	printf '%-6s %-6s %-4s %12.1f %12.1f %7s %6s %12.1f %7s %6s\n' "$oper" "$blk" "$n" \
		"$sb_mib" "$v" "$rv" "$vv" "$w" "$rw" "$vw"
done
done
done

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
