#!/usr/bin/env python3
"""Regenerate the tables of docs/multitree.md from the binary and the CSVs of `make reproduce`.

Each table sits between `<!-- BEGIN generated:NAME -->` and `<!-- END generated:NAME -->` in the
page; everything else is left as written. Tables whose CSVs are missing are left as they are (and
named on stderr). Paper values are those the MultiTree paper (ISCA'21) states in its text; where it
gives a figure only, the table says so.

  tools/multitree_tables.py --binary build/collsim --results results --doc docs/multitree.md
"""
import argparse
import csv
import json
import os
import subprocess
import sys

import doc_tables


def ratio(collsim, paper):
    return f"{collsim / paper:.2f}" if paper else ""


def read_csv(path):
    if not os.path.exists(path):
        return None
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


# --- T: time steps of the tree construction ------------------------------------------------------

def lower_bound(topo, n):
    kind, shape = topo.split(":")
    if kind in ("torus", "mesh"):
        kx, ky = (int(v) for v in shape.split("x"))
        if kind == "torus":
            diameter = kx // 2 + ky // 2
            links = 4 * n
        else:
            diameter = kx + ky - 2
            links = 2 * (kx - 1) * ky + 2 * (ky - 1) * kx
        return max(diameter, -(-n * (n - 1) // links))
    return n - 1  # one link per NPU: one tree edge received per step


def steps(binary, topo, mode):
    out = subprocess.run(
        [binary, "multitree", "--topology", topo, "--mode", mode, "--kary", "5", "--format",
         "json"], check=True, capture_output=True, text=True).stdout
    j = json.loads(out)
    return j["time_steps"], len(j.get("trees", [])) or None


def npus(topo):
    kind, shape = topo.split(":")
    a, b = (int(v) for v in shape.split("x"))
    return a ** b if kind == "fattree" else a * b


def table_steps(binary):
    rows = ["| topology | NPUs | paper | collsim (reference) | ratio | collsim (paper mode) | "
            "lower bound |", "|---|---|---|---|---|---|---|"]
    for topo in ["torus:4x4", "torus:8x8", "mesh:4x4", "mesh:8x8", "fattree:4x2", "fattree:8x2",
                 "bigraph:8x4", "bigraph:16x4"]:
        n = npus(topo)
        ref, _ = steps(binary, topo, "reference")
        pap, _ = steps(binary, topo, "paper")
        switched = topo.startswith(("fattree", "bigraph"))
        paper = n - 1 if switched else None
        rows.append(f"| {topo} | {n} | {paper if paper else 'not given'} | {ref} | "
                    f"{ratio(ref, paper)} | {pap} | {lower_bound(topo, n)} |")
    return "\n".join(rows)


# --- Fig. 9 on the flow backend ------------------------------------------------------------------

FIG9_ALGOS = [("ring", "Ring"), ("ring-2d", "2D-Ring (one-way)"),
              ("ring-2d:directions=2", "2D-Ring (authors')"), ("double-binary-tree", "DBTree"),
              ("direct", "direct"), ("halving-doubling", "HD"), ("hdrm", "HDRM"),
              ("multitree", "MultiTree"), ("multitree:mode=paper", "MultiTree (paper mode)")]


def bw(rows, topo, algo, size, backend=None):
    for r in rows:
        if (r["topology"] == topo and r["algorithm"] == algo and int(r["size_bytes"]) == size
                and (backend is None or r["backend"] == backend)):
            return float(r["algbw_GBps"])
    return None


def fig9_rows(results):
    """The rows of the three Fig. 9 CSVs, or None when one is missing."""
    rows = []
    for name in ("fig9-grids", "fig9-switched", "fig9-bigraph"):
        got = read_csv(os.path.join(results, name + ".csv"))
        if got is None:
            return None
        rows += got
    return rows


def table_fig9_flow(results):
    rows = fig9_rows(results)
    if rows is None:
        return None
    header = "| network | size | " + " | ".join(label for _, label in FIG9_ALGOS) + " |"
    out = [header, "|" + "---|" * (len(FIG9_ALGOS) + 2)]
    topos = list(dict.fromkeys(r["topology"] for r in rows))
    for topo in topos:
        for size, label in ((32 << 10, "32 KiB"), (64 << 20, "64 MiB")):
            cells = []
            for algo, _ in FIG9_ALGOS:
                v = bw(rows, topo, algo, size)
                cells.append(f"{v:.2f}" if v is not None else "")
            out.append(f"| {topo} | {label} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def table_fig9_claims(results):
    rows = fig9_rows(results)
    if rows is None:
        return None
    big = 64 << 20
    out = ["| claim (Fig. 9, 64 MiB) | paper | collsim | ratio |", "|---|---|---|---|"]
    for topo in ("fattree:4x2", "fattree:8x2", "bigraph:8x4", "bigraph:16x4"):
        mt, ring = bw(rows, topo, "multitree", big), bw(rows, topo, "ring", big)
        if mt and ring:
            out.append(f"| {topo}: MultiTree / Ring bandwidth (\"the same performance\") | 1.00 | "
                       f"{mt / ring:.2f} | {ratio(mt / ring, 1.0)} |")
    for topo in ("bigraph:8x4", "bigraph:16x4"):
        mt, hd = bw(rows, topo, "multitree", big), bw(rows, topo, "hdrm", big)
        if mt and hd:
            out.append(f"| {topo}: HDRM / MultiTree bandwidth (\"also fully utilizes\") | 1.00 | "
                       f"{hd / mt:.2f} | {ratio(hd / mt, 1.0)} |")
    return "\n".join(out)


# --- Fig. 9 on the packet backend ----------------------------------------------------------------

def table_fig9_packet(results):
    rows = read_csv(os.path.join(results, "fig9-packet.csv"))
    if rows is None:
        return None
    plain = [r for r in rows if "mbfc" not in r["backend"]]
    mbfc = [r for r in rows if "mbfc" in r["backend"]]
    algos = [("ring", "Ring"), ("ring-2d", "2D-Ring (one-way)"),
             ("ring-2d:directions=2", "2D-Ring (authors')"), ("double-binary-tree", "DBTree"),
             ("multitree", "MultiTree")]
    out = ["| network | size | " + " | ".join(l for _, l in algos) +
           " | MultiTreeMsg | MultiTreeMsg / MultiTree (paper 1.06) | ratio |",
           "|" + "---|" * (len(algos) + 5)]
    for topo in dict.fromkeys(r["topology"] for r in rows):
        for size, label in ((32 << 10, "32 KiB"), (1 << 20, "1 MiB"), (16 << 20, "16 MiB")):
            cells = []
            for algo, _ in algos:
                v = bw(plain, topo, algo, size)
                cells.append(f"{v:.2f}" if v is not None else "")
            mt, msg = bw(plain, topo, "multitree", size), bw(mbfc, topo, "multitree", size)
            gain = msg / mt if mt and msg else None
            out.append(f"| {topo} | {label} | " + " | ".join(cells) +
                       f" | {msg:.2f} | {gain:.2f} | {ratio(gain, 1.06)} |" if gain else
                       f"| {topo} | {label} | " + " | ".join(cells) + " | | | |")
    return "\n".join(out)


# --- Fig. 10 -------------------------------------------------------------------------------------

def fmt_time(ns):
    return f"{ns / 1e6:.3f} ms" if ns >= 1e6 else f"{ns / 1e3:.1f} us"


def table_fig10(results):
    data = {}
    for k in (4, 6, 8, 10, 12, 14, 16):
        rows = read_csv(os.path.join(results, f"fig10-torus-{k}x{k}.csv"))
        if rows is None:
            print(f"multitree_tables: fig10: no results for {k}x{k}", file=sys.stderr)
            continue
        t = {}
        for r in rows:
            key = (r["algorithm"], "mbfc" in r["backend"])
            t[key] = float(r["time_ns"])
        data[k * k] = t
    out = ["| NPUs | Ring | 2D-Ring (authors') | 2D-Ring (one-way) | MultiTree | MultiTreeMsg | "
           "normalised to Ring at 16 (Ring / 2D-Ring / MultiTreeMsg) |", "|---|---|---|---|---|---|---|"]
    if 16 not in data:
        return None, None
    base = data[16][("ring", False)]
    for n, t in data.items():
        ring, r2d, r2d1 = t[("ring", False)], t[("ring-2d:directions=2", False)], t[("ring-2d", False)]
        mt, msg = t[("multitree", False)], t[("multitree", True)]
        out.append(f"| {n} | {fmt_time(ring)} | {fmt_time(r2d)} | {fmt_time(r2d1)} | {fmt_time(mt)} | "
                   f"{fmt_time(msg)} | {ring / base:.2f} / {r2d / base:.2f} / {msg / base:.2f} |")
    largest = max(data)
    t = data[largest]
    ring, r2d, r2d1 = t[("ring", False)], t[("ring-2d:directions=2", False)], t[("ring-2d", False)]
    mt, msg = t[("multitree", False)], t[("multitree", True)]
    note = "" if largest == 256 else f" (collsim at {largest}, the largest size run)"
    claims = [f"| speedup, paper at 256 NPUs{note} | paper | collsim | ratio |",
              "|---|---|---|---|",
              f"| MultiTreeMsg over Ring | 3.0 | {ring / msg:.2f} | {ratio(ring / msg, 3.0)} |",
              f"| MultiTreeMsg over 2D-Ring (authors' four flows) | 1.4 | {r2d / msg:.2f} | "
              f"{ratio(r2d / msg, 1.4)} |",
              f"| MultiTreeMsg over 2D-Ring (one-way, Ying et al.) | 1.4 | {r2d1 / msg:.2f} | "
              f"{ratio(r2d1 / msg, 1.4)} |",
              f"| MultiTreeMsg over MultiTree (Sec. VI-A: +6%) | 1.06 | {mt / msg:.2f} | "
              f"{ratio(mt / msg, 1.06)} |"]
    return "\n".join(out), "\n".join(claims)


# --- Fig. 11 -------------------------------------------------------------------------------------

def table_fig11(results):
    rows = read_csv(os.path.join(results, "multitree-fig11.csv"))
    if rows is None:
        return None
    comm = {}
    for r in rows:
        if r.get("layer") == "total" and r["overlap"] == "none":
            comm.setdefault(r["workload"], {})[r["algorithm"]] = float(r["exposed_ns"])
    algos = sorted({a for v in comm.values() for a in v})

    def mean(other):
        vals = [v[other] / v["multitree"] for v in comm.values() if other in v and "multitree" in v]
        return sum(vals) / len(vals) if vals else None

    out = ["| MultiTree's all-reduce speedup (mean over the models, no overlap) | paper | collsim "
           "| ratio |", "|---|---|---|---|"]
    labels = {"ring": ("over Ring", 2.2), "ring-2d": ("over 2D-Ring (`ring-2d`, one-way)", 1.51),
              "ring-2d:directions=2": ("over 2D-Ring (`ring-2d:directions=2`, authors')", 1.51),
              "hierarchical": ("over 2D-Ring (`hierarchical`, rings both ways)", 1.51)}
    for a in algos:
        if a not in labels:
            continue
        label, paper = labels[a]
        m = mean(a)
        out.append(f"| {label} | {paper:.2f}x | {m:.2f}x | {ratio(m, paper)} |")
    out.append("| MultiTreeMsg over Ring, over 2D-Ring | 2.3x, 1.56x | not run (flow backend: no "
               "head flits) | |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--results", default="results")
    ap.add_argument("--doc", default="docs/multitree.md")
    a = ap.parse_args()
    fig10, fig10_claims = table_fig10(a.results)
    doc_tables.rewrite(a.doc, {"steps": table_steps(a.binary),
                               "fig9-flow": table_fig9_flow(a.results),
                               "fig9-claims": table_fig9_claims(a.results),
                               "fig9-packet": table_fig9_packet(a.results),
                               "fig10": fig10, "fig10-claims": fig10_claims,
                               "fig11": table_fig11(a.results)},
                       lambda name: (f"<!-- BEGIN generated:{name} -->",
                                     f"<!-- END generated:{name} -->"), "multitree_tables")


if __name__ == "__main__":
    main()
