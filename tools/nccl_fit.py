#!/usr/bin/env python3
"""Fit collsim's two NCCL parameters to one nccl-tests log (docs/nccl.md "Calibration").

The parameters: `efficiency` (η), the fraction of NCCL's rated NVLink bandwidth (the NVLinks x
NCCL's per-link rate, src/graph/topo.h SMxx_NVLINK_BW) that NCCL's kernels move, and `overhead`
(α), the fixed time of one collective call that NCCL's tuner does not count. Everything else is
NCCL's own constants and the presets' datasheets. The fit itself runs inside collsim, on the very
closed forms it fits (`collsim validate nccl LOG --fit`: the mean |log(model / measured)| over
every out-of-place row, the geomean |error|, minimised on a grid of η in steps of 0.001 and α in
steps of 0.5 us);
this script only finds the binary and passes the log on:

    python3 tools/nccl_fit.py ../shared/data/nccl-tests/h100-sxm-8gpu-nccl-2.29.2.log
"""
import os
import subprocess
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: nccl_fit.py LOG... [--collsim PATH]")
    args = sys.argv[1:]
    binary = os.environ.get("COLLSIM", "build/collsim")
    if "--collsim" in args:
        i = args.index("--collsim")
        binary = args[i + 1]
        del args[i:i + 2]
    sys.exit(subprocess.call([binary, "validate", "nccl", *args, "--fit"]))


if __name__ == "__main__":
    main()
