#!/usr/bin/env python3
"""The WRHT tables of docs/wrht.md from the CSVs of `make reproduce` (examples/wrht/*.yaml).

Usage: tools/wrht_tables.py RESULTS_DIR DOC.md

Rewrites every block between `<!-- BEGIN wrht_tables NAME -->` and `<!-- END wrht_tables NAME -->`
in DOC.md; the text around them is left alone. Standard library only. The poster (WRHT, PPoPP'23)
prints no per-case value; its two averages are the paper column of the summary tables, and each
ratio is collsim's time share over the poster's: (1 - collsim's reduction) / (1 - the poster's),
so 1 is agreement and 2 means WRHT takes twice the poster's share of the baseline's time.
"""
import csv
import os
import re
import sys

import doc_tables

MODELS = [(27190800, "GoogLeNet"), (100000000, "ResNet-50"), (249200000, "AlexNet"),
          (552000000, "VGG16")]
NODES = [16, 32, 64, 128, 256, 512, 1024]
PAPER_OPTICAL = 0.9186     # "reduces communication time by ... 91.86%" against optical
PAPER_ELECTRICAL = 0.7576  # ... and 75.76% against electrical (Abstract, Sec. 4)


def read(results, name):
    path = os.path.join(results, name)
    if not os.path.exists(path):
        sys.exit(f"wrht_tables: {path} is missing; run make reproduce")
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def metrics(row):
    out = {}
    for kv in (row.get("backend_metrics") or "").split(";"):
        if "=" in kv:
            k, v = kv.split("=", 1)
            out[k] = float(v)
    return out


def setup_label(backend):
    # "optical:setup=10 us" -> "10 us"
    m = re.search(r"setup=([^:]+)", backend)
    return m.group(1) if m else "1 us"


def setup_seconds(label):
    if label.strip() == "0":  # collsim writes a zero time without a unit
        return 0.0
    value, unit = label.split()
    return float(value) * {"ps": 1e-12, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


def index(rows, key):
    out = {}
    for r in rows:
        out[key(r)] = r
    return out


def ms(row):
    return float(row["time_ns"]) / 1e6


def fmt_ms(x):
    return f"{x:.3f}" if x < 10 else f"{x:.2f}" if x < 1000 else f"{x:.0f}"


def share_ratio(paper, collsim):
    return (1 - collsim) / (1 - paper)


def pct(x):
    return f"{100 * x:.2f}%"


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs)


def load(results):
    opt = index(read(results, "fig2-optical.csv"),
                lambda r: (int(r["npus"]), int(r["size_bytes"]), r["algorithm"]))
    e200 = index(read(results, "fig2-electrical.csv"),
                 lambda r: (int(r["npus"]), int(r["size_bytes"]), r["algorithm"]))
    e10 = index(read(results, "fig2-electrical-10g.csv"),
                lambda r: (int(r["npus"]), int(r["size_bytes"]), r["algorithm"]))
    return opt, e200, e10


def fig2_table(opt, e200, e10):
    lines = [
        "| model | N | electrical Ring, 200 GB/s | electrical RD, 200 GB/s | electrical Ring, 10 Gb/s "
        "| electrical RD, 10 Gb/s | optical Ring | striped Ring | WRHT | striped WRHT "
        "| WRHT peak wl / waits | striped WRHT peak wl / waits |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for size, model in MODELS:
        for n in NODES:
            w, ws = opt[(n, size, "wrht")], opt[(n, size, "wrht:stripe=1")]
            mw, mws = metrics(w), metrics(ws)
            cells = [ms(e200[(n, size, "ring")]), ms(e200[(n, size, "recursive-doubling")]),
                     ms(e10[(n, size, "ring")]), ms(e10[(n, size, "recursive-doubling")]),
                     ms(opt[(n, size, "ring")]), ms(opt[(n, size, "ring:stripe=1")]), ms(w), ms(ws)]
            lines.append(
                f"| {model} | {n} | " + " | ".join(fmt_ms(c) for c in cells) +
                f" | {mw['peak_wavelengths_per_segment']:.0f} / {mw['lightpath_waits']:.0f}"
                f" | {mws['peak_wavelengths_per_segment']:.0f} / {mws['lightpath_waits']:.0f} |")
    return lines


def reduction(algo_rows, base_rows):
    """Mean over cases of 1 - t / t_base, as the poster averages its reductions."""
    return mean(1 - ms(a) / ms(b) for a, b in zip(algo_rows, base_rows))


def cases():
    return [(n, size) for size, _ in MODELS for n in NODES]


def summary_table(opt, e200, e10):
    def col(table, algo):
        return [table[(n, s, algo)] for n, s in cases()]

    def both(table):  # electrical Ring and RD, averaged as one baseline
        return col(table, "ring") + col(table, "recursive-doubling")

    rows = [
        ("WRHT vs optical Ring", "as specified: both one wavelength per transfer (like for like)",
         PAPER_OPTICAL, reduction(col(opt, "wrht"), col(opt, "ring"))),
        ("striped WRHT vs striped Ring", "both striped over their free wavelengths (like for like)",
         PAPER_OPTICAL, reduction(col(opt, "wrht:stripe=1"), col(opt, "ring:stripe=1"))),
        ("striped WRHT vs optical Ring", "WRHT uses the spare wavelengths, Ring does not",
         PAPER_OPTICAL, reduction(col(opt, "wrht:stripe=1"), col(opt, "ring"))),
        ("WRHT vs electrical Ring and RD, 200 GB/s", "electrical = the optical ring's per-node "
         "bandwidth (64 x 25 Gb/s)", PAPER_ELECTRICAL,
         reduction(col(opt, "wrht") * 2, both(e200))),
        ("striped WRHT vs electrical Ring and RD, 200 GB/s", "the same, WRHT striped",
         PAPER_ELECTRICAL, reduction(col(opt, "wrht:stripe=1") * 2, both(e200))),
        ("WRHT vs electrical Ring and RD, 10 Gb/s", "electrical = 10 Gb/s links (0.4 of one "
         "wavelength)", PAPER_ELECTRICAL, reduction(col(opt, "wrht") * 2, both(e10))),
        ("striped WRHT vs electrical Ring and RD, 10 Gb/s", "the same, WRHT striped",
         PAPER_ELECTRICAL, reduction(col(opt, "wrht:stripe=1") * 2, both(e10))),
    ]
    lines = [
        "| comparison | reading of the poster | paper: less time | collsim: less time "
        "| paper: time share | collsim: time share | ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, reading, paper, got in rows:
        lines.append(f"| {name} | {reading} | {pct(paper)} | {pct(got)} | {pct(1 - paper)} "
                     f"| {pct(1 - got)} | {share_ratio(paper, got):.2f} |")
    # The electrical baselines one at a time (no paper value: the poster gives one average).
    lines += ["", "The electrical baselines one at a time (the poster gives only the average over "
              "both):", "",
              "| comparison | electrical Ring, 200 GB/s | electrical RD, 200 GB/s "
              "| electrical Ring, 10 Gb/s | electrical RD, 10 Gb/s |",
              "|---|---|---|---|---|"]
    for algo, name in [("wrht", "WRHT"), ("wrht:stripe=1", "striped WRHT"),
                       ("ring:stripe=1", "striped Ring")]:
        cells = [reduction(col(opt, algo), col(t, b))
                 for t in (e200,) for b in ("ring", "recursive-doubling")]
        cells += [reduction(col(opt, algo), col(e10, b)) for b in ("ring", "recursive-doubling")]
        lines.append(f"| {name}: less time than | " + " | ".join(pct(c) for c in cells) + " |")
    return lines


def setup_table(results, e200, e10):
    rows = read(results, "fig2-setup.csv")
    by = {}
    for r in rows:
        by.setdefault(setup_label(r["backend"]), {})[
            (int(r["npus"]), int(r["size_bytes"]), r["algorithm"])] = r
    lines = [
        "| lightpath set-up | WRHT vs optical Ring (paper 91.86%) | ratio "
        "| striped WRHT vs optical Ring (paper 91.86%) | ratio "
        "| WRHT vs electrical, 10 Gb/s (paper 75.76%) | ratio "
        "| WRHT vs electrical, 200 GB/s (paper 75.76%) | ratio |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for label in sorted(by, key=setup_seconds):
        t = by[label]

        def col(algo):
            return [t[(n, s, algo)] for n, s in cases()]

        def elec(table):
            return [table[(n, s, a)] for a in ("ring", "recursive-doubling") for n, s in cases()]

        r1 = reduction(col("wrht"), col("ring"))
        r2 = reduction(col("wrht:stripe=1"), col("ring"))
        r3 = reduction(col("wrht") * 2, elec(e10))
        r4 = reduction(col("wrht") * 2, elec(e200))
        shown = "0" if setup_seconds(label) == 0 else label
        mark = " (default)" if label == "1 us" else ""
        lines.append(
            f"| {shown}{mark} | {pct(r1)} | {share_ratio(PAPER_OPTICAL, r1):.2f} | {pct(r2)} | "
            f"{share_ratio(PAPER_OPTICAL, r2):.2f} | {pct(r3)} | "
            f"{share_ratio(PAPER_ELECTRICAL, r3):.2f} | {pct(r4)} | "
            f"{share_ratio(PAPER_ELECTRICAL, r4):.2f} |")
    return lines


def wavelengths_table(results):
    opt = read(results, "fig2-wavelengths.csv")
    ele = read(results, "fig2-wavelengths-electrical.csv")
    o = index(opt, lambda r: (r["platform"], int(r["size_bytes"]), r["algorithm"]))
    e = index(ele, lambda r: (r["platform"], int(r["size_bytes"]), r["algorithm"]))
    plats = sorted({r["platform"] for r in opt}, key=lambda p: int(p[1:]))
    lines = [
        "| model | w | electrical Ring | electrical RD | optical Ring | WRHT | striped WRHT "
        "| striped WRHT / optical Ring |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for size, model in MODELS:
        if (plats[0], size, "ring") not in o:
            continue
        for p in plats:
            ring, wrht, st = (ms(o[(p, size, a)]) for a in ("ring", "wrht", "wrht:stripe=1"))
            cells = [ms(e[(p, size, "ring")]), ms(e[(p, size, "recursive-doubling")]), ring, wrht,
                     st]
            lines.append(f"| {model} | {p[1:]} | " + " | ".join(fmt_ms(c) for c in cells) +
                         f" | {st / ring:.3f} |")
    return lines


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    results, path = sys.argv[1], sys.argv[2]
    opt, e200, e10 = load(results)
    doc_tables.rewrite(path, {"fig2": fig2_table(opt, e200, e10),
                              "summary": summary_table(opt, e200, e10),
                              "setup": setup_table(results, e200, e10),
                              "wavelengths": wavelengths_table(results)},
                       lambda name: (f"<!-- BEGIN wrht_tables {name} -->",
                                     f"<!-- END wrht_tables {name} -->"), "wrht_tables")

if __name__ == "__main__":
    main()
