#!/usr/bin/env bash
# One side of an operating-system comparison on this machine (docs/os-compare.md, issue 60):
# a fresh root of a Debian release made with debootstrap --variant=minbase, benchcore's own
# Debian packages built in it (dpkg-buildpackage with the release's compiler and libraries) and
# installed with apt, then one run of a site configuration there, on this machine's kernel.
#   scripts/os-roots.sh RELEASE CONF OUT.json [DIR]
#     RELEASE   a Debian suite: bookworm (12) or trixie (13)
#     CONF      the site configuration, the same file for every side
#     OUT.json  where the run's results are copied (the label is the release's PRETTY_NAME)
#     DIR       the tree to package (its .git and build trees left out); without it the HEAD
#               commit of this checkout (git archive)
# Needs root, debootstrap and the network access apt has. Cached under BC_ROOT_CACHE
# (/var/cache/benchcore): RELEASE-minbase.tgz (debootstrap --make-tarball's packages, made when
# missing, shared with scripts/debian13-root.sh). Each run works in oscmp-RELEASE.PID/: the root
# bound onto itself (a mount point, as / is), /proc /sys /dev /dev/pts /dev/shm bound in, an
# /etc/hosts naming localhost, a policy-rc.d that exits 101 (mariadb-server and redis-server
# installed but not started: the modules start their private servers); then whatever is left
# running in the root is killed, everything unmounted and the root removed, whatever happened
# (EXIT, INT, TERM).
# BC_ROOT_PKGS: the packages installed beside benchcore's (default: redis-server mariadb-server);
# BC_ROOT_ARGS: more arguments for the run (e.g. "--no-check"); BC_ROOT_KEEP=1 keeps the root.
# Run the sides one after the other, never at once: they share the machine.
# Exit: the run's status, or 1 when the root, the package or the copy-out failed.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${BC_ROOT_CACHE:-/var/cache/benchcore}
say() { echo "os-roots: $*" >&2; }
die() { say "$*"; exit 1; }
[ $# -ge 3 ] && [ $# -le 4 ] || die "usage: scripts/os-roots.sh RELEASE CONF OUT.json [DIR]"
suite=$1 conf=$2 out=$3 src=${4:-}
case $suite in
bookworm|trixie) ;;
*) die "$suite: not a release this script knows (bookworm or trixie)" ;;
esac
[ -f "$conf" ] && [ -r "$conf" ] || die "$conf: not a readable file (the site configuration)"
[ -d "$(dirname "$out")" ] || die "$out: its directory does not exist"
[ -z "$src" ] || [ -d "$src" ] || die "$src: not a directory (the tree to package)"
[ -n "$src" ] || git -C "$here" rev-parse -q --verify HEAD >/dev/null || die "$here: no git HEAD to archive (give the tree as DIR)"
[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap, chroot and mount need it)"
command -v debootstrap >/dev/null || die "debootstrap is not installed (apt-get install debootstrap)"
pkgs=${BC_ROOT_PKGS-redis-server mariadb-server}
mirror=${BC_ROOT_MIRROR:-http://deb.debian.org/debian}

t_start=$(date +%s)
phase_t=$t_start
phase() { local now; now=$(date +%s); say "$suite: $1: $((now - phase_t)) s"; phase_t=$now; }

# --- mounts, processes, cleanup (as scripts/debian13-root.sh) -------------------------------
root=""
mounted_under() { findmnt -rn -o TARGET | awk -v r="$1" 'index($0, r "/") == 1 || $0 == r'; }
kill_inside() {
	local p r n=0
	for p in /proc/[0-9]*; do
		r=$(readlink "$p/root" 2>/dev/null) || continue
		[ "$r" = "$1" ] || continue
		kill -KILL "${p#/proc/}" 2>/dev/null && n=$((n + 1))
	done
	[ $n -eq 0 ] || { say "killed $n process(es) left in $1"; sleep 0.5; }
}
unmount_all() {
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
		if [ $ok -eq 0 ] && [ "${BC_ROOT_KEEP:-0}" != 1 ]; then
			rm -rf --one-file-system "$root"
		elif [ $ok -eq 0 ]; then
			say "kept $root (unmounted)"
		else
			say "left $root in place: something is still mounted under it"
		fi
	fi
	[ $ok -eq 0 ] || { [ $rc -ne 0 ] || rc=1; }
	exit $rc
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT
trap 'say "terminated"; exit 143' TERM

in_root() {
	chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" DEBIAN_FRONTEND=noninteractive \
		/bin/bash -c "$1" 9>&- &
	wait $!
}

mkdir -p "$cache"
tgz=$cache/$suite-minbase.tgz
if [ ! -s "$tgz" ]; then
	exec 9>"$cache/.oscmp-$suite.lock"
	flock 9
	if [ ! -s "$tgz" ]; then
		say "making $tgz (debootstrap --make-tarball from $mirror)"
		root=$cache/oscmp-$suite-tgz.$$
		debootstrap --variant=minbase --make-tarball="$tgz.new" "$suite" "$root" "$mirror" >&2 ||
			{ rm -f "$tgz.new"; die "debootstrap --make-tarball failed"; }
		mv "$tgz.new" "$tgz"
		rm -rf --one-file-system "$root"; root=""
		phase "base tarball made"
	fi
	exec 9>&-
fi

root=$cache/oscmp-$suite.$$
debootstrap --variant=minbase --unpack-tarball="$tgz" "$suite" "$root" "$mirror" >"$root.log" 2>&1 ||
	{ tail -20 "$root.log" >&2; rm -f "$root.log"; die "debootstrap failed (the tarball $tgz is kept: remove it to fetch anew)"; }
rm -f "$root.log"
phase "debootstrap from the tarball"
mount --bind "$root" "$root"
mount --make-rslave "$root"
for d in proc sys dev dev/pts dev/shm; do
	mkdir -p "$root/$d"
	if [ $d = sys ]; then mount --rbind /sys "$root/sys"; else mount --bind "/$d" "$root/$d"; fi
	mount --make-rslave "$root/$d"
done
printf '#!/bin/sh\n# os-roots.sh: no service starts on install\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# the hosts file an installed Debian has (debootstrap writes none): without it MariaDB 10.11's
# mariadb-install-db (Debian 12) refuses ("Neither host ... nor 'localhost' could be looked up")
[ -e "$root/etc/hosts" ] || printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n::1\tlocalhost ip6-localhost ip6-loopback\n' \
	"$(hostname)" >"$root/etc/hosts"

mkdir -p "$root/src/benchcore"
if [ -n "$src" ]; then
	tar -C "$src" --exclude=./.git --exclude='./build*' -cf - . | tar -C "$root/src/benchcore" -xf -
else
	git -C "$here" archive HEAD | tar -C "$root/src/benchcore" -xf -
fi
cp "$conf" "$root/site.conf"

# the build: debian/control's Build-Depends from the release's archive, then the packages
in_root 'apt-get update -q && apt-get install -y -q --no-install-recommends build-essential fakeroot &&
	cd /src/benchcore && apt-get build-dep -y -q --no-install-recommends ./' >&2 ||
	die "$suite: the build dependencies could not be installed"
phase "build dependencies installed"
in_root 'cd /src/benchcore && dpkg-buildpackage -us -uc -b' >"$root/build.log" 2>&1 ||
	{ tail -30 "$root/build.log" >&2; die "$suite: dpkg-buildpackage failed"; }
phase "dpkg-buildpackage -us -uc -b"
# installed as a user would: apt resolves the packages' own dependencies
in_root "cd /src && apt-get install -y -q --no-install-recommends ./benchcore_*.deb ./benchcore-redis_*.deb ./benchcore-oltp_*.deb $pkgs" >&2 ||
	die "$suite: apt-get install of the packages failed"
phase "packages installed"

# the run (the label names the release)
label=$(. "$root/etc/os-release"; echo "$PRETTY_NAME")
say "running in the $suite root ($label, kernel $(uname -r))"
set +e
in_root "cd /tmp && benchcore -c /site.conf --label '$label' -o /out.json ${BC_ROOT_ARGS:-}"
status=$?
set -e
phase "the run (exit $status)"
[ -s "$root/out.json" ] || die "$suite: the run wrote no results"
cp "$root/out.json" "$out"
say "$suite: results in $out; total $(( $(date +%s) - t_start )) s"
exit $status
