#!/usr/bin/env bash
# Install the Debian packages benchcore needs to build, test and run its reference
# benchmarks, on Debian 12 (bookworm) or Debian 13 (trixie). Shared by the README and
# .ci/run so the two cannot drift. Run as root.
# The release is read from /etc/os-release (BC_OS_RELEASE=FILE reads another file: the
# test of the refusal does); on a release this script does not know it names it and stops
# with status 2, and BC_DEPS_RELEASE=bookworm|trixie installs that release's names anyway.
#   bash scripts/deps.sh            install what is missing (and the arm64 sysroot)
#   bash scripts/deps.sh --list     the release's package names, one a line, nothing installed
set -euo pipefail

# --- the release, and the package names that differ between releases
osr=${BC_OS_RELEASE:-/etc/os-release}
[ -r "$osr" ] || { echo "deps: cannot read $osr (the release's name; BC_DEPS_RELEASE=bookworm|trixie names it)" >&2; exit 2; }
# read, not sourced: KEY=value or KEY="value", the last one wins
osr_get() { sed -n "s/^$1=[\"']\{0,1\}\([^\"']*\)[\"']\{0,1\}\$/\1/p" "$osr" | tail -1; }
os_id=$(osr_get ID)
os_ver=$(osr_get VERSION_ID)
os_code=$(osr_get VERSION_CODENAME)
release=${BC_DEPS_RELEASE:-}
if [ -z "$release" ]; then
	case "$os_id:$os_ver:$os_code" in
	debian:12:*|debian:*:bookworm) release=bookworm;;
	debian:13:*|debian:*:trixie) release=trixie;;
	esac
fi
case "$release" in
# clang's runtime (the sanitizers and libFuzzer the fuzz targets link) is named after
# the release's default clang: 14 on Debian 12, 19 on Debian 13
bookworm) CLANG_RT=libclang-rt-14-dev;;
trixie) CLANG_RT=libclang-rt-19-dev;;
"")
	echo "deps: unknown release: ID=${os_id:-(none)} VERSION_ID=${os_ver:-(none)} VERSION_CODENAME=${os_code:-(none)} (from $osr);" \
		"this script knows Debian 12 (bookworm) and Debian 13 (trixie)" >&2
	echo "deps: hint: BC_DEPS_RELEASE=trixie (or bookworm) installs that release's package names here at your own risk" >&2
	exit 2;;
*)
	echo "deps: BC_DEPS_RELEASE=$release: not a release this script knows (bookworm or trixie)" >&2
	exit 2;;
esac

# Build: compiler, libraries the core and modules link against, unit-test framework.
BUILD="build-essential pkg-config libconfig-dev libaio-dev libmariadb-dev libhiredis-dev
       libssl-dev libjansson-dev libcmocka-dev libsqlite3-dev libpq-dev zlib1g-dev"
# Tests: sanitizer/leak checks, fuzzing (clang's libFuzzer), real servers (the results
# archive's PostgreSQL and the sqlite3 CLI its test reads the file with), headless browser;
# the file systems machine.fs makes (mkfs.ext4, mkfs.xfs, mkfs.btrfs; blkid and mount
# from util-linux); xmllint (libxml2-utils) validates compare's JUnit XML against
# tests/junit.xsd and python3-yaml parses contrib/ci's workflows (test_gate, test_ci).
TEST="valgrind clang $CLANG_RT mariadb-server redis-server postgresql sqlite3 iproute2
      procps strace chromium python3 e2fsprogs xfsprogs btrfs-progs libxml2-utils python3-yaml"
# Reference tools the bench/ scripts compare against.
REF="sysbench fio redis-tools openssl iperf3 sockperf qperf coreutils"
# Packaging and fleet runs: the Debian package build and its lintian check, man pages and
# completion, Ansible driving sshd in network namespaces (tests/integration/test_fleet.sh).
FLEET="debhelper dpkg-dev fakeroot lintian man-db groff bash-completion ansible-core
       openssh-server openssh-client util-linux python3-apt"

# arm64: the cross compiler, qemu-user to run its build, debootstrap for the sysroot
# (scripts/arm64-sysroot.sh, run at the end: make check cross-builds against it).
ARM64="gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user debootstrap file"
# BC_NO_ARM64=1: no sysroot, so no cross compiler or qemu-user either
[ "${BC_NO_ARM64:-0}" = 1 ] && ARM64="debootstrap file"

want="$BUILD $TEST $REF $FLEET $ARM64"
# --list: the release's package names, one a line; nothing installed
if [ "${1:-}" = --list ]; then
	printf '%s\n' $want
	exit 0
fi
missing=""
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
echo "deps: $release's packages (ID=$os_id VERSION_ID=$os_ver VERSION_CODENAME=$os_code)"
# the arm64 sysroot (Debian's arm64 -dev packages unpacked), once per machine;
# BC_NO_ARM64=1 leaves it out (make check then says the arm64 tests did not run)
arm64_sysroot() {
	[ "${BC_NO_ARM64:-0}" = 1 ] && return 0
	# laid out already, with the results archive's libraries (older sysroots lack them)
	[ -f "${BC_ARM64_SYSROOT:-/var/cache/benchcore/arm64-sysroot}/usr/include/sqlite3.h" ] &&
		[ -f "${BC_ARM64_SYSROOT:-/var/cache/benchcore/arm64-sysroot}/usr/include/postgresql/libpq-fe.h" ] && return 0
	[ "$(id -u)" -eq 0 ] || { echo "deps: the arm64 sysroot needs root (scripts/arm64-sysroot.sh)" >&2; return 0; }
	bash "$(dirname "$0")/arm64-sysroot.sh" || echo "deps: the arm64 sysroot could not be laid out (the arm64 tests will say so)" >&2
}
if [ -z "$missing" ]; then
	echo "deps: all packages present"
	arm64_sysroot
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages:$missing" >&2
	echo "deps: run this script as root (or install them with apt-get)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# --no-install-recommends keeps chromium and mariadb from pulling in a desktop.
apt-get install -y -qq --no-install-recommends $missing >/dev/null
# The packaged servers start themselves on install; the tests run private instances instead
# (sshd too: test_fleet.sh starts its own inside its namespaces, never on the host's addresses).
for svc in mariadb redis-server postgresql ssh; do
	systemctl stop "$svc" >/dev/null 2>&1 || service "$svc" stop >/dev/null 2>&1 || true
done
echo "deps: installed$missing"
arm64_sysroot
