#!/usr/bin/env python3
"""blas-peer.py XPUBENCH [N] [--rounds R] - cpu/blas fp32 GEMM against numpy's and PyTorch's matmul in the same run (issue 10).

Runs `XPUBENCH run --backend cpu --workload gemm --size m=N,n=N,k=N --variant blas` (default
N = 4096) and numpy's float32 matmul of the same size on the same cores (numpy brings its own
OpenBLAS, from the scipy-openblas wheels), and prints both rates, each library's self-description
(the XPB_BLAS choice xpubench was built with, the core each library selected, its threads) and the
ratio. --rounds R alternates them R times (torch too, when installed) and reports the median of each (and every round):
on a shared machine one round can land beside someone else's build. The load average before and
after is printed for the same reason. A benchmark, recorded, never asserted: exit 0 whenever both
ran, 77 when numpy is missing, 1 when xpubench failed."""
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


def torch_rate(n, reps=5):
    """PyTorch's CPU float32 matmul at n (its own BLAS: MKL or oneDNN on x86-64), the issue's
    yardstick; None when torch is not installed."""
    try:
        import torch
    except ImportError:
        return None
    g = torch.Generator().manual_seed(1)
    a = torch.randn(n, n, generator=g, dtype=torch.float32)
    b = torch.randn(n, n, generator=g, dtype=torch.float32)
    a @ b
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        a @ b
        times.append(time.perf_counter() - t0)
    med = statistics.median(times)
    blas = "?"
    try:
        cfg = torch.__config__.show()
        blas = next((ln.split("=", 1)[1].strip() for ln in cfg.splitlines() if "BLAS_INFO" in ln), "?")
    except Exception:
        pass
    return 2.0 * n ** 3 / med / 1e9, f"torch {torch.__version__}: BLAS {blas}, {torch.get_num_threads()} threads"


def numpy_openblas_self():
    """The core, configuration and threads of numpy's bundled OpenBLAS, asked directly (its
    symbols carry the scipy_ prefix and, in the 64-bit-integer build, a 64_ suffix); None when
    numpy has no such library. threadpoolctl, when installed, says the same."""
    import ctypes
    import glob

    import numpy as np

    libs = glob.glob(os.path.join(os.path.dirname(np.__file__) + ".libs", "*openblas*"))
    for path in libs:
        try:
            lib = ctypes.CDLL(path)  # already loaded by numpy: the same instance
        except OSError:
            continue
        for pre, suf in (("scipy_", "64_"), ("scipy_", ""), ("", "64_"), ("", "")):
            try:
                core = getattr(lib, f"{pre}openblas_get_corename{suf}")
                threads = getattr(lib, f"{pre}openblas_get_num_threads{suf}")
            except AttributeError:
                continue
            core.restype = ctypes.c_char_p
            return f"core {core().decode().strip()}, {threads()} threads"
    return None


def numpy_blas():
    import numpy as np

    try:
        cfg = np.show_config(mode="dicts")
        blas = cfg["Build Dependencies"]["blas"]
        desc = f"{blas.get('name', '?')} {blas.get('version', '')}".strip()
    except Exception:  # older numpy: no dicts
        desc = "numpy's BLAS"
    try:
        own = numpy_openblas_self()
    except Exception:
        own = None
    if own:
        desc += ", " + own
    else:
        try:  # the core numpy's OpenBLAS selected, when threadpoolctl is there
            from threadpoolctl import threadpool_info

            for lib in threadpool_info():
                if lib.get("internal_api") == "openblas":
                    desc += f", core {lib.get('architecture')}, {lib.get('num_threads')} threads"
        except ImportError:
            pass
    return f"numpy {np.__version__}: {desc}"


def xpubench_rate(xpb, n):
    """One `xpubench run` of cpu/blas at n: (GFLOP/s, its cpu:0 device entry, the results document),
    or an error string."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "gemm.json")
        r = subprocess.run([xpb, "run", "--backend", "cpu", "--workload", "gemm", "--size", f"m={n},n={n},k={n}",
                            "--filter", f"k={n}/fp32$", "--variant", "blas", "--repetitions", "3", "--min-time", "0.2", "--out", out],
                           capture_output=True, text=True)
        if r.returncode != 0 or not os.path.exists(out):
            return f"FAIL: xpubench exited {r.returncode}: {r.stderr.strip()[-400:]}"
        doc = json.load(open(out))
    cpu = next((d for d in doc["system"]["devices"] if d["id"] == "cpu:0"), {})
    ours = next((c for c in doc["cases"] if c["variant"] == "blas" and c["status"] == "ok"), None)
    if not ours:
        return "FAIL: no validated cpu/blas result"
    return ours["throughput"]["gflops"], cpu, doc


def each(rates):
    return f"; rounds {' '.join(f'{x:.1f}' for x in rates)}" if len(rates) > 1 else ""


def main():
    args = list(sys.argv[1:])
    rounds = 1
    if "--rounds" in args:
        i = args.index("--rounds")
        rounds = int(args[i + 1])
        del args[i:i + 2]
    if not args:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    xpb, n = args[0], int(args[1]) if len(args) > 1 else 4096
    try:
        import numpy  # noqa: F401
    except ImportError:
        print("SKIP: numpy is missing (scripts/report-env.sh installs it)")
        return 77
    load0 = os.getloadavg()[0]
    ours, theirs, torch_gf, torch_desc, cpu, doc = [], [], [], "", {}, None
    for _ in range(rounds):
        r = xpubench_rate(xpb, n)
        if isinstance(r, str):
            print(r)
            return 1
        gf, cpu, doc = r
        ours.append(gf)
        theirs.append(numpy_rate(n)[0])
        t = torch_rate(n)
        if t:
            torch_gf.append(t[0])
            torch_desc = t[1]
    lib, peak = cpu.get("library", "?"), cpu.get("peak_gflops_fp32", 0)
    ours_gf, np_gf = statistics.median(ours), statistics.median(theirs)
    print(f"fp32 GEMM {n}^3 on {doc['system']['cpu_model']} ({doc['system']['logical_cpus']} logical CPUs):")
    print(f"  xpubench cpu/blas  {ours_gf:9.1f} GFLOP/s  ({lib}{each(ours)})")
    print(f"  numpy matmul       {np_gf:9.1f} GFLOP/s  ({numpy_blas()}{each(theirs)})")
    if cpu.get("warning"):
        print(f"  warning (cpu:0): {cpu['warning']}")
    if torch_gf:
        t_gf = statistics.median(torch_gf)
        print(f"  torch matmul       {t_gf:9.1f} GFLOP/s  ({torch_desc}{each(torch_gf)})")
    print(f"  ratio cpu/blas / numpy: {ours_gf / np_gf:.2f}" + (f"; measured fp32 peak {peak:.1f} GFLOP/s" if peak else ""))
    if torch_gf:
        print(f"  ratio cpu/blas / torch: {ours_gf / t_gf:.2f} (issue 10 asks for at least 0.70)")
    print(f"  load average before/after: {load0:.2f} / {os.getloadavg()[0]:.2f}"
          + (f" ({rounds} rounds, medians)" if rounds > 1 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
