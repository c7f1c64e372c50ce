#!/usr/bin/env bash
# docs/os-compare.md's example (issue 60), without a root: examples/os-compare.conf is read and
# planned by this benchcore (every module it names loads, every option checks) and refused only
# for its size here (--max-cases 1: nothing runs, nothing written); scripts/os-roots.sh refuses
# a release it does not know and a configuration that is not a file before anything is made or
# mounted. The real comparison (debootstrap, two packages built, 5 minutes per side) is run by
# hand; its figures are in the doc.
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
C=examples/os-compare.conf

for m in cpu mem rsa sys redis oltp; do
	check "the doc's config names $m, a module this build loads" grep -Eq "name = \"$m\"" "$C"
	"$BC" list 2>/dev/null | grep -Eq "^$m +" && pass "benchcore list has $m" || fail "benchcore list has no $m"
done
run_bc "$T/plan" -c "$C" --max-cases 1 -o "$T/plan.json"
expect_rc "examples/os-compare.conf: planned, refused only for max_cases" 2
# 16 cases (cpu 2, mem 2, rsa 4, sys 5, redis 2, oltp 1), each repeated 3 times
expect_grep "the plan: 48 cases" "$T/plan.err" 'the plan has 48 cases'
expect_no_grep "no other error than the plan's size" "$T/plan.err" 'unknown|invalid|not a|cannot'
expect_grep "a private redis-server planned" "$T/plan.err" 'a private redis-server'
expect_grep "a private MariaDB planned" "$T/plan.err" 'a private MariaDB'
check "nothing written" test ! -e "$T/plan.json"
check "the doc runs this config" grep -q 'examples/os-compare.conf' docs/os-compare.md

# os-roots.sh's refusals: exit 1, named, nothing made under the cache
export BC_ROOT_CACHE=$T/cache
bash scripts/os-roots.sh sid "$C" "$T/out.json" >"$T/r.out" 2>"$T/r.err"; RC=$?
expect_rc "os-roots.sh: an unknown release refused" 1
expect_grep "the release named" "$T/r.err" 'sid: not a release this script knows \(bookworm or trixie\)'
bash scripts/os-roots.sh trixie "$T/absent.conf" "$T/out.json" >"$T/r.out" 2>"$T/r.err"; RC=$?
expect_rc "os-roots.sh: a missing configuration refused" 1
expect_grep "the configuration named" "$T/r.err" "absent.conf: not a readable file"
bash scripts/os-roots.sh trixie >"$T/r.out" 2>"$T/r.err"; RC=$?
expect_rc "os-roots.sh: too few arguments refused" 1
expect_grep "the usage said" "$T/r.err" 'usage: scripts/os-roots.sh RELEASE CONF OUT.json'
check "nothing made under the cache" test ! -e "$T/cache"
check "nothing copied out" test ! -e "$T/out.json"
