#!/usr/bin/env python3
"""sharded-scaling.py RESULTS.json... - the scaling table of the sharded workloads (docs/multi-gpu.md).

For each sharded case and variant: the median time and GFLOP/s at every group size found in the
files (the case ids carry gpus=N), the speedup over the 1-GPU point of the same variant (a group of
one: --devices 0) and the efficiency (speedup / GPUs). Where a file also holds the plain gemm
`cublas` result at the same m, n, k (one GPU, no group), it is shown as the single-GPU peer.
"""
import json
import lzma
import sys


def load(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def main(paths):
    points = {}  # (op, m, n, k, variant) -> {gpus: median_s}
    plain = {}  # (m, n, k) -> cublas median on one GPU
    for p in paths:
        for c in load(p)["cases"]:
            if c["status"] != "ok" or "kernel" not in c.get("timing", {}):
                continue
            prm, med = c["params"], c["timing"]["kernel"]["median_s"]
            if c["workload"] == "sharded":
                key = (c["op"], prm["m"], prm["n"], prm["k"], c["variant"])
                points.setdefault(key, {})[prm["gpus"]] = med
            elif c["op"] == "gemm" and c["variant"] == "cublas" and "input" not in prm:
                plain[(prm.get("m", 1), prm["n"], prm["k"])] = med
    print(f"{'case':34} {'variant':14} {'gpus':>4} {'median ms':>10} {'GFLOP/s':>10} {'speedup':>8} {'efficiency':>10}")
    for key in sorted(points):
        op, m, n, k, variant = key
        flops = 2.0 * m * n * k
        one = points[key].get(1)
        name = f"{op} {m}x{n}x{k}"
        if variant == "cublas" and (m, n, k) in plain:
            t = plain[(m, n, k)]
            print(f"{name:34} {'gemm cublas':14} {1:>4} {t * 1e3:>10.3f} {flops / t / 1e9:>10.0f} {'-':>8} {'-':>10}")
        for g in sorted(points[key]):
            t = points[key][g]
            sp = one / t if one else float("nan")
            print(f"{name:34} {variant:14} {g:>4} {t * 1e3:>10.3f} {flops / t / 1e9:>10.0f} {sp:>8.2f} {sp / g:>10.2f}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
