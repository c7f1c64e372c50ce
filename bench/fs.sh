#!/usr/bin/env bash
# File systems under test (issue 50's closing figures), by hand until machine.fs is wired into
# the settings mechanism: for each of ext4, xfs and btrfs, a sparse image in a root-only
# directory, attached to a loop device with direct I/O (losetup --direct-io=on, as fsdev.c's
# LOOP_CONFIGURE does), the file system made with the command fsdev.c runs (ext4's inode
# tables and journal written at mkfs, not lazily after the mount), mounted with defaults; the
# time each step costs; then io's 4K randrw at iodepth 16 and 1M sequential read and write
# (O_DIRECT, one 1 GiB file) on each, and compare's verdicts of xfs and btrfs against ext4.
#   bench/fs.sh            TIME=10 REPEAT=3 SIZE=3G DIR=/var/tmp TYPES="ext4 xfs btrfs"
# Everything is unmounted, detached and removed on exit (trap), whatever happened.
set -u
cd "$(dirname "$0")/.." || exit 2
BC=$(realpath "${BC:-./build/benchcore}")
TIME=${TIME:-10} REPEAT=${REPEAT:-3} SIZE=${SIZE:-3G} TYPES=${TYPES:-ext4 xfs btrfs}
[ "$(id -u)" -eq 0 ] || { echo "bench/fs.sh: needs root (loop devices, mkfs, mount)" >&2; exit 2; }
W=$(mktemp -d "${DIR:-/var/tmp}/bc-fsbench.XXXXXX")
OUT=${OUT:-$W}
cleanup() {
	for m in "$W"/mnt.*; do mountpoint -q "$m" 2>/dev/null && umount "$m"; done
	for b in /sys/block/loop*/loop/backing_file; do
		[ -r "$b" ] && grep -qF "$W/" "$b" && losetup -d "/dev/$(basename "${b%/loop/backing_file}")"
	done
	rm -rf --one-file-system "$W"
}
trap cleanup EXIT
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
echo "# $(uname -r); image on $(findmnt -n -o FSTYPE -T "$W"); mke2fs $(mkfs.ext4 -V 2>&1 | head -1 | cut -d' ' -f2), $(mkfs.xfs -V), $(mkfs.btrfs --version | sed 's/.*part of //')"
printf '%-6s %9s %9s %9s\n' fs mkfs_ms mount_ms umount_ms
for t in $TYPES; do
	truncate -s "$SIZE" "$W/img.$t"
	dev=$(losetup -f --show --direct-io=on "$W/img.$t") || exit 1
	case $t in
	ext4) mk="mkfs.ext4 -F -E lazy_itable_init=0,lazy_journal_init=0" ;;
	xfs) mk="mkfs.xfs -f" ;;
	btrfs) mk="mkfs.btrfs -f" ;;
	esac
	t0=$(date +%s%N); $mk "$dev" >/dev/null 2>&1 || { echo "mkfs $t failed" >&2; exit 1; }; mk_ms=$(ms $t0)
	mkdir -m 0700 "$W/mnt.$t"
	t0=$(date +%s%N); mount -t "$t" "$dev" "$W/mnt.$t" || exit 1; mnt_ms=$(ms $t0)
	"$BC" run io -q --force --time "$TIME" --warmup 1 --repeat "$REPEAT" path="$W/mnt.$t" \
		file_size=1G rw=randrw block_size=4K iodepth=16 -o "$OUT/io-4k-$t.json" >"$W/log.$t" 2>&1 || cat "$W/log.$t"
	"$BC" run io -q --force --time "$TIME" --warmup 1 --repeat "$REPEAT" path="$W/mnt.$t" \
		file_size=1G rw=read,write block_size=1M -o "$OUT/io-1m-$t.json" >>"$W/log.$t" 2>&1 || cat "$W/log.$t"
	t0=$(date +%s%N); umount "$W/mnt.$t"; um_ms=$(ms $t0)
	losetup -d "$dev" 2>/dev/null; rm -f "$W/img.$t"
	printf '%-6s %9s %9s %9s\n' "$t" "$mk_ms" "$mnt_ms" "$um_ms"
done
for t in $TYPES; do
	[ "$t" = ext4 ] && continue
	for k in 4k 1m; do
		echo "## $k: ext4 (baseline) vs $t"
		"$BC" compare "$OUT/io-$k-ext4.json" "$OUT/io-$k-$t.json" 2>&1 | sed -n '1,20p'
	done
done
[ "$OUT" = "$W" ] || echo "# results in $OUT"
