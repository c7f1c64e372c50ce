#!/usr/bin/env bash
# Lays out an arm64 (aarch64) sysroot for cross-building benchcore on a Debian 12 x86-64
# machine, from Debian's own arm64 packages: debootstrap's first stage (--foreign: no arm64
# code runs) fetches the base system and the -dev packages benchcore builds against, and
# every downloaded .deb is then unpacked into the tree. Needs root, debootstrap and the
# network access apt has (the mirror is the one apt already uses).
#   scripts/arm64-sysroot.sh [DIR]      (default /var/cache/benchcore/arm64-sysroot)
# Then: make cross-arm64 (or make check, which cross-builds and runs the unit tests and the
# modules under qemu-aarch64 when DIR exists). Run again to lay it out anew.
set -euo pipefail
dir=${1:-${BC_ARM64_SYSROOT:-/var/cache/benchcore/arm64-sysroot}}
suite=bookworm
# benchcore's build libraries (scripts/deps.sh's BUILD list, arm64 builds)
pkgs="libc6-dev,libgcc-12-dev,libconfig-dev,libjansson-dev,libssl-dev,libaio-dev,libcmocka-dev,libhiredis-dev,libmariadb-dev,zlib1g-dev,libsqlite3-dev,libpq-dev"
command -v debootstrap >/dev/null || { echo "arm64-sysroot: debootstrap is not installed (apt-get install debootstrap)" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "arm64-sysroot: run as root (debootstrap unpacks as root)" >&2; exit 1; }

# the Debian mirror apt is set up with (deb822 sources first, then the one-line form)
mirror=$(awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' \
	/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true)
[ -n "$mirror" ] || { echo "arm64-sysroot: no Debian mirror found in apt's sources" >&2; exit 1; }

tmp="$dir.new.$$"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$(dirname "$dir")"
echo "arm64-sysroot: fetching $suite arm64 with $pkgs"
debootstrap --foreign --arch=arm64 --variant=minbase --include="$pkgs" "$suite" "$tmp" "$mirror" >"$tmp.log" 2>&1 ||
	{ tail -20 "$tmp.log" >&2; rm -f "$tmp.log"; exit 1; }
rm -f "$tmp.log"
n=0
for deb in "$tmp"/var/cache/apt/archives/*.deb; do
	dpkg-deb -x "$deb" "$tmp"
	n=$((n + 1))
done
# absolute symlinks would point into the build machine's own tree: make them relative
find "$tmp" -type l -lname '/*' | while read -r l; do
	t=$(readlink "$l")
	ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$tmp$t")" "$l"
done
rm -rf "$tmp"/var/cache/apt/archives/*.deb
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT
echo "arm64-sysroot: $n packages unpacked into $dir ($(du -sh "$dir" | cut -f1))"
