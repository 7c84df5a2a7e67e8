"""collsim from Python: run scenarios, collective sweeps, training runs and ASTRA-sim inputs in
process and get the results as pandas DataFrames.

    import collsim
    df = collsim.collective("torus:8x8", algorithms=["ring", "direct"], sizes="32KiB:64MiB")
    df.plot(x="size_bytes", y="algbw_GBps")

`import collsim.plot`; collsim.plot.standard(df, "fig.png") draws the standard figure of such a DataFrame (bandwidth
against size per algorithm, or a training breakdown); the other figures are in collsim.plot.
collsim.sweep(points, jobs=N) runs many such calls at once on N threads and returns one DataFrame.
Every other function mirrors a `collsim` subcommand (run, collective, train, astra, llm); keyword arguments
are its long options with `_` for `-` (`link_bandwidth="16 GB/s"`, `no_layers=True`); lists are
joined with commas. Bad input raises CollsimError with the command line's message.
"""
import difflib
import io
import json
import os
import re
import tempfile

import pandas as pd

__all__ = ["CollsimError", "cli", "run", "collective", "train", "astra", "llm", "sweep"]

# Installed by `pip install .`, the model zoo is in the package; the extension runs inside the
# interpreter, so it cannot find it from its own path as the command-line program does.
_MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "share", "collsim", "models")
if os.path.isdir(_MODELS):
    os.environ.setdefault("COLLSIM_MODELS", _MODELS)


class CollsimError(Exception):
    """A collsim command failed; `status` is its exit status (2: bad input, 3: the simulation
    could not finish), the message its error text."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


def cli(*args):
    """Run `collsim ARGS...` and return its standard output (raises CollsimError)."""
    from . import _collsim  # the extension; collsim.plot works without it

    status, out, err = _collsim.run_cli([str(a) for a in args])
    if status != 0:
        lines = [l for l in err.splitlines() if l.startswith("collsim:")]
        raise CollsimError("\n".join(lines) or err.strip(), status)
    return out


_KNOWN = {}  # subcommand -> its long options, read once from `collsim CMD --help`


def _known_options(command):
    if command not in _KNOWN:
        _KNOWN[command] = set(re.findall(r"--([a-z][a-z0-9-]*)", cli(command, "--help")))
    return _KNOWN[command]


def _check_kwargs(function, command, options, taken=()):
    """A keyword that is not an option of the subcommand is a TypeError, as Python's own."""
    known = _known_options(command) - {"help"}
    names = sorted({k.replace("-", "_") for k in known} | set(taken))
    for key in options:
        if key.replace("_", "-") in known:
            continue
        close = difflib.get_close_matches(key, names, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise TypeError(f"{function}() got an unexpected keyword argument {key!r}{hint}")


# Units of the result columns (df.attrs["units"]); the column names carry them too.
UNITS = {
    "size_bytes": "bytes", "time_ns": "nanoseconds", "alone_time_ns": "nanoseconds",
    "algbw_GBps": "10^9 bytes/s", "busbw_GBps": "10^9 bytes/s", "bytes_sent": "bytes",
    "max_link_utilization": "fraction of bandwidth x time", "bw_utilization": "fraction",
    "compute_ns": "nanoseconds", "comm_ns": "nanoseconds", "exposed_ns": "nanoseconds",
    "finish_ns": "nanoseconds", "speedup": "ratio", "slowdown": "ratio",
    "iteration_time_ms": "milliseconds", "tokens_per_s": "tokens/s",
    "tflops_per_gpu": "10^12 FLOP/s per GPU", "mfu": "fraction of peak", "memory_gib": "GiB",
}


def _options(options):
    args = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            args.append(flag)
        elif value is False or value is None:
            continue
        elif isinstance(value, (list, tuple)):
            args += [flag, ",".join(str(v) for v in value)]
        else:
            args += [flag, str(value)]
    return args


def _frame(args):
    """Run a reporting command in CSV and return its rows. With output=FILE the command writes
    the CSV to FILE (all or nothing) and the rows are read back from it."""
    if "--format" in args[:-1]:
        at = args.index("--format")
        if args[at + 1] != "csv":
            raise CollsimError(f"format: the Python functions return a DataFrame (read from CSV), "
                               f"got {args[at + 1]!r}; for other formats use collsim.cli()", 2)
        args = args[:at] + args[at + 2:]
    text = cli(*args, "--format", "csv", "--quiet")
    for flag in ("--output", "-o"):
        if flag in args[:-1]:
            with open(args[args.index(flag) + 1], encoding="utf-8") as f:
                text = f.read()
    df = pd.read_csv(io.StringIO(text))
    df.attrs["units"] = {c: u for c, u in UNITS.items() if c in df.columns}
    return df


def run(scenario):
    """Run a scenario: a path to a YAML file, or a dict in the same form (relative paths in it
    are taken from the current directory). Returns one row per run."""
    if isinstance(scenario, (str, os.PathLike)):
        return _frame(["run", os.fspath(scenario)])
    fd, path = tempfile.mkstemp(suffix=".yaml", prefix=".collsim-", dir=os.getcwd())
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(scenario, f)  # JSON is YAML
        try:
            return _frame(["run", path])
        except CollsimError as e:
            # The file is a temporary copy of the dict: name the dict, not the file (its lines
            # are one JSON line, so no line number either).
            message = re.sub(re.escape(path) + r"(:\d+)?", "scenario (dict)", str(e))
            raise CollsimError(message, e.status) from None
    finally:
        os.remove(path)


def collective(topology, collective="all-reduce", algorithms="ring", sizes="1MiB", **options):
    """`collsim collective`: one row per algorithm x size (x backend)."""
    _check_kwargs("collective", "collective", options, ("topology", "collective", "algorithms", "sizes"))
    return _frame(["collective", "--topology", topology, "--collective", collective]
                  + _options({"algorithms": algorithms, "sizes": sizes}) + _options(options))


def train(workload, topology, **options):
    """`collsim train`: per-layer rows and a `total` row per run (column `layer`)."""
    _check_kwargs("train", "train", options, ("workload", "topology"))
    return _frame(["train", "--workload", workload, "--topology", topology] + _options(options))


def astra(workload_configuration, system_configuration, network_configuration, **options):
    """`collsim astra` on ASTRA-sim's three input files: collsim's report rows."""
    _check_kwargs("astra", "astra", options)
    return _frame(["astra", "--workload-configuration", workload_configuration,
                   "--system-configuration", system_configuration,
                   "--network-configuration", network_configuration] + _options(options))


def llm(config, **options):
    """`collsim llm`: one row per LLM config (a path to a YAML file, or a dict with model,
    parallel and system), with iteration_time_ms, tokens_per_s, tflops_per_gpu, mfu, the time
    split and the memory per GPU (docs/llm.md)."""
    _check_kwargs("llm", "llm", options)
    if isinstance(config, (str, os.PathLike)):
        return _frame(["llm", os.fspath(config)] + _options(options))
    fd, path = tempfile.mkstemp(suffix=".yaml", prefix=".collsim-llm-", dir=os.getcwd())
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(config, f)  # JSON is YAML
        try:
            return _frame(["llm", path] + _options(options))
        except CollsimError as e:
            message = re.sub(re.escape(path) + r"(:\d+)?", "config (dict)", str(e))
            raise CollsimError(message, e.status) from None
    finally:
        os.remove(path)


_SWEEP_COMMANDS = {"collective": collective, "train": train}


def sweep(points, jobs=None):
    """Independent runs at once on `jobs` threads (None: the number of cores), as one DataFrame.

    Each point is a dict of the keyword arguments of collective() (the default) or, with
    "command": "train", of train(); e.g.
        collsim.sweep([{"topology": "torus:8x8", "algorithms": "ring", "sizes": "1MiB"},
                       {"topology": "torus:8x8", "algorithms": "direct", "sizes": "1MiB"}], jobs=2)
    Each point runs single-threaded (jobs=1) in process with the interpreter lock released; the rows
    come in the order of the points, each point's rows in their own order, with a column `point`
    (the point's index in `points`). A point that fails raises CollsimError naming its index,
    after the other running points end."""
    import concurrent.futures

    points = list(points)
    if jobs is None:
        jobs = os.cpu_count() or 1
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise ValueError(f"sweep(): jobs must be a whole number >= 1, got {jobs!r}")
    calls = []
    for i, point in enumerate(points):
        if not isinstance(point, dict):
            raise TypeError(f"sweep(): points[{i}] must be a dict of keyword arguments, "
                            f"got {type(point).__name__}")
        kwargs = dict(point)
        command = kwargs.pop("command", "collective")
        if command not in _SWEEP_COMMANDS:
            raise ValueError(f"sweep(): points[{i}]: command must be one of "
                             f"{sorted(_SWEEP_COMMANDS)}, got {command!r}")
        if "jobs" in kwargs:
            raise TypeError(f"sweep(): points[{i}]: give jobs to sweep(), not to a point")
        calls.append((_SWEEP_COMMANDS[command], kwargs))

    def one(i):
        function, kwargs = calls[i]
        try:
            df = function(**kwargs, jobs=1)
        except CollsimError as e:
            raise CollsimError(f"points[{i}]: {e}", e.status) from None
        df["point"] = i
        return df

    if not calls:
        return pd.DataFrame()
    with concurrent.futures.ThreadPoolExecutor(max_workers=min(jobs, len(calls))) as pool:
        frames = list(pool.map(one, range(len(calls))))
    df = pd.concat(frames, ignore_index=True)
    df.attrs["units"] = {c: u for c, u in UNITS.items() if c in df.columns}
    return df

