"""Figures from collsim's own CSV output (the one plotting module every figure in docs/ uses):
`collsim plot RESULTS.csv -o FIG.png`, `python3 -m collsim.plot KIND ...`, tools/plot.py, or
collsim.plot.standard(df, "fig.png") from Python.

Kinds:
  auto      the standard figure for the CSV: training rows -> compute and exposed communication
            per run (one panel per workload); collective rows -> bandwidth (algbw) against size,
            one line per algorithm (one panel per platform); on multi-dimension platforms with
            hierarchical rows, also Themis's average bandwidth utilization
  bars      grouped bars: one group per --x value, one bar per --hue value
  stacked   grouped bars of several --y columns stacked (--y compute_ms,exposed_ms)
  lines     lines with markers: --y against --x, one line per --hue value
  activity  Themis Fig. 9: the --activity CSV of `collsim run/collective`, one panel per
            algorithm, one step line per dimension (share of each window it ran a chunk-stage)
  timeline  a run of a `--trace FILE.json` (give the JSON for CSV; --run K, default 1): a lane per
            NPU and collective (sends, receives), training track or dimension, and the dimensions'
            busy share below (collsim/timeline.py; `collsim plot --trace FILE.json -o FIG.png`)

Results CSV (`--format csv`): one row per run; derived columns time_ms, time_us, size_MB,
bw_utilization_pct, label (the algorithm in the Themis paper's names), series (backend and
algorithm), wavelengths (platforms named w8, w16, ...) and one column per backend_metrics key
(e.g. peak_wavelengths_per_segment) can be used as --x/--y/--hue.
Training CSV (`collsim train --format csv`): derived compute_ms, exposed_ms, iteration_ms and run
(algorithm / overlap); filter layer=total for the totals.
Activity CSV: platform,backend,algorithm,size_bytes,dim,window_start_ns,window_end_ns,active_share.

Same CSV, same PNG bytes (Agg backend, fixed dpi, no date in the metadata).

Example:
  python3 tools/plot.py bars results/fig8-table2.csv fig8.png --x size_MB --y speedup \\
      --hue label --facet platform --filter 'algorithm!=ideal'
"""
import argparse
import os
import sys
import tempfile

import matplotlib.pyplot as plt
import pandas as pd

from ._errors import UserError  # shared with timeline.py

DPI = 100
METADATA = {"Software": None}  # no matplotlib version or date: same bytes every time


# Axis and legend words for collsim's columns (a column not here is shown by its name).
COLUMN_LABELS = {
    "size_bytes": "size", "size_MB": "size", "time_ns": "time (ns)", "time_us": "time (µs)",
    "time_ms": "time (ms)", "algbw_GBps": "algbw (GB/s)", "busbw_GBps": "busbw (GB/s)",
    "bw_utilization_pct": "average BW utilization (%)", "npus": "NPUs", "chunks": "chunks",
    "wavelengths": "wavelengths", "compute_ms": "compute", "exposed_ms": "exposed communication",
    "iteration_ms": "iteration (ms)", "platform": "platform", "workload": "workload",
    "algorithm": "algorithm", "label": "algorithm", "series": "backend and algorithm",
    "endpoint": "endpoint", "collective": "collective", "run": "run", "backend": "backend",
}


def column_label(col):
    return COLUMN_LABELS.get(col, col)


def size_text(nbytes):
    """Bytes as users write them: 64 KiB, 1 MiB, 64 MB, 102,228,128 B."""
    b = int(round(float(nbytes)))
    # The largest unit that divides it: 64 MB, not 62500 KiB.
    # A decimal GB or MB with at most four decimals where exact: 1.5 GB, 249.2 MB (not
    # 1500 MB, 249200 KB).
    for unit, scale, decimal in (("GiB", 1 << 30, False), ("GB", 10**9, False),
                                 ("MiB", 1 << 20, False), ("GB", 10**9, True),
                                 ("MB", 10**6, False), ("MB", 10**6, True)):
        step = scale // 10000 if decimal else scale
        if b >= scale and b % step == 0:
            return f"{b / scale:.4f}".rstrip("0").rstrip(".") + f" {unit}"
    for unit, scale in (("KiB", 1 << 10), ("KB", 10**3)):
        if b >= scale and b % scale == 0:
            return f"{b // scale} {unit}"
    return f"{b:,} B"


def value_text(df, col, v):
    """A value of COL as a tick, facet title or legend shows it: sizes in bytes' units (the
    size_bytes of the row with that size_MB), other values as they are."""
    if col == "size_bytes":
        return size_text(v)
    if col == "size_MB" and "size_bytes" in df:
        match = df.loc[df[col] == v, "size_bytes"]
        return size_text(match.iloc[0] if len(match) else float(v) * 1e6)
    return str(v)


def legend_names(values):
    """Legend entries in words: 'name:k=v:...' values lose the parameters they all share, so
    'baseline:link_efficiency=94%:ideal_dma=true' and 'ace:link_efficiency=94%:...' read
    'baseline' and 'ace'."""
    split = [str(v).split(":") for v in values]
    common = set(split[0][1:]).intersection(*(set(p[1:]) for p in split)) if split else set()
    out = {}
    for v, parts in zip(values, split):
        rest = [p for p in parts[1:] if p not in common]
        out[v] = parts[0] + (f" ({', '.join(rest)})" if rest else "")
    return out


def short_label(algorithm):
    """The Themis paper's name of a hierarchical algorithm choice (others unchanged)."""
    a = str(algorithm)
    if not a.startswith("hierarchical"):
        return a
    extra = [p for p in a.split(":")[1:] if p.startswith("active_chunks")]
    suffix = f" ({extra[0].replace('_', ' ')})" if extra else ""
    if "schedule=per-dim-all-reduce" in a:
        return "per-dim all-reduce" + suffix
    if "schedule=themis" in a:
        return ("Themis+SCF" if "intra=scf" in a else "Themis+FIFO") + suffix
    return "baseline" + suffix


def read_results(paths):
    """One DataFrame from one or more results CSVs, with the derived columns."""
    frames = []
    for p in paths:
        try:
            frames.append(pd.read_csv(p))
        except FileNotFoundError:
            raise UserError(f"{p}: no such file")
        except IsADirectoryError:
            raise UserError(f"{p}: a folder, not a CSV file")
        except UnicodeDecodeError as e:
            raise UserError(f"{p}: not a UTF-8 text file (byte {e.start}): not a CSV of collsim")
        except pd.errors.EmptyDataError:
            raise UserError(f"{p}: empty: not a CSV of collsim")
        except pd.errors.ParserError as e:
            raise UserError(f"{p}: not a CSV: {str(e).strip()}")
    df = pd.concat(frames, ignore_index=True)
    if "note" in df:  # `-a all` rows of algorithms that did not run have no figures to draw
        df = df[~df["note"].fillna("").astype(str).str.startswith("skipped")]
    return _derive(df)


def _derive(df):
    """The derived columns (module docstring) of a results DataFrame."""
    df = df.copy()
    if "time_ns" in df:
        df["time_ms"] = df["time_ns"] / 1e6
        df["time_us"] = df["time_ns"] / 1e3
    if "size_bytes" in df:
        df["size_MB"] = (df["size_bytes"] / 1e6).round(3)
    if "bw_utilization" in df:
        df["bw_utilization_pct"] = 100 * df["bw_utilization"]
    if "algorithm" in df:
        df["label"] = df["algorithm"].map(short_label)
    if "backend" in df and "algorithm" in df:
        df["series"] = df["backend"].astype(str) + " " + df["algorithm"].astype(str)
    if "platform" in df:  # sweeps name their platforms w8, w16, ...: the wavelengths
        w = df["platform"].astype(str).str.extract(r"^w(\d+)$")[0]
        if w.notna().all():
            df["wavelengths"] = w.astype(int)
    if "backend_metrics" in df:  # "key=value;...": one column per key
        for i, text in df["backend_metrics"].items():
            if isinstance(text, str):
                for pair in text.split(";"):
                    key, _, value = pair.partition("=")
                    df.loc[i, key] = float(value)
    for col in ("compute_ns", "exposed_ns", "iteration_ns", "forward_compute_ns"):
        if col in df:  # training CSVs (collsim train --format csv)
            df[col.replace("_ns", "_ms")] = df[col] / 1e6
    if "overlap" in df and "algorithm" in df:
        df["run"] = df["algorithm"].astype(str) + " / overlap " + df["overlap"].astype(str)
    return df


def select(df, filters):
    """Rows where every COL=VALUE (or COL!=VALUE) holds; compared as text."""
    for f in filters:
        neg = "!=" in f
        col, _, val = f.partition("!=" if neg else "=")
        need(df, col)
        keep = df[col].astype(str) == val
        df = df[~keep if neg else keep]
    if df.empty:
        raise UserError("no rows left after the filters")
    return df


def need(df, *cols, kind=None):
    """Refuse a column the CSV lacks; with `kind` ("collective", "training") say which kind of
    collsim CSV the figure needs."""
    for c in cols:
        if c and c not in df.columns:
            if kind:
                raise UserError(f"no column '{c}': not a {kind} CSV of collsim (`collsim "
                                f"{'train' if kind == 'training' else 'collective'} --format csv`)")
            raise UserError(f"unknown column '{c}'; valid: {', '.join(df.columns)}")


def ordered(values):
    """Distinct values in first-appearance order (the CSV's order is the figure's order)."""
    return list(dict.fromkeys(values))


def panels(df, facet, sharex=True):
    """One panel per FACET value (titled 'size: 1 MiB'), or one panel."""
    groups = [(None, df)] if not facet else [
        (f"{column_label(facet)}: {value_text(df, facet, v)}", df[df[facet] == v])
        for v in ordered(df[facet])]
    fig, axes = plt.subplots(len(groups), 1, figsize=(8, 2.8 * len(groups)), squeeze=False,
                             sharex=sharex)
    return fig, [(name, part, ax) for (name, part), ax in zip(groups, axes[:, 0])]


def xticks(ax, positions, labels):
    """Tick labels, slanted when they are too long to sit side by side (platform names)."""
    widest = max((len(v) for v in labels), default=0)
    # Slanted when long names or many labels would run into each other (about 60 characters
    # fit under a panel beside its legend).
    long = (widest > 10 and len(labels) > 3) or sum(len(v) + 2 for v in labels) > 60
    ax.set_xticks(positions, labels, rotation=20 if long else 0, ha="right" if long else "center")


def overlay_paper(fig, parts, paper=None, paper_lines=()):
    """The paper's values on a figure: PAPER_LINES, (label, y) pairs drawn as dashed horizontal
    lines in every panel (e.g. an average the paper gives for the quantity on the y axis).
    Returns PAPER, a note of the values the paper states (most of the papers give averages, not
    per-point values), for save() to put in a box under the panels."""
    for label, y in paper_lines:
        for _, _, ax in parts:
            ax.axhline(y, linestyle="--", color="black", linewidth=0.8)
            ax.annotate(f"paper: {label}", (1.0, y), xycoords=("axes fraction", "data"),
                        xytext=(-2, 2), textcoords="offset points", ha="right", va="bottom",
                        fontsize=7)
    return paper


def save(fig, out, title, note=None):
    """Writes FIG to OUT with TITLE above the panels and NOTE (the paper's values) in a box
    below them."""
    if title:
        fig.suptitle(title)
    height = fig.get_size_inches()[1]
    if note:
        fig.text(0.01, 0.005, f"paper: {note}", fontsize=8, va="bottom", ha="left", wrap=True,
                 bbox={"boxstyle": "round", "facecolor": "lightyellow", "alpha": 0.9})
    # Leave the title its own band above the panels, and the note its own below.
    fig.tight_layout(rect=(0, 0.5 / height if note else 0, 1,
                           1 - 0.35 / height if title else 1))
    # Through a temporary file beside `out`, renamed at the end: an error leaves no half-written
    # PNG and an existing one as it was.
    folder, name = os.path.split(os.path.abspath(out))
    fd, tmp = tempfile.mkstemp(prefix="." + name + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            fig.savefig(f, dpi=DPI, metadata=METADATA,
                        format=os.path.splitext(out)[1][1:].lower() or "png")
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, out)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    finally:
        plt.close(fig)


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def bars(df, x, y, hue, out, *, facet=None, title=None, ylabel=None, logy=False, paper=None,
         paper_lines=()):
    """Grouped bars of y: one group per x value, one bar per hue value, one panel per facet."""
    need(df, x, y, hue, facet)
    fig, parts = panels(df, facet, sharex=False)
    hues = ordered(df[hue])
    names = legend_names(hues)
    width = 0.8 / len(hues)
    for name, part, ax in parts:
        xs = ordered(part[x])
        for k, h in enumerate(hues):
            sel = part[part[hue] == h].set_index(x)[y]
            ax.bar([i + k * width for i in range(len(xs))], [sel.get(v, float("nan")) for v in xs],
                   width, label=names[h])
        xticks(ax, [i + width * (len(hues) - 1) / 2 for i in range(len(xs))],
               [value_text(df, x, v) for v in xs])
        ax.set_ylabel(ylabel or column_label(y))
        ax.set_xlabel(column_label(x))
        if logy:
            ax.set_yscale("log")
        if name is not None:
            ax.set_title(str(name), fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    # Beside the panels, not on them: a legend inside covers bars and paper lines.
    parts[0][2].legend(fontsize=8, title=column_label(hue), title_fontsize=8, loc="upper left",
                       bbox_to_anchor=(1.01, 1))
    save(fig, out, title, note=overlay_paper(fig, parts, paper, paper_lines))


def stacked(df, x, ys, hue, out, *, facet=None, title=None, ylabel=None, paper=None,
            paper_lines=()):
    """Grouped bars of the columns `ys` stacked (compute + exposed communication, MultiTree
    Fig. 11 and Themis Fig. 12): one group per x value, one bar per hue value (told apart by
    hatching), one colour per stacked column."""
    need(df, x, hue, facet, *ys)
    from matplotlib.patches import Patch
    fig, parts = panels(df, facet, sharex=False)
    fig.set_size_inches(10, 3.6 * len(parts))
    hues = ordered(df[hue])
    width = 0.8 / len(hues)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    hatches = ["", "//", "..", "xx", "\\\\", "oo", "--", "++", "**", "||", "O.", "x-"]
    for name, part, ax in parts:
        xs = ordered(part[x])
        for k, h in enumerate(hues):
            sel = part[part[hue] == h].set_index(x)
            bottom = [0.0] * len(xs)
            pos = [i + k * width for i in range(len(xs))]
            for j, y in enumerate(ys):
                vals = [float(sel[y].get(v, float("nan"))) for v in xs]
                ax.bar(pos, vals, width, bottom=bottom, color=colors[j % len(colors)],
                       hatch=hatches[k % len(hatches)], edgecolor="black", linewidth=0.4)
                bottom = [b + v for b, v in zip(bottom, vals)]
        xticks(ax, [i + width * (len(hues) - 1) / 2 for i in range(len(xs))],
               [value_text(df, x, v) for v in xs])
        ax.set_ylabel(ylabel or " + ".join(column_label(y) for y in ys))
        if name is not None:
            ax.set_title(str(name), fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    handles = [Patch(facecolor=colors[j % len(colors)], edgecolor="black", label=column_label(y))
               for j, y in enumerate(ys)]
    names = legend_names(hues)
    handles += [Patch(facecolor="white", edgecolor="black", hatch=hatches[k % len(hatches)],
                      label=names[h]) for k, h in enumerate(hues)]
    parts[0][2].legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    save(fig, out, title, note=overlay_paper(fig, parts, paper, paper_lines))


def lines(df, x, y, hue, out, *, facet=None, title=None, ylabel=None, logx=False, logy=False,
          paper=None, paper_lines=()):
    """y against x with markers, one line per hue value, one panel per facet."""
    need(df, x, y, hue, facet)
    fig, parts = panels(df, facet, sharex=True)
    # One color per hue value across all panels, and every panel's lines in its own legend.
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    color_of = {h: colors[i % len(colors)] for i, h in enumerate(ordered(df[hue]))}
    names = legend_names(ordered(df[hue]))
    for name, part, ax in parts:
        for h in ordered(part[hue]):
            sel = part[part[hue] == h]
            ax.plot(sel[x], sel[y], marker="o", label=names[h], color=color_of[h])
        ax.set_ylabel(ylabel or column_label(y))
        if logx:
            ax.set_xscale("log", base=2)
        if x in ("size_bytes", "size_MB"):  # ticks at the sizes run, in bytes' units
            ticks = sorted(set(part[x]))
            step = max(1, len(ticks) // 8)
            ax.set_xticks(ticks[::step], [value_text(df, x, v) for v in ticks[::step]],
                          fontsize=8)
            ax.minorticks_off()
        if logy:
            ax.set_yscale("log")
        if name is not None:
            ax.set_title(str(name), fontsize=10)
        ax.grid(alpha=0.3)
    parts[-1][2].set_xlabel(column_label(x))
    for _, _, ax in parts:
        ax.legend(fontsize=7, title=column_label(hue), title_fontsize=7, loc="upper left",
                  bbox_to_anchor=(1.01, 1))
    save(fig, out, title, note=overlay_paper(fig, parts, paper, paper_lines))


def activity(df, out, *, facet="label", title=None):
    """Themis Fig. 9: each dimension's active share per window, one panel per facet value."""
    need(df, "dim", "window_start_ns", "window_end_ns", "active_share")
    df = df.assign(label=df["algorithm"].map(short_label))
    need(df, facet)
    fig, parts = panels(df, facet, sharex=True)
    for name, part, ax in parts:
        for d in sorted(part["dim"].unique()):
            sel = part[part["dim"] == d]
            xs = list(sel["window_start_ns"] / 1e6) + [sel["window_end_ns"].iloc[-1] / 1e6]
            ys = list(100 * sel["active_share"]) + [100 * sel["active_share"].iloc[-1]]
            ax.step(xs, ys, where="post", label=f"dim{d + 1}")
        ax.set_ylim(-5, 105)
        ax.set_ylabel("active %")
        ax.set_title(str(name), fontsize=10)
        ax.grid(alpha=0.3)
    parts[-1][2].set_xlabel("time (ms)")
    parts[0][2].legend(fontsize=8, ncol=4)
    save(fig, out, title)


def standard(df, out, *, title=None):
    """The standard figure for a DataFrame of collsim results (see `auto` above); `df` as
    collsim.collective / train / run return it, or read_results() of CSV files."""
    if "layer" in df.columns:  # training
        need(df, "platform", "workload", "compute_ns", "exposed_ns", "algorithm", "overlap",
             kind="training")
        if "compute_ms" not in df:
            df = _derive(df)
        df = df[df["layer"] == "total"]
        if df.empty:
            raise UserError("no `total` rows: not a training CSV of collsim")
        stacked(df, "platform", ["compute_ms", "exposed_ms"], "run", out, facet="workload",
                title=title or "iteration: compute + exposed communication", ylabel="ms")
        return
    need(df, "size_bytes", "algbw_GBps", "backend", "platform", "algorithm", kind="collective")
    if "label" not in df:
        df = _derive(df)
    df = df[df["algorithm"] != "ideal"] if "algorithm" in df else df
    lines(df, "size_bytes", "algbw_GBps", "series" if df["backend"].nunique() > 1 else "label",
          out, facet="platform" if df["platform"].nunique() > 1 else None, title=title,
          ylabel="algbw (GB/s)", logx=True)


def lines_of(specs):
    """--paper-line LABEL=Y values as (label, y) pairs."""
    out = []
    for spec in specs:
        label, _, y = spec.rpartition("=")
        try:
            out.append((label, float(y)))
        except ValueError:
            raise UserError(f"--paper-line {spec}: want LABEL=Y with a number Y")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kind", choices=["auto", "bars", "stacked", "lines", "activity", "timeline"])
    ap.add_argument("csv", help="CSV file(s), comma-separated")
    ap.add_argument("out", help="PNG to write")
    ap.add_argument("--x", default="size_MB")
    ap.add_argument("--y", default="time_ms")
    ap.add_argument("--hue", default="label")
    ap.add_argument("--facet", default=None)
    ap.add_argument("--filter", action="append", default=[], metavar="COL=VALUE",
                    help="keep rows where COL equals (COL!=VALUE: differs from) VALUE; repeatable")
    ap.add_argument("--title")
    ap.add_argument("--ylabel")
    ap.add_argument("--logx", action="store_true")
    ap.add_argument("--logy", action="store_true")
    ap.add_argument("--run", type=int, default=1, help="timeline: the run of the trace to draw")
    ap.add_argument("--paper", help="a note of the paper's values, shown in a box on the figure")
    ap.add_argument("--paper-line", action="append", default=[], metavar="LABEL=Y",
                    help="a value the paper gives for the y axis: a dashed line in every panel")
    a = ap.parse_args(argv)
    plt.switch_backend("Agg")  # files only, the same bytes everywhere
    try:
        folder = os.path.dirname(a.out) or "."
        if not os.path.isdir(folder):
            raise UserError(f"{a.out}: no folder {folder}/ to write the figure in")
        if a.kind == "timeline":
            from .timeline import timeline
            timeline(a.csv, a.out, run=a.run, title=a.title)
            return 0
        df = select(read_results(a.csv.split(",")), a.filter)
        if a.kind == "auto":
            standard(df, a.out, title=a.title)
        elif a.kind == "stacked":
            stacked(df, a.x, a.y.split(","), a.hue, a.out, facet=a.facet, title=a.title,
                    ylabel=a.ylabel, paper=a.paper, paper_lines=lines_of(a.paper_line))
        elif a.kind == "bars":
            bars(df, a.x, a.y, a.hue, a.out, facet=a.facet, title=a.title, ylabel=a.ylabel,
                 logy=a.logy, paper=a.paper, paper_lines=lines_of(a.paper_line))
        elif a.kind == "lines":
            lines(df, a.x, a.y, a.hue, a.out, facet=a.facet, title=a.title, ylabel=a.ylabel,
                  logx=a.logx, logy=a.logy, paper=a.paper, paper_lines=lines_of(a.paper_line))
        else:
            activity(df, a.out, facet=a.facet or "label", title=a.title)
    except UserError as e:
        print(f"collsim plot: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # the PNG cannot be written (permissions, a full disk)
        print(f"collsim plot: error: {a.out}: cannot write: {e.strerror}", file=sys.stderr)
        return 2
    except (TypeError, ValueError, KeyError) as e:  # a column of the wrong type: text for numbers
        print(f"collsim plot: error: {a.csv}: a column does not hold what collsim writes there "
              f"({type(e).__name__}: {e}); plot a CSV of `collsim ... --format csv`",
              file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
