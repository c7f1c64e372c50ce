#!/usr/bin/env bash
# core/ builds in floors (Makefile FLOOR_n, README "Layout"): a group sees
# its own headers and those of the floors below. Checked two ways: the
# include path make gives each group admits exactly those headers (an
# upward include fails to preprocess), and the sources' own includes form
# no cycle between groups and never point up.
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
make -s print-floors >$T/floors.txt 2>$T/floors.err
RC=$?
expect_rc "make print-floors" 0
expect_grep "the judge sees no view, page, history or run" $T/floors.txt '^judge: judge base values stats machine module result *$'
expect_grep "the ground floor sees only itself" $T/floors.txt '^base: base *$'
expect_grep "cli, on top, sees every group" $T/floors.txt '^cli: cli base values stats machine module result engine archive judge merge run history views pages$'
"$PY" -S - $T/floors.txt <<'PY' >$T/check.out 2>&1
import glob, os, re, subprocess, sys
sees = {}
for line in open(sys.argv[1]):
    g, rest = line.split(":", 1)
    sees[g.strip()] = rest.split()
group_of = {}
for h in glob.glob("core/*/*.h"):
    group_of.setdefault(os.path.basename(h), os.path.normpath(h).split(os.sep)[1])
bad = []
# 1. the include path admits exactly the headers of the groups seen
# (one preprocessor run per group for all the headers it should see, each
# header alone only when that fails; a header above is found or not by the
# preprocessor's own search: the first of the -I directories that has it)
def pre(flags, names):
    return subprocess.run(["cc", "-E", "-D_GNU_SOURCE", "-x", "c", "-", "-o", "/dev/null"] + flags,
                          input="".join('#include "%s"\n' % h for h in names), capture_output=True,
                          text=True).returncode == 0
for g, seen in sees.items():
    flags = ["-Isdk/include"] + ["-Icore/" + s for s in seen]
    below = sorted(h for h, hg in group_of.items() if hg in seen)
    if not pre(flags, below):
        for h in below:
            if not pre(flags, [h]):
                bad.append("%s: #include \"%s\" (%s) fails though it is below" % (g, h, group_of[h]))
    for h, hg in sorted(group_of.items()):
        if hg not in seen and any(os.path.exists(os.path.join(d[2:], h)) for d in flags):
            bad.append("%s: #include \"%s\" (%s) builds though it points up" % (g, h, hg))
# 2. the sources' includes: never up a floor, no cycle between groups
edges = set()
for f in glob.glob("core/*/*.[ch]"):
    g = os.path.normpath(f).split(os.sep)[1]
    for inc in re.findall(r'^#include "([^"]+)"', open(f).read(), re.M):
        hg = group_of.get(os.path.basename(inc))
        if hg and hg != g:
            edges.add((g, hg))
            if hg not in sees.get(g, []):
                bad.append("%s includes %s (%s): up a floor" % (f, inc, hg))
def cyclic():
    adj = {}
    for a, b in edges:
        adj.setdefault(a, []).append(b)
    state = {}
    def visit(n):
        state[n] = 1
        for m in adj.get(n, []):
            if state.get(m) == 1 or (m not in state and visit(m)):
                return True
        state[n] = 2
        return False
    return any(visit(n) for n in list(adj) if n not in state)
if cyclic():
    bad.append("a cycle between groups: %s" % sorted(edges))
print("\n".join(bad) if bad else "floors ok: %d headers x %d groups, %d edges" % (len(group_of), len(sees), len(edges)))
PY
expect_grep "every group's include path admits its floors and nothing above" $T/check.out '^floors ok'
[ -s $T/check.out ] && head -5 $T/check.out
# an upward include, for real: a base file that includes engine.h does not build
mkdir -p $T/up && printf '#include "engine.h"\nint x;\n' >$T/up/up.c
if cc -fsyntax-only -D_GNU_SOURCE -Isdk/include -Icore/base $T/up/up.c 2>$T/up.err; then
	fail "an include of engine.h from the base floor builds"
else
	pass "an include of engine.h with the base floor's path does not build"
fi
# every file of tests/unit and tests/integration is named in tests/README.md (a new test is
# listed where a newcomer looks): unit/NAME for a unit test, the script's or helper's name
"$PY" -S - <<'PY' >$T/listed.out 2>&1
import glob, os, re
readme = open("tests/README.md").read()
# the unit table's section and the scripts' (a unit test and a script may share a name)
unit = readme[readme.index("### Unit tests"):readme.index("### Integration scripts")]
scripts = readme[readme.index("### Integration scripts"):]
missing = []
for f in sorted(glob.glob("tests/unit/*") + glob.glob("tests/integration/*")):
    b = os.path.basename(f)
    where = unit if f.startswith("tests/unit/") else scripts
    if b.startswith("test_"):	# its row in its table: "| test_x |"
        ok = re.search(r"^\| %s \|" % re.escape(os.path.splitext(b)[0]), where, re.M)
    else:			# a helper, by name, anywhere
        ok = re.search(r"(?<![\w/.])%s(?![\w])" % re.escape(b), readme)
    if not ok:
        missing.append(f)
print("not in tests/README.md: " + " ".join(missing) if missing else "every test file listed")
PY
expect_grep "every file of tests/unit and tests/integration is named in tests/README.md" $T/listed.out '^every test file listed$'
grep -q "^every test file listed" $T/listed.out || head -3 $T/listed.out
