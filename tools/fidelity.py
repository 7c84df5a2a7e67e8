#!/usr/bin/env python3
"""docs/fidelity.md from the CSVs of `make reproduce`, and the reduced tier's drift check.

One row per claim of the five seed papers (MultiTree, Themis, WRHT, switch-FC, ACE). The claims,
their paper values and the band each allows are data (docs/fidelity-claims.csv); collsim's value
is computed here from results/*.csv by the claim's `source` (a function below and its arguments).
A claim's status is `holds` when collsim's value is inside its band; outside, the data file
names a cause (`named deviation`) or a reason (`open`); a claim outside its band with neither is
tabulated `open` as a new deviation and named on stderr, never silently. A claim whose inputs are missing is `open`
(not reproduced in this run).

  tools/fidelity.py table --results results --doc docs/fidelity.md [--binary build/collsim]
  tools/fidelity.py reduced --results build/reduced --tables tests/reduced [--paper P] [--update]

`reduced` compares the reduced tier's CSVs (tests/reduced/PAPER/*.yaml, run by
`make reproduce-reduced`) with the committed tables tests/reduced/PAPER.csv: every result row's
key columns and figures, to the printed digit. Any difference fails (exit 1) with the rows named;
`--update` rewrites the tables instead (review the diff before committing). Standard library only.
"""
import argparse
import csv
import json
import math
import os
import shlex
import subprocess
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ace_tables  # noqa: E402
import doc_tables  # noqa: E402
import themis_tables  # noqa: E402
import wrht_tables  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CLAIMS = os.path.join(ROOT, "docs", "fidelity-claims.csv")
PAPERS = ["multitree", "themis", "wrht", "switch-fc", "ace"]


class Missing(Exception):
    """An input of a claim is not in the results (the paper was not reproduced)."""


class Context:
    def __init__(self, results, binary):
        self.results, self.binary, self._cache = results, binary, {}

    def rows(self, name):
        if name not in self._cache:
            path = os.path.join(self.results, name)
            if not os.path.exists(path):
                raise Missing(name)
            with open(path, newline="") as f:
                self._cache[name] = list(csv.DictReader(f))
        return self._cache[name]


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs)


def gmean(xs):
    return ace_tables.gmean(list(xs))


def totals(rows):
    """{(workload, platform, algorithm, overlap): row} of a training CSV's whole-run rows."""
    return {(r["workload"], r["platform"], r["algorithm"], r.get("overlap", "")): r
            for r in rows if r.get("layer") == "total"}


# --- MultiTree (ISCA'21) --------------------------------------------------------------------------

def mt_steps(ctx, topo):
    """T of the authors' construction (reference mode, kary 5), from the binary."""
    if not ctx.binary:
        raise Missing("--binary")
    out = subprocess.run([ctx.binary, "multitree", "--topology", topo, "--mode", "reference",
                          "--kary", "5", "--format", "json"], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)["time_steps"], [f"`collsim multitree --topology {topo}`"]


FIG9_FILES = ("fig9-grids.csv", "fig9-switched.csv", "fig9-bigraph.csv")


def fig9_bw(ctx, topo):
    """{(algorithm, size): algbw} of the flow Fig. 9 runs on one network."""
    for name in FIG9_FILES:
        got = {(r["algorithm"], int(r["size_bytes"])): float(r["algbw_GBps"])
               for r in ctx.rows(name) if r["topology"] == topo and r["algbw_GBps"]}
        if got:
            return got, name
    raise Missing(f"fig9 rows of {topo}")


def mt_fig9_ratio(ctx, topo, num, den, size="67108864"):
    bw, name = fig9_bw(ctx, topo)
    return bw[(num, int(size))] / bw[(den, int(size))], [name]


# The paper's Fig. 9 baselines (HDRM on BiGraphs only); collsim's extra rows (direct,
# halving-doubling, paper-mode trees) are not the paper's claims.
PAPER_FIG9 = "ring,ring-2d,ring-2d:directions=2,double-binary-tree,hdrm"


def mt_fig9_lead(ctx, topo, algo="multitree", among=PAPER_FIG9):
    """The algorithm's bandwidth over the best of the paper's baselines, at its worst size."""
    bw, name = fig9_bw(ctx, topo)
    want = set(among.split(","))
    leads = []
    for s in sorted({s for _, s in bw}):
        others = [v for (a, z), v in bw.items() if z == s and a in want and a != algo]
        leads.append(bw[(algo, s)] / max(others))
    return min(leads), [name]


def mt_fig9_worst(ctx, topo, algo, among=PAPER_FIG9, size="67108864"):
    """The algorithm's bandwidth over the slowest other's of `among` (below 1: it is the worst)."""
    bw, name = fig9_bw(ctx, topo)
    want = set(among.split(","))
    others = [v for (a, z), v in bw.items() if z == int(size) and a in want and a != algo]
    return bw[(algo, int(size))] / min(others), [name]


def not_run(ctx):
    """A claim collsim does not reproduce (the data file's `open:` says why)."""
    raise Missing("not run")


def mt_fig9_packet_gain(ctx, topo, size):
    rows = [r for r in ctx.rows("fig9-packet.csv")
            if r["topology"] == topo and r["algorithm"] == "multitree"
            and int(r["size_bytes"]) == int(size)]
    msg = [float(r["algbw_GBps"]) for r in rows if "mbfc" in r["backend"]]
    plain = [float(r["algbw_GBps"]) for r in rows if "mbfc" not in r["backend"]]
    if not msg or not plain:
        raise Missing(f"fig9-packet.csv rows of {topo} at {size}")
    return msg[0] / plain[0], ["fig9-packet.csv"]


def fig10_times(ctx, k):
    name = f"fig10-torus-{k}x{k}.csv"
    return {(r["algorithm"], "mbfc" in r["backend"]): float(r["time_ns"])
            for r in ctx.rows(name)}, name


def fig10_key(text):
    """`multitree+mbfc` is MultiTreeMsg (message-based flow control), else the plain backend."""
    return (text[:-5], True) if text.endswith("+mbfc") else (text, False)


def mt_fig10_speedup(ctx, num, den, npus="256"):
    """Time of `num` over time of `den` at `npus` NPUs (den's speedup over num)."""
    k = math.isqrt(int(npus))
    t, name = fig10_times(ctx, k)
    return t[fig10_key(num)] / t[fig10_key(den)], [name]


def mt_fig10_min_speedup(ctx, num, den):
    """The smallest speedup of `den` over `num` over the sizes 16..256 NPUs."""
    vals, names = [], []
    for k in (4, 6, 8, 10, 12, 14, 16):
        try:
            t, name = fig10_times(ctx, k)
        except Missing:
            continue
        vals.append(t[fig10_key(num)] / t[fig10_key(den)])
        names.append(name)
    if not vals:
        raise Missing("fig10-torus-*.csv")
    return min(vals), [f"{names[0]} .. {names[-1]}"]


def mt_fig11_speedup(ctx, over, algo="multitree", overlap="none"):
    """Mean over the models of the all-reduce (exposed communication) speedup of `algo`."""
    t = totals(ctx.rows("multitree-fig11.csv"))
    models = sorted({w for w, _, a, o in t if a == algo and o == overlap})
    return mean(float(t[(w, "torus-8x8", over, overlap)]["exposed_ns"]) /
                float(t[(w, "torus-8x8", algo, overlap)]["exposed_ns"])
                for w in models), ["multitree-fig11.csv"]


def mt_fig11_share(ctx, pick, algo="ring"):
    """Smallest or largest share of the iteration that `algo`'s all-reduce takes (no overlap)."""
    t = totals(ctx.rows("multitree-fig11.csv"))
    shares = [float(r["exposed_ns"]) / float(r["iteration_ns"])
              for (w, p, a, o), r in t.items() if a == algo and o == "none"]
    return 100 * (min(shares) if pick == "min" else max(shares)), ["multitree-fig11.csv"]


def mt_fig11_cut(ctx, over, overlap="none", models=""):
    """Largest training-time reduction of MultiTree over `over` (over the models, %)."""
    t = totals(ctx.rows("multitree-fig11.csv"))
    want = set(models.split(",")) if models else None
    cuts = [1 - float(t[(w, p, "multitree", o)]["iteration_ns"]) / float(r["iteration_ns"])
            for (w, p, a, o), r in t.items()
            if a == over and o == overlap and (want is None or w in want)]
    return 100 * max(cuts), ["multitree-fig11.csv"]


def mt_fig11_iter_speedup(ctx, over, overlap, models):
    t = totals(ctx.rows("multitree-fig11.csv"))
    return mean(float(t[(w, "torus-8x8", over, overlap)]["iteration_ns"]) /
                float(t[(w, "torus-8x8", "multitree", overlap)]["iteration_ns"])
                for w in models.split(",")), ["multitree-fig11.csv"]


# --- Themis (ISCA'22) -----------------------------------------------------------------------------

def th_fig8(ctx, metric, name="fig8-table2-flow.csv", active="4"):
    """themis_tables' averages over the 24 cases (speedups, utilizations in %), or the largest
    Themis+SCF speedup (`max`)."""
    rows = ctx.rows(name)
    if metric == "max":
        case = defaultdict(dict)
        for r in rows:
            s = themis_tables.schedule(r["algorithm"])
            if s and s[1] == int(active):
                case[(r["platform"], r["size_bytes"])][s[0]] = float(r["time_ns"])
        return max(c["base"] / c["scf"] for c in case.values() if len(c) == 3), [name]
    return themis_tables.summarize(rows)[int(active)][metric], [name]


def th_fig10(ctx, kind, chunks, name="fig10-chunks-flow.csv"):
    """Mean over the two platforms of the average BW utilization (%) at `chunks` chunks."""
    vals = [100 * float(r["bw_utilization"]) for r in ctx.rows(name)
            if int(r["chunks"]) == int(chunks) and themis_tables.schedule(r["algorithm"])
            and themis_tables.schedule(r["algorithm"])[0] == kind]
    if not vals:
        raise Missing(f"{name} at {chunks} chunks")
    return mean(vals), [name]


def th_sec3(ctx, size="1000000000"):
    for r in ctx.rows("sec3-current.csv"):
        s = themis_tables.schedule(r["algorithm"])
        if s and s[0] == "base" and int(r["size_bytes"]) == int(size):
            return 100 * float(r["bw_utilization"]), ["sec3-current.csv"]
    raise Missing("sec3-current.csv baseline row")


def th_fig9(ctx):
    """Themis+SCF's least active dimension over the baseline's most active outer one (%/%)."""
    act = {}
    for r in ctx.rows("fig9-activity.csv"):
        s = themis_tables.schedule(r["algorithm"])
        if s and r["dim_activity"]:
            act[s[0]] = [float(x) for x in r["dim_activity"].split(";")]
    return min(act["scf"]) / max(act["base"][1:]), ["fig9-activity.csv"]


FIG12 = "themis-fig12.csv"


def fig12_iter(ctx):
    t = defaultdict(dict)
    for r in ctx.rows(FIG12):
        if r.get("layer") == "total":
            s = themis_tables.schedule(r["algorithm"])
            kind = "ideal" if r["algorithm"] == "ideal" else s[0] if s else None
            if kind:
                t[(r["workload"], r["platform"])][kind] = r
    return t


def th_fig12(ctx, workload, metric):
    """Iteration speedup over the baseline per platform: mean or max of Themis+SCF's, or the
    mean of ideal's (`ideal`), or the mean exposed-communication cut (`exposed`, all models)."""
    t = fig12_iter(ctx)
    cases = [c for (w, _), c in t.items() if (w == workload or workload == "all") and
             {"base", "scf", "ideal"} <= set(c)]
    if not cases:
        raise Missing(f"{FIG12} rows of {workload}")
    it = lambda r: float(r["iteration_ns"])  # noqa: E731
    if metric == "exposed":
        return mean(float(c["base"]["exposed_ns"]) / float(c["scf"]["exposed_ns"])
                    for c in cases if float(c["scf"]["exposed_ns"]) > 0), [FIG12]
    key = "ideal" if metric == "ideal" else "scf"
    vals = [it(c["base"]) / it(c[key]) for c in cases]
    return (max(vals) if metric == "max" else mean(vals)), [FIG12]


# --- WRHT (PPoPP'23 poster) ----------------------------------------------------------------------

def wrht_cut(ctx, algo, base, electrical=""):
    """The poster's mean reduction 1 - t / t_base over the 28 (model, N) cases (%)."""
    for name in ("fig2-optical.csv", "fig2-electrical.csv", "fig2-electrical-10g.csv"):
        ctx.rows(name)
    opt, e200, e10 = wrht_tables.load(ctx.results)
    col = lambda table, a: [table[(n, s, a)] for n, s in wrht_tables.cases()]  # noqa: E731
    if electrical:
        table = e10 if electrical == "10g" else e200
        got = wrht_tables.reduction(col(opt, algo) * 2,
                                    col(table, "ring") + col(table, "recursive-doubling"))
        return 100 * got, ["fig2-optical.csv", f"fig2-electrical{'-10g' if electrical == '10g' else ''}.csv"]
    return 100 * wrht_tables.reduction(col(opt, algo), col(opt, base)), ["fig2-optical.csv"]


# --- switch-FC (hierarchical torus with switch-based packages) -----------------------------------

def swfc_fig9(ctx, collective, npus):
    """Largest reduction over k of the package's time against the ring package (%)."""
    rows = [r for r in ctx.rows("switch-fc-fig9.csv")
            if r["collective"] == collective and r["time_ns"] and r["algorithm"] != "ideal"]
    ring_algo = "ring" if collective == "all-reduce" else "direct"
    ring = min(float(r["time_ns"]) for r in rows
               if r["platform"] == f"{npus} ring" and r["algorithm"] == ring_algo)
    pkg_algo = "package-doubling" if collective == "all-reduce" else None
    best = min(float(r["time_ns"]) for r in rows if r["platform"].startswith(f"{npus} k")
               and (pkg_algo is None or r["algorithm"] == pkg_algo))
    return 100 * (1 - best / ring), ["switch-fc-fig9.csv"]


RSAG, PERDIM = "hierarchical", "hierarchical:schedule=per-dim-all-reduce"


def swfc_fig11(ctx, workload, npus, name="switch-fc-fig11.csv"):
    """The paper's pairing: hierarchical torus RS/AG over switch-based per-dim all-reduce
    (`workload` all: the smallest such speedup over the workloads and package sizes)."""
    t = {(r["workload"], r["platform"], r["algorithm"]): float(r["iteration_ns"])
         for r in ctx.rows(name) if r.get("layer") == "total"}
    k = {4: 3, 8: 4}
    pairs = [(w, n) for w in {w for w, _, _ in t} for n in (4, 8)] if workload == "all" else \
        [(workload, int(npus))]
    vals = [t[(w, f"htorus:4:{n}", RSAG)] / t[(w, f"swfc:4:{n}:{k[n]}", PERDIM)]
            for w, n in pairs]
    return (min(vals) if workload == "all" else vals[0]), [name]


def swfc_fig10(ctx):
    """The switch-based package's time over the ring package's, at its worst size."""
    t = {(r["platform"], r["algorithm"], int(r["size_bytes"])): float(r["time_ns"])
         for r in ctx.rows("switch-fc-fig10.csv")}
    ratios = [t[(f"swfc:1:{n}:{k}", "package-doubling", s)] / t[(f"htorus:1:{n}", "ring", s)]
              for n, k in ((4, 3), (8, 4)) for (p, a, s) in t if p == f"htorus:1:{n}"]
    return max(ratios), ["switch-fc-fig10.csv"]


# --- ACE (MICRO'20) -------------------------------------------------------------------------------

def ace_micro(ctx, name, collective, num, den):
    """Geometric mean over platforms and sizes of time(num) / time(den) (speedup of den)."""
    times = ace_tables.collective_times(ctx.rows(name), collective)
    return gmean(t[num] / t[den] for t in times.values()), [name]


def ace_train(ctx, name, workload, endpoint):
    t = ace_tables.training_totals(ctx.rows(name))
    return gmean(float(v["baseline"]["iteration_ns"]) / float(v[endpoint]["iteration_ns"])
                 for (w, _), v in t.items() if w == workload), [name]


def ace_fig17(ctx, metric):
    t = ace_tables.training_totals(ctx.rows("ace-fig17.csv"))
    util = defaultdict(list)
    for v in t.values():
        for e in ("baseline", "ace"):
            util[e].append(float(v["ideal"]["comm_ns"]) / float(v[e]["comm_ns"]))
    m = {e: mean(x) for e, x in util.items()}
    return (m["ace"] / m["baseline"] if metric == "ratio" else 100 * m[metric]), ["ace-fig17.csv"]


def ace_fig11(ctx, metric):
    """Mean over Fig. 9's runs of ACE's cut of chunk queuing or bus congestion (%)."""
    runs = defaultdict(dict)
    for r in ctx.rows("ace-fig9.csv"):
        e = ace_tables.endpoint_name(r["endpoint"])
        if r["collective"] == "all-reduce" and r["algorithm"] != "ideal" and e in ("baseline", "ace"):
            runs[(r["platform"], r["size_bytes"])][e] = ace_tables.metrics(r)
    cuts = []
    for m in runs.values():
        b, a = m["baseline"], m["ace"]
        if metric == "chunk":
            if b.get("chunk_queuing_ns"):
                cuts.append(1 - a.get("chunk_queuing_ns", 0) / b["chunk_queuing_ns"])
        else:
            bb = b.get("bus_queuing_ns", 0) + b.get("bus_transfer_ns", 0)
            if bb:
                cuts.append(1 - (a.get("bus_queuing_ns", 0) + a.get("bus_transfer_ns", 0)) / bb)
    return 100 * mean(cuts), ["ace-fig9.csv"]


SOURCES = {f.__name__: f for f in (
    not_run, mt_steps, mt_fig9_ratio, mt_fig9_lead, mt_fig9_worst, mt_fig9_packet_gain, mt_fig10_speedup,
    mt_fig10_min_speedup, mt_fig11_speedup, mt_fig11_share, mt_fig11_cut, mt_fig11_iter_speedup,
    th_fig8, th_fig10, th_sec3, th_fig9, th_fig12, wrht_cut, swfc_fig9, swfc_fig11, swfc_fig10,
    ace_micro, ace_train, ace_fig17, ace_fig11)}


# --- the table ----------------------------------------------------------------------------------

def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def evaluate(ctx, claim):
    """(value, inputs) of one claim; Missing when its inputs are not in the results."""
    words = shlex.split(claim["source"])
    fn = SOURCES.get(words[0])
    if fn is None:
        sys.exit(f"fidelity: claim {claim['id']}: unknown source {words[0]!r}")
    def keyword(w):  # key=value with an identifier key (not `ring-2d:directions=2`)
        return "=" in w and w.split("=", 1)[0].isidentifier()
    kwargs = dict(w.split("=", 1) for w in words[1:] if keyword(w))
    args = [w for w in words[1:] if not keyword(w)]
    try:
        return fn(ctx, *args, **kwargs)
    except (KeyError, ZeroDivisionError, ValueError) as e:
        raise Missing(f"{words[0]}: {type(e).__name__} {e}") from e


def fmt(v, unit):
    if v is None:
        return ""
    if unit == "steps":
        return f"{v:.0f}"
    if unit == "%":
        return f"{v:.2f}%"
    return f"{v:.2f}" + ("x" if unit == "x" else "")


def band_text(lo, hi, unit):
    if lo is None and hi is None:
        return ""
    if hi is None:
        return f">= {fmt(lo, unit)}"
    if lo is None:
        return f"<= {fmt(hi, unit)}"
    return f"[{fmt(lo, unit)}, {fmt(hi, unit)}]"


def status(claim, value):
    lo, hi = number(claim["band_lo"]), number(claim["band_hi"])
    inside = (lo is None or value >= lo) and (hi is None or value <= hi)
    note = claim["deviation"].strip()
    if inside:
        return "holds", ""
    if note.startswith("named:"):
        return "named deviation", note[len("named:"):].strip()
    if note.startswith("open:"):
        return "open", note[len("open:"):].strip()
    # A new deviation (a merge moved a number out of its band) is tabulated as open with that
    # reason and named on stderr, so that `make reproduce` still writes every table.
    print(f"fidelity: claim {claim['id']} ({claim['paper']} {claim['figure']}, "
          f"{claim['metric']}) is outside its band {band_text(lo, hi, claim['unit'])} at "
          f"{fmt(value, claim['unit'])} and docs/fidelity-claims.csv names no cause "
          "(deviation: `named: CAUSE` or `open: REASON`)", file=sys.stderr)
    return "open", ("outside its band and no cause named yet in docs/fidelity-claims.csv "
                    "(a new deviation: find the cause)")


def read_claims(path):
    with open(path, newline="") as f:
        claims = [r for r in csv.DictReader(f) if not r["id"].startswith("#")]
    seen = set()
    for c in claims:
        if c["id"] in seen:
            sys.exit(f"fidelity: claim id {c['id']} twice in {path}")
        seen.add(c["id"])
    return claims


def durations(results):
    out = {}
    for p in PAPERS:
        path = os.path.join(results, f"duration-{p}.txt")
        if os.path.exists(path):
            with open(path) as f:
                out[p] = int(f.read().split()[0])
    return out


def table(results, binary, claims_path):
    ctx = Context(results, binary)
    claims = read_claims(claims_path)
    rows, notes, counts = [], [], defaultdict(lambda: defaultdict(int))
    for c in claims:
        try:
            value, inputs = evaluate(ctx, c)
            st, why = status(c, value)
            ordering = c["band_basis"].startswith("ordering")  # no ratio to an inequality
            ratio = value / number(c["paper_value"]) if number(c["paper_value"]) and not ordering \
                else None
        except Missing as e:
            value, inputs, ratio = None, [], None
            note = c["deviation"].strip()
            if c["source"] == "not_run" and note.startswith("open:"):
                st, why = "open", note[len("open:"):].strip()
            else:
                st, why = "open", f"not reproduced in this run ({e})"
        counts[c["paper"]][st] += 1
        ref = ""
        if why:
            notes.append(f"- **{c['id']}** ({st}): {why}")
            ref = f" ({c['id']})"
        rows.append(f"| {c['id']} | {c['figure']} | {c['panel']} | {c['metric']} | "
                    f"{c['paper_text'] or fmt(number(c['paper_value']), c['unit'])} | "
                    f"{fmt(value, c['unit'])} | {'' if ratio is None else f'{ratio:.2f}'} | "
                    f"{band_text(number(c['band_lo']), number(c['band_hi']), c['unit'])} "
                    f"({c['band_basis']}) | {st}{ref} | {', '.join(inputs)} |")
    by_paper = defaultdict(list)
    for c, r in zip(claims, rows):
        by_paper[c["paper"]].append(r)
    head = ["| id | figure | panel | metric | paper | collsim | ratio | band (basis) | status | "
            "collsim's value from |", "|---|---|---|---|---|---|---|---|---|---|"]
    total = defaultdict(int)
    summary = ["| paper | claims | holds | named deviation | open | `make reproduce PAPER=` "
               "duration |", "|---|---|---|---|---|---|"]
    took = durations(results)
    for p in PAPERS:
        n = counts[p]
        for k, v in n.items():
            total[k] += v
        d = took.get(p)
        dtxt = f"{d // 60} min {d % 60} s" if d is not None else "not run"
        summary.append(f"| {p} | {sum(n.values())} | {n['holds']} | {n['named deviation']} | "
                       f"{n['open']} | {dtxt} |")
    summary.append(f"| **all** | **{sum(total.values())}** | **{total['holds']}** | "
                   f"**{total['named deviation']}** | **{total['open']}** | |")
    blocks = {"summary": "\n".join(summary)}
    for p in PAPERS:
        blocks[f"claims-{p}"] = "\n".join(head + by_paper[p])
    blocks["notes"] = "\n".join(notes)
    return blocks


# --- the reduced tier ---------------------------------------------------------------------------

# Columns that name a result row, and the figures compared (whichever a CSV has).
KEY = ("platform", "topology", "backend", "collective", "algorithm", "endpoint", "chunks",
       "size_bytes", "workload", "overlap", "npus", "concurrent", "group")
FIGURES = ("time_ns", "messages", "bytes_sent", "bw_utilization", "iteration_ns", "exposed_ns",
           "compute_ns", "comm_ns")


def reduced_rows(results, paper):
    out = []
    for name in sorted(os.listdir(results)):
        if not (name.startswith(paper + "-") and name.endswith(".csv")):
            continue
        with open(os.path.join(results, name), newline="") as f:
            for r in csv.DictReader(f):
                if "layer" in r and r["layer"] != "total":
                    continue
                key = ";".join(f"{k}={r[k]}" for k in KEY if r.get(k))
                figs = ";".join(f"{k}={r[k]}" for k in FIGURES if r.get(k))
                out.append((name[len(paper) + 1:-4], key, figs))
    return out


def reduced(results, tables, papers, update):
    failed = False
    for p in papers:
        rows = reduced_rows(results, p)
        if not rows:
            sys.exit(f"fidelity: no reduced results for {p} in {results} (make reproduce-reduced)")
        path = os.path.join(tables, f"{p}.csv")
        lines = ["scenario,key,figures"] + [",".join(f'"{x}"' for x in r) for r in rows]
        text = "\n".join(lines) + "\n"
        if update:
            with open(path, "w") as f:
                f.write(text)
            print(f"fidelity: {path}: {len(rows)} rows written")
            continue
        if not os.path.exists(path):
            sys.exit(f"fidelity: {path} is missing (run with --update and commit it)")
        with open(path) as f:
            want = f.read().splitlines()[1:]
        got = lines[1:]
        if got == want:
            print(f"fidelity: {p}: {len(rows)} reduced rows as committed")
            continue
        failed = True
        print(f"fidelity: {p}: the reduced tier drifted from {path}:", file=sys.stderr)
        for w in [x for x in want if x not in got][:10]:
            print(f"  committed: {w}", file=sys.stderr)
        for g in [x for x in got if x not in want][:10]:
            print(f"  now:       {g}", file=sys.stderr)
        if len(got) != len(want):
            print(f"  rows: {len(want)} committed, {len(got)} now", file=sys.stderr)
    if failed:
        print("fidelity: if the change is meant, `make reproduce-reduced UPDATE=1` and commit the "
              "tables with the reason", file=sys.stderr)
        sys.exit(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("table")
    t.add_argument("--results", default="results")
    t.add_argument("--doc", default=os.path.join(ROOT, "docs", "fidelity.md"))
    t.add_argument("--claims", default=CLAIMS)
    t.add_argument("--binary")
    r = sub.add_parser("reduced")
    r.add_argument("--results", required=True)
    r.add_argument("--tables", default=os.path.join(ROOT, "tests", "reduced"))
    r.add_argument("--paper", default="all")
    r.add_argument("--update", action="store_true")
    a = ap.parse_args()
    if a.cmd == "table":
        blocks = table(a.results, a.binary, a.claims)
        doc_tables.rewrite(a.doc, blocks, lambda name: (f"<!-- BEGIN fidelity {name} -->",
                                                        f"<!-- END fidelity {name} -->"),
                           "fidelity")
    else:
        papers = PAPERS if a.paper == "all" else [a.paper]
        if any(p not in PAPERS for p in papers):
            sys.exit(f"fidelity: --paper: one of {', '.join(PAPERS)} or all")
        reduced(a.results, a.tables, papers, a.update)


if __name__ == "__main__":
    main()
