#!/usr/bin/env bash
# Install the Debian 12 packages benchcore needs to build, test and run its reference
# benchmarks. Shared by the README and .ci/run so the two cannot drift. Run as root.
set -euo pipefail

# Build: compiler, libraries the core and modules link against, unit-test framework.
BUILD="build-essential pkg-config libconfig-dev libaio-dev libmariadb-dev libhiredis-dev
       libssl-dev libjansson-dev libcmocka-dev"
# Tests: sanitizer/leak checks, fuzzing (clang's libFuzzer), real servers, headless browser.
TEST="valgrind clang libclang-rt-14-dev mariadb-server redis-server iproute2 procps strace
      chromium python3"
# Reference tools the bench/ scripts compare against.
REF="sysbench fio redis-tools openssl iperf3 sockperf qperf coreutils"
# Packaging and fleet runs: the Debian package build and its lintian check, man pages and
# completion, Ansible driving sshd in network namespaces (tests/integration/test_fleet.sh).
FLEET="debhelper dpkg-dev fakeroot lintian man-db groff bash-completion ansible-core
       openssh-server openssh-client util-linux python3-apt"

want="$BUILD $TEST $REF $FLEET"
missing=""
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
	echo "deps: all packages present"
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
for svc in mariadb redis-server ssh; do
	systemctl stop "$svc" >/dev/null 2>&1 || service "$svc" stop >/dev/null 2>&1 || true
done
echo "deps: installed$missing"
