#!/usr/bin/env python3
"""Write ACE's figures as tables (paper value, collsim value, ratio) into docs/ace.md.

Usage: tools/ace_tables.py RESULTS_DIR DOC
Reads RESULTS_DIR/ace-fig9.csv (Figs. 9 and 11), ace-fig10.csv, ace-fig12-13.csv,
ace-fig14-16.csv, ace-fig14-astra.csv and ace-fig17.csv (written by `make reproduce`) and replaces the text between the markers
<!-- ace-tables:begin --> and <!-- ace-tables:end --> in DOC. Averages are geometric means over
the platforms and sizes, as speedups average. Paper values: ACE (MICRO'20) Sec. 6. Standard
library only; deterministic output.
"""
import csv
import math
import os
import sys
from collections import defaultdict

import doc_tables

BEGIN = "<!-- ace-tables:begin -->"
END = "<!-- ace-tables:end -->"

# ACE Sec. 6: averages over the paper's platforms and sizes.
PAPER = {
    ("fig9", "ace/baseline"): 1.51,
    ("fig9", "ideal/ace"): 1.43,
    ("fig9", "ideal/baseline"): 2.17,
    ("fig10", "ace/baseline"): 1.22,
    ("fig12", "ace/baseline"): 1.55,
    ("fig13", "ace/baseline"): 1.20,
}


def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def endpoint_name(label):
    return label.split(":")[0]


def size_text(b):
    b = int(b)
    return f"{b >> 20} MiB" if b >= 1 << 20 else f"{b >> 10} KiB"


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def collective_times(rows, collective):
    """{(platform, size): {endpoint: us}} for the hierarchical rows of one collective."""
    out = defaultdict(dict)
    for r in rows:
        if r["collective"] != collective or r["algorithm"] == "ideal":
            continue
        out[(r["platform"], int(r["size_bytes"]))][endpoint_name(r["endpoint"])] = (
            float(r["time_ns"]) / 1e3)
    return out


def ratio_cell(collsim, paper):
    if paper is None:
        return f"| {collsim:.2f}x | | |"
    return f"| {collsim:.2f}x | {paper:.2f}x | {collsim / paper:.2f} |"


def micro_section(fig, title, times):
    lines = [f"### {title}", "",
             "| platform | size | baseline (us) | ACE (us) | ideal (us) | ACE / baseline | "
             "ideal / ACE |", "|---|---|---|---|---|---|---|"]
    by_platform = defaultdict(list)
    for (platform, size) in sorted(times, key=lambda k: (k[0], k[1])):
        t = times[(platform, size)]
        ab, ia = t["baseline"] / t["ace"], t["ace"] / t["ideal"]
        by_platform[platform].append((ab, ia))
        flag = " (ideal slower)" if ia < 1 else ""
        lines.append(f"| {platform} | {size_text(size)} | {t['baseline']:.1f} | {t['ace']:.1f} | "
                     f"{t['ideal']:.1f} | {ab:.2f}x | {ia:.2f}x{flag} |")
    ordered = sum(1 for t in times.values() if t["ideal"] <= t["ace"] <= t["baseline"])
    lines += ["", f"Rows with ideal <= ACE <= baseline (no tolerance): {ordered} of {len(times)}.",
              "", "| average (geometric) | collsim | paper | collsim / paper |",
              "|---|---|---|---|"]
    everything = [x for v in by_platform.values() for x in v]
    for name, pick in (("ACE over baseline", lambda x: x[0]), ("ideal over ACE", lambda x: x[1]),
                       ("ideal over baseline", lambda x: x[0] * x[1])):
        key = {"ACE over baseline": "ace/baseline", "ideal over ACE": "ideal/ace",
               "ideal over baseline": "ideal/baseline"}[name]
        lines.append(f"| {name}, all platforms " + ratio_cell(gmean([pick(x) for x in everything]),
                                                           PAPER.get((fig, key))))
        for platform in sorted(by_platform):
            if fig == "fig9" and platform.endswith("4x4x4"):
                lines.append(f"| {name}, {platform} " +
                             ratio_cell(gmean([pick(x) for x in by_platform[platform]]),
                                        PAPER.get((fig, key))))
    return lines + [""]


def training_totals(rows):
    """{(workload, platform): {endpoint: row}} for the whole-run rows."""
    totals = defaultdict(dict)
    for r in rows:
        if r["layer"] == "total":
            totals[(r["workload"], r["platform"])][endpoint_name(r["endpoint"])] = r
    return totals


def training_section(title, rows, paper):
    totals = training_totals(rows)
    lines = [f"### {title}", "",
             "| workload | platform | baseline (ms) | baseline++ | ACE | ideal | ACE exposed (ms) |",
             "|---|---|---|---|---|---|---|"]
    speed = defaultdict(lambda: defaultdict(list))
    for (workload, platform) in sorted(totals):
        t = totals[(workload, platform)]
        it = {e: float(t[e]["iteration_ns"]) / 1e6 for e in t}
        for e in ("baseline++", "ace", "ideal"):
            speed[workload][e].append(it["baseline"] / it[e])
        lines.append(
            f"| {workload} | {platform} | {it['baseline']:.3f} | "
            f"{it['baseline'] / it['baseline++']:.2f}x | {it['baseline'] / it['ace']:.2f}x | "
            f"{it['baseline'] / it['ideal']:.2f}x | {float(t['ace']['exposed_ns']) / 1e6:.3f} |")
    lines += ["", "| average over platforms (geometric) | collsim | paper | collsim / paper |",
              "|---|---|---|---|"]
    for workload in sorted(speed):
        for e in ("baseline++", "ace", "ideal"):
            p = paper.get((workload, e))
            lines.append(f"| {workload}: {e} over baseline " +
                         ratio_cell(gmean(speed[workload][e]), p))
    return lines + [""]


# ACE Sec. 6 on Fig. 17: utilization normalized to ideal, averaged over both workloads and the
# tori: ACE 74.6%, baseline 37.8%, ACE 1.97x baseline.
FIG17 = {"baseline": 0.378, "ace": 0.746}


def fig17_section(rows):
    totals = training_totals(rows)
    lines = ["### Fig. 17: network bandwidth utilization normalized to ideal", "",
             "Utilization is the collectives' bytes over the time a collective was running "
             "(`comm_ns`), so normalized to ideal it is comm time (ideal) / comm time (endpoint). "
             "From results/ace-fig17.csv (examples/ace/fig17.yaml).", "",
             "| workload | platform | baseline | baseline++ | ACE | ACE / baseline |",
             "|---|---|---|---|---|---|"]
    util = defaultdict(list)
    for (workload, platform) in sorted(totals):
        t = totals[(workload, platform)]
        comm = {e: float(t[e]["comm_ns"]) for e in t}
        u = {e: comm["ideal"] / comm[e] for e in ("baseline", "baseline++", "ace")}
        for e, v in u.items():
            util[e].append(v)
        lines.append(f"| {workload} | {platform} | {u['baseline']:.1%} | {u['baseline++']:.1%} | "
                     f"{u['ace']:.1%} | {u['ace'] / u['baseline']:.2f}x |")
    mean = {e: sum(v) / len(v) for e, v in util.items()}
    lines += ["", "| average over workloads and platforms (arithmetic) | collsim | paper | "
              "collsim / paper |", "|---|---|---|---|"]
    for e in ("baseline", "baseline++", "ace"):
        p = FIG17.get(e)
        tail = f"| {p:.1%} | {mean[e] / p:.2f} |" if p else "| | |"
        lines.append(f"| {e} utilization vs ideal | {mean[e]:.1%} {tail}")
    ratio = mean["ace"] / mean["baseline"]
    paper_ratio = FIG17["ace"] / FIG17["baseline"]
    lines.append(f"| ACE over baseline | {ratio:.2f}x | {paper_ratio:.2f}x | "
                 f"{ratio / paper_ratio:.2f} |")
    return lines + [""]


def metrics(row):
    out = {}
    for kv in row.get("endpoint_metrics", "").split(";"):
        if "=" in kv:
            k, v = kv.split("=", 1)
            out[k] = float(v)
    return out


# ACE Sec. 6 on Fig. 11: on average over Fig. 9's runs ACE cuts chunk queuing by 44.9% and bus
# congestion (bus queuing + transfer, per transfer request) by 88.9% against the baseline.
FIG11 = {"chunk": 0.449, "bus": 0.889}
FIG11_KEYS = (("bus_queuing_ns", "bus queuing (ns)"), ("bus_transfer_ns", "bus transfer (ns)"),
              ("local_reduction_ns", "local reduction (ns)"),
              ("chunk_queuing_ns", "chunk queuing (ns)"),
              ("message_network_ns", "message network (ns)"))


def fig11_section(rows):
    runs = defaultdict(dict)
    for r in rows:
        if r["collective"] != "all-reduce" or r["algorithm"] == "ideal":
            continue
        e = endpoint_name(r["endpoint"])
        if e in ("baseline", "ace"):
            runs[(r["platform"], int(r["size_bytes"]))][e] = metrics(r)
    lines = ["### Fig. 11: latency breakdown of Fig. 9's all-reduce (averages per platform over "
             "the sizes)", "",
             "Per run, as the paper's caption defines them: bus queuing and bus transfer per "
             "transfer request (a 4 KB bus message on the NPU-memory or NPU-NIC bus; ACE's are "
             "its DMA), local reduction per reduced bus message (queue for the NPU's share of "
             "compute or ACE's ALUs included), chunk queuing per chunk-stage (waiting in its "
             "dimension's queue: places, and ACE's SRAM and state machines), message network "
             "per algorithm message; then the arithmetic mean over Fig. 9's sizes.", "",
             "| platform | endpoint | " + " | ".join(h for _, h in FIG11_KEYS) + " |",
             "|---|---|" + "---|" * len(FIG11_KEYS)]
    platforms = sorted({p for p, _ in runs})
    chunk_cut, bus_cut = [], []
    for (platform, size), m in runs.items():
        b, a = m["baseline"], m["ace"]
        if b.get("chunk_queuing_ns"):
            chunk_cut.append(1 - a.get("chunk_queuing_ns", 0) / b["chunk_queuing_ns"])
        bb = b.get("bus_queuing_ns", 0) + b.get("bus_transfer_ns", 0)
        if bb:
            bus_cut.append(1 - (a.get("bus_queuing_ns", 0) + a.get("bus_transfer_ns", 0)) / bb)
    for platform in platforms:
        for e in ("baseline", "ace"):
            ms = [m[e] for (p, _), m in runs.items() if p == platform]
            cells = [sum(x.get(k, 0) for x in ms) / len(ms) for k, _ in FIG11_KEYS]
            lines.append(f"| {platform} | {e} | " + " | ".join(f"{c:.1f}" for c in cells) + " |")
    lines += ["", "| ACE against baseline, mean over Fig. 9's runs | collsim | paper | "
              "collsim / paper |", "|---|---|---|---|"]
    for name, cut, p in (("chunk queuing reduced by", chunk_cut, FIG11["chunk"]),
                         ("bus congestion (queuing + transfer) reduced by", bus_cut,
                          FIG11["bus"])):
        v = sum(cut) / len(cut)
        lines.append(f"| {name} | {v:.1%} | {p:.1%} | {v / p:.2f} |")
    return lines + [""]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: ace_tables.py RESULTS_DIR DOC")
    res, doc = sys.argv[1], sys.argv[2]
    f9 = read(os.path.join(res, "ace-fig9.csv"))
    f10 = read(os.path.join(res, "ace-fig10.csv"))
    f12 = read(os.path.join(res, "ace-fig12-13.csv"))
    out = [BEGIN, "",
           "Generated by `make reproduce` (tools/ace_tables.py) from results/ace-*.csv; do not "
           "edit by hand. Paper values are the averages of ACE Sec. 6 (its figures' bars are not "
           "given as numbers).", ""]
    out += micro_section("fig9", "Fig. 9: all-reduce on the tori", collective_times(f9, "all-reduce"))
    out += fig11_section(f9)
    out += micro_section("fig10", "Fig. 10: all-to-all on the tori",
                         collective_times(f10, "all-to-all"))
    out += micro_section("fig12", "Fig. 12: all-reduce on the alltoall platforms",
                         collective_times(f12, "all-reduce"))
    out += micro_section("fig13", "Fig. 13: all-to-all on the alltoall platforms",
                         collective_times(f12, "all-to-all"))
    paper = {("Resnet50_DataParallel", "ace"): 2.71, ("resnet50", "ace"): 2.71,
             ("gnmt", "ace"): 1.44, ("gnmt", "baseline++"): 1.04}
    astra = os.path.join(res, "ace-fig14-astra.csv")
    if os.path.exists(astra):
        out += training_section(
            "Fig. 14: ResNet-50 from ASTRA-sim 1.0's Resnet50_DataParallel.txt "
            "(ms per iteration, speedups over baseline)", read(astra), paper)
    out += training_section(
        "Figs. 14 and 16: ResNet-50 and GNMT on the SCALE-Sim systolic model (ms per "
        "iteration, speedups over baseline)", read(os.path.join(res, "ace-fig14-16.csv")), paper)
    f17 = os.path.join(res, "ace-fig17.csv")
    if os.path.exists(f17):
        out += fig17_section(read(f17))
    out.append(END)
    doc_tables.rewrite(doc, {"ace": out[1:-1]}, lambda _: (BEGIN, END), "ace_tables.py")

if __name__ == "__main__":
    main()
