#!/usr/bin/env bash
# benchcore report: the page is self-contained, escapes what it prints, and
# every chart renders in a real browser. Headless Chromium is driven over the
# DevTools protocol on a pipe (--remote-debugging-pipe: no port, no race): it
# loads each page in turn (one browser for all), collects console messages and
# exceptions, measures every <svg> with getBoundingClientRect (legends inside
# the picture, series inside the plot), reads the verdicts and tables as laid
# out, and saves a full-page screenshot.
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
FX=tests/fixtures
ART=${BC_ARTIFACTS:-$(cd "$BUILD" && pwd)/artifacts}	# the screenshots kept for a person: the build's, not a fixed /tmp path another user could plant
mkdir -p "$ART"

# A system label that would run script if it were not escaped.
python3 - "$FX/cmp-slow.json" "$T/evil.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["label"] = "<script>document.title='pwned'</script>B & \"co\""
d["host"]["os"] = "<img src=x onerror=alert(1)>"
json.dump(d, open(sys.argv[2], "w"))
EOF

run_bc "$T/rep" report $FX/cmp-a.json "$T/evil.json" $FX/cmp-two.json -o "$T/report.html"
expect_rc "report of three files" 0
H=$T/report.html
expect_grep "report: a verdict summary per file, headline apart" "$H" 'B &amp; &quot;co&quot;</bdi> vs <bdi>sysA</bdi>: headline 0 wins, 4 losses, 0 ties \(equivalent\), 0 inconclusive, 0 suspect; secondary 0 wins, 10 losses, 7 ties \(equivalent\)'
expect_grep "report: verdict table shows raw and adjusted p and the threshold" "$H" "<th>p</th><th>p adj</th><th>threshold</th><th>verdict</th>"
expect_grep "report: verdict table shows each row's interval" "$H" "<th>interval</th><th>test</th>"
expect_grep "report: legend says tie means equivalent, decided by the interval" "$H" \
	'<b>tie \(equivalent\)</b>: the interval lies wholly inside &plusmn;threshold'
expect_grep "report: the largest headline differences with their intervals" "$H" \
	"Largest headline differences \(80% interval of B/A &minus; 1\): cpu .* threads=[0-9]+ events_per_sec -10\.0% \[-[0-9.]+% \.\. -[0-9.]+%\] <span class='loss'>loss</span>"
expect_grep "report: a p99 row with its tail threshold" "$H" "<td class='num'>15% <small>tail</small></td><td class='tie'>tie"
expect_grep "report: says how verdicts are decided" "$H" 'p adjusted over all tests of a comparison \(Benjamini-Hochberg\)'
# The frequency line: the clock each case measured (cpu_freq), not the
# kernel's nominal claim, and said which; a file without a measured clock
# says its figure is the kernel's claim.
python3 - "$FX/cmp-a.json" "$T/clock.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cases"]:
    c["cpu_mhz_mean"] = 2445.0
    c["cpu_freq"] = {"measured_mhz": 3243.0, "before_mhz": 3240.0, "after_mhz": 3246.0, "cpus": 1,
                     "source": "probe", "cpuinfo_mhz": 2445.0}
json.dump(d, open(sys.argv[2], "w"))
EOF
run_bc "$T/clk" report "$T/clock.json" $FX/cmp-slow.json -o "$T/clock.html"
expect_rc "report of a file with a measured clock" 0
n=$(grep -c 'mean CPU frequency during the cases' "$T/clock.html")
m=$(grep -Ec "mean CPU frequency during the cases: <bdi>sysA</bdi> 3243 MHz <small>\(measured: cpu_freq\)</small>(, |</p>)" "$T/clock.html")
if [ "$n" -gt 0 ] && [ "$n" = "$m" ]; then pass "report: each frequency line shows the measured clock, labelled ($n lines)"
else fail "report: $m of $n frequency lines show the measured clock, labelled"; grep -m2 'mean CPU frequency' "$T/clock.html"; fi
expect_grep "report: a file without a measured clock: the kernel's claim, labelled" "$T/clock.html" \
	"<bdi>sysB-slow</bdi> 2600 MHz <small>\(the kernel's claim, cpu_mhz_mean: not measured\)</small></p>"
expect_no_grep "report: the nominal 2445 MHz is not shown as the clock" "$T/clock.html" '2445 MHz'
run_bc "$T/rep11" report --threshold-for tail=5 $FX/cmp-v11-quiet.json $FX/cmp-v11-busy.json -o "$T/v11.html"
expect_rc "report of ABI 1.1 files with --threshold-for" 0
expect_grep "report: busy verdicts are suspect" "$T/v11.html" "<td class='suspect'>suspect loss <small>\(headline\)</small> <small>\(loss in the direction interference could cause"
expect_grep "report: --threshold-for shown in the note" "$T/v11.html" 'tail 15%, fairness 50%, tail 5%'
expect_grep "report: labels escaped" "$H" '&lt;script&gt;document\.title'
expect_no_grep "report: no script or img element from the input" "$H" '<script|<img'
expect_no_grep "report: no external resources" "$H" '<(link|script|img|iframe)|@import|url\(|https?://[^w]'
expect_grep "report: fingerprint differences highlighted (kernel)" "$H" "<tr class='diff'><td>kernel</td>"
expect_no_grep "report: hostname not highlighted" "$H" "<tr class='diff'><td>hostname</td>"
expect_grep "report: higher-is-better note" "$H" 'higher is better'
expect_grep "report: scaling efficiency chart" "$H" 'scaling efficiency of events_per_sec'
expect_grep "report: latency percentiles chart" "$H" 'latency percentiles of event at 4 threads'
nsvg=$(grep -o "<svg class='chart'" "$H" | wc -l)
# cpu: metric, fairness, latency, scaling; mem read and write: metric, fairness, latency; the
# studies' views: mem's bars across its two cases (it ran at one thread count in both files)
if [ "$nsvg" -eq 11 ]; then pass "report: 11 charts written"; else fail "report: $nsvg charts, wanted 11"; fi

# A real results file from the writer, in a second page.
if "$BC" run cpu -q --time 0.3 --warmup 0.1 --threads 1,2 --repeat 2 --label real --force \
	-o "$T/real.json" >/dev/null 2>"$T/run.err"; then
	run_bc "$T/rep2" report "$T/real.json" -o "$T/real.html"
	expect_rc "report of one real results file" 0
	expect_grep "one file: says there is nothing to compare" "$T/real.html" 'One file: nothing to compare'
else
	fail "benchcore run cpu: $(tail -3 "$T/run.err")"
fi

run_bc "$T/noout" report $FX/cmp-a.json
expect_rc "report without -o" 2
run_bc "$T/badin" report $FX/cmp-a.json "$T/nothere.json" -o "$T/x.html"
expect_rc "report of a missing file" 2
expect_grep "report: names the unreadable file" "$T/badin.err" 'nothere\.json: cannot open'
check "report: no partial output on error" test ! -e "$T/x.html"
run_bc "$T/help" report --help
expect_grep "report --help documents -o" "$T/help.out" '-o, --output FILE'

# --- the browser ---------------------------------------------------------------
# One browser for every page: browser_check HTML SCREENSHOT CHARTS REPORT [HTML ...]
# loads each page in turn and writes what it found to that page's REPORT file.
browser_check() {
	timeout 150 python3 - "$@" <<'EOF'
import base64, json, os, shutil, subprocess, sys, tempfile
a = sys.argv[1:]
pages = [(os.path.abspath(a[i]), a[i + 1], int(a[i + 2]), a[i + 3]) for i in range(0, len(a) - 3, 4)]
r3, w3 = os.pipe()   # chromium reads commands on fd 3
r4, w4 = os.pipe()   # and writes replies and events on fd 4
profile = tempfile.mkdtemp(prefix="bc-chromium.")
def child():
    a, b = os.dup(r3), os.dup(w4)    # the pipes may themselves be fds 3..6
    os.dup2(a, 3, inheritable=True); os.dup2(b, 4, inheritable=True)
p = subprocess.Popen(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
    "--no-first-run", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--user-data-dir=" + profile, "--remote-debugging-pipe",
    "--window-size=1280,1000", "about:blank"],
    preexec_fn=child, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
os.close(r3); os.close(w4)
out, inp = os.fdopen(w3, "wb", 0), os.fdopen(r4, "rb", 0)
buf, seq, events = b"", 0, []
def recv():
    global buf
    while b"\0" not in buf:
        chunk = inp.read(65536)
        if not chunk:
            raise SystemExit("browser closed the pipe")
        buf += chunk
    msg, buf = buf.split(b"\0", 1)
    return json.loads(msg)
def call(method, params=None, session=None):
    global seq
    seq += 1
    m = {"id": seq, "method": method, "params": params or {}}
    if session:
        m["sessionId"] = session
    out.write(json.dumps(m).encode() + b"\0")
    while True:
        r = recv()
        if r.get("id") == seq:
            if "error" in r:
                raise SystemExit(f"{method}: {r['error']}")
            return r["result"]
        events.append(r)
def wait_event(name):
    for e in events:
        if e.get("method") == name:
            return e
    while True:
        e = recv()
        events.append(e)
        if e.get("method") == name:
            return e
target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
s = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
for d in ("Page.enable", "Runtime.enable", "Log.enable"):
    call(d, session=s)
# Per chart: its series and the legend entries drawn inside the picture (the
# dashed reference line has one more), tick labels below zero; per page: the
# per-GHz verdicts and the summary table's rows, as the browser lays them out.
probe = """JSON.stringify({
  title: document.title, scripts: document.scripts.length,
  svgs: Array.from(document.querySelectorAll('svg.chart')).map(function (s) {
    var r = s.getBoundingClientRect(), pts = s.querySelectorAll('g.series circle, g.series rect'),
        lines = s.querySelectorAll('g.series path');
    var drawn = Array.from(lines).filter(function (p) { var b = p.getBBox(); return b.width > 0 || b.height > 0; });
    var legends = Array.from(s.querySelectorAll('text.legend')).filter(function (t) {
      var b = t.getBoundingClientRect();
      return b.width > 0 && b.top >= r.top && b.bottom <= r.bottom + 1 && b.right <= r.right + 1; });
    var ref = s.querySelector('line[stroke-dasharray="4 4"] + text.legend') ? 1 : 0;
    var frame = s.querySelector(':scope > rect'), fb = frame ? frame.getBBox() : null;
    var outside = Array.from(s.querySelectorAll('g.series')).filter(function (g) {
      var b = g.getBBox(); return fb && b.height > 0 && (b.y + b.height > fb.y + fb.height + 4 || b.y < fb.y - 4); }).length;
    return {w: r.width, h: r.height, points: pts.length, lines: drawn.length,
            title: (s.querySelector('text.title') || {}).textContent,
            texts: s.querySelectorAll('text').length,
            series: s.querySelectorAll('g.series').length, legends: legends.length - ref, outside: outside,
            negticks: Array.from(s.querySelectorAll('text.tick')).filter(function (t) {
              return /^[-\u2212]/.test(t.textContent); }).length};
  }),
  proportional: Array.from(document.querySelectorAll('p.note')).map(function (p) { return p.innerText; })
    .filter(function (t) { return / throughput is (not )?proportional to the clock/.test(t); }),
  summary: Array.from(document.querySelectorAll('h3')).filter(function (h) {
      return h.innerText == 'Summary per module'; }).map(function (h) {
      var t = h.nextElementSibling;
      return Array.from(t.querySelectorAll('tr')).map(function (tr) {
        return Array.from(tr.cells).map(function (c) { return c.innerText; }); }); })[0] || []
  })"""
def page(html, shot, want, report):
    events.clear()
    call("Page.navigate", {"url": "file://" + html}, session=s)
    wait_event("Page.loadEventFired")
    res = json.loads(call("Runtime.evaluate", {"expression": probe, "returnByValue": True}, session=s)["result"]["value"])
    metrics = call("Page.getLayoutMetrics", session=s)
    height = int(metrics["cssContentSize"]["height"]) if "cssContentSize" in metrics else 4000
    img = call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
               "clip": {"x": 0, "y": 0, "width": 1280, "height": min(height, 16000), "scale": 1}}, session=s)
    open(shot, "wb").write(base64.b64decode(img["data"]))
    errors = [e for e in events if e.get("method") == "Runtime.exceptionThrown"
              or (e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] in ("error", "assert"))
              or (e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] == "error")]
    bad = [x for x in res["svgs"] if not (x["w"] > 0 and x["h"] > 0 and x["points"] > 0 and x["texts"] > 5)]
    unlisted = [x["title"] for x in res["svgs"] if x["legends"] != x["series"]]
    neg = [x["title"] for x in res["svgs"] if x["negticks"]]
    out = [x["title"] for x in res["svgs"] if x["outside"]]
    with open(report, "w") as f:
        print(f"charts={len(res['svgs'])} want={want} broken={len(bad)} errors={len(errors)} scripts={res['scripts']} title={res['title']!r}", file=f)
        for e in errors[:5]:
            print("console:", json.dumps(e["params"])[:300], file=f)
        for b in bad[:5]:
            print("broken chart:", b, file=f)
        print(f"legends_unlisted={len(unlisted)} negative_ticks={len(neg)} series_outside_plot={len(out)} {unlisted[:3]} {neg[:3]} {out[:3]}", file=f)
        print("PROPORTIONAL", json.dumps(res["proportional"]), file=f)
        print("SUMMARY", json.dumps(res["summary"]), file=f)
        print("RESULT", "ok" if len(res["svgs"]) == want and not bad and not errors and res["scripts"] == 0 and "pwned" not in res["title"] else "bad", file=f)
try:
    for pg in pages:
        page(*pg)
finally:
    try:
        call("Browser.close")
    except SystemExit:
        pass
    p.wait(timeout=20)
    shutil.rmtree(profile, ignore_errors=True)   # the throwaway browser profile
EOF
}


# --- charts as the studies need them (issue 42): every series in its legend,
# intervals clipped at zero, a one-point chart drawn as bars --------------
"$BC" run cpu max_prime=$(seq -s, 300 20 660) --threads 1,2 --time 0.05 --warmup 0 -q -o $T/many.json >/dev/null 2>&1 </dev/null
"$BC" run cpu max_prime=500 --time 0.1 --warmup 0 --repeat 3 -q -o $T/one.json >/dev/null 2>&1 </dev/null
# B's repeats spread so widely that the mean's interval reaches below zero
"$PY" -S - $T/one.json $T/wide.json <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
for c, v in zip(d["cases"], [1.0, 1e6, 1.0]):
    c["metrics"]["events_per_sec"]["value"] = v
d["label"] = "wide"
json.dump(d, open(sys.argv[2], "w"))
PYEOF
# 16 systems in one chart (the most report takes; a legend used to hold 15)
sys19=()
for i in $(seq 1 13); do
	"$PY" -S -c "import json,sys; d=json.load(open(sys.argv[1])); d['label']='sys%02d' % int(sys.argv[3]); json.dump(d, open(sys.argv[2],'w'))" $T/one.json $T/s$i.json $i
	sys19+=($T/s$i.json)
done
run_bc $T/st report $T/many.json $T/one.json $T/wide.json "${sys19[@]}" -o $T/st.html
expect_rc "report of a 19-point sweep, a one-thread run, a wide one and 13 more systems" 0
run_bc $T/st1 report $T/one.json $T/wide.json -o $T/one.html
expect_rc "report of two one-thread runs" 0
"$PY" -S - $T/st.html $T/one.html >$T/st.out <<'PYEOF'
import re, sys
html = open(sys.argv[1]).read()
bad_legend = bad_clip = bars_one = lines_one = 0
svgs = re.findall(r"<svg class='chart'.*?</svg>", html, re.S)
one = [s for s in re.findall(r"<svg class='chart'.*?</svg>", open(sys.argv[2]).read(), re.S) if " vs threads<" in s]
for svg in svgs + one:
    series = svg.count("<g class='series'>")
    legends = len(re.findall(r"class='legend'[^>]*>", svg)) - (1 if "stroke-dasharray='4 4'/><text" in svg else 0)
    if series != legends:
        bad_legend += 1
    h = float(re.search(r"height='([0-9.]+)'", svg).group(1))
    if any(float(y) > h for y in re.findall(r"<text x='[0-9.]+' y='([0-9.]+)' class='legend'", svg)):
        bad_legend += 1     # listed, but below the picture's edge
    # every value here is a rate (>= 0): no axis label below zero
    if any(t.startswith("-") for t in re.findall(r"class='tick'>([^<]*)</text>", svg)):
        bad_clip += 1
for svg in one:	# the charts against threads of two one-thread runs
    if "<circle" in svg:
        lines_one += 1
    if "<g class='series'><rect" in svg and "threads 1</text>" in svg:
        bars_one += 1
print(f"bad_legend={bad_legend} bad_clip={bad_clip} one_point_lines={lines_one} one_point_bars={bars_one}")
PYEOF
cat $T/st.out
expect_grep "every chart's legend lists every series inside the picture (16 systems in one chart)" $T/st.out 'bad_legend=0 '
expect_grep "no chart of rates shows a negative axis value for an interval reaching below zero" $T/st.out 'bad_clip=0 '
expect_grep "no chart is lines of one point each" $T/st.out 'one_point_lines=0 '
expect_grep "a chart of one point per series is drawn as bars" $T/st.out 'one_point_bars=[1-9]'

# --- the report shaped like the studies (issue 42, item 7): the per-GHz verdict and the
# summary table in the page, charts that follow compare's matching -------------------
run_bc $T/vm report $FX/cmp-vm1.json $FX/cmp-vm2.json -o $T/vm.html
expect_rc "report of two VMs (rsa, io on tmpfs and on disk, cpu in one)" 0
expect_grep "report: the per-GHz table's proportional verdict, per module" $T/vm.html \
	"^<p class='note'>vm2 against vm1: throughput is not proportional to the clock \(2 of 4 cases not, 0 undecided; largest deviation -40\.0%\); per module: rsa proportional \(2 of 2\), io not proportional \(2 of 2\); per case: "
expect_grep "report: the per-GHz table's rows" $T/vm.html \
	'^<tr><td>rsa threads=4 sign_per_sec</td><td>1996 @ 3\.00 = 665\.3</td><td>1331 @ 2\.00 = 665\.3; x0\.667 vs clock x0\.667 \(\+0\.0%\)</td></tr>$'
expect_grep "report: the summary table, a module one file did not run said so" $T/vm.html \
	'^<tr><td>cpu events_per_sec</td><td>not run in vm2</td></tr>$'
expect_grep "report: compare --table in the page, with the OpenSSL version each VM's rsa recorded" $T/vm.html \
	'^<tr><td>rsa info: openssl_version</td><td>OpenSSL 1\.0\.2k-fips  26 Jan 2017</td><td>OpenSSL 3\.0\.2 15 Mar 2022</td></tr>$'
n_io=$(grep -c '^<h3>io <small>' $T/vm.html)
if [ "$n_io" = 1 ]; then pass "report: io on tmpfs (vm1) and on disk (vm2), matched by placement: one set of charts"
else fail "report: $n_io sets of io charts for one matched case, wanted 1"; fi
expect_grep "report: the matched case's other params named under its heading" $T/vm.html \
	"^<p class='note matched'>matched as compare matches cases \(placement, --match-ignore\): <bdi>vm2</bdi> ran it with block_size=4096 path=/var/tmp/bc rw=randread</p>$"
"$PY" -S - $T/vm.html >$T/vm.io <<'PYEOF'
import re, sys
html = open(sys.argv[1]).read()
sec = html.split("<h3>io <small>", 1)[1].split("<h3>", 1)[0]
svg = re.findall(r"<svg class='chart'.*?</svg>", sec, re.S)[0]
print("series=%d with_points=%d" % (svg.count("<g class='series'>"),
      len([g for g in svg.split("<g class='series'>")[1:] if "<circle" in g.split("</g>")[0]])))
PYEOF
expect_grep "report: the io chart draws both VMs' lines" $T/vm.io '^series=2 with_points=2$'
# the same files without placement: two cases; --match-ignore path matches them again
for v in 1 2; do
	"$PY" -S -c 'import json,sys; d=json.load(open(sys.argv[1]))
for c in d["cases"]: c.pop("placement", None)
json.dump(d, open(sys.argv[2], "w"))' $FX/cmp-vm$v.json $T/np$v.json
done
run_bc $T/np report $T/np1.json $T/np2.json -o $T/np.html
n_io=$(grep -c '^<h3>io <small>' $T/np.html)
if [ "$n_io" = 2 ]; then pass "report: io at two paths, path not placement: two sets of charts"
else fail "report: $n_io sets of io charts for two unmatched cases, wanted 2"; fi
run_bc $T/npi report --match-ignore path $T/np1.json $T/np2.json -o $T/npi.html
n_io=$(grep -c '^<h3>io <small>' $T/npi.html)
if [ "$n_io" = 1 ]; then pass "report --match-ignore path: tmpfs io and disk io in one set of charts"
else fail "report --match-ignore path: $n_io sets of io charts, wanted 1"; fi

# the same in the browser: the verdict and the summary table as laid out, and the charts
# of 16 systems with every series in the legend, inside the picture, no tick below zero
if command -v chromium >/dev/null; then
	charts() { grep -o "<svg class='chart'" "$1" | wc -l; }
	browser_check "$H" "$ART/report.png" "$nsvg" "$T/browser.out" \
		$T/vm.html "$ART/report-vm.png" "$(charts $T/vm.html)" $T/bvm.out \
		$T/st.html "$ART/report-st.png" "$(charts $T/st.html)" $T/bst.out >$T/browser.err 2>&1
	cat "$T/browser.out" $T/bvm.out $T/bst.out $T/browser.err 2>/dev/null
	expect_grep "browser: every chart rendered with non-zero size, no console errors, no script ran" \
		"$T/browser.out" '^RESULT ok'
	expect_grep "browser: every legend lists every series inside its picture (a 50-character label squeezed, cut, whole in its title)" \
		"$T/browser.out" '^legends_unlisted=0 '
	if [ -s "$ART/report.png" ]; then pass "browser: screenshot saved"; else fail "browser: no screenshot"; fi
	echo "screenshots: $ART/report.png $ART/report-vm.png $ART/report-st.png"
	expect_grep "browser: the studies' page renders" $T/bvm.out '^RESULT ok'
	expect_grep "browser: the per-GHz verdict is on the page" $T/bvm.out \
		'^PROPORTIONAL \["vm2 against vm1: throughput is not proportional to the clock \(2 of 4 cases not, 0 undecided; largest deviation -40\.0%\); per module: rsa proportional \(2 of 2\), io not proportional \(2 of 2\); per case: '
	expect_grep "browser: the summary table's rows, 'not run in vm2' among them" $T/bvm.out \
		'^SUMMARY \[\["item", "vm2 vs vm1"\], \["rsa sign_per_sec", "vm1 wins \(2 of 2\)"\], .*\["cpu events_per_sec", "not run in vm2"\]\]$'
	expect_grep "browser: the page of 16 systems renders" $T/bst.out '^RESULT ok'
	expect_grep "browser: every legend lists every series inside its picture; no tick below zero, no line, bar or interval outside the plot (intervals clipped)" \
		$T/bst.out '^legends_unlisted=0 negative_ticks=0 series_outside_plot=0 '
else
	fail "chromium not installed (scripts/deps.sh installs it)"
fi
# a long label in a legend: cut at a character (never inside a UTF-8 sequence), the whole in its title
"$PY" -S -c 'import json,sys; d=json.load(open(sys.argv[1])); d["label"]="é"*25; json.dump(d, open(sys.argv[2],"w"))' \
	$FX/cmp-slow.json $T/long.json
run_bc $T/long report $FX/cmp-a.json $T/long.json -o $T/long.html
"$PY" -S - $T/long.html >$T/long.out <<'PYEOF'
import re, sys
html = open(sys.argv[1], encoding="utf-8", errors="strict").read()
m = re.findall(r"class='legend'([^>]*)><title>([^<]*)</title>([^<]*)</text>", html)
print("legends=%d first=%r" % (len(m), m[0] if m else None))
PYEOF
expect_grep "a 25-character label: cut to 17 and an ellipsis, squeezed to fit, the whole in its title, valid UTF-8" $T/long.out \
	"^legends=[1-9][0-9]* first=\(\" textLength='104' lengthAdjust='spacingAndGlyphs'\", '$(printf 'é%.0s' $(seq 25))', '$(printf 'é%.0s' $(seq 17))…'\)$"
# The report's sections are the judge's: a case compare cannot match (the same module and params,
# other thread counts only) is a section of its own, never charted beside the other file's as if
# matched; the same case at the same thread counts is one section. compare says which it is.
"$PY" -S - $FX/cmp-a.json $FX/cmp-slow.json $T <<'PYEOF'
import json, sys
a, b, out = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
for d, t, name in ((a, 1, "t1"), (b, 2, "t2"), (b, 1, "t1b")):
    d = json.loads(json.dumps(d))
    d["cases"] = [c for c in d["cases"] if c["module"] == "cpu" and c["threads"] == t]
    json.dump(d, open("%s/%s.json" % (out, name), "w"))
PYEOF
run_bc $T/um compare --json $T/t1.json $T/t2.json
"$PY" -S -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["comparisons"][0] if "comparisons" in d else d; print("rows=%d only_a=%d only_b=%d" % (len(c["rows"]), len(c["only_in_a"]), len(c["only_in_b"])))' \
	$T/um.out >$T/um.rows 2>&1
expect_grep "compare matches nothing of a case run at other thread counts only" $T/um.rows '^rows=0 only_a=[1-9][0-9]* only_b=[1-9][0-9]*$'
run_bc $T/um2 report $T/t1.json $T/t2.json -o $T/unmatched.html
expect_rc "report of two files whose one case compare cannot match" 0
n=$(grep -c "<h3>cpu <small>cpu_max_prime=10000</small></h3>" $T/unmatched.html)
if [ "$n" = 2 ]; then pass "report: a case compare cannot match is a section of its own in each file (2 sections)"
else fail "report: $n sections for a case compare cannot match (want 2, one per file)"; fi
run_bc $T/um3 report $T/t1.json $T/t1b.json -o $T/matched.html
n=$(grep -c "<h3>cpu <small>cpu_max_prime=10000</small></h3>" $T/matched.html)
if [ "$n" = 1 ]; then pass "report: the case compare matches is one section"
else fail "report: $n sections for a case compare matches (want 1)"; fi

# --- the report shaped like the studies (issue 52 item 6) -------------------
# cpu test = [dhrystone, whetstone]: loops/s and MWIPS, each on its own chart
# (whetstone was drawn at 0 loops/s and had no bar); a second file at 80% of
# the clock and of the throughput (the frequency study's shape)
"$BC" run cpu test=dhrystone,whetstone --time 0.2 --warmup 0 --repeat 2 -q -o $T/dw1.json --label one >/dev/null 2>&1 </dev/null
RC=$?
expect_rc "a real cpu run of dhrystone and whetstone" 0
"$PY" -S - $T/dw1.json $T/dw2.json <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); d["label"] = "two"; d["host"]["hostname"] = "two"
for c in d["cases"]:
    c["cpu_freq"]["measured_mhz"] *= 0.8
    for m in c["metrics"].values():
        if isinstance(m, dict) and isinstance(m.get("value"), (int, float)):
            m["value"] *= 0.8
json.dump(d, open(sys.argv[2], "w"))
PYEOF
run_bc $T/dw report $T/dw1.json $T/dw2.json --summary-rows cpu -o $T/dw.html
expect_rc "report of dhrystone and whetstone at two clocks" 0
"$PY" -S - $T/dw.html >$T/dw.chk <<'PYEOF'
import re, sys
h = open(sys.argv[1]).read()
figs = re.findall(r"<svg class='chart'[^>]*aria-label='([^']*)'>(.*?)</svg>", h, re.S)
def fig(title):
    return [body for t, body in figs if t == title]
bar = fig("cpu: mwips of every case, one bar per file")
print("WHETBAR", len(bar), len(re.findall(r"<rect [^>]*><title>two: [0-9.e+]+</title>", bar[0])) if bar else 0)
print("DHRYBAR", len(fig("cpu: loops_per_sec of every case, one bar per file")))
clk = fig("cpu: mwips against the measured clock, one line per case")
if clk:
    ticks = [(float(x), t) for x, t in re.findall(r"<text x='([0-9.]+)' y='[0-9]+' text-anchor='middle' class='tick'>([^<]*)</text>", clk[0])]
    xs = sorted(x for x, _ in ticks)
    print("CLKZERO", any(t == "0" for _, t in ticks))
    print("CLKGAP", min([b - a for a, b in zip(xs, xs[1:])] or [999]) >= 20)
else:
    print("CLKZERO none")
print("CAPTION", "both axes from 0: a line through the origin" in h)
PYEOF
expect_grep "report: whetstone's MWIPS has its own bar chart, a bar for each file" $T/dw.chk '^WHETBAR 1 [1-9]'
expect_grep "report: dhrystone's loops/s its own" $T/dw.chk '^DHRYBAR 1$'
expect_grep "report: the clock chart's x axis starts at 0 (its caption speaks of the origin)" $T/dw.chk '^CLKZERO True$'
expect_grep "report: the clock chart's tick labels at least 20 px apart" $T/dw.chk '^CLKGAP True$'
expect_grep "report: the clock chart's caption says both axes start at 0" $T/dw.chk '^CAPTION True$'
expect_grep "report --summary-rows cpu: one item, and the closing line" $T/dw.html \
	"^<p class='note'>two against one: two (better|worse|the same|mixed|undecided) in 1 of 1</p>$"
n=$(grep -c "^<tr><td>cpu " $T/dw.html)
run_bc $T/dwm report --metric events_per_sec --by cpu.test $T/dw1.json $T/dw2.json -o $T/dwm.html
expect_rc "report --metric events_per_sec --by cpu.test" 0
expect_grep "report --metric --by: the table's rows name the test and the metric asked for" $T/dwm.html '^<tr><td>whetstone events_per_sec</td>'
expect_grep "report --metric: the bars show it" $T/dwm.html "aria-label='cpu: events_per_sec of every case, one bar per file'"
run_bc $T/dwx report --metric bogus $T/dw1.json $T/dw2.json -o $T/dwx.html
expect_rc "report --metric bogus: refused" 2
[ ! -e $T/dwx.html ] && pass "report --metric bogus: no page written" || fail "report --metric bogus: a page was written"
run_bc $T/dwy report --summary-rows cpu.nope $T/dw1.json $T/dw2.json -o $T/dwy.html
expect_rc "report --summary-rows naming no metric: refused" 2
# linear scaling as a table, not only a chart: the study's "500 x 8"
run_bc $T/sc report $FX/cmp-a.json -o $T/sc.html
expect_grep "report: scaling as a table, a value per thread times the threads (980 x 4: 3920 at 4 threads)" $T/sc.html \
	"^<tr><td>sysA</td><td>cpu cpu_max_prime=10000</td><td>events_per_sec</td><td class='num'>4</td><td class='num'>3920</td><td class='num'>980 &times; 4</td><td class='num'>3.92x</td><td class='num'>98%</td></tr>$"
