#!/usr/bin/env python3
"""Regenerate the result tables of docs/switch-fc.md from the collsim binary (make reproduce).

Fig. 9 comes from the plain commands of the page (`collsim collective` at its defaults, flow
backend): for n = 4 and 8 NPUs and k = 1..n local switches, the fastest all-to-all row of
`-t swfc:1:n:k -a all` (the `ideal` row left out) against `-t htorus:1:n -a direct`, and
`-a package-doubling` all-reduce against `-t htorus:1:n -a ring`. Fig. 10 runs
examples/switch-fc/fig10.yaml and fig10-platform.yaml, Fig. 11 examples/switch-fc/fig11.yaml
(flow) and fig11-packet.yaml (packet). Each table sits between
`<!-- switch-fc:NAME begin -->` and `<!-- switch-fc:NAME end -->` in the page and is replaced
whole; nothing else in the page changes.

Usage: switch_fc_tables.py --collsim build/collsim --doc docs/switch-fc.md
"""
import argparse
import csv
import io
import subprocess
import sys

import doc_tables

MIB = "1MiB"
# The paper's largest reductions (Sec. V-A) and Fig. 11 speedups (Sec. V-B).
PAPER_CUT = {("all-to-all", 4): 73.59, ("all-to-all", 8): 93.11,
             ("all-reduce", 4): 65.82, ("all-reduce", 8): 75.89}
PAPER_SPEEDUP = {("DLRM_HybridParallel", 8): 2.68, ("MLP_ModelParallel", 4): 1.22,
                 ("MLP_ModelParallel", 8): 1.41}
WORKLOADS = ["DLRM_HybridParallel", "MLP_ModelParallel", "MLP_HybridParallel_Data_Model"]
RSAG = "hierarchical"
PERDIM = "hierarchical:schedule=per-dim-all-reduce"


def run(binary, args):
    out = subprocess.run([binary] + args + ["--format", "csv", "-q"], check=True,
                         capture_output=True, text=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


def collective_ns(binary, topo, algos, coll):
    rows = run(binary, ["collective", "-t", topo, "-a", algos, "-c", coll, "-s", MIB,
                        "-b", "flow"])
    # `-a all` lists the algorithms that cannot run as rows with an empty time and a note.
    return min(float(r["time_ns"]) for r in rows if r["algorithm"] != "ideal" and r["time_ns"])


def fig9(binary):
    lines = ["| NPUs | package | all-reduce (us) | vs ring | all-to-all (us) | vs ring |",
             "|---|---|---|---|---|---|"]
    best = {}
    for n in (4, 8):
        ring_ar = collective_ns(binary, f"htorus:1:{n}", "ring", "all-reduce")
        ring_a2a = collective_ns(binary, f"htorus:1:{n}", "direct", "all-to-all")
        lines.append(f"| {n} | ring | {ring_ar / 1e3:.2f} | | {ring_a2a / 1e3:.2f} | |")
        for k in range(1, n + 1):
            ar = collective_ns(binary, f"swfc:1:{n}:{k}", "package-doubling", "all-reduce")
            a2a = collective_ns(binary, f"swfc:1:{n}:{k}", "all", "all-to-all")
            cut_ar, cut_a2a = 100 * (1 - ar / ring_ar), 100 * (1 - a2a / ring_a2a)
            best[("all-reduce", n)] = max(best.get(("all-reduce", n), -1e9), cut_ar)
            best[("all-to-all", n)] = max(best.get(("all-to-all", n), -1e9), cut_a2a)
            lines.append(f"| {n} | k = {k} | {ar / 1e3:.2f} | {-cut_ar:+.1f}% | "
                         f"{a2a / 1e3:.2f} | {-cut_a2a:+.1f}% |")
    summary = ["| largest reduction over k | paper | collsim | ratio | collsim - paper |",
               "|---|---|---|---|---|"]
    for coll in ("all-reduce", "all-to-all"):
        for n in (4, 8):
            p, c = PAPER_CUT[(coll, n)], best[(coll, n)]
            summary.append(f"| {coll}, {n} NPUs | {p:.2f}% | {c:.2f}% | {c / p:.3f} | "
                           f"{c - p:+.2f} points |")
    return "\n".join(lines), "\n".join(summary)


def fig10(binary):
    rows = run(binary, ["run", "examples/switch-fc/fig10.yaml"])
    t = {}
    for r in rows:
        t[(r["platform"], r["algorithm"], int(r["size_bytes"]))] = float(r["time_ns"])
    sizes = sorted({s for (_, _, s) in t})
    head = "| NPUs, k | " + " | ".join(f"{s >> 10} KiB" if s < (1 << 20) else f"{s >> 20} MiB"
                                       for s in sizes) + " | swfc / ring |"
    lines = [head, "|" + "---|" * (len(sizes) + 2)]
    for n, k in ((4, 3), (8, 4)):
        ring = [t[(f"htorus:1:{n}", "ring", s)] for s in sizes]
        sw = [t[(f"swfc:1:{n}:{k}", "package-doubling", s)] for s in sizes]
        ratio = [a / b for a, b in zip(sw, ring)]
        lines.append(f"| {n}, ring package | " + " | ".join(f"{v / 1e3:.2f}" for v in ring) +
                     " | |")
        lines.append(f"| {n}, k = {k} | " + " | ".join(f"{v / 1e3:.2f}" for v in sw) +
                     f" | {min(ratio):.2f}-{max(ratio):.2f} |")
    return "\n".join(lines)


def fig10_platform(binary):
    rows = run(binary, ["run", "examples/switch-fc/fig10-platform.yaml"])
    t = {(r["platform"], r["algorithm"], int(r["size_bytes"])): float(r["time_ns"]) for r in rows}
    sizes = sorted({s for (_, _, s) in t})
    lines = ["| platform | order | " + " | ".join(
        f"{s >> 10} KiB" if s < (1 << 20) else f"{s >> 20} MiB" for s in sizes) + " |",
        "|" + "---|" * (len(sizes) + 2)]
    for plat in ("htorus:4:4", "swfc:4:4:3", "htorus:4:8", "swfc:4:8:4"):
        for algo, name in ((RSAG, "RS/AG"), (PERDIM, "per-dim all-reduce")):
            lines.append(f"| `{plat}` | {name} | " +
                         " | ".join(f"{t[(plat, algo, s)] / 1e3:.2f}" for s in sizes) + " |")
    return "\n".join(lines)


def fig11(binary, scenario="examples/switch-fc/fig11.yaml"):
    rows = run(binary, ["run", scenario, "--no-layers"])
    t = {}
    for r in rows:
        if r["layer"] == "total":
            t[(r["workload"], r["platform"], r["algorithm"])] = float(r["iteration_ns"])
    lines = ["| workload | NPUs per package | `htorus` RS/AG | `htorus` per-dim AR | "
             "`swfc` RS/AG | `swfc` per-dim AR | paper order: `htorus` RS/AG / `swfc` per-dim | "
             "symmetric: per-dim / per-dim | symmetric: RS/AG / RS/AG | paper | ratio "
             "(paper order, per-dim, RS/AG) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    spans = {"order": [], "perdim": [], "rsag": []}
    for w in WORKLOADS:
        for n, k in ((4, 3), (8, 4)):
            h, s = f"htorus:4:{n}", f"swfc:4:{n}:{k}"
            hr, hp, sr, sp = t[(w, h, RSAG)], t[(w, h, PERDIM)], t[(w, s, RSAG)], t[(w, s, PERDIM)]
            order, perdim, rsag = hr / sp, hp / sp, hr / sr
            spans["order"].append(order)
            spans["perdim"].append(perdim)
            spans["rsag"].append(rsag)
            paper = PAPER_SPEEDUP.get((w, n))
            ptxt = f"{paper:.2f}x" if paper else "in 1.16x-2.68x"
            rtxt = (f"{order / paper:.2f}, {perdim / paper:.2f}, {rsag / paper:.2f}"
                    if paper else "")
            lines.append(f"| {w} | {n} (k = {k}) | {hr / 1e3:.1f} | {hp / 1e3:.1f} | "
                         f"{sr / 1e3:.1f} | {sp / 1e3:.1f} | {order:.2f}x | {perdim:.2f}x | "
                         f"{rsag:.2f}x | {ptxt} | {rtxt} |")
    span = ["| pairing | collsim's speedups | paper |", "|---|---|---|"]
    for key, name in (("order", "paper order (`htorus` RS/AG, `swfc` per-dim all-reduce)"),
                      ("perdim", "symmetric, per-dim all-reduce on both"),
                      ("rsag", "symmetric, RS/AG on both")):
        span.append(f"| {name} | {min(spans[key]):.2f}x-{max(spans[key]):.2f}x | "
                    "1.16x-2.68x |")
    return "\n".join(lines), "\n".join(span)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--collsim", required=True)
    ap.add_argument("--doc", required=True)
    a = ap.parse_args()
    f9, f9s = fig9(a.collsim)
    f11, f11s = fig11(a.collsim)
    f11p, f11ps = fig11(a.collsim, "examples/switch-fc/fig11-packet.yaml")
    doc_tables.rewrite(a.doc, {"fig9": f9, "fig9-summary": f9s, "fig10": fig10(a.collsim),
                               "fig10-platform": fig10_platform(a.collsim),
                               "fig11": f11, "fig11-span": f11s,
                               "fig11-packet": f11p, "fig11-packet-span": f11ps},
                       lambda name: (f"<!-- switch-fc:{name} begin -->",
                                     f"<!-- switch-fc:{name} end -->"), "switch_fc_tables.py")
    print(f"switch_fc_tables.py: {a.doc} regenerated")


if __name__ == "__main__":
    main()
