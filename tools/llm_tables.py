#!/usr/bin/env python3
"""The validation table of docs/llm.md from `make reproduce PAPER=llm`.

Usage: tools/llm_tables.py examples/llm/validation.csv results/llm-validation.csv docs/llm.md

validation.csv names each config, its source, the row and the published number (TFLOP/s per GPU
or iteration time in ms); the results CSV is `collsim llm CONFIGS --format csv`, one row per
config in the same order. Rewrites the block between `<!-- BEGIN llm_tables validation -->` and
`<!-- END llm_tables validation -->`: per row the published and collsim's number and the error
(collsim / published - 1). Standard library only.
"""
import csv
import sys

import doc_tables


def markers(name):
    return f"<!-- BEGIN llm_tables {name} -->", f"<!-- END llm_tables {name} -->"


def read(path):
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError as e:
        sys.exit(f"llm_tables: {path}: {e.strerror}; run make reproduce PAPER=llm")


def table(published, results):
    by_config = {r["config"]: r for r in results}
    lines = ["| source | row | GPUs | split | metric | published | collsim | error |",
             "|---|---|---|---|---|---|---|---|"]
    worst = {}
    for p in published:
        r = by_config.get(p["config"])
        if r is None:
            sys.exit(f"llm_tables: {p['config']} is not in the results; run make reproduce "
                     "PAPER=llm")
        metric = p["metric"]
        ours = float(r[metric])
        want = float(p["published"])
        if metric == "iteration_time_ms":
            ours, want, unit = ours / 1e3, want / 1e3, "iteration (s)"
            shown = f"{ours:.2f}"
            pub = f"{want:.2f}"
        else:
            unit, shown, pub = "TFLOP/s per GPU", f"{ours:.1f}", f"{want:g}"
        err = ours / want - 1
        split = f"tp {r['tp']} pp {r['pp']} dp {r['dp']}"
        if int(r["cp"]) > 1:
            split += f" cp {r['cp']}"
        if int(r["vpp"]) > 1:
            split += f" vpp {r['vpp']}"
        split += f", mb {r['micro_batch']} x {r['micro_batches']}, {r['recompute']}"
        if r["sequence_parallel"] == "true":
            split += " + SP"
        lines.append(f"| {p['source']} | {p['row']} | {r['gpus']} | {split} | {unit} | {pub} | "
                     f"{shown} | {100 * err:+.1f}% |")
        worst[p["source"]] = max(worst.get(p["source"], 0), abs(err))
    lines.append("")
    for source, w in worst.items():
        lines.append(f"Largest error, {source}: {100 * w:.1f}%.  ")
    return lines


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    published = read(sys.argv[1])
    results = read(sys.argv[2])
    doc_tables.rewrite(sys.argv[3], {"validation": table(published, results)}, markers,
                       "llm_tables")


if __name__ == "__main__":
    main()
