#!/usr/bin/env python3
"""Write ACE's figures as tables (paper value, collsim value, ratio) into docs/ace.md.

Usage: tools/ace_tables.py RESULTS_DIR DOC
Reads RESULTS_DIR/ace-fig9.csv, ace-fig10.csv, ace-fig12-13.csv, ace-fig14-16.csv and
ace-fig14-astra.csv (written by `make reproduce`) and replaces the text between the markers
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
    lines += ["", "| average (geometric) | collsim | paper | collsim / paper |",
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


def training_section(title, rows, paper):
    totals = defaultdict(dict)
    for r in rows:
        if r["layer"] != "total":
            continue
        totals[(r["workload"], r["platform"])][endpoint_name(r["endpoint"])] = r
    lines = [f"### {title}", "",
             "| workload | platform | baseline (ms) | baseline++ | ACE | ideal | ACE exposed (ms) | "
             "utilization vs ideal: baseline | ACE |", "|---|---|---|---|---|---|---|---|---|"]
    speed = defaultdict(lambda: defaultdict(list))
    util = defaultdict(lambda: defaultdict(list))
    for (workload, platform) in sorted(totals):
        t = totals[(workload, platform)]
        it = {e: float(t[e]["iteration_ns"]) / 1e6 for e in t}
        comm = {e: float(t[e]["comm_ns"]) for e in t}
        for e in ("baseline++", "ace", "ideal"):
            speed[workload][e].append(it["baseline"] / it[e])
        for e in ("baseline", "baseline++", "ace"):
            util[workload][e].append(comm["ideal"] / comm[e])
        lines.append(
            f"| {workload} | {platform} | {it['baseline']:.3f} | "
            f"{it['baseline'] / it['baseline++']:.2f}x | {it['baseline'] / it['ace']:.2f}x | "
            f"{it['baseline'] / it['ideal']:.2f}x | {float(t['ace']['exposed_ns']) / 1e6:.3f} | "
            f"{comm['ideal'] / comm['baseline']:.1%} | {comm['ideal'] / comm['ace']:.1%} |")
    lines += ["", "| average over platforms (geometric) | collsim | paper | collsim / paper |",
              "|---|---|---|---|"]
    for workload in sorted(speed):
        for e in ("baseline++", "ace", "ideal"):
            p = paper.get((workload, e))
            lines.append(f"| {workload}: {e} over baseline " +
                         ratio_cell(gmean(speed[workload][e]), p))
        for e in ("baseline", "ace"):
            u = gmean(util[workload][e])
            p = paper.get((workload, "util-" + e))
            tail = f"| {p:.1%} | {u / p:.2f} |" if p else "| | |"
            lines.append(f"| {workload}: {e} network utilization vs ideal | {u:.1%} {tail}")
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
    out += micro_section("fig10", "Fig. 10: all-to-all on the tori",
                         collective_times(f10, "all-to-all"))
    out += micro_section("fig12", "Fig. 12: all-reduce on the alltoall platforms",
                         collective_times(f12, "all-reduce"))
    out += micro_section("fig13", "Fig. 13: all-to-all on the alltoall platforms",
                         collective_times(f12, "all-to-all"))
    paper = {("Resnet50_DataParallel", "ace"): 2.71, ("resnet50", "ace"): 2.71,
             ("gnmt", "ace"): 1.44, ("gnmt", "baseline++"): 1.04,
             ("Resnet50_DataParallel", "util-baseline"): 0.378,
             ("Resnet50_DataParallel", "util-ace"): 0.746,
             ("gnmt", "util-baseline"): 0.378, ("gnmt", "util-ace"): 0.746,
             ("resnet50", "util-baseline"): 0.378, ("resnet50", "util-ace"): 0.746}
    astra = os.path.join(res, "ace-fig14-astra.csv")
    if os.path.exists(astra):
        out += training_section(
            "Figs. 14 and 17: ResNet-50 from ASTRA-sim 1.0's Resnet50_DataParallel.txt "
            "(ms per iteration, speedups over baseline)", read(astra), paper)
    out += training_section(
        "Figs. 14, 16 and 17: ResNet-50 and GNMT on the SCALE-Sim systolic model (ms per "
        "iteration, speedups over baseline)", read(os.path.join(res, "ace-fig14-16.csv")), paper)
    out.append(END)
    doc_tables.rewrite(doc, {"ace": out[1:-1]}, lambda _: (BEGIN, END), "ace_tables.py")

if __name__ == "__main__":
    main()
