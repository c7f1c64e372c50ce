#!/usr/bin/env bash
# mem module: sweeps, figures that agree with each other, total_size, option
# errors, the cache warning, hugepages, every oper/access pair.
. "$(dirname "$0")/lib.sh"
Q=(--warmup 0 -q)

# --- a sweep: right cases, right params, consistent figures
run_bc $T/s run mem block_size=4K,16K oper=read,write --threads 1,2 --time 0.3 "${Q[@]}" -o $T/s.json
expect_rc "mem sweep block_size x oper x threads runs" 0
expect_py "sweep gives 8 ok cases" $T/s.json 'len(d["cases"]) == 8 and all(c["status"] == "ok" for c in d["cases"])'
expect_py "sweep covers every (block_size, oper, threads) once" $T/s.json \
	'sorted((c["params"]["block_size"], c["params"]["oper"], c["threads"]) for c in d["cases"]) == sorted((b, o, t) for b in (4096, 16384) for o in ("read", "write") for t in (1, 2))'
expect_py "mib_per_sec = bytes / MiB / duration (0.1%)" $T/s.json \
	'all(abs(c["metrics"]["mib_per_sec"]["value"] - c["ops"][c["params"]["oper"]]["bytes"] / 1048576 / c["duration_s"]) <= 1e-3 * c["metrics"]["mib_per_sec"]["value"] for c in d["cases"])'
expect_py "ops_per_sec = count / duration and equals events_per_sec" $T/s.json \
	'all(abs(c["metrics"]["ops_per_sec"]["value"] - c["ops"][c["params"]["oper"]]["count"] / c["duration_s"]) <= 1e-3 * c["metrics"]["ops_per_sec"]["value"] and abs(c["metrics"]["ops_per_sec"]["value"] - c["metrics"]["events_per_sec"]["value"]) <= 1e-6 * c["metrics"]["ops_per_sec"]["value"] for c in d["cases"])'
expect_py "every event moves exactly one block" $T/s.json \
	'all(c["ops"][c["params"]["oper"]]["bytes"] == c["ops"][c["params"]["oper"]]["count"] * c["params"]["block_size"] > 0 for c in d["cases"])'
expect_py "only the chosen oper is recorded" $T/s.json \
	'all(c["ops"][o]["count"] == 0 for c in d["cases"] for o in ("read", "write", "copy", "none") if o != c["params"]["oper"])'
expect_py "defaults as sysbench: seq, global scope, one-block buffer" $T/s.json \
	'all(c["params"]["access"] == "seq" and c["params"]["scope"] == "global" and c["params"]["buffer_size"] == 0 for c in d["cases"])'
expect_grep "a 4K buffer warns that it measures the cache, naming the LLC" $T/s.err \
	'warning: .*fit in the last-level cache \(L[0-9], [0-9]+[KMG]?\)'
expect_no_grep "the warning is not an error" $T/s.err 'error'

# --- total_size: sysbench semantics, split across threads, ends the run
run_bc $T/t run mem total_size=8M block_size=64K --threads 2 --time 30 "${Q[@]}" -o $T/t.json
expect_rc "total_size run" 0
expect_py "total_size=8M in 64K blocks on 2 threads = 128 events, 8 MiB" $T/t.json \
	'd["cases"][0]["ops"]["write"]["count"] == 128 and d["cases"][0]["ops"]["write"]["bytes"] == 8 << 20'
expect_py "total_size ends the case before --time" $T/t.json 'd["cases"][0]["duration_s"] < 10'
expect_py "fairness: each thread did its half" $T/t.json 'd["cases"][0]["fairness"]["events_stddev"] == 0'
# warmup runs first but must not use up the total_size budget
run_bc $T/tw run mem total_size=64M block_size=64K --threads 2 --time 30 --warmup 0.3 -q -o $T/tw.json
expect_py "total_size with warmup: still exactly 1024 measured events" $T/tw.json 'd["cases"][0]["ops"]["write"]["count"] == 1024'

# --- every oper x access, local scope, a multi-block buffer
run_bc $T/a run mem oper=read,write,copy,none access=seq,rnd scope=local block_size=8K buffer_size=64K --threads 2 --time 0.2 "${Q[@]}" -o $T/a.json
expect_rc "oper x access x local scope" 0
expect_py "all 8 oper/access cases ok" $T/a.json 'len(d["cases"]) == 8 and all(c["status"] == "ok" for c in d["cases"])'
expect_py "mib_per_sec > 0 for read/write/copy, absent for none" $T/a.json \
	'all(("mib_per_sec" in c["metrics"]) == (c["params"]["oper"] != "none") and c["metrics"].get("mib_per_sec", {"value": 1})["value"] > 0 for c in d["cases"])'
expect_py "oper=none still counts events" $T/a.json \
	'all(c["ops"]["none"]["count"] > 0 and c["ops"]["none"]["bytes"] == 0 for c in d["cases"] if c["params"]["oper"] == "none")'
run_bc $T/w run mem oper=read,write,copy width=word block_size=1000 --time 0.2 "${Q[@]}" -o $T/w.json
expect_py "width=word and a block that is no multiple of 8 or 32 work" $T/w.json \
	'all(c["status"] == "ok" and c["ops"][c["params"]["oper"]]["bytes"] == 1000 * c["ops"][c["params"]["oper"]]["count"] for c in d["cases"])'

# --- width=auto: 8-byte stores only where threads write one shared block
run_bc $T/au run mem oper=read,write block_size=4K scope=global,local --threads 1,2 --time 0.1 "${Q[@]}" -o $T/au.json
expect_py "width=auto picks word for shared-block writes by 2 threads, vector elsewhere" $T/au.json \
	'len(d["cases"]) == 8 and all(c["info"]["width"] == ("word" if (c["params"]["oper"], c["params"]["scope"], c["threads"]) == ("write", "global", 2) else "vector") for c in d["cases"])'
run_bc $T/av run mem oper=write width=vector --threads 2 --time 0.1 "${Q[@]}" -o $T/av.json
expect_py "an explicit width is kept" $T/av.json 'd["cases"][0]["info"]["width"] == "vector"'

# --- a buffer far beyond any LLC: no cache warning
run_bc $T/b run mem oper=read block_size=1M buffer_size=256M --time 0.2 "${Q[@]}" -o $T/b.json
expect_rc "256M buffer runs" 0
expect_no_grep "no cache warning for a 256M buffer" $T/b.err 'last-level cache'

# --- hugepages: honoured or explained, never fatal
run_bc $T/h run mem hugepages=true block_size=2M --time 0.2 "${Q[@]}" -o $T/h.json
expect_rc "hugepages=true runs whatever the machine has" 0
expect_py "info.pages says which pages were used" $T/h.json 'd["cases"][0]["info"]["pages"] in ("hugetlb", "thp", "default")'
expect_grep "hugepages=true logs how it was honoured" $T/h.err 'HugeTLB'

# --- option errors come from the options table: exit 2, name, valid values
run_bc $T/e1 run mem block_size=0 --time 0.1 -q
expect_rc "block_size=0 is refused" 2
expect_grep "block_size=0: names the option and the range" $T/e1.err 'block_size.*range is 8 \.\. 1G'
run_bc $T/e2 run mem oper=bogus --time 0.1 -q
expect_rc "oper=bogus is refused" 2
expect_grep "oper=bogus: lists the choices" $T/e2.err 'oper.*read, write, copy, none'
run_bc $T/e3 run mem access=diagonal --time 0.1 -q
expect_rc "access=diagonal is refused" 2
expect_grep "access: lists the choices" $T/e3.err 'access.*seq, rnd'
run_bc $T/e4 run mem scope=everywhere --time 0.1 -q
expect_grep "scope: lists the choices" $T/e4.err 'scope.*global, local'
run_bc $T/e5 run mem block_size=4K buffer_size=1K --time 0.1 -q -o $T/e5.json
expect_rc "buffer_size < block_size fails the case" 1
expect_py "the case's reason says what to set" $T/e5.json \
	'"buffer_size" in d["cases"][0]["reason"] and "block_size" in d["cases"][0]["reason"]'

# --- help is generated from the table
run_bc $T/hm help mem
expect_grep "help mem shows block_size and its default 1K" $T/hm.out 'block_size +size +1K'
expect_grep "help mem shows the metrics" $T/hm.out 'mib_per_sec \(MiB/s'
