#!/usr/bin/env python3
"""blas-peer.py XPUBENCH [N] - cpu/blas fp32 GEMM against numpy's matmul in the same run (issue 10).

Runs `XPUBENCH run --backend cpu --workload gemm --size m=N,n=N,k=N --variant blas` (default
N = 4096) and numpy's float32 matmul of the same size on the same cores (numpy brings its own
OpenBLAS, which knows more processors than an older distribution's), and prints both rates, each
library's self-description (the core it selected) and the ratio. A benchmark, recorded, never
asserted: exit 0 whenever both ran, 77 when numpy is missing, 1 when xpubench failed."""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def numpy_rate(n, reps=5):
    import numpy as np

    rng = np.random.default_rng(1)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    a @ b  # warm-up: the thread pool and the pages
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        a @ b
        times.append(time.perf_counter() - t0)
    med = statistics.median(times)
    return 2.0 * n ** 3 / med / 1e9, med


def numpy_blas():
    import numpy as np

    try:
        cfg = np.show_config(mode="dicts")
        blas = cfg["Build Dependencies"]["blas"]
        desc = f"{blas.get('name', '?')} {blas.get('version', '')}".strip()
    except Exception:  # older numpy: no dicts
        desc = "numpy's BLAS"
    try:  # the core numpy's OpenBLAS selected, when threadpoolctl is there
        from threadpoolctl import threadpool_info

        for lib in threadpool_info():
            if lib.get("internal_api") == "openblas":
                desc += f", core {lib.get('architecture')}, {lib.get('num_threads')} threads"
    except ImportError:
        pass
    return f"numpy {np.__version__}: {desc}"


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    xpb, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 4096
    try:
        import numpy  # noqa: F401
    except ImportError:
        print("SKIP: numpy is missing (scripts/report-env.sh installs it)")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "gemm.json")
        r = subprocess.run([xpb, "run", "--backend", "cpu", "--workload", "gemm", "--size", f"m={n},n={n},k={n}",
                            "--filter", f"k={n}/fp32$", "--variant", "blas", "--repetitions", "3", "--min-time", "0.2", "--out", out],
                           capture_output=True, text=True)
        if r.returncode != 0 or not os.path.exists(out):
            print(f"FAIL: xpubench exited {r.returncode}: {r.stderr.strip()[-400:]}")
            return 1
        doc = json.load(open(out))
    lib = next((d.get("library", "?") for d in doc["system"]["devices"] if d["id"] == "cpu:0"), "?")
    ours = next((c for c in doc["cases"] if c["variant"] == "blas" and c["status"] == "ok"), None)
    if not ours:
        print("FAIL: no validated cpu/blas result")
        return 1
    ours_gf = ours["throughput"]["gflops"]
    np_gf, np_s = numpy_rate(n)
    peak = next((d.get("peak_gflops_fp32", 0) for d in doc["system"]["devices"] if d["id"] == "cpu:0"), 0)
    print(f"fp32 GEMM {n}^3 on {doc['system']['cpu_model']} ({doc['system']['logical_cpus']} logical CPUs):")
    print(f"  xpubench cpu/blas  {ours_gf:9.1f} GFLOP/s  ({lib})")
    print(f"  numpy matmul       {np_gf:9.1f} GFLOP/s  ({numpy_blas()})")
    print(f"  ratio cpu/blas / numpy: {ours_gf / np_gf:.2f}" + (f"; measured fp32 peak {peak:.1f} GFLOP/s" if peak else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
