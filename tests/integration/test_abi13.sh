#!/usr/bin/env bash
# ABI 1.3 on the host side: a module built against the frozen 1.2 header
# (tests/abi12/old12.c: options[] entries without offset, 8 bytes shorter),
# typed options filled by offset (tests/modules/typed.c), errorf(), by-name
# getters used wrongly, and modules declaring a newer minor: loaded when they
# use nothing new, refused by name when they do (tests/modules/newer.c,
# meta_new*.c), and typed offsets that do not fit (meta_offset, meta_overlap).
. "$(dirname "$0")/lib.sh"
export BENCHCORE_MODULE_PATH=$TESTMODS
info() { echo "(lambda i: $1)(d['cases'][${2:-0}]['info'])"; }

# --- a 1.2 module: every option read through its own entry size
run_bc $T/h12 help old12
expect_rc "help of a module built for ABI 1.2" 0
expect_grep "1.2 help: the ABI shown" $T/h12.out '\(ABI 1\.2\)$'
expect_grep "1.2 help: int with a range" $T/h12.out '^  count +int +3 +an int with a range\. Range: 1 \.\. 100\.$'
expect_grep "1.2 help: int without one" $T/h12.out '^  shift +int +-7 +an int without one$'
expect_grep "1.2 help: enum and its choices" $T/h12.out '^  mode +enum +slow +an enum\. Choices: fast, slow, exact\.$'
expect_grep "1.2 help: list and its items" $T/h12.out '^  tags +string +red,blue +a list\. A list \(a,b,c\), not a sweep; items: red, green, blue\.$'
expect_grep "1.2 help: string" $T/h12.out '^  label +string +none +a string$'
expect_grep "1.2 help: size range" $T/h12.out '^  block +size +4K +a size\. Range: 512 \.\. 1G\.$'
expect_grep "1.2 help: bool, double" $T/h12.out '^  ratio +double +0\.25 +a double\. Range: 0 \.\. 1\.$'
n=$(grep -cE '^  (count|shift|mode|tags|label|block|on|ratio) ' $T/h12.out)
check "1.2 help: exactly its 8 options (got $n)" test "$n" = 8
run_bc $T/r12 run old12 --threads 1 --time 0.2 --warmup 0 -q -o $T/r12.json
expect_rc "a 1.2 module runs" 0
expect_py "1.2 module: the defaults read by name" $T/r12.json "$(info "i=={'count':'3','shift':'-7','mode_index':'1','mode':'slow','tags':'red,blue','label':'none','block':'4096','on':'1','ratio':'0.25'}")"
run_bc $T/r12b run old12 --threads 1 --time 0.2 --warmup 0 -q -o $T/r12b.json count=42 shift=-3 mode=EXACT \
	tags=green,red label=hello block=16K on=false ratio=0.5
expect_py "1.2 module: given values read by name" $T/r12b.json "$(info "i=={'count':'42','shift':'-3','mode_index':'2','mode':'exact','tags':'green,red','label':'hello','block':'16384','on':'0','ratio':'0.5'}")"
run_bc $T/r12c run old12 count=0 --threads 1 --time 0.2 --warmup 0 -q
expect_rc "1.2 module: its bounds are checked" 2
expect_grep "1.2 module: the bound is named" $T/r12c.err 'count.*1 \.\. 100'

# --- typed options: one struct per case, every type at its offset
run_bc $T/ht help typed
expect_grep "help marks a placement option" $T/ht.out '^  label +string +"" +a string \(no default\) \(placement\)$'
expect_grep "help marks an option the host may scale" $T/ht.out '^  block +size +4K +a size \(scales\)$'
run_bc $T/ht2 help typed --markdown
expect_grep "markdown marks them too" $T/ht2.out '^\| `block` \| size \| `4K` \| a size \(scales\) \|$'
run_bc $T/t0 run typed --threads 2 --time 0.2 --warmup 0 -q -o $T/t0.json
expect_rc "a typed module runs" 0
expect_py "typed: the defaults in the struct (string without default: empty, enum: its index)" $T/t0.json "$(info "i=={'on':'1','count':'3','count_by_name':'3','block':'4096','ratio':'0.25','label':'','tags':'red,blue','mode':'1'}")"
run_bc $T/t1 run typed --threads 2 --time 0.2 --warmup 0 -q -o $T/t1.json on=false count=-9 block=8K ratio=0.125 \
	label=srv1 tags=blue,green mode=fast
expect_py "typed: given values in the struct, and the by-name getter agrees" $T/t1.json "$(info "i=={'on':'0','count':'-9','count_by_name':'-9','block':'8192','ratio':'0.125','label':'srv1','tags':'blue,green','mode':'0'}")"
expect_py "typed: a worker thread reads the struct (bytes per record = block)" $T/t1.json \
 "(lambda o: o['count']>0 and o['bytes']==8192*o['count'])(d['cases'][0]['ops']['event'])"
run_bc $T/t2 run typed count=1,2,3 mode=fast,exact --threads 1 --time 0.1 --warmup 0 -q -o $T/t2.json
expect_py "typed: each case of a sweep gets its own values" $T/t2.json \
 "sorted((c['info']['count'], c['info']['mode']) for c in d['cases'])==[(a,b) for a in ('1','2','3') for b in ('0','2')] and all(c['params']['count']==int(c['info']['count']) for c in d['cases'])"

# --- a by-name getter used wrongly fails the case, naming the option
run_bc $T/m1 run typed misuse=type --threads 1 --time 0.2 --warmup 0 -q -o $T/m1.json
expect_rc "a wrong getter fails the case" 1
expect_py "the reason names the getter, the option and its type" $T/m1.json \
 "d['cases'][0]['status']=='failed' and d['cases'][0]['reason']=='init: opt_bool(\"count\"): option \"count\" is of type int; read it with opt_int() or opt_double()'"
run_bc $T/m2 run typed misuse=unknown --threads 1 --time 0.2 --warmup 0 -q -o $T/m2.json
expect_py "an unknown option name fails the case, naming it" $T/m2.json \
 "d['cases'][0]['reason']=='init: opt_int(\"nosuch\"): module \"typed\" has no option \"nosuch\"'"
run_bc $T/m3 run typed misuse=thread --threads 2 --time 0.2 --warmup 0 -q -o $T/m3.json
expect_py "a wrong getter on a worker thread fails the case too" $T/m3.json \
 "d['cases'][0]['status']=='failed' and 'opt_string(\"count\"): option \"count\" is of type int' in d['cases'][0]['reason']"

# --- errorf: message, detail and hint from one format
run_bc $T/e1 run typed fail=init label=db1 --threads 1 --time 0.2 --warmup 0 -o $T/e1.json
expect_rc "errorf in init fails the case" 1
expect_py "errorf splits message, detail and hint at the first two newlines" $T/e1.json \
 "(lambda c: c['reason']=='init: cannot reach db1' and c['error']['detail']=='label db1 was given' and c['error']['hint']=='set fail = none')(d['cases'][0])"
expect_grep "the text output shows errorf's hint" $T/e1.out '^ +hint: set fail = none'
run_bc $T/e2 run typed fail=thread --threads 2 --time 0.2 --warmup 0 -q -o $T/e2.json
expect_py "errorf from a worker names the thread; no detail or hint without newlines" $T/e2.json \
 "(lambda c: c['reason']=='thread_run: thread 0: thread gave up after 3 tries' and c['error']['thread']==0 and 'detail' not in c['error'] and 'hint' not in c['error'])(d['cases'][0])"

# --- a newer minor: loads when it uses nothing new, refused by name when it does
run_bc $T/l list
expect_grep "a newer minor that uses nothing new is listed with its ABI" $T/l.out '^newer +1 +1\.5 '
expect_grep "a newer minor's unknown option flag is refused, naming option and bit" $T/l.out \
 'incompatible module ".*meta_newflag\.so": built for ABI 1\.5, it sets option flag 0x40 on option "x", which benchcore 1\.4 does not know'
expect_grep "a newer minor's unknown descriptor field is refused, naming the byte" $T/l.out \
 'incompatible module ".*meta_newfield\.so": built for ABI 1\.5, it sets a descriptor field at byte [0-9]+, which benchcore 1\.4 does not know'
expect_grep "a newer minor's unknown option field is refused, naming the option" $T/l.out \
 'incompatible module ".*meta_newoptfield\.so": built for ABI 1\.5, option "fancy" sets a field at byte 72 of its entry'
expect_grep "a typed offset past opts_size is refused, naming the option" $T/l.out \
 'invalid module ".*meta_offset\.so": option "b" has offset 8, outside its options struct'
expect_grep "two typed options on one member are refused, naming both" $T/l.out \
 'invalid module ".*meta_overlap\.so": options "a" and "b" share bytes'
expect_grep "BENCH_OPT_SCALES on a STRING option is refused, naming the option and its type" $T/l.out \
 'invalid module ".*meta_scalestr\.so": option "label" is BENCH_OPT_SCALES but of type string'
run_bc $T/nf run meta_newflag --threads 1 --time 0.1 --warmup 0 -q
expect_rc "running a refused newer module is a load error" 2
expect_grep "the run says why" $T/nf.err 'option flag 0x40 on option "x"'
run_bc $T/hn help newer
expect_grep "newer: options read through its larger entries" $T/hn.out '^  word +string +hi +a string \(placement\)$'
run_bc $T/rn run newer n=7 --threads 1 --time 0.2 --warmup 0 -q -o $T/rn.json
expect_rc "a newer minor that uses nothing new runs" 0
expect_py "newer: its options read right" $T/rn.json "$(info "i=={'n':'7','word':'hi'}")"

# --- help: an option's help sentence ends before its range or choices begin
run_bc $T/hr help rogue
expect_grep "help: the help ends with a full stop before Choices" $T/hr.out '^  fault +enum +none +how to misbehave\. Choices: none, '
run_bc $T/hs help settings
expect_grep "help settings: the same for a setting's range" $T/hs.out '^  threads .*a list is a sweep\. Range: 1 \.\. 4096\.$'
check "... and no help runs into a range, choices or list anywhere" test -z "$(grep -hE '[a-z0-9)] (Range|Choices|A list):' $T/hr.out $T/hs.out $T/h12.out docs/modules.md docs/settings.md)"

# --- ABI 1.4 (#51, #54 items 1, 5 and 9): a module built against the frozen 1.3 header loads and runs
run_bc $T/o13 run old13 --threads 2 --time 0.2 --warmup 0 -q -o $T/o13.json
expect_rc "a 1.3 module (frozen header, typed options, needs()) runs on a 1.4 host" 0
expect_py "1.3 module: its typed struct filled, its option named scale its own, the 1.4 host's table" $T/o13.json \
 "$(info "i=={'opts':'3,2,1048576','unfinished':'yes','host_minor':'4'}")"
run_bc $T/o13e run old13 --events 37 --threads 2 --warmup 0 -q -o $T/o13e.json
expect_py "1.3 module on stopping()+claim(): --events 37 runs 37" $T/o13e.json "d['cases'][0]['ops']['tick']['count']==37"
run_bc $T/s12 run scale12 scale=5 --time 0.1 --warmup 0 -q -o $T/s12.json
expect_rc "a 1.2 module with an option named scale (a later run setting) loads and runs" 0
expect_py "... its option takes the value given" $T/s12.json "$(info "i=={'scale':'5'}")"
run_bc $T/n14 run needs14 --seed 42 --time 0.3 --warmup 0 -q -o $T/n14.json
expect_rc "a 1.4 module runs" 0
expect_py "1.4: seed(), time_s(), events() and scratch_dir() in init" $T/n14.json \
 "$(info "i=={'seed':'42','time_s':'0.3','events':'0','scratch_is_dir':'yes'}")"
run_bc $T/n14r run needs14 --time 0.3 --warmup 0 -q -o $T/n14r.json
expect_py "1.4: without --seed, seed() is the seed the run drew and recorded" $T/n14r.json \
 "str(d['schedule']['seed'])==d['cases'][0]['info']['seed']"
TMPDIR=$T run_bc $T/n14d run needs14 rows_per_s=1000000000000 --time 0.3 --warmup 0 -q -o $T/n14d.json
expect_py "1.4: disk declared without a path is checked at the scratch directory (TMPDIR), sized by time" $T/n14d.json \
 "d['cases'][0]['status']=='skipped' and d['cases'][0]['reason'].startswith('needs14 needs ') and ' at $T (row x rows_per_s x time)' in d['cases'][0]['reason']"
run_bc $T/n14s run needs14 rows_per_s=1000000000000 --time 0.000001 --warmup 0 -q -o $T/n14s.json
expect_py "... and a shorter window needs less: it runs" $T/n14s.json "d['cases'][0]['status']=='ok'"
