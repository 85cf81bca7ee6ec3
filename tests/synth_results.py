#!/usr/bin/env python3
"""synth_results.py OUT [options]: writes a synthetic xpubench results file (schema version 1)
with known timing shifts, for the compare / report / plot tests. Standard library only.

Every case's launch times are median * shift * exp(N(0, noise)), seeded, so a test knows the
true answer: --shift 1.10 --noise 0.01 is a clean 10% slowdown.
"""

import argparse
import json
import math
import random

SIZES = [1 << 16, 1 << 20, 1 << 24]


def timing(rng, median, shift, noise, n):
    samples = [median * shift * math.exp(rng.gauss(0.0, noise)) for _ in range(n)]
    s = sorted(samples)
    mean = sum(s) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in s) / max(n - 1, 1))
    return {"n": n, "median_s": s[n // 2], "min_s": s[0], "max_s": s[-1], "mean_s": mean, "stddev_s": sd,
            "cv": sd / mean, "p05_s": s[int(0.05 * (n - 1))], "p95_s": s[int(0.95 * (n - 1))], "samples_s": samples}


def case(op, elements, device, variant, status="ok", message=None, kernel=None, flops_per_elem=1.0,
         err=0.25):
    backend = device.split(":")[0]
    bytes_rw = 12 * elements if op in ("add", "mul") else 8 * elements
    c = {"id": f"elementwise/{op}/n={elements}/fp32", "workload": "elementwise", "op": op, "dtype": "fp32",
         "params": {"n": elements}, "backend": backend, "device": device,
         "device_name": "Synthetic GPU" if backend == "cuda" else "Synthetic CPU", "software_device": False,
         "variant": variant, "precision": "fp32", "status": status,
         "work": {"elements": elements, "bytes_read": bytes_rw * 2 // 3, "bytes_written": bytes_rw // 3,
                  "flops": flops_per_elem * elements}}
    if op == "gemm":
        m = int(round(elements ** 0.5))
        c.update(id=f"gemm/gemm/m={m},n={m},k={m}/fp32", workload="gemm", params={"m": m, "n": m, "k": m})
        c["work"].update(bytes_read=8 * m * m, bytes_written=4 * m * m, flops=2.0 * m ** 3, elements=m * m)
    if message:
        c["message"] = message
    if status in ("ok", "failed-validation"):
        c["validation"] = {"passed": status == "ok", "method": "full", "tolerance": "|err| <= 4 ulp",
                           "checked": elements, "max_err_over_tol": err if status == "ok" else 37.5}
    if kernel:
        med = kernel["median_s"]
        c["timing"] = {"timer": "cuda-events" if backend == "cuda" else "host-clock", "kernel": kernel}
        total = c["work"]["bytes_read"] + c["work"]["bytes_written"]
        c["throughput"] = {"gbps": total / med / 1e9, "gflops": c["work"]["flops"] / med / 1e9,
                           "roof_gbps": 3000.0 if backend == "cuda" else 40.0, "roof_source": "copy op, this run",
                           "pct_of_roof": 50.0, "speedup_vs_cpu": None}
    return c


def build(a):
    rng = random.Random(a.seed)
    cases = []
    for dev, base in (("cpu:0", 2e-3), ("cuda:0", 4e-5)):
        for op in ("add", "relu", "gemm"):
            for i, n in enumerate(SIZES):
                med = base * (n / SIZES[0]) ** 0.8 * (20 if op == "gemm" else 1)
                k = timing(rng, med, a.shift, a.noise, a.samples)
                st = "failed-validation" if f"elementwise/{op}/n={n}/fp32" == a.fail_case and dev == "cuda:0" else "ok"
                cases.append(case(op, n, dev, "default", st, "3 of 65536 elements out of tolerance" if st != "ok"
                                  else None, k if st == "ok" else None, err=0.0 if op == "relu" else 0.25 + 0.1 * i))
    cpu = {(c["id"]): c for c in cases if c["device"] == "cpu:0" and "timing" in c}
    for c in cases:
        if c["device"] == "cuda:0" and "timing" in c and c["id"] in cpu:
            c["throughput"]["speedup_vs_cpu"] = cpu[c["id"]]["timing"]["kernel"]["median_s"] / c["timing"]["kernel"]["median_s"]
    if a.problems:
        cases.append(case("rope", 4096, "cuda:0", "default", "unsupported", "the cuda backend has no kernel for rope"))
        cases.append(case("mul", 1 << 20, "cuda:0", "default", "failed-validation",
                          "12 of 1048576 elements out of tolerance (0 unwritten); worst at [7]: 1.5, reference 1.25"))
        cases.append(case("mul", 1 << 24, "cuda:0", "default", "error", "cudaMalloc: out of memory"))
        cases.append(case("mul", 1 << 16, "cpu:0", "default", "skipped", "skipped by --validate-only"))
    devices = [{"id": "cpu:0", "backend": "cpu", "name": "Synthetic CPU", "driver": "", "runtime": "OpenMP",
                "timer": "host-clock", "peak_gflops_fp32": 0, "peak_gbps": 0, "is_gpu": False, "software_device": False},
               {"id": "cuda:0", "backend": "cuda", "name": a.gpu, "driver": a.driver, "runtime": "CUDA 12.4",
                "timer": "cuda-events", "peak_gflops_fp32": 60000.0, "peak_gbps": 3350.0, "is_gpu": True,
                "software_device": False}]
    return {"schema": "xpubench-results", "schema_version": 1,
            "run_id": f"{a.created.replace('-', '').replace(':', '')}-{a.host}-1", "created_utc": a.created,
            "xpubench": {"version": "0.1.0", "git_commit": a.commit, "build": {"type": "Release", "cuda": "ON"}},
            "config": {"preset": "synthetic", "seed": a.seed, "repetitions": 1},
            "system": {"hostname": a.host, "os": "Debian", "cpu_model": "Synthetic CPU", "devices": devices},
            "cases": cases}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--shift", type=float, default=1.0)
    p.add_argument("--noise", type=float, default=0.01, help="sigma of the log-normal noise")
    p.add_argument("--samples", type=int, default=200)
    p.add_argument("--host", default="synth")
    p.add_argument("--gpu", default="Synthetic GPU")
    p.add_argument("--driver", default="550.54")
    p.add_argument("--commit", default="abc123")
    p.add_argument("--created", default="2026-11-20T06:00:00Z")
    p.add_argument("--fail-case", default="", help="this case id fails validation on cuda:0")
    p.add_argument("--problems", action="store_true", help="add failed, unsupported, error and skipped cases")
    a = p.parse_args()
    with open(a.out, "w") as f:
        json.dump(build(a), f, indent=1)


if __name__ == "__main__":
    main()
