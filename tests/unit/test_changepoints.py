#!/usr/bin/env python3
"""Change-point detection over synthetic histories (reports/changepoints.py; issue 9):
  - A/A: 40 runs of the same noise (2% spread) on 3 cases: no change point;
  - a +10% step at run 25 of a bandwidth-bound case (1% noise): one change point, at run 25,
    "slower", about +10%; the other cases stay quiet;
  - a -25% step at run 15 of a launch-bound case with 8% noise: found at run 15, "faster";
  - a slow drift of +0.2% a run (8% over 40 runs): at most a couple of change points, never one
    per run (no flapping);
  - too short a history (5 runs): nothing.
Exit 0 on success, 77 when Apache Otava is not installed (scripts/report-env.sh)."""
import json
import os
import random
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "reports"))
import changepoints  # noqa: E402
import results  # noqa: E402


def write_runs(tmp, series):
    """series: {case id: [median_s per run]} -> results files, one per run."""
    n = len(next(iter(series.values())))
    paths = []
    for i in range(n):
        doc = {"schema": results.SCHEMA, "schema_version": 1, "run_id": f"r{i}",
               "created_utc": f"2026-11-{1 + i // 24:02d}T{i % 24:02d}:00:00Z",
               "system": {"hostname": "synthetic", "devices": []},
               "cases": [{"id": cid, "backend": "cuda", "device": "cuda:0", "variant": "default", "status": "ok",
                          "timing": {"kernel": {"median_s": vals[i]}}} for cid, vals in series.items()]}
        p = os.path.join(tmp, f"run{i:03d}.json")
        with open(p, "w") as f:
            json.dump(doc, f)
        paths.append(p)
    return [results.load(p) for p in paths]


def noisy(rng, n, base, spread, step_at=None, step=0.0, drift=0.0):
    return [base * (1 + (step if step_at is not None and i >= step_at else 0) + drift * i) *
            (1 + spread * rng.gauss(0, 1)) for i in range(n)]


def main():
    if not changepoints.available():
        print("SKIP: Apache Otava is not installed (scripts/report-env.sh)")
        return 77
    rng = random.Random(7)
    failures = []

    def check(cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        aa = {"ew/copy/n=1": noisy(rng, 40, 10e-6, 0.02), "ew/copy/n=2": noisy(rng, 40, 300e-6, 0.01),
              "gemm/gemm/m=1": noisy(rng, 40, 2e-3, 0.005)}
        found = changepoints.find(write_runs(tmp, aa))
        check(found == [], f"A/A, 40 runs of noise: no change point (found {len(found)})")
    with tempfile.TemporaryDirectory() as tmp:
        ab = {"ew/copy/n=2": noisy(rng, 40, 300e-6, 0.01, step_at=25, step=0.10),
              "ew/copy/n=1": noisy(rng, 40, 10e-6, 0.08, step_at=15, step=-0.25),
              "gemm/gemm/m=1": noisy(rng, 40, 2e-3, 0.005)}
        found = changepoints.find(write_runs(tmp, ab))
        by = {f["id"]: f for f in found}
        f2 = by.get("ew/copy/n=2")
        check(f2 is not None and f2["index"] == 25 and f2["direction"] == "slower" and 0.07 < f2["change"] < 0.14,
              f"+10% step at run 25 (1% noise): {f2 and (f2['index'], round(f2['change'], 3))}")
        f1 = by.get("ew/copy/n=1")
        check(f1 is not None and f1["index"] == 15 and f1["direction"] == "faster",
              f"-25% step at run 15 (8% noise): {f1 and (f1['index'], round(f1['change'], 3))}")
        check("gemm/gemm/m=1" not in by and len(found) == 2, f"no other change point ({len(found)} in all)")
    with tempfile.TemporaryDirectory() as tmp:
        drift = {"ew/copy/n=3": noisy(rng, 40, 100e-6, 0.01, drift=0.002)}
        found = changepoints.find(write_runs(tmp, drift))
        check(len(found) <= 2, f"slow drift: at most a couple of change points, never one per run ({len(found)})")
    with tempfile.TemporaryDirectory() as tmp:
        short = {"ew/copy/n=4": [1e-5, 1e-5, 2e-5, 2e-5, 2e-5]}
        check(changepoints.find(write_runs(tmp, short)) == [], "5 runs: too short for a change point")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
