#!/usr/bin/env bash
# Install the Debian 12 packages benchcore needs to build, test and run its reference
# benchmarks. Shared by the README and .ci/run so the two cannot drift. Run as root.
set -euo pipefail

# Build: compiler, libraries the core and modules link against, unit-test framework.
BUILD="build-essential pkg-config libconfig-dev libaio-dev libmariadb-dev libhiredis-dev
       libssl-dev libjansson-dev libcmocka-dev libsqlite3-dev libpq-dev zlib1g-dev"
# Tests: sanitizer/leak checks, fuzzing (clang's libFuzzer), real servers (the results
# archive's PostgreSQL and the sqlite3 CLI its test reads the file with), headless browser;
# the file systems machine.fs makes (mkfs.ext4, mkfs.xfs, mkfs.btrfs; blkid and mount
# from util-linux); xmllint (libxml2-utils) validates compare's JUnit XML against
# tests/junit.xsd and python3-yaml parses contrib/ci's workflows (test_gate, test_ci).
TEST="valgrind clang libclang-rt-14-dev mariadb-server redis-server postgresql sqlite3 iproute2
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

want="$BUILD $TEST $REF $FLEET $ARM64"
missing=""
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
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
