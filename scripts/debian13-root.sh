#!/usr/bin/env bash
# Runs the README's test command, `bash scripts/deps.sh && make check`, as written, in a fresh
# Debian 13 (trixie) root made with debootstrap --variant=minbase, on this machine's kernel
# (issue 60; .ci/run calls it between the host's make check and make check-full). Needs root,
# debootstrap and the network access apt has.
#   scripts/debian13-root.sh [DIR]   the tree to test: DIR's files (its build trees and .git left
#                                    out), or without DIR the HEAD commit of this checkout (git archive)
# Cached under BC_ROOT_CACHE (/var/cache/benchcore) between runs:
#   trixie-minbase.tgz     debootstrap --make-tarball's packages (made when missing)
#   trixie-deps-KEY/       a root with deps.sh's packages installed, KEY the checksum of the
#                          tested tree's scripts/deps.sh (a changed deps.sh makes a new one; the
#                          old ones are removed). Never entered: each run works in a copy.
# Each run: a copy of the cached root (trixie-run.PID/) bound onto itself (a mount point, as / is),
# /proc /sys /dev /dev/pts /dev/shm bound into it, a policy-rc.d that exits 101 (no service starts on install), the tree in /src, the
# command run in /src with the output passed through; then every process left in the root is
# killed, everything unmounted (lazily when busy) and findmnt must show nothing under the root
# before the copy is removed, whatever happened (EXIT, INT, TERM). Exit: make check's status
# (the command's), or 1 when the root could not be made or cleaned up.
# BC_NO_ARM64=1 is set in the root (override with BC_ROOT_ARM64=1): scripts/arm64-sysroot.sh lays
# out a bookworm arm64 sysroot, and its download and the cross build would add minutes to CI.
# BC_ROOT_KEEP=1 keeps the run's root for a look (unmounted); BC_ROOT_CMD replaces the command.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${BC_ROOT_CACHE:-/var/cache/benchcore}
suite=trixie
cmd=${BC_ROOT_CMD:-bash scripts/deps.sh && make check}
src=${1:-}
say() { echo "debian13-root: $*" >&2; }
die() { say "$*"; exit 1; }
[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap, chroot and mount need it)"
command -v debootstrap >/dev/null || die "debootstrap is not installed (apt-get install debootstrap; scripts/deps.sh installs it)"
[ -z "$src" ] || [ -d "$src" ] || die "$src: not a directory (the tree to test)"
[ -n "$src" ] || git -C "$here" rev-parse -q --verify HEAD >/dev/null || die "$here: no git HEAD to archive (give the tree as DIR)"

# the Debian mirror apt uses here (deb822 sources first, then the one-line form), as arm64-sysroot.sh
mirror=${BC_ROOT_MIRROR:-$(awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)}
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' \
	/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian

t_start=$(date +%s)
phase_t=$t_start
phase() { local now; now=$(date +%s); say "$1: $((now - phase_t)) s"; phase_t=$now; }

# --- mounts, processes, cleanup ---------------------------------------------------------------
root=""			# the root being entered now (its mounts are undone by cleanup)
drop=""			# a directory cleanup removes once nothing is mounted under it
mounted_under() { findmnt -rn -o TARGET | awk -v r="$1" 'index($0, r "/") == 1 || $0 == r'; }
kill_inside() { # every process whose root is $1 (the servers a test left running)
	local p r n=0
	for p in /proc/[0-9]*; do
		r=$(readlink "$p/root" 2>/dev/null) || continue
		[ "$r" = "$1" ] || continue
		kill -KILL "${p#/proc/}" 2>/dev/null && n=$((n + 1))
	done
	[ $n -eq 0 ] || { say "killed $n process(es) left in $1"; sleep 0.5; }
}
unmount_all() { # everything under $1, deepest first; lazily when busy; 0 when none is left
	local r=$1 m
	for m in $(mounted_under "$r" | sort -r); do
		umount "$m" 2>/dev/null || umount -R "$m" 2>/dev/null || umount -l "$m" 2>/dev/null ||
			say "cannot unmount $m"
	done
	m=$(mounted_under "$r")
	[ -z "$m" ] || { say "still mounted under $r: $m"; return 1; }
}
cleanup() {
	local rc=$? ok=0
	trap - EXIT INT TERM
	if [ -n "$root" ]; then
		kill_inside "$root"
		unmount_all "$root" || ok=1
	fi
	if [ -n "$drop" ] && [ $ok -eq 0 ]; then
		if [ -z "$(mounted_under "$drop")" ]; then
			rm -rf --one-file-system "$drop"
		else
			say "left $drop in place: something is still mounted under it"; ok=1
		fi
	fi
	[ $ok -eq 0 ] || { say "cleanup failed: see the mounts above (findmnt | grep $cache)"; [ $rc -ne 0 ] || rc=1; }
	exit $rc
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT
trap 'say "terminated"; exit 143' TERM

enter() { # mounts and the service policy for root $1
	local r=$1 d
	root=$r
	# the root itself a mount point, as / is on a machine: else the chroot's mountinfo has no
	# line for / (the file system of a path under it is unknown: machine.fs, io's fs_type)
	# and `ip netns exec`'s `mount --make-rslave /` fails (EINVAL)
	mount --bind "$r" "$r"
	mount --make-rslave "$r"
	for d in proc sys dev dev/pts dev/shm; do
		mkdir -p "$r/$d"
		if [ $d = sys ]; then mount --rbind /sys "$r/sys"; else mount --bind "/$d" "$r/$d"; fi
		# a slave: nothing unmounted under the root reaches the host's own mounts
		mount --make-rslave "$r/$d"
	done
	printf '#!/bin/sh\n# debian13-root.sh: no service starts on install\nexit 101\n' >"$r/usr/sbin/policy-rc.d"
	chmod 755 "$r/usr/sbin/policy-rc.d"
	cp -L /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null || true
}
leave() { kill_inside "$root"; unmount_all "$root"; root=""; }
in_root() { # runs a shell command in the root, with a clean environment; waited for in the
	# background so that INT and TERM reach the trap at once (cleanup kills what runs inside)
	chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" DEBIAN_FRONTEND=noninteractive \
		BC_NO_ARM64="$([ "${BC_ROOT_ARM64:-0}" = 1 ] && echo 0 || echo 1)" /bin/bash -c "$1" 9>&- &
	wait $!
}

mkdir -p "$cache"
exec 9>"$cache/.debian13-root.lock"
flock 9		# one run makes the cache at a time

# --- the base tarball ---------------------------------------------------------------------
tgz=$cache/$suite-minbase.tgz
if [ ! -s "$tgz" ]; then
	say "making $tgz (debootstrap --make-tarball from $mirror)"
	tmp=$cache/$suite-minbase.new.$$
	drop=$tmp
	debootstrap --variant=minbase --make-tarball="$tgz.new" "$suite" "$tmp" "$mirror" >&2 ||
		{ rm -f "$tgz.new"; die "debootstrap --make-tarball failed"; }
	mv "$tgz.new" "$tgz"
	rm -rf --one-file-system "$tmp"; drop=""
	phase "base tarball made"
fi

# --- the root with deps.sh's packages, keyed on deps.sh -----------------------------------
if [ -n "$src" ]; then deps_sh=$(cat "$src/scripts/deps.sh"); else deps_sh=$(git -C "$here" show HEAD:scripts/deps.sh); fi
key=$(printf '%s\n' "$deps_sh" | sha256sum | cut -c1-16)
ready=$cache/$suite-deps-$key
if [ ! -d "$ready" ]; then
	new=$cache/$suite-deps-$key.new.$$
	drop=$new
	say "making the $suite root $ready (debootstrap --variant=minbase from $tgz)"
	debootstrap --variant=minbase --unpack-tarball="$tgz" "$suite" "$new" "$mirror" >"$new.log" 2>&1 ||
		{ tail -20 "$new.log" >&2; rm -f "$new.log"; die "debootstrap failed (the tarball $tgz is kept: remove it to fetch anew)"; }
	rm -f "$new.log"
	phase "debootstrap from the tarball"
	enter "$new"
	printf '%s\n' "$deps_sh" >"$new/root/deps.sh"
	in_root 'bash /root/deps.sh && apt-get clean' >&2 || die "deps.sh failed in the $suite root"
	rm -f "$new/root/deps.sh"
	leave
	mv "$new" "$ready"; drop=""
	for old in "$cache/$suite-deps-"*; do
		[ "$old" = "$ready" ] || [ -n "$(mounted_under "$old")" ] || rm -rf --one-file-system "$old"
	done
	phase "deps.sh's packages installed"
fi

# --- this run: a copy of the root, the tree in /src, the README's command ------------------
run=$cache/$suite-run.$$
drop=$run
cp -a "$ready" "$run"
phase "the root copied"
mkdir -p "$run/src"
if [ -n "$src" ]; then
	tar -C "$src" --exclude=./.git --exclude='./build*' -cf - . | tar -C "$run/src" -xf -
else
	git -C "$here" archive HEAD | tar -C "$run/src" -xf -
fi
enter "$run"
say "running in the $suite root ($(. "$run/etc/os-release"; echo "$PRETTY_NAME"), kernel $(uname -r)): $cmd"
set +e
in_root "cd /src && $cmd"
status=$?
set -e
phase "the command (exit $status)"
leave
[ "${BC_ROOT_KEEP:-0}" = 1 ] && { drop=""; say "kept $run"; }
say "total: $(( $(date +%s) - t_start )) s"
exit $status
