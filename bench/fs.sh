#!/usr/bin/env bash
# File systems under test (issue 50's closing figures): io's 4K randrw at iodepth 16 and 1M
# sequential read and write (O_DIRECT, one 1 GiB file) on ext4, xfs and btrfs, each made by
# machine.fs on a sparse loop image (fs_device = image:DIR:SIZE), one run per file system; the
# time mkfs and the mount cost (each case's fs record); compare's verdicts of xfs and btrfs
# against ext4 (--match-ignore machine.fs: the runs differ in that setting only).
#   bench/fs.sh            TIME=10 REPEAT=3 SIZE=3G DIR=/var/tmp TYPES="ext4 xfs btrfs" OUT=dir
# benchcore unmounts, detaches and removes what it made; the trap removes the work directory.
set -u
cd "$(dirname "$0")/.." || exit 2
BC=$(realpath "${BC:-./build/benchcore}")
TIME=${TIME:-10} REPEAT=${REPEAT:-3} SIZE=${SIZE:-3G} TYPES=${TYPES:-ext4 xfs btrfs}
[ "$(id -u)" -eq 0 ] || { echo "bench/fs.sh: needs root (loop devices, mkfs, mount)" >&2; exit 2; }
W=$(mktemp -d "${DIR:-/var/tmp}/bc-fsbench.XXXXXX")
OUT=${OUT:-$W}
trap 'rm -rf --one-file-system "$W"' EXIT
echo "# $(uname -r); images on $(findmnt -n -o FSTYPE -T "$W")"
for t in $TYPES; do
	"$BC" run io -q --force --time "$TIME" --warmup 1 --repeat "$REPEAT" --machine fs="$t" \
		--machine fs_device="image:$W:$SIZE" file_size=1G rw=randrw,read,write block_size=4K,1M \
		-o "$OUT/io-$t.json" >"$W/log.$t" 2>&1 || { cat "$W/log.$t"; exit 1; }
	python3 -S - "$OUT/io-$t.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
fs = [c["fs"] for c in d["cases"] if c.get("fs")]
print("%-6s mkfs %.2f s, mount %.2f s (%d cases on it); %s; %s; %s" % (fs[0]["type"],
      sum(f["make_s"] for f in fs) / len(fs), sum(f["mount_s"] for f in fs) / len(fs), len(fs),
      fs[0]["mkfs_version"], fs[0]["mount_options"], fs[0]["device_model"]))
PYEOF
done
for t in $TYPES; do
	[ "$t" = ext4 ] && continue
	echo "## ext4 (A) vs $t (B)"
	"$BC" compare --match-ignore machine.fs "$OUT/io-ext4.json" "$OUT/io-$t.json" 2>&1 |
		grep -E '^case|^ +[0-9]+ +(iops|mib_per_sec) ' | cut -c1-190
done
[ "$OUT" = "$W" ] || echo "# results in $OUT"
