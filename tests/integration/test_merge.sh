#!/usr/bin/env bash
# benchcore merge: the parts of one system's run (a module rerun, a module run
# later) as one results file that compare and report read as one system; files
# of another machine, label or benchcore version are refused and nothing is
# written; a module in several files comes whole from the last one.
. "$(dirname "$0")/lib.sh"
printf 'label = "sys1";\ntime = 0.2;\nwarmup = 0;\nthreads = [1];\nmodules = ({ name = "cpu"; max_prime = 500; }, { name = "mem"; block_size = "4K"; total_size = "1M"; });\n' >$T/m.conf
run_bc $T/a -c $T/m.conf -q -o $T/a.json
run_bc $T/b -c $T/m.conf --only mem --repeat 2 -q -o $T/b.json
run_bc $T/m -c $T/m.conf --only cpu -q -o $T/cpu2.json
run_bc $T/mg merge $T/a.json $T/b.json -o $T/ab.json
expect_rc "merge of a run and its module rerun" 0
expect_py "merge: cpu from the first file, mem (rerun, 2 repeats) wholly from the second, ids renumbered" $T/ab.json \
	"[(c['id'], c['module'], c['repeat']) for c in d['cases']] == [(1, 'cpu', 1), (2, 'mem', 1), (3, 'mem', 2)]"
expect_py "merge: groups[] recomputed (mem has 2 repeats), config has one entry per module" $T/ab.json \
	"sorted((g['module'], g['repeats']) for g in d['groups']) == [('cpu', 1), ('mem', 2)] and [m['name'] for m in d['config']['modules']] == ['cpu', 'mem']"
expect_py "merge: merged_from names each source's run_id and modules; a new run_id" $T/ab.json \
	"[(m['modules']) for m in d['merged_from']] == [['cpu'], ['mem']] and d['run_id'] not in [m['run_id'] for m in d['merged_from']]"
expect_grep "merge: the replaced module is said" $T/mg.err 'merge: module mem: the cases of .*b\.json replace those of .*a\.json'
run_bc $T/cmp compare --json $T/a.json $T/ab.json
expect_rc "compare reads a merged file" 0
expect_py "compare: the merged file is one system (its label), both modules matched, nothing unmatched" $T/cmp.out \
	"len(d['comparisons']) == 1 and d['comparisons'][0]['label'] == 'sys1' and {r['module'] for r in d['comparisons'][0]['rows']} == {'cpu', 'mem'} and not d['comparisons'][0]['only_in_a'] and not d['comparisons'][0]['only_in_b']"
run_bc $T/rep report $T/ab.json -o $T/ab.html
expect_rc "report reads a merged file" 0
# each case keeps the facts of the run it came from (issue 61 item 4): a mem
# part, then a cpu part run under another run's settings and at another
# measured clock: neither is claimed of the other's cases
run_bc $T/pm -c $T/m.conf --only mem -q -o $T/pm.json
"$PY" -S -c "
import json,sys
d=json.load(open(sys.argv[1])); d['host'].setdefault('cpu_mhz',{})['measured']=2345.6; json.dump(d, open(sys.argv[1],'w'))
d=json.load(open(sys.argv[2])); d['host'].setdefault('cpu_mhz',{})['measured']=1234.5
d['host']['other_run_settings']='thp=never (run 1234)'; json.dump(d, open(sys.argv[3],'w'))" $T/pm.json $T/cpu2.json $T/pc.json
run_bc $T/pmg merge $T/pm.json $T/pc.json -o $T/pmc.json
expect_rc "merge of a mem part and a cpu part" 0
expect_py "... the merged host claims neither part's clock nor the cpu part's other_run_settings" $T/pmc.json \
	"'other_run_settings' not in d['host'] and 'cpu_mhz' not in d['host'] and d['host']['cpu_model']"
expect_py "... each case keeps its own run's: the cpu cases 1234.5 MHz and other_run_settings, the mem cases 2345.6 and none" $T/pmc.json \
	"all(c['run']['host']['cpu_mhz']['measured'] == (1234.5 if c['module'] == 'cpu' else 2345.6) and ('other_run_settings' in c['run']['host']) == (c['module'] == 'cpu') for c in d['cases'])"
expect_py "... with its run's run_id, the one merged_from names with its file and its own host" $T/pmc.json \
	"all(any(m['run_id'] == c['run']['run_id'] and c['module'] in m['modules'] and m['host']['cpu_mhz'] == c['run']['host']['cpu_mhz'] for m in d['merged_from']) for c in d['cases']) and all('started_at' in m for m in d['merged_from'])"
run_bc $T/pmx compare --json $T/pc.json $T/pmc.json
expect_py "... compare against the cpu part: no host difference claimed in the facts one part holds (clock, other_run_settings)" $T/pmx.out \
	"not [f for f in d['comparisons'][0]['host_differences'] if f['field'].split('.')[0] in ('cpu_mhz', 'other_run_settings')]"
run_bc $T/pmm merge $T/pmc.json $T/pm.json -o $T/pmm.json
expect_py "... merged again (mem replaced by its part), the cpu cases keep their run and facts" $T/pmm.json \
	"[c['run']['host'].get('other_run_settings') for c in d['cases'] if c['module'] == 'cpu'] == ['thp=never (run 1234)'] and 'other_run_settings' not in d['host']"
# refusals: nothing written
"$PY" -S -c "import json,sys; d=json.load(open(sys.argv[1])); d['host_id']='0'*32; json.dump(d, open(sys.argv[2],'w'))" $T/b.json $T/foreign.json
run_bc $T/f merge $T/a.json $T/foreign.json -o $T/f.json
expect_rc "merge of another machine's file is refused" 2
expect_grep "the refusal names what differs" $T/f.err 'is not a part of the same system.s run as .*host_id'
check "nothing written for a refused merge" test ! -e $T/f.json
"$PY" -S -c "import json,sys; d=json.load(open(sys.argv[1])); d['host']['kernel']='9.9.9'; json.dump(d, open(sys.argv[2],'w'))" $T/b.json $T/kern.json
run_bc $T/k merge $T/a.json $T/kern.json -o $T/k.json
expect_rc "merge across a kernel change is refused" 2
expect_grep "the refusal names the kernel" $T/k.err 'host\.kernel "9\.9\.9"'
run_bc $T/l -c $T/m.conf --label other -q -o $T/other.json
run_bc $T/o merge $T/a.json $T/other.json -o $T/o.json
expect_rc "merge of another label is refused" 2
run_bc $T/x merge $T/a.json $T/b.json -o $T/ab.json
expect_rc "merge does not overwrite without --force" 2
run_bc $T/y merge $T/a.json $T/b.json -o $T/a.json --force
expect_rc "merge refuses to write over one of its inputs" 2
expect_py "the input is untouched" $T/a.json "len(d['cases']) == 2"
run_bc $T/z merge $T/a.json -o $T/z.json
expect_rc "merge of one file is a usage error" 2
echo '{"schema": "benchcore/1", "cases": [' >$T/trunc.json
run_bc $T/t merge $T/a.json $T/trunc.json -o $T/t.json
expect_rc "merge of a truncated file is refused" 2
check "no file written for a truncated input" test ! -e $T/t.json
