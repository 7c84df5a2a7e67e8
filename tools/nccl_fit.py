#!/usr/bin/env python3
"""Fit collsim's two NCCL endpoint parameters to one nccl-tests log (docs/nccl.md "Calibration").

The parameters: `efficiency`, the fraction of a link's datasheet rate NCCL's Simple-protocol
kernels move, and `overhead`, the fixed time of one collective call. Everything else is the
preset's datasheet numbers and NCCL's tuner constants (src/topology/gpu_systems/h100.cpp). The fit
minimises the largest |log(model / measured)| over the log's out-of-place rows, on a grid
(efficiency in steps of 0.001, overhead in steps of 0.5 us), leaving out sendrecv below 512 MiB
(a known deviation: NCCL's point-to-point channel count is not modelled). It mirrors the closed
forms of src/collective/nccl/ for one 8-GPU H100 node; run it on the H100 log only:

    python3 tools/nccl_fit.py h100-sxm-8gpu-nccl-2.29.2.log
"""
import math
import sys

NVLINK = 450e9       # H100: 18 NVLink4 links x 25 GB/s per direction
NVLS_EFF = 0.85      # NCCL tuner nvlsEfficiency, Hopper
NVLS_LAT = 25e-6     # NCCL tuner NVLS latency on NVLink


def read(path):
    rows, cur, ranks = {}, None, 0
    for line in open(path):
        if line.startswith("# Collective test starting:"):
            cur = line.split(":")[1].strip()
            rows[cur] = []
            ranks = 0
        elif line.startswith("#  Rank"):
            ranks += 1
        elif line.strip() and not line.startswith("#"):
            f = line.split()
            if len(f) >= 9:
                rows[cur].append((int(f[0]), float(f[5]) * 1e-6, ranks))
    return rows


def model(binary, size, n, eff, overhead):
    rate = eff * NVLINK
    if binary == "all_reduce_perf":  # nvls (what NCCL and collsim's nccl choice take here)
        return overhead + NVLS_LAT + (n + 1) / n * size / (NVLS_EFF * rate)
    if binary in ("all_gather_perf", "reduce_scatter_perf", "alltoall_perf"):
        return overhead + (n - 1) / n * size / rate
    return overhead + size / rate  # sendrecv


def main():
    rows = read(sys.argv[1])
    used = [(b, s, n, t) for b, r in rows.items() for (s, t, n) in r
            if b != "sendrecv_perf" or s >= 512 << 20]
    best = None
    for e in range(600, 1001):
        for o in range(0, 201):
            eff, overhead = e / 1000, o * 0.5e-6
            worst = max(abs(math.log(model(b, s, n, eff, overhead) / t)) for b, s, n, t in used)
            if best is None or worst < best[0]:
                best = (worst, eff, overhead)
    worst, eff, overhead = best
    print(f"efficiency {eff:.3f}  overhead {overhead * 1e6:.1f} us  "
          f"worst row {100 * (math.exp(worst) - 1):.1f}% over {len(used)} rows")


if __name__ == "__main__":
    main()
