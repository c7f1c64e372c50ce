#!/usr/bin/env bash
# File systems under test (issue 50, core/machine/fsdev.c) on this machine,
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
	find "$T" -name '.benchcore-fs.*' -o -name 'bc-fsdev.*' 2>/dev/null | sed 's/^/left: /'
}
put_back() {
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
check "nothing mounted, attached or left under the scratch directory" test -z "$left"
[ -n "$left" ] && echo "$left"
exit 0
