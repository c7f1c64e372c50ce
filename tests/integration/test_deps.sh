#!/usr/bin/env bash
# scripts/deps.sh's choice of package names (issue 60): the release comes from os-release
# (BC_OS_RELEASE names a fake one here); Debian 12 and 13 get their own clang runtime, and a
# release the script does not know is refused by name (ID, VERSION_ID, VERSION_CODENAME) with
# exit 2 and the override's hint, before anything is installed. Only --list and refusals run:
# nothing here installs a package.
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
D=scripts/deps.sh

osr() { printf '%s\n' "$@" >"$T/os-release"; }
deps() { BC_OS_RELEASE=$T/os-release bash "$D" "$@" >"$T/out" 2>"$T/err" </dev/null; RC=$?; }

# --- the two known releases: their names, nothing installed -----------------------------
osr 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"' 'VERSION_ID="12"' 'VERSION_CODENAME=bookworm' 'ID=debian'
deps --list
expect_rc "Debian 12: --list" 0
expect_grep "Debian 12: clang 14's runtime" "$T/out" '^libclang-rt-14-dev$'
expect_no_grep "Debian 12: not clang 19's" "$T/out" 'libclang-rt-19'
osr 'PRETTY_NAME="Debian GNU/Linux 13 (trixie)"' 'VERSION_ID="13"' 'VERSION_CODENAME=trixie' 'ID=debian'
deps --list
expect_rc "Debian 13: --list" 0
expect_grep "Debian 13: clang 19's runtime (its default clang)" "$T/out" '^libclang-rt-19-dev$'
expect_no_grep "Debian 13: not clang 14's (gone from trixie)" "$T/out" 'libclang-rt-14'
for p in libaio-dev libssl-dev libhiredis-dev mariadb-server redis-server postgresql sockperf qperf ansible-core; do
	expect_grep "Debian 13: $p listed" "$T/out" "^$p\$"
done
# a point release's os-release has no codename in VERSION_ID only: the codename alone is enough
osr 'ID=debian' 'VERSION_CODENAME=trixie'
deps --list
expect_rc "Debian 13 named by its codename only" 0

# --- refusals: exit 2, the release named, the hint, nothing installed ---------------------
refused() { # what, then the words the message must hold
	local what=$1; shift
	expect_rc "$what: refused" 2
	local w
	for w in "$@"; do expect_grep "$what: the message names $w" "$T/err" "$w"; done
	expect_grep "$what: the hint (BC_DEPS_RELEASE)" "$T/err" 'BC_DEPS_RELEASE=trixie'
	expect_no_grep "$what: nothing installed" "$T/out" 'apt-get|installed'
}
osr 'PRETTY_NAME="Ubuntu 24.04.1 LTS"' 'ID=ubuntu' 'VERSION_ID="24.04"' 'VERSION_CODENAME=noble'
deps
refused "Ubuntu 24.04" 'ID=ubuntu' 'VERSION_ID=24.04' 'VERSION_CODENAME=noble' "$T/os-release"
osr 'PRETTY_NAME="Debian GNU/Linux forky/sid"' 'ID=debian' 'VERSION_CODENAME=forky'
deps --list
refused "Debian testing (no VERSION_ID)" 'ID=debian' 'VERSION_ID=\(none\)' 'VERSION_CODENAME=forky'
osr 'ID=debian' 'VERSION_ID="11"' 'VERSION_CODENAME=bullseye'
deps
refused "Debian 11" 'VERSION_ID=11' 'VERSION_CODENAME=bullseye'
: >"$T/os-release"
deps
refused "an empty os-release" 'ID=\(none\)'
BC_OS_RELEASE=$T/absent bash "$D" --list >"$T/out" 2>"$T/err"; RC=$?
expect_rc "no os-release file: refused" 2
expect_grep "no os-release file: named" "$T/err" "cannot read $T/absent"

# the override: an unknown release takes the named release's names; a wrong override is refused
osr 'ID=ubuntu' 'VERSION_ID="24.04"' 'VERSION_CODENAME=noble'
BC_DEPS_RELEASE=trixie BC_OS_RELEASE=$T/os-release bash "$D" --list >"$T/out" 2>"$T/err"; RC=$?
expect_rc "BC_DEPS_RELEASE=trixie on Ubuntu: --list" 0
expect_grep "BC_DEPS_RELEASE=trixie: trixie's names" "$T/out" '^libclang-rt-19-dev$'
BC_DEPS_RELEASE=sid BC_OS_RELEASE=$T/os-release bash "$D" --list >"$T/out" 2>"$T/err"; RC=$?
expect_rc "BC_DEPS_RELEASE=sid: refused" 2
expect_grep "BC_DEPS_RELEASE=sid: named" "$T/err" 'BC_DEPS_RELEASE=sid'

# os-release is read, never run: a command in it does nothing
osr 'ID=$(touch '"$T"'/ran)' 'VERSION_ID=`touch '"$T"'/ran`' 'VERSION_CODENAME=x;touch '"$T"'/ran'
deps --list
expect_rc "a hostile os-release: refused" 2
check "a hostile os-release: nothing in it ran" test ! -e "$T/ran"

# this machine's own os-release: a known release (CI's host and the Debian 13 root)
bash "$D" --list >"$T/out" 2>"$T/err"; RC=$?
expect_rc "this machine ($(. /etc/os-release; echo "$PRETTY_NAME")): --list" 0

# scripts/debian13-root.sh (the Debian 13 root CI runs make check in): a DIR that is not a
# directory is refused (exit 1) before anything is made or mounted
bash scripts/debian13-root.sh "$T/absent" >"$T/out" 2>"$T/err"; RC=$?
expect_rc "debian13-root.sh: a DIR that is not a directory is refused" 1
expect_grep "... naming it" "$T/err" "$T/absent: not a directory"
