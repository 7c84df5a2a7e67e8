#!/usr/bin/env python3
"""The Fig. 8 / Fig. 11 summary tables of docs/themis.md from the CSVs of `make reproduce`
(examples/themis/fig8-table2.yaml, fig8-table2-flow.yaml, fig8-active-chunks.yaml).

Usage: tools/themis_tables.py RESULTS_DIR DOC.md

Rewrites every block between `<!-- BEGIN themis_tables NAME -->` and
`<!-- END themis_tables NAME -->` in DOC.md. Standard library only. The paper (Themis, ISCA'22,
Sec. 6.1) gives averages over the six Table 2 platforms and four sizes: the mean speedup of
Themis+FIFO / Themis+SCF over the baseline (Fig. 8) and the mean average-BW utilization of
baseline / FIFO / SCF (Fig. 11). collsim's are the means over the same 24 cases; ratio = collsim /
paper.
"""
import csv
import os
import sys

import doc_tables

PAPER = {"fifo": 1.58, "scf": 1.72, "u_base": 56.31, "u_fifo": 87.67, "u_scf": 95.14}


def read(results, name):
    path = os.path.join(results, name)
    if not os.path.exists(path):
        sys.exit(f"themis_tables: {path} is missing; run make reproduce")
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def schedule(algo):
    """(schedule, active chunk-stages per dimension) of a hierarchical label, or None."""
    if not algo.startswith("hierarchical"):
        return None
    params = dict(kv.split("=", 1) for kv in algo.split(":")[1:])
    if params.get("schedule", "baseline") == "per-dim-all-reduce":
        return None
    kind = "base"
    if params.get("schedule") == "themis":
        kind = "scf" if params.get("intra") == "scf" else "fifo"
    return kind, int(params.get("active_chunks", "1"))


def summarize(rows):
    """{active: {metric: value}} over the (platform, size) cases of each active_chunks value."""
    cases = {}
    for r in rows:
        s = schedule(r["algorithm"])
        if s is None:
            continue
        kind, active = s
        cases.setdefault(active, {}).setdefault((r["platform"], r["size_bytes"]), {})[kind] = (
            float(r["time_ns"]), 100 * float(r["bw_utilization"]))
    out = {}
    for active, by_case in cases.items():
        full = [c for c in by_case.values() if len(c) == 3]
        if not full:
            continue
        mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
        out[active] = {
            "cases": len(full),
            "fifo": mean([c["base"][0] / c["fifo"][0] for c in full]),
            "scf": mean([c["base"][0] / c["scf"][0] for c in full]),
            "slowest": min(c["base"][0] / c["scf"][0] for c in full),
            "u_base": mean([c["base"][1] for c in full]),
            "u_fifo": mean([c["fifo"][1] for c in full]),
            "u_scf": mean([c["scf"][1] for c in full]),
        }
    return out


def header():
    p = PAPER
    return [
        f"| configuration | speedup FIFO | ratio | speedup SCF | ratio | slowest SCF case "
        f"| avg util. baseline | ratio | avg util. FIFO | ratio | avg util. SCF | ratio |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
        f"| **paper** (Figs. 8, 11) | **{p['fifo']:.2f}x** | | **{p['scf']:.2f}x** | "
        f"| (never slower) | **{p['u_base']:.2f}%** | | **{p['u_fifo']:.2f}%** | "
        f"| **{p['u_scf']:.2f}%** | |",
    ]


def row(label, s):
    p = PAPER
    return (f"| {label} | {s['fifo']:.2f}x | {s['fifo'] / p['fifo']:.2f} | {s['scf']:.2f}x "
            f"| {s['scf'] / p['scf']:.2f} | {s['slowest']:.2f}x | {s['u_base']:.2f}% "
            f"| {s['u_base'] / p['u_base']:.2f} | {s['u_fifo']:.2f}% "
            f"| {s['u_fifo'] / p['u_fifo']:.2f} | {s['u_scf']:.2f}% "
            f"| {s['u_scf'] / p['u_scf']:.2f} |")


def summary_table(results):
    flow = summarize(read(results, "fig8-table2-flow.csv"))
    ana = summarize(read(results, "fig8-table2.csv"))
    return header() + [
        row("flow, `active_chunks=4` (`fig8-table2-flow.yaml`)", flow[4]),
        row("analytical, `active_chunks=1` (`fig8-table2.yaml`)", ana[1]),
    ]


def sensitivity_table(results):
    by = summarize(read(results, "fig8-active-chunks.csv"))
    by.update(summarize(read(results, "fig8-table2-flow.csv")))
    lines = header()
    for active in sorted(by):
        note = {1: " (the authors' sample configuration)", 4: " (the Fig. 8 / 11 scenario)"}
        lines.append(row(f"flow, `active_chunks={active}`{note.get(active, '')}", by[active]))
    return lines


# Fig. 12 / Sec. 6.2: iteration speedup over the baseline, mean (max) over the six platforms.
PAPER_FIG12 = {"resnet152": ("ResNet-152", 1.49, 2.25, 1.54), "gnmt": ("GNMT", 1.30, 1.78, 1.32),
               "dlrm": ("DLRM", 1.30, 1.77, 1.33),
               "transformer-1t": ("Transformer-1T", 1.25, 1.53, 1.26)}


def fig12_rows(results):
    """{(workload, platform): {base|scf|ideal: whole-run row}} and the platforms in order."""
    t, platforms = {}, []
    for r in read(results, "themis-fig12.csv"):
        if r.get("layer") != "total":
            continue
        s = schedule(r["algorithm"])
        kind = "ideal" if r["algorithm"] == "ideal" else s[0] if s else None
        if kind:
            t.setdefault((r["workload"], r["platform"]), {})[kind] = r
            if r["platform"] not in platforms:
                platforms.append(r["platform"])
    return t, platforms


def fig12_compute(results):
    """What compute the paper's Fig. 12 speedups need, given collsim's exposed communication:
    the speedup (C + E_base) / (C + E_scf) with the compute C free (its ceiling: no compute model
    can give more), and the C that gives the paper's mean speedup p, (E_base - p E_scf) / (p - 1),
    beside collsim's A100 roofline compute (means over the platforms)."""
    if not os.path.exists(os.path.join(results, "themis-fig12.csv")):
        return None
    t, platforms = fig12_rows(results)
    out = ["| model | paper Themis+SCF (mean) | collsim compute (ms) | exposed baseline / Themis+SCF "
           "(ms) | Themis+SCF speedup with free compute (its ceiling) | compute the paper's "
           "speedup needs (ms) |", "|---|---|---|---|---|---|"]
    ms = lambda r, k: float(r[k]) / 1e6  # noqa: E731
    for w, (name, mean_p, _, _) in PAPER_FIG12.items():
        cases = [t[(w, p)] for p in platforms if (w, p) in t]
        if not cases:
            continue
        comp = sum(ms(c["base"], "compute_ns") for c in cases) / len(cases)
        eb = sum(ms(c["base"], "exposed_ns") for c in cases) / len(cases)
        es = sum(ms(c["scf"], "exposed_ns") for c in cases) / len(cases)
        ceiling = sum(ms(c["base"], "exposed_ns") / ms(c["scf"], "exposed_ns") for c in cases
                      if float(c["scf"]["exposed_ns"]) > 0) / len(cases)
        need = [(ms(c["base"], "exposed_ns") - mean_p * ms(c["scf"], "exposed_ns")) / (mean_p - 1)
                for c in cases]
        ok = [x for x in need if x > 0]
        rest = "; none on the rest" if len(ok) < len(need) else ""
        ntxt = (f"{sum(ok) / len(ok):.2f} ({len(ok)} of {len(need)} platforms{rest})"
                if ok else "none: Themis's cut of the exposed time is below the paper's speedup")
        out.append(f"| {name} | {mean_p:.2f}x | {comp:.2f} | {eb:.2f} / {es:.2f} | "
                   f"{ceiling:.2f}x | {ntxt} |")
    return out


def fig12_tables(results):
    """The Fig. 12 summary and per-platform tables from results/themis-fig12.csv (None, None
    when it is missing: the blocks are left as they are)."""
    if not os.path.exists(os.path.join(results, "themis-fig12.csv")):
        return None, None
    rows, platforms = fig12_rows(results)
    t = {k: {kind: float(r["iteration_ns"]) for kind, r in v.items()} for k, v in rows.items()}
    summary = ["| model | paper Themis+SCF | collsim Themis+SCF | paper ideal | collsim ideal |",
               "|---|---|---|---|---|"]
    per = ["| model | " + " | ".join(platforms) + " |", "|---|" + "---|" * len(platforms)]
    for w, (name, mean_p, max_p, ideal_p) in PAPER_FIG12.items():
        cases = [t[(w, p)] for p in platforms if (w, p) in t]
        if not cases:
            continue
        scf = [c["base"] / c["scf"] for c in cases]
        ideal = [c["base"] / c["ideal"] for c in cases]
        summary.append(f"| {name} | **{mean_p:.2f}x** ({max_p:.2f}x) | {sum(scf) / len(scf):.2f}x "
                       f"({max(scf):.2f}x) | {ideal_p:.2f}x | {sum(ideal) / len(ideal):.2f}x |")
        cells = []
        for p in platforms:
            c = t[(w, p)]
            b = c["base"] / 1e6
            btxt = f"{b / 1e3:.1f} s" if b >= 1e3 else f"{b:.1f} ms" if b >= 10 else f"{b:.2f} ms"
            cells.append(f"{btxt}: {c['base'] / c['scf']:.2f}x / {c['base'] / c['ideal']:.2f}x")
        per.append(f"| {name} | " + " | ".join(cells) + " |")
    return summary, per


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    results, path = sys.argv[1], sys.argv[2]
    fig12, fig12_platforms = fig12_tables(results)
    doc_tables.rewrite(path, {"summary": summary_table(results),
                              "sensitivity": sensitivity_table(results),
                              "fig12": fig12, "fig12-platforms": fig12_platforms,
                              "fig12-compute": fig12_compute(results)},
                       lambda name: (f"<!-- BEGIN themis_tables {name} -->",
                                     f"<!-- END themis_tables {name} -->"), "themis_tables")


if __name__ == "__main__":
    main()
