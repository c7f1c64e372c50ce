#!/usr/bin/env python3
"""The system calls an `strace -f -ttt` log saw inside a case's measured
window, for the sys module's tests (tests/integration/test_sys.sh).

    strace_window.py LOG RESULTS.json PATTERN...

LOG is `strace -f -ttt -o LOG -e trace=...,write,execve benchcore run sys ...`.
The window: it opens as the case's process tells the runner its phase is
"measure" (the write of "P measure" on their channel, run/isolate.c: the
engine reads its clock for the window's start right after), and closes as
it says "finish" (after the window and the join of its workers): both edges
are strace's own timestamps, which a loaded machine delays by tens of ms
(the window's start plus the results' duration_s, mixing strace's clock with
the case's, put 44 written-back counters in a window of 86 loops where at
most 34 could be; that end is kept for a log without the finish message). (Without that message, an interval report written at
the planned time t after the window opened, --report-interval and not -q,
bounds it: the least of (the write's time - t); under strace the reports can
be written late, so the message is the better mark.) A loop the sys module counts is one of a
batch the case asked its helper for (a write "spawn N" to the helper) and
recorded while the window was open; the calls of that loop ran when the
helper ran it, which for the batches answered as the window opened and those
in flight as it closed (at most two each: the module keeps two asked for) is
outside it. So the calls seen in the window differ from the loops counted by
at most two batches: the largest batch asked for is printed for the bound.

Prints, for each PATTERN (a regular expression matched at the start of a
call's text, e.g. 'clone\\('), the calls in the window made by the helper
(the processes that exec'd sys-helper) and by the others, then the largest
batch: "H1 O1 H2 O2 ... MAXBATCH".
"""
import json
import re
import sys

LINE = re.compile(r"(\d+) +(\d+\.\d+) (.*)")
PHASE = re.compile(r'write\(\d+, "P measure\\n"')
FINISH = re.compile(r'write\(\d+, "P finish\\n"')
TICK = re.compile(r'write\(2, "\[ ([0-9.]+)s \] thds:')
BATCH = re.compile(r'write\(\d+, "(?:spawn|execl|ctx|pipe|copy|shell) (\d+)')


def main(log, results, pats):
    calls, start, opened, closed, maxbatch, helper = [], None, None, None, 0, set()
    for line in open(log, errors="replace"):
        m = LINE.match(line)
        if not m:
            continue
        pid, ts, rest = m.group(1), float(m.group(2)), m.group(3)
        if rest.startswith("execve(") and "sys-helper" in rest.split(",")[0]:
            helper.add(pid)
        if opened is None and PHASE.match(rest):
            opened = ts
        if opened is not None and closed is None and FINISH.match(rest):
            closed = ts
        t = TICK.match(rest)
        if t:
            start = min(start if start is not None else ts, ts - float(t.group(1)))
        b = BATCH.match(rest)
        if b:
            maxbatch = max(maxbatch, int(b.group(1)))
        if "CLONE_THREAD" not in rest:	# a thread of the case's, not a process
            calls.append((pid, ts, rest))
    start = opened if opened is not None else start
    if start is None:
        raise SystemExit("%s: neither the measure phase nor an interval report written: the window is unknown" % log)
    end = closed if opened is not None and closed is not None else \
        start + json.load(open(results))["cases"][0]["duration_s"]
    out = []
    for p in pats:
        r = re.compile(p)
        inwin = [pid for pid, ts, rest in calls if start <= ts <= end and r.match(rest)]
        out += [sum(pid in helper for pid in inwin), sum(pid not in helper for pid in inwin)]
    print(" ".join(str(n) for n in out + [maxbatch]))


if __name__ == "__main__":
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
