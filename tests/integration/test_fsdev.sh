#!/usr/bin/env bash
# File systems under test (issue 50, core/machine/fsdev.c, machine.fs) on this machine,
# for real: unit/test_fsdev makes ext4, xfs and btrfs on loop images, mounts,
# records and removes them, refuses a spare device (a loop device it attaches
# to its own image) that carries a signature, is mounted or held, and the root
# device, and restores after SIGKILL from the journal. This script runs it in
# a scratch TMPDIR and then looks at the machine itself: nothing mounted
# there, no loop device backed by anything there, no directory left; the
# EXIT trap puts back whatever a failure left (and that is a failure too).
. "$(dirname "$0")/lib.sh"

bin=$BUILD/tests/test_fsdev
leftovers() {	# what is left under $T: mounts, loop devices, private dirs
	grep -F " $T/" /proc/self/mountinfo | awk '{print "mounted: " $5}'
	for b in /sys/block/loop*/loop/backing_file; do
		[ -r "$b" ] && grep -qF "$T/" "$b" && echo "attached: ${b%/loop/backing_file} -> $(cat "$b")"
	done
	find "$T" -maxdepth 2 \( -name '.benchcore-fs.*' -o -name 'bc-fsdev.*' \) 2>/dev/null | sed 's/^/left: /'
}
put_back() {
	for p in /proc/[0-9]*; do	# copies of our mounts in other mount namespaces
		grep -F " $T/" "$p/mountinfo" 2>/dev/null | awk '{print $5}' |
			xargs -r -n1 nsenter -t "${p#/proc/}" -m umount -l 2>/dev/null
	done
	for b in /sys/block/loop*/loop/backing_file; do
		[ -r "$b" ] && grep -qF "$T/" "$b" && swapoff "/dev/$(basename "${b%/loop/backing_file}")" 2>/dev/null
	done
	grep -F " $T/" /proc/self/mountinfo | awk '{print $5}' | sort -r | xargs -r -n1 umount -l
	for b in /sys/block/loop*/loop/backing_file; do
		[ -r "$b" ] && grep -qF "$T/" "$b" && losetup -d "/dev/$(basename "${b%/loop/backing_file}")"
	done
	rm -rf --one-file-system "$T"
}
trap put_back EXIT

if [ "$(id -u)" -ne 0 ] || [ ! -w /dev/loop-control ]; then
	echo "SKIP: making file systems needs root and /dev/loop-control"
	pass "skipped: not root or no loop driver"
	exit 0
fi
TMPDIR=$T "$bin" >$T/unit.out 2>&1
RC=$?
expect_rc "unit/test_fsdev on loop images here" 0
for t in ext4 xfs btrfs; do
	if command -v mkfs.$t >/dev/null || [ -x /usr/sbin/mkfs.$t ] || [ -x /sbin/mkfs.$t ]; then
		expect_grep "$t made, mounted and recorded (its options as mounted)" $T/unit.out "^$t: mkfs [0-9.]+ s, mount [0-9.]+ s, options rw,"
	else
		echo "SKIP: mkfs.$t is not installed (scripts/deps.sh installs it)"
	fi
done
expect_grep "a spare device with ext4 on it and no wipe_device: refused, naming the signature" $T/unit.out \
	'^refused: machine.fs_device: /dev/loop[0-9]+ is refused: it carries TYPE=ext4'
expect_grep "a mounted spare device: refused" $T/unit.out 'is refused: loop[0-9]+ is mounted on '
expect_grep "a spare device that is swap: refused" $T/unit.out 'is refused: loop[0-9]+ is swap space|SKIP: swapon'
expect_grep "the root device: refused" $T/unit.out 'is refused: it is the root or boot device'
expect_grep "killed after the mount: restored (unmounted, removed)" $T/unit.out '^killed at 0, restored: unmounted, .*: removed$'
left=$(leftovers)
check "unit: nothing mounted, attached or left under the scratch directory" test -z "$left"
[ -n "$left" ] && echo "$left"

# --- machine.fs in a run: every type, io's and sys's files there, recorded ---
export BENCHCORE_STATE_DIR=$T/state
types=""
for t in ext4 xfs btrfs; do
	{ command -v mkfs.$t || [ -x /usr/sbin/mkfs.$t ]; } >/dev/null 2>&1 && types="$types${types:+,}$t"
done
img="image:$T:1G"
run_bc $T/io run io --time 0.3 --warmup 0 --machine fs=$types --machine fs_device=$img file_size=16M -o $T/io.json
expect_rc "io on each of $types, one run" 0
expect_py "io: a case per fs, each recording the fs it ran on as mounted" $T/io.json \
	"sorted(c['machine']['fs'] for c in d['cases']) == sorted('$types'.split(',')) and all(c['fs']['type'] == c['machine']['fs'] and c['status'] == 'ok' for c in d['cases'])"
expect_py "io: its files on the file system made (path = the mount point, a loop image on the outer fs)" $T/io.json \
	"all(c['params']['path'] == c['fs']['mount_point'] and c['fs']['device'].startswith('/dev/loop') and c['fs']['image_fs'] and c['fs']['mkfs_version'] and c['fs']['mount_options'].startswith('rw') for c in d['cases'])"
expect_py "io: each fs's record says whether O_DIRECT is taken there (bc_fs_direct_io after each mount): ext4, xfs, btrfs all take it" $T/io.json \
	"all(c['fs']['o_direct'] is True and 'o_direct_refused' not in c['fs'] for c in d['cases'])"
# compare --split machine.fs: one run's file systems as systems, the first configured the baseline
run_bc $T/fssplit compare --split machine.fs $T/io.json
expect_rc "compare --split machine.fs reads the run's file systems as systems" 0
first=${types%%,*} rest=${types#*,}
expect_grep "compare --split machine.fs: the first configured fs the baseline (A)" $T/fssplit.out "^A: .*machine.fs=$first "
expect_grep "compare --split machine.fs: the next one B" $T/fssplit.out "^B: .*machine.fs=${rest%%,*} "
expect_grep "compare --split machine.fs: io's cases matched across them (a metric row A -> B)" $T/fssplit.out \
	"^ +1 +iops +\^ [0-9.]+ -> [0-9.]+ IOPS"
# mkfs once per value change, not per case: 2 option points x 2 fs x 2 rounds = 8 cases
run_bc $T/mk run io --time 0.2 --warmup 0 --repeat 2 --machine fs=ext4,xfs --machine fs_device=$img file_size=16M \
	block_size=4K,64K -o $T/mk.json
expect_rc "io: 2 block sizes on ext4 and xfs, 2 rounds" 0
made=$(grep -cE "^ +machine: (ext4|xfs) made on " $T/mk.out)
changes=$(grep -oE "^\[case [0-9]+\] .*machine\.fs=[a-z0-9]+" $T/mk.out | sed 's/.*machine\.fs=//' | uniq | wc -l)
# (the shuffle may alternate the values at every case: then 8 is right; one round, below, is fixed)
check "mkfs ran once per change of the fs value in the cases' order ($made mkfs, $changes runs of one value, 8 cases)" \
	test "$made" = "$changes"
run_bc $T/mk1 run io --time 0.2 --warmup 0 --machine fs=ext4,xfs --machine fs_device=$img file_size=16M \
	block_size=4K,64K -o $T/mk1.json
check "one round (its order not shuffled): each fs made once for its two cases, not per case" test "$(grep -cE '^ +machine: (ext4|xfs) made on ' $T/mk1.out)" = 2
run_bc $T/sys run sys --time 0.3 --warmup 0 test=file_copy --machine fs=$types --machine fs_device=$img \
	--machine mount_options=noatime -o $T/sys.json
expect_rc "sys file_copy on each of $types" 0
expect_py "sys file_copy: its files on each fs, mounted noatime as asked (mountinfo)" $T/sys.json \
	"len(d['cases']) == len('$types'.split(',')) and all(c['params']['path'] == c['fs']['mount_point'] and ',noatime' in c['fs']['mount_options'] and c['status'] == 'ok' for c in d['cases'])"
run_bc $T/sz run io --time 0.3 --warmup 0 --machine fs=ext4 --machine fs_device=image:$T file_size=16M -o $T/sz.json
expect_py "image:DIR without a size: sized from io's needs() (16M file + 256M for the fs's own)" $T/sz.json \
	"[c['fs']['size_bytes'] for c in d['cases']] == [272 << 20]"
if [ "${BC_QUICK:-0}" = 1 ]; then
	echo "QUICK: oltp on xfs (its private MariaDB's datadir on the fs: 2 checks) left out"
elif ! command -v mariadbd >/dev/null && [ ! -x /usr/sbin/mariadbd ]; then
	echo "SKIP: oltp on xfs: no mariadbd here"
else
	run_bc $T/oltp run oltp --time 3 --warmup 0 --machine fs=xfs --machine fs_device=image:$T:2G warehouses=1 \
		-o $T/oltp.json
	expect_rc "oltp on an xfs image" 0
	expect_py "oltp: the case ran on xfs, recorded as mounted" $T/oltp.json \
		"[(c['fs']['type'], c['status']) for c in d['cases']] == [('xfs', 'ok')]"
fi
run_bc $T/cmp compare --match-ignore machine.fs $T/io.json $T/io.json
expect_rc "compare --match-ignore machine.fs reads the cases" 0
left=$(leftovers)
check "runs: nothing mounted, attached or left after them" test -z "$left"
[ -n "$left" ] && echo "$left"

# --- a mount namespace made while the fs is mounted holds a copy of the mount (another
# program's unshare -m, a container): the teardown unmounts that copy too ---
"$BC" run io --time 3 --warmup 0 --machine fs=ext4 --machine fs_device=$img file_size=16M -o $T/ns.json \
	>$T/ns.out 2>&1 </dev/null &
pid=$!
for _ in $(seq 300); do grep -qF " $T/" /proc/self/mountinfo && break; sleep 0.1; done
unshare -m --propagation private sleep 60 &
holder=$!
wait $pid
RC=$?
expect_rc "io on ext4 while another mount namespace copied the mount" 0
check "the copy in the other namespace was unmounted, the loop device detached" \
	sh -c "! grep -qF ' $T/' /proc/$holder/mountinfo && [ -z \"\$(losetup -a | grep -F '$T/')\" ]"
kill $holder 2>/dev/null
wait $holder 2>/dev/null

# --- the plan refuses before anything changes (exit 2) ---
run_bc $T/bad run io --time 0.1 --machine fs=ntfs
expect_rc "fs = ntfs: refused in the plan" 2
expect_grep "fs = ntfs: the reason" $T/bad.err 'machine.fs: "ntfs" is not a file system benchcore makes'
rootdev=/dev/$(basename "$(readlink -f /sys/dev/block/$(mountpoint -d /))" 2>/dev/null)
if [ -b "$rootdev" ]; then
	run_bc $T/root run io --time 0.1 --machine fs=ext4 --machine fs_device=$rootdev --machine wipe_device=$rootdev
	expect_rc "the root device named twice: refused in the plan" 2
	expect_grep "the root device: the reason" $T/root.err 'is refused: it is the root or boot device'
fi
run_bc $T/small run io --time 0.1 --machine fs=xfs --machine fs_device=image:$T:100M
expect_rc "a 100M xfs image: refused in the plan" 2

# --- a device named in mkfs_options or mount_options (issue 59): mkfs.btrfs takes every path
# after its options as one more device. Two loop devices of this script's own: an ext4 one
# (the victim) and a blank one named twice (fs_device and wipe_device); refused in the plan,
# the victim's ext4 and the blank device untouched, nothing mounted ---
truncate -s 256M $T/victim.img $T/spare.img
mkfs.ext4 -q -F $T/victim.img >/dev/null 2>&1
victim=$(losetup -f --show $T/victim.img)
spare=$(losetup -f --show $T/spare.img)
uuid=$(blkid -p -o value -s UUID "$victim")
run_bc $T/mkdev run cpu --machine fs=btrfs --machine fs_device=$spare --machine wipe_device=$spare \
	--machine mkfs_options=$victim --time 0.3
expect_rc "mkfs_options = $victim (the issue's command): refused in the plan" 2
expect_grep "mkfs_options = a device: the setting and the word named" $T/mkdev.err \
	"machine.mkfs_options: \"$victim\" is refused: it names a path"
run_bc $T/mkop run cpu --machine fs=btrfs --machine fs_device=$spare --machine wipe_device=$spare \
	--machine "mkfs_options=-q $(basename $victim)" --time 0.3
expect_rc "mkfs_options = \"-q loopN\" (an operand without a path): refused" 2
expect_grep "an operand: named, not an option" $T/mkop.err "\"$(basename $victim)\" is refused: not an option"
run_bc $T/mnt run cpu --machine fs=btrfs --machine fs_device=$spare --machine wipe_device=$spare \
	--machine mount_options=noatime,device=$victim --time 0.3
expect_rc "mount_options naming a device (btrfs's device=): refused" 2
expect_grep "mount_options: the setting and the word named" $T/mnt.err \
	"machine.mount_options: \"device=$victim\" is refused: it names a path"
check "the victim's ext4 is intact (same UUID, still ext4)" \
	test "$(blkid -p -o value -s TYPE "$victim")/$(blkid -p -o value -s UUID "$victim")" = "ext4/$uuid"
check "the device named twice was not formatted either" sh -c "! blkid -p $spare >/dev/null 2>&1"
check "nothing mounted from either" sh -c "! grep -qE ' ($victim|$spare) ' /proc/self/mountinfo"
losetup -d "$victim" "$spare"

# --- SIGKILL while the second file system's cases run, then benchcore restore ---
"$BC" run io --time 1 --warmup 0 --repeat 3 --machine fs=ext4,xfs --machine fs_device=$img file_size=16M \
	-o $T/killed.json >$T/killed.out 2>&1 </dev/null &
pid=$!
first="" second=""
for _ in $(seq 600); do
	cur=$(grep -F " $T/" /proc/self/mountinfo | awk '{for (i = 7; i < NF; i++) if ($i == "-") print $(i + 1)}' | head -1)
	[ -n "$cur" ] && [ -z "$first" ] && first=$cur
	[ -n "$cur" ] && [ -n "$first" ] && [ "$cur" != "$first" ] && { second=$cur; break; }
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
check "killed while the second fs ($second, after $first) was mounted" test -n "$second"
check "after SIGKILL: the journal is left for restore" test -s $T/state/journal
check "after SIGKILL: the file system is still mounted (what restore must undo)" grep -qF " $T/" /proc/self/mountinfo
run_bc $T/restore restore
expect_rc "benchcore restore after SIGKILL" 0
left=$(leftovers)
check "after restore: nothing mounted or attached, the image and its directory gone" test -z "$left"
[ -n "$left" ] && echo "$left"

# --- an image directory given through a symbolic link (issue 59): resolved in the plan, made,
# used and removed by its real path (the kernel names the mount and the loop file so) ---
mkdir -m 0755 $T/real
ln -s $T/real $T/lnk
run_bc $T/lnk run cpu --time 0.3 --warmup 0 --machine fs=ext4 --machine fs_device=image:$T/lnk:64M -o $T/lnk.json
expect_rc "fs_device = image:LINK:64M (LINK -> a root-owned directory)" 0
expect_grep "... the file system made in the link's real directory" $T/lnk.out "mounted on $T/real/\.benchcore-fs\."
left=$(leftovers)
check "... nothing mounted, attached or left after the run" test -z "$left"
[ -n "$left" ] && echo "$left"
check "... and no journal" test ! -e $T/state/journal
mkdir -m 0755 $T/theirs
chown nobody $T/theirs 2>/dev/null && ln -s $T/theirs $T/lnk2 && {
	run_bc $T/lnk2 run cpu --time 0.3 --machine fs=ext4 --machine fs_device=image:$T/lnk2:64M
	expect_rc "a link to a directory of another user's: refused in the plan" 2
	expect_grep "... naming the real directory" $T/lnk2.err "machine.fs_device: $T/theirs can be written by others than root"
	# a link another user owns could point elsewhere by the time the image is made
	ln -s $T/real $T/lnk3 && chown -h nobody $T/lnk3
	run_bc $T/lnk3 run cpu --time 0.3 --machine fs=ext4 --machine fs_device=image:$T/lnk3:64M
	expect_rc "a link another user owns, to a root-owned directory: refused in the plan" 2
	expect_grep "... naming the link and its owner" $T/lnk3.err \
		"the symbolic link \"$T/lnk3\" on its way is owned by another user"
}

# --- a restore that cannot undo something keeps its journal entry and says what is left ---
"$BC" run cpu --time 30 --warmup 0 --machine fs=ext4 --machine fs_device=image:$T:64M -o $T/busy.json \
	>$T/busy.out 2>&1 </dev/null &
pid=$!
mounted() { grep -qF " $T/.benchcore-fs." /proc/self/mountinfo; }
until_seen 600 mounted
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
mnt=$(grep -F " $T/.benchcore-fs." /proc/self/mountinfo | awk '{print $5}' | head -1)
check "killed with the file system mounted ($mnt)" test -n "$mnt"
(cd "$mnt" && exec sleep 600) &
holder=$!
until_seen 100 test "$(readlink /proc/$holder/cwd 2>/dev/null)" = "$mnt"
run_bc $T/rbusy restore
expect_rc "restore while a process holds the mount: exit 1" 1
expect_grep "... naming what is left: the mount, its loop device, the directory" $T/rbusy.err \
	"cannot unmount $mnt: Device or resource busy\. Left: ext4 mounted on $mnt from /dev/loop[0-9]+, .*the directory ${mnt%/mnt}"
expect_grep "... kept in the journal for another try" $T/rbusy.err "kept in the journal: benchcore restore tries again"
expect_grep "... and says so in its count (not as changed by someone)" $T/rbusy.out \
	"1 could not be undone \(named above\) and stays in the journal $T/state/journal"
expect_no_grep "... never \"left as someone changed\"" $T/rbusy.out "someone changed"
check "... the journal keeps the fs record" grep -qF "\"mount_point\":\"$mnt\"" $T/state/journal
kill $holder 2>/dev/null
wait $holder 2>/dev/null
run_bc $T/rbusy2 restore
expect_rc "restore once the mount is let go" 0
left=$(leftovers)
check "... nothing mounted, attached or left, the journal gone" test -z "$left" -a ! -e $T/state/journal
[ -n "$left" ] && echo "$left"
exit 0
