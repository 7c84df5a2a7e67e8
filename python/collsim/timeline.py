"""A timeline figure of a collsim trace (`--trace FILE.json`), drawn offline with matplotlib:
`collsim plot --trace FILE.json -o timeline.png [--run K]`, or timeline(path, "fig.png").

One run of the trace (a size and algorithm of a job, or a training run): first a lane for the
collectives (start to end) and one per track of the training run (compute, waiting, collectives)
or dimension (chunk-stages), then a lane per NPU (sends in the upper half, receives and
reductions in the lower half), and below them each dimension's busy share over time (the
`network` counters).
At most MAX_LANES lanes are drawn, the first ones in the trace's order; the title says how many
were left out. Same trace, same PNG bytes (plot.save).
"""
import json
import re

import matplotlib.pyplot as plt

from ._errors import UserError
from .plot import save

MAX_LANES = 48

# Slice name -> (legend entry, colour, lane half: 0 whole, 1 upper, 2 lower).
_KINDS = [
    (re.compile(r"^send to NPU"), "send (until injected)", "C0", 1),
    (re.compile(r"^(recv|reduce) from NPU"), "receive / reduce (send to last byte)", "C1", 2),
    (re.compile(r"reduce-scatter$"), "chunk-stage: reduce-scatter", "C2", 0),
    (re.compile(r"all-gather$"), "chunk-stage: all-gather", "C4", 0),
    (re.compile(r"all-reduce$"), "chunk-stage / collective: all-reduce", "C5", 0),
    (re.compile(r"^wait for "), "waiting for communication (exposed)", "C3", 0),
    (re.compile(r" (forward|weight-gradient|input-gradient|update)$"), "compute", "C2", 0),
]
_OTHER = ("collective (start to end) / other", "C7", 0)


def _kind(name):
    for pattern, label, colour, half in _KINDS:
        if pattern.search(name):
            return label, colour, half
    return _OTHER


def load(path):
    """The trace's events (a list of dicts); UserError for a file that is not a collsim trace."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise UserError(f"{path}: no such file")
    except IsADirectoryError:
        raise UserError(f"{path}: a folder, not a trace file")
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise UserError(f"{path}: not a JSON trace ({e}); write one with `--trace FILE.json`")
    events = doc.get("traceEvents") if isinstance(doc, dict) else None
    if not isinstance(events, list):
        raise UserError(f"{path}: no traceEvents list: not a trace of collsim's `--trace`")
    return events


def runs(events):
    """{run number: {pid: process name}}. `collective`/`run` traces name their processes
    'run K: WHAT / NPU n' (several per run; the prefix is dropped); training traces have one
    process per run, numbered here in the trace's order."""
    named = [(e["pid"], str(e.get("args", {}).get("name", ""))) for e in events
             if e.get("ph") == "M" and e.get("name") == "process_name"]
    out = {}
    for pid, name in named:
        m = re.match(r"run (\d+): (.*)$", name)
        if m:
            out.setdefault(int(m.group(1)), {})[pid] = m.group(2)
    if not out:
        out = {i + 1: {pid: name} for i, (pid, name) in enumerate(named)}
    return out


def timeline(path, out, *, run=1, title=None):
    """Draws run RUN of the trace at PATH into OUT (a PNG)."""
    events = load(path)
    by_run = runs(events)
    if not by_run:
        raise UserError(f"{path}: no named processes: not a trace of collsim's `--trace`")
    if run not in by_run:
        raise UserError(f"--run {run}: the trace has runs {min(by_run)}-{max(by_run)}")
    pids = by_run[run]
    threads = {}  # (pid, tid) -> name, in the trace's order
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name" and e.get("pid") in pids:
            threads[(e["pid"], e["tid"])] = str(e["args"]["name"])
    # A lane per NPU (its collectives' tracks merged: hierarchical runs have one per stage) and
    # one for all collectives; a lane per track elsewhere (training tracks, dimensions).
    def lane_of(pid, tid):
        process = pids[pid].split(" / ")[-1]
        if re.match(r"NPU \d+$", process) or process == "collectives":
            return (pid, None)
        return (pid, tid)

    slices, counters = {}, {}
    for e in events:
        if e.get("pid") not in pids:
            continue
        if e.get("ph") == "X":
            slices.setdefault(lane_of(e["pid"], e.get("tid", 0)), []).append(
                (float(e["ts"]), float(e["dur"]), str(e["name"])))
        elif e.get("ph") == "C" and re.match(r"dim\d+ busy share$", str(e.get("name"))):
            counters.setdefault(e["name"], []).append((float(e["ts"]),
                                                       float(e["args"]["share"])))
    order = {k: i for i, k in enumerate(threads)}

    def rank(lane):
        pid, tid = lane
        npu = re.match(r"NPU (\d+)$", pids[pid].split(" / ")[-1])
        return (1 if npu else 0, pid, order.get(lane, tid if tid is not None else -1))

    lanes = sorted(slices, key=rank)
    left_out = max(0, len(lanes) - MAX_LANES)
    lanes = lanes[:MAX_LANES]
    end = max((t + d for k in lanes for t, d, _ in slices[k]), default=0.0)
    scale, unit = (1e3, "ms") if end >= 1e4 else (1.0, "us")

    height = 0.6 + 0.22 * len(lanes)
    ratios = [height] + ([1.6] if counters else [])
    fig, axes = plt.subplots(len(ratios), 1, figsize=(10, sum(ratios) + 0.8), squeeze=False,
                             sharex=True, gridspec_kw={"height_ratios": ratios})
    ax = axes[0][0]
    seen = {}
    for i, key in enumerate(lanes):
        y = len(lanes) - 1 - i
        groups = {}
        for t, d, name in slices[key]:
            groups.setdefault(_kind(name), []).append((t / scale, max(d / scale, end * 1e-4
                                                                      / scale)))
        for (label, colour, half), bars in sorted(groups.items()):
            lo, h = {0: (y - 0.4, 0.8), 1: (y, 0.4), 2: (y - 0.4, 0.4)}[half]
            ax.broken_barh(bars, (lo, h), facecolors=colour, edgecolor="white",
                           linewidth=0.3 if half == 0 else 0)
            seen[label] = colour
    labels = []
    for pid, tid in lanes:
        process = pids[pid].split(" / ")[-1]
        thread = threads.get((pid, tid), "") if tid is not None else ""
        labels.append(f"{process}: {thread}" if thread and thread != process else process)
    ax.set_yticks(range(len(lanes)), list(reversed(labels)), fontsize=7)
    ax.set_ylim(-0.6, len(lanes) - 0.4)
    what = next(iter(pids.values())).split(" / ")[0]
    ax.set_title(f"run {run}: {what}" + (f" (first {MAX_LANES} lanes of "
                                         f"{MAX_LANES + left_out})" if left_out else ""),
                 fontsize=9)
    ax.legend(handles=[plt.Rectangle((0, 0), 1, 1, color=c) for c in seen.values()],
              labels=list(seen), fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    if counters:
        cx = axes[1][0]
        for name in sorted(counters):
            pts = sorted(counters[name])
            cx.step([t / scale for t, _ in pts], [100 * v for _, v in pts], where="post",
                    label=name.replace(" busy share", ""))
        cx.set_ylabel("links busy (%)", fontsize=8)
        cx.set_ylim(0, 105)
        cx.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    axes[-1][0].set_xlabel(f"simulated time ({unit})")
    axes[-1][0].set_xlim(0, end / scale if end > 0 else 1)
    save(fig, out, title)
