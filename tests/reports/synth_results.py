#!/usr/bin/env python3
"""synth_results.py OUT [options]: writes a synthetic xpubench results file (schema version 1;
version 2 with --anneal) with known timing shifts, for the compare / report / plot tests.
Standard library only.

Every case's launch times are median * shift * exp(N(0, noise)), seeded, so a test knows the
true answer: --shift 1.10 --noise 0.01 is a clean 10% slowdown. --rounds R writes R rounds
(timing.units, run --rounds): each round's samples carry a round factor exp(N(0, round-noise)),
the drift between rounds that back-to-back samples do not see; --slow-case ID=X slows one case. --anneal adds a stateful case
(anneal, docs/results-schema.md "run") on each device: whole runs as timing.kernel, a trajectory,
and per-op breakdown runs (--op-shift assign=1.3 slows one op; --no-per-run writes the ops as
files did before the breakdown repeated; --iterations N changes the run's length).
"""

import argparse
import json
import math
import random

SIZES = [1 << 16, 1 << 20, 1 << 24]


ROUNDS = {"rounds": 0, "noise": 0.0, "drift": 1.0}  # set from the command line (--rounds, --round-noise, --drift)


def timing(rng, median, shift, noise, n):
    rounds = ROUNDS["rounds"]
    factors = [math.exp(rng.gauss(0.0, ROUNDS["noise"])) for _ in range(max(rounds, 1))] if rounds else [1.0]
    if rounds > 1:  # --drift D: round k slower by D^(k / (rounds - 1)), the last D times the first (a clock stepping down)
        factors = [f * ROUNDS["drift"] ** (k / (rounds - 1)) for k, f in enumerate(factors)]
    per = max(n // len(factors), 1)
    chunks = [[median * shift * f * math.exp(rng.gauss(0.0, noise)) for _ in range(per)] for f in factors]
    samples = [x for ch in chunks for x in ch]
    n = len(samples)
    s = sorted(samples)
    mean = sum(s) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in s) / max(n - 1, 1))
    return {"n": n, "median_s": s[n // 2], "min_s": s[0], "max_s": s[-1], "mean_s": mean, "stddev_s": sd,
            "cv": sd / mean, "p05_s": s[int(0.05 * (n - 1))], "p95_s": s[int(0.95 * (n - 1))], "samples_s": samples,
            **({"_units": [sorted(ch)[len(ch) // 2] for ch in chunks]} if rounds else {})}


def place_units(c):
    """Moves timing()'s round medians where xpubench writes them (timing.units, run.ops[].units_s)."""
    t = c.get("timing", {})
    k = t.get("kernel", {})
    if "_units" in k:
        t["units"] = {"what": "one per round", "medians_s": k.pop("_units")}
    for e in c.get("run", {}).get("ops", []):
        pr = e.get("per_run", {})
        if "_units" in pr:
            e["units_s"] = pr.pop("_units")
    return c


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


ANNEAL_OPS = (("init", 0.12), ("assign", 0.50), ("stats", 0.25), ("update", 0.05), ("changes", 0.08))


def anneal_case(rng, a, device, variant, run_median, energy_scale):
    """A validated, timed anneal case whose run object looks like xpubench's (a whole run is a
    sample; the breakdown runs sync after every op, so their ops add up to more than the run)."""
    n, d, m, it = 10000, 128, 256, a.iterations
    backend = device.split(":")[0]
    energy = [0.0113 * energy_scale + 0.5 * math.exp(-i / 2.5) for i in range(it)]
    ref = 0.0113 * 1.0004
    kernel = timing(rng, run_median * it / 31, a.shift, a.noise, a.samples)
    ops = []
    for name, share in ANNEAL_OPS:
        med = run_median * it / 31 * share * 1.3 * a.shift * a.op_shift.get(name, 1.0)
        per_run = timing(rng, med, 1.0, a.noise, a.runs)
        e = {"op": name, "seconds": per_run["median_s"], "launches": 1 if name == "init" else it}
        if not a.no_per_run:
            e["per_run"] = per_run
        ops.append(e)
    total = sum(e["seconds"] for e in ops)
    for e in ops:
        e["share"] = e["seconds"] / total
    run = {"iterations": it, "converged": True, "energy": energy[-1], "compression_ratio": 0.0206, "anchors": m,
           "total_s": kernel["median_s"], "per_iteration_s": kernel["median_s"] / it, "ops": ops,
           "transfers": {"upload_s": 2e-4 if backend != "cpu" else 1e-5, "upload_bytes": n * d * 4,
                         "h2d_in_run_s": 0.0, "h2d_in_run_bytes": 0,
                         "d2h_in_run_s": 3e-5 * it if backend != "cpu" else 1e-6 * it, "d2h_in_run_bytes": 12 * it},
           "trajectory": {"energy": energy, "changes": [max(n >> (2 * i), 0) for i in range(it)],
                          "anchors": [m] * it, "temperature": [0.99 ** i for i in range(it)]},
           "check": {"ops_passed": True, "near_ties": 0, "run_checked": True, "run_passed": True,
                     "reference_iterations": it, "reference_energy": ref, "reference_ratio": 0.0206,
                     "energy_rel_err": abs(energy[-1] - ref) / ref, "energy_rel_tol": 0.01, "iteration_band": 2,
                     "parted_at": None, "summary": "run matches the reference"}}
    if not a.no_per_run:
        run["breakdown_runs"] = a.runs
    return {"id": f"anneal/compress/n={n},d={d},m={m}/fp32", "workload": "anneal", "op": "compress",
            "dtype": "fp32", "params": {"n": n, "d": d, "m": m}, "backend": backend, "device": device,
            "device_name": "Synthetic GPU" if backend == "cuda" else "Synthetic CPU", "software_device": False,
            "variant": variant, "precision": "fp32", "status": "ok",
            "work": {"elements": n, "bytes_read": n * d * 4, "bytes_written": 0, "flops": 0},
            "validation": {"passed": True, "method": "per op (first iterations), whole run",
                           "tolerance": "per op fp32 bounds; energy within 1%", "checked": n, "max_err_over_tol": 0.4},
            "run": run, "timing": {"timer": "host-clock", "kernel": kernel},
            "throughput": {"gbps": n * d * 4 / kernel["median_s"] / 1e9, "gflops": 0, "roof_gbps": 0,
                           "roof_source": "unknown", "pct_of_roof": 0, "speedup_vs_cpu": None}}


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
    if a.fp16_gemm:  # a tensor-core variant of each GPU GEMM, 4x faster on fp16 inputs
        for c in [c for c in cases if c["device"] == "cuda:0" and c["workload"] == "gemm" and "timing" in c]:
            f = json.loads(json.dumps(c))
            f.update(variant="cublas-fp16", precision="fp16-fp32acc")
            f["timing"]["kernel"] = timing(rng, c["timing"]["kernel"]["median_s"] / 4, 1.0, a.noise, a.samples)
            cases.append(f)
    if a.cpu_only:  # a machine without a GPU, its CPU `cpu_only` times slower than the first's
        cases = [c for c in cases if c["device"] == "cpu:0"]
        for c in cases:
            if "timing" in c:
                c["timing"]["kernel"] = timing(rng, c["timing"]["kernel"]["median_s"] * a.cpu_only, 1.0, a.noise,
                                               a.samples)
    cpu = {(c["id"]): c for c in cases if c["device"] == "cpu:0" and "timing" in c}
    for c in cases:
        if c["device"] == "cuda:0" and "timing" in c and c["id"] in cpu:
            c["throughput"]["speedup_vs_cpu"] = cpu[c["id"]]["timing"]["kernel"]["median_s"] / c["timing"]["kernel"]["median_s"]
    for c in cases:  # --slow-case ID=X: one case (every device) X times slower
        if c["id"] in a.slow_case and "timing" in c:
            k = c["timing"]["kernel"]
            c["timing"]["kernel"] = timing(rng, k["median_s"] * a.slow_case[c["id"]] / a.shift, a.shift, a.noise,
                                           a.samples)
    if a.anneal_only:
        cases = []
    if a.anneal or a.anneal_only:
        cases.append(anneal_case(rng, a, "cpu:0", "blas", 0.16, 1.0))
        cases.append(anneal_case(rng, a, "cuda:0", "default", 0.0019, 1.002))
    if a.problems:
        cases.append(case("rope", 4096, "cuda:0", "default", "unsupported", "the cuda backend has no kernel for rope"))
        cases.append(case("mul", 1 << 20, "cuda:0", "default", "failed-validation",
                          "12 of 1048576 elements out of tolerance (0 unwritten); worst at [7]: 1.5, reference 1.25"))
        cases.append(case("mul", 1 << 24, "cuda:0", "default", "error", "cudaMalloc: out of memory"))
        cases.append(case("mul", 1 << 16, "cpu:0", "default", "skipped", "skipped by --validate-only"))
    cases = [place_units(c) for c in cases]
    if a.sm_mhz:  # conditions (NVML) of the GPU cases: clocks, and --throttled reasons
        for c in cases:
            if c["device"] == "cuda:0" and "timing" in c:
                c["conditions"] = {"sm_mhz_before": a.sm_mhz, "sm_mhz_after": a.sm_mhz, "mem_mhz_before": 2619,
                                   "mem_mhz_after": 2619, "temp_c_before": 35, "temp_c_after": 51,
                                   "power_w_before": 120.0, "power_w_after": 480.0, "throttled": a.throttled}
    devices = [{"id": "cpu:0", "backend": "cpu", "name": "Synthetic CPU", "driver": "", "runtime": "OpenMP",
                "timer": "host-clock", "peak_gflops_fp32": 0, "peak_gbps": 0, "is_gpu": False, "software_device": False},
               {"id": "cuda:0", "backend": "cuda", "name": a.gpu, "driver": a.driver, "runtime": "CUDA 12.4",
                "timer": "cuda-events", "peak_gflops_fp32": 60000.0, "peak_gbps": 3350.0, "is_gpu": True,
                "software_device": False}]
    if a.cpu_only:
        devices = devices[:1]
    return {"schema": "xpubench-results", "schema_version": 2 if a.anneal or a.anneal_only else 1,
            "run_id": f"{a.created.replace('-', '').replace(':', '')}-{a.host}-1", "created_utc": a.created,
            "xpubench": {"version": "0.1.0", "git_commit": a.commit, "build": {"type": "Release", "cuda": "ON"}},
            "config": {"preset": "synthetic", "seed": a.seed, "repetitions": 1},
            "system": {"hostname": a.host, "os": "Debian", "cpu_model": a.cpu, "devices": devices},
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
    p.add_argument("--cpu", default="Synthetic CPU", help="the CPU model")
    p.add_argument("--fp16-gemm", action="store_true", help="add a 4x faster fp16-input variant of each GPU GEMM")
    p.add_argument("--cpu-only", type=float, default=0, metavar="X",
                   help="no GPU: the CPU cases alone, X times slower")
    p.add_argument("--driver", default="550.54")
    p.add_argument("--commit", default="abc123")
    p.add_argument("--created", default="2026-11-20T06:00:00Z")
    p.add_argument("--fail-case", default="", help="this case id fails validation on cuda:0")
    p.add_argument("--problems", action="store_true", help="add failed, unsupported, error and skipped cases")
    p.add_argument("--anneal", action="store_true", help="add a stateful anneal case on each device")
    p.add_argument("--anneal-only", action="store_true", help="the anneal cases alone")
    p.add_argument("--iterations", type=int, default=31, help="iterations of the anneal runs")
    p.add_argument("--runs", type=int, default=12, help="breakdown runs of the anneal cases")
    p.add_argument("--op-shift", action="append", default=[], metavar="OP=X",
                   help="multiply one anneal op's breakdown times by X (repeatable)")
    p.add_argument("--no-per-run", action="store_true", help="anneal ops without per_run (older files)")
    p.add_argument("--rounds", type=int, default=0, help="write R rounds' medians (timing.units)")
    p.add_argument("--round-noise", type=float, default=0.0, help="sigma of each round's log-normal factor")
    p.add_argument("--drift", type=float, default=1.0, help="the last round this many times the first, the rounds between on the way")
    p.add_argument("--slow-case", action="append", default=[], metavar="ID=X",
                   help="make one case id X times slower on every device (repeatable)")
    p.add_argument("--sm-mhz", type=float, default=0, help="write conditions with this SM clock on cuda:0")
    p.add_argument("--throttled", default="", help="conditions.throttled of the GPU cases (with --sm-mhz)")
    a = p.parse_args()
    ROUNDS.update(rounds=a.rounds, noise=a.round_noise, drift=a.drift)
    a.slow_case = {k: float(v) for k, v in (x.rsplit("=", 1) for x in a.slow_case)}
    a.op_shift = {k: float(v) for k, v in (x.split("=", 1) for x in a.op_shift)}
    with open(a.out, "w") as f:
        json.dump(build(a), f, indent=1)


if __name__ == "__main__":
    main()
