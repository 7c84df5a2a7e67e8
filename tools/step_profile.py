#!/usr/bin/env python3
"""Per-step profile of one run of a `--trace` file: how long each time step of a collective took.

For every step (the `step` argument of the trace's send and receive slices: MultiTree's tree
steps, a ring's steps, ...): the messages and bytes of the step, the largest message, when its
first send started and its last receive ended, and how far the step frontier advanced (the last
receive of step s minus that of step s - 1; the advances add up to the run's time). With
`--bandwidth` the table adds each step's link-bound time (largest message / bandwidth) and its
excess, which is where a run loses time against its bandwidth bound. Standard library only.

With `--channels NPU` it prints instead, for each peer that NPU sends to, the sends, the time
its sends occupy (the sum of their slices), when the last ends and the idle time before then:
for algorithms whose program has no steps (the 2D-Rings' chain flows), where a run's time goes.

  tools/step_profile.py TRACE.json [--run 1] [--bandwidth 16e9] [--csv OUT.csv]
  tools/step_profile.py TRACE.json --channels 0 [--run 1]
"""
import argparse
import csv
import json
import re
import sys
from collections import defaultdict


def load(path, pattern, what):
    """The trace's events and the pids whose process name matches `pattern`."""
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    pids = {e["pid"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"
            and re.match(pattern, e["args"]["name"])}
    if not pids:
        sys.exit(f"step_profile: no {what} in {path}")
    return events, pids


def profile(path, run):
    events, pids = load(path, rf"run {run}: ", f"run {run}")
    steps = defaultdict(lambda: {"messages": 0, "bytes": 0, "largest": 0, "first": None,
                                 "last": 0.0})
    for e in events:
        if e.get("ph") != "X" or e["pid"] not in pids or "step" not in e.get("args", {}):
            continue
        s = steps[e["args"]["step"]]
        if e["name"].startswith("send"):
            s["messages"] += 1
            s["bytes"] += e["args"]["bytes"]
            s["largest"] = max(s["largest"], e["args"]["bytes"])
            s["first"] = e["ts"] if s["first"] is None else min(s["first"], e["ts"])
        else:
            s["last"] = max(s["last"], e["ts"] + e["dur"])
    return dict(sorted(steps.items()))


def channels(path, run, npu):
    """{peer: (sends, busy us, last end us)} of one NPU's sends (trace pid = NPU + 1)."""
    events, pids = load(path, rf"run {run}: .* / NPU {npu}$", f"NPU {npu} of run {run}")
    out = defaultdict(lambda: [0, 0.0, 0.0])
    for e in events:
        if e.get("ph") == "X" and e["pid"] in pids and e["name"].startswith("send to "):
            c = out[e["name"][len("send to "):]]
            c[0] += 1
            c[1] += e["dur"]
            c[2] = max(c[2], e["ts"] + e["dur"])
    return dict(sorted(out.items()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--run", type=int, default=1)
    ap.add_argument("--bandwidth", type=float, help="link bandwidth in bytes/s")
    ap.add_argument("--csv")
    ap.add_argument("--channels", type=int, metavar="NPU")
    a = ap.parse_args()
    if a.channels is not None:
        print("peer,sends,busy_us,last_end_us,idle_us")
        for peer, (n, busy, end) in channels(a.trace, a.run, a.channels).items():
            print(f"{peer},{n},{busy:.3f},{end:.3f},{end - busy:.3f}")
        return
    steps = profile(a.trace, a.run)
    rows, frontier = [], 0.0
    for step, s in steps.items():
        advance = max(0.0, s["last"] - frontier)
        frontier = max(frontier, s["last"])
        row = {"step": step, "messages": s["messages"], "bytes": s["bytes"],
               "largest_bytes": s["largest"], "first_send_us": round(s["first"] or 0, 3),
               "last_recv_us": round(s["last"], 3), "advance_us": round(advance, 3)}
        if a.bandwidth:
            bound = s["largest"] / a.bandwidth * 1e6
            row["bound_us"] = round(bound, 3)
            row["excess_us"] = round(advance - bound, 3)
        rows.append(row)
    out = open(a.csv, "w", newline="") if a.csv else sys.stdout
    w = csv.DictWriter(out, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
    total = sum(r["advance_us"] for r in rows)
    line = f"# {len(rows)} steps, {total:.3f} us"
    if a.bandwidth:
        line += f", link bound {sum(r['bound_us'] for r in rows):.3f} us"
    print(line, file=sys.stderr)


if __name__ == "__main__":
    main()
