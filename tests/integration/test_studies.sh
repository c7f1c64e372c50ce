#!/usr/bin/env bash
# The studies read the way they read (issue: "The three studies from one
# file each"): cases of two machines match although where they ran differs
# (placement options, --match-ignore). Result files are made from one real
# cpu run, rewritten by python to play other machines and options.
. "$(dirname "$0")/lib.sh"

"$BC" run cpu max_prime=500 --time 0.2 --warmup 0 --repeat 3 -q -o $T/base.json >/dev/null 2>&1 </dev/null
RC=$?
expect_rc "a base run for the fixtures" 0

# mk OUT PY: a copy of base.json with PY applied to each case c (and d, the document)
mk() {
	"$PY" -S - "$T/base.json" "$1" "$2" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cases"]:
    exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PYEOF
}

# --- matching across machines: placement options ------------------------
mk $T/pa.json 'c["params"]["where"] = "/srv/a"; c["placement"] = ["where"]'
mk $T/pb.json 'c["params"]["where"] = "/srv/b"; c["placement"] = ["where"]; d["label"] = "other"'
run_bc $T/m1 compare $T/pa.json $T/pb.json
expect_rc "compare of two machines whose placement option differs" 0
expect_no_grep "placement differs: the cases still match" $T/m1.out 'no case of B matches'
expect_grep "placement differs: the matched case has its rows" $T/m1.out 'events_per_sec .* n=3/3'
mk $T/pn.json 'c["params"]["where"] = "/srv/b"; d["label"] = "other"'
run_bc $T/m2 compare $T/pa.json $T/pn.json
expect_grep "an ordinary option that differs still keeps cases apart" $T/m2.out 'no case of B matches'
# a sweep over the placement option in one file stays two cases: never merged or guessed
"$PY" -S - $T/pa.json $T/p2.json <<'PYEOF'
import json, sys, copy
d = json.load(open(sys.argv[1]))
more = copy.deepcopy(d["cases"])
for c in more:
    c["params"]["where"] = "/srv/c"; c["id"] += 100
d["cases"] += more
json.dump(d, open(sys.argv[2], "w"))
PYEOF
run_bc $T/m3 compare $T/p2.json $T/pb.json
expect_grep "two placements in A, one in B: ambiguous, not matched" $T/m3.out 'no case of B matches'

# --- --match-ignore ---------------------------------------------------------
mk $T/ia.json 'c["params"]["max_prime"] = 500'
mk $T/ib.json 'c["params"]["max_prime"] = 600; d["label"] = "other"'
run_bc $T/i1 compare $T/ia.json $T/ib.json
expect_grep "without --match-ignore: max_prime 500 and 600 do not match" $T/i1.out 'no case of B matches'
run_bc $T/i2 compare --match-ignore max_prime $T/ia.json $T/ib.json
expect_no_grep "--match-ignore max_prime: they match" $T/i2.out 'no case of B matches'
expect_grep "compare says what it left out of matching" $T/i2.out '^matching: .*left out too \(--match-ignore\): max_prime$'
run_bc $T/i3 report --match-ignore max_prime -o $T/i3.html $T/ia.json $T/ib.json
expect_rc "report --match-ignore" 0
expect_grep "the report names what was ignored" $T/i3.html 'left out too \(--match-ignore\): max_prime'
run_bc $T/i4 compare --match-ignore 'Max-Prime' $T/ia.json $T/ib.json
expect_rc "--match-ignore with a bad name" 2
# a placement name that is not one of params is refused by the reader
mk $T/bad.json 'c["placement"] = ["nope"]'
run_bc $T/b1 compare $T/bad.json $T/pb.json
expect_rc "placement naming no param: refused" 2
expect_grep "placement naming no param: the field is named" $T/b1.err 'cases\[0\]\.placement\[0\]: not the name of one of params'
