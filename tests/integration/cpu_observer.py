#!/usr/bin/env python3
"""An observer of CPU time that benchcore does not control, for the
interference tests (tests/integration/test_interference.sh).

    cpu_observer.py HOG_CPU BENCHCORE ARGS...

(HOG_CPU "none": no loop, the case beside nothing but the machine's own load.)
Starts a busy loop pinned to HOG_CPU in a session of its own (so the
scheduler's autogroup treats it as it treats the case, which runs in its own
session too), runs `BENCHCORE ARGS...` (which must print its interval reports
to stderr: --report-interval, not -q), samples /proc/stat per CPU, the
loop's /proc/PID/stat and the case process's every few milliseconds from
CPU 1 (never CPU 0, where the case runs), and prints one JSON object: what
each took of CPU 0 and of the machine over the case's measured window.

The window: benchcore prints each interval report at the planned time t after
the window opened, so the window opened at most (arrival - t) before a line
arrived: the least of those over the reports, to within the printing delay;
it lasted the results' duration_s (read by the caller, passed back in through
--window, see below). Every figure is interpolated between the two samples
around each edge. /proc/stat counts in ticks of 10 ms, so over a 1 s window
a share is known to about 2 points: the tests allow 5.

Then, in a second call:  cpu_observer.py --window SAMPLES.json DURATION_S
prints the shares over [start, start + DURATION_S].
"""
import json
import os
import signal
import subprocess
import sys
import threading
import time

HZ = os.sysconf("SC_CLK_TCK")


def proc_stat():
    """{cpu: (busy, total, steal)} with cpu -1 the machine: busy is user nice
    system irq softirq, as benchcore counts it (steal and idle are not busy)."""
    out = {}
    with open("/proc/stat") as f:
        for line in f:
            if not line.startswith("cpu"):
                break
            name, *v = line.split()
            v = [int(x) for x in v[:8]]
            cpu = -1 if name == "cpu" else int(name[3:])
            out[cpu] = (v[0] + v[1] + v[2] + v[5] + v[6], sum(v), v[7])
    return out


def pid_ticks(pid):
    """utime + stime of a whole process (every thread), in ticks; None once gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            rest = f.read().rsplit(")", 1)[1].split()
        return int(rest[11]) + int(rest[12])
    except (OSError, IndexError, ValueError):
        return None


def children(pid):
    kids = set()
    try:
        for task in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/children" % (pid, task)) as f:
                kids.update(int(k) for k in f.read().split())
    except OSError:
        pass
    return kids


def tree_ticks(pid):
    """utime + stime of pid and of every descendant alive now (a case's
    helper processes: sys-helper and the partner it forked); a member that
    ends inside the window makes the sum drop, so this is for trees whose
    processes live across it."""
    total, todo, seen = 0, [pid], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        t = pid_ticks(p)
        if t is not None:
            total += t
            todo.extend(children(p))
    return total


def observe(hog_cpu, argv):
    try:
        os.sched_setaffinity(0, {1})	# the sampler stays off the case's CPU
    except OSError:
        pass
    hog = None if hog_cpu is None else subprocess.Popen(
        ["taskset", "-c", str(hog_cpu), "sh", "-c", "while :; do :; done"],
        start_new_session=True, stdin=subprocess.DEVNULL)
    # the sampler and its reader thread run first whenever they wake (a real-time
    # policy; they sleep most of the time): on CPU 1 beside the loop and a loaded
    # machine's other work a normal one was seen to wait 600 ms between samples, and
    # then missed the case's start; what it starts (benchcore) is back to normal
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO | os.SCHED_RESET_ON_FORK, os.sched_param(1))
    except (OSError, AttributeError):
        pass
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    samples, ticks = [], []
    try:
        time.sleep(0.2)	# the loop running before the case starts
        bc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)

        def read_reports():
            for line in bc.stderr:
                now = time.monotonic()
                sys.stderr.write(line)
                if line.startswith("[ ") and "s ] thds:" in line:
                    ticks.append((now, float(line[2:line.index("s ]")])))
        reader = threading.Thread(target=read_reports)
        reader.start()
        while bc.poll() is None:
            # the case runs in a child of benchcore's (run/isolate.c): every child
            # sampled, the case is the one that ran in the window
            kids = {str(k): pid_ticks(k) for k in children(bc.pid)}
            trees = {k: tree_ticks(int(k)) for k in kids}
            st = proc_stat()
            samples.append({"t": time.monotonic(), "stat": {str(k): v for k, v in st.items()},
                            "hog": pid_ticks(hog.pid) if hog else 0, "kids": kids, "trees": trees})
            time.sleep(0.003)
        reader.join()
    finally:
        if hog:
            hog.kill()
            hog.wait()
    start = min((a - t for a, t in ticks), default=None)
    json.dump({"rc": bc.returncode, "start": start, "samples": samples}, sys.stdout)


def at(samples, t, key):
    """The counter `key` (a function of a sample) interpolated at time t."""
    before = [s for s in samples if s["t"] <= t and key(s) is not None]
    after = [s for s in samples if s["t"] >= t and key(s) is not None]
    if not before or not after:
        raise ValueError("no sample on both sides of %.3f" % t)
    a, b = before[-1], after[0]
    if b["t"] == a["t"]:
        return key(a)
    return key(a) + (key(b) - key(a)) * (t - a["t"]) / (b["t"] - a["t"])


def window(path, duration):
    d = json.load(open(path))
    s, t0 = d["samples"], d["start"]
    if t0 is None:
        raise SystemExit("no interval report seen: the window is unknown")
    t1 = t0 + duration
    delta = lambda key: at(s, t1, key) - at(s, t0, key)
    busy0, total0 = delta(lambda x: x["stat"]["0"][0]), delta(lambda x: x["stat"]["0"][1])
    steal0 = delta(lambda x: x["stat"]["0"][2])
    busy1, total1 = delta(lambda x: x["stat"]["1"][0]), delta(lambda x: x["stat"]["1"][1])
    busy, total = delta(lambda x: x["stat"]["-1"][0]), delta(lambda x: x["stat"]["-1"][1])
    hog = delta(lambda x: x["hog"])
    def kid_delta(key):
        # what a child took in the window: a child that ended inside it took nothing
        # after its last sample, one that began inside it nothing before its first (on
        # a loaded machine benchcore prints its interval reports late, so the window
        # read from them may end after the case's process has)
        seen = [x for x in s if key(x) is not None]
        if not seen or seen[-1]["t"] < t0 or seen[0]["t"] > t1:
            return 0
        a = at(s, t0, key) if seen[0]["t"] <= t0 else 0	# a process begun in the window: all of it
        b = at(s, t1, key) if t1 <= seen[-1]["t"] else key(seen[-1])
        return b - a
    case = max([kid_delta(lambda x, k=k: x["kids"].get(k)) for k in set(k for x in s for k in x["kids"])], default=0)
    # the case with its descendants (helpers it started)
    tree = max([kid_delta(lambda x, k=k: x.get("trees", {}).get(k)) for k in set(k for x in s for k in x.get("trees", {}))],
               default=0)
    gaps = [b["t"] - a["t"] for a, b in zip(s, s[1:]) if t0 - 0.1 <= a["t"] <= t1 + 0.1]
    print(json.dumps({
        "cpu0_other_pct": 100.0 * (busy0 - case) / total0,	# all but the case's own time
        "cpu0_interference_pct": 100.0 * (busy0 - case + steal0) / total0,	# and the hypervisor's
        "cpu1_busy_pct": 100.0 * busy1 / total1,
        "machine_other_pct": 100.0 * (busy - case) / total,
        "hog_cpu0_pct": 100.0 * hog / total0,
        "hog_machine_pct": 100.0 * hog / total,
        "case_use": case / total0,
        # the same with the case's descendants counted as the case's
        "cpu0_interference_tree_pct": 100.0 * (busy0 - tree + steal0) / total0,
        "case_tree_use": tree / total0,
        "window_s": duration, "samples": len(s), "max_gap_ms": 1000.0 * max(gaps, default=0),
    }))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--window":
        window(sys.argv[2], float(sys.argv[3]))
    elif len(sys.argv) > 2:
        observe(None if sys.argv[1] == "none" else int(sys.argv[1]), sys.argv[2:])
    else:
        raise SystemExit(__doc__)
