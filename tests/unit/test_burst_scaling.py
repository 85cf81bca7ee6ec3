#!/usr/bin/env python3
"""scripts/burst-scaling.py over synthetic results: the one-GPU baseline, a group of one (K), groups
of 2 and 4 (speedup, X), and two files whose names carry no tag it knows (an A/B of some knob):
each keeps its own row, named by its file, where one used to overwrite the other."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "burst-scaling.py")
CASE = "burst/run/neurons=5000000,fanout=100,bursts=100,batched=1/fp32"


def results(device, per_burst_us, grouped):
    devices = [{"id": device, "ranks": 4}] if grouped else [{"id": device}]
    case = {"id": CASE, "workload": "burst", "backend": "cuda", "status": "ok", "device": device,
            "timing": {"kernel": {"median_s": per_burst_us * 1e-4}},
            "run": {"timings": [{"name": "per_burst", "median_s": per_burst_us * 1e-6}],
                    "metrics": [{"name": "events_per_s", "value": 5e6 / (per_burst_us * 1e-6)}]},
            "validation": {"passed": True}}
    return {"system": {"devices": devices}, "cases": [case]}


def main():
    with tempfile.TemporaryDirectory() as d:
        files = {"x-1gpu.json": ("cuda:0", 160.0, False), "x-0.json": ("cuda:0", 150.0, True),
                 "x-0_1.json": ("cuda:0,1", 100.0, True), "x-all-knobA.json": ("cuda:0,1,2,3", 70.0, True),
                 "x-all-knobB.json": ("cuda:0,1,2,3", 65.0, True)}
        paths = []
        for name, (dev, us, grouped) in files.items():
            paths.append(os.path.join(d, name))
            with open(paths[-1], "w") as f:
                json.dump(results(dev, us, grouped), f)
        out = subprocess.run([sys.executable, SCRIPT] + paths, capture_output=True, text=True)
        if out.returncode != 0:
            print(out.stdout, out.stderr)
            return 1
        rows = [line for line in out.stdout.splitlines()[1:] if line.strip()]
        # the first of two alike keeps its label; the second is named by its file (the group of one
        # beside the one-GPU engine, both "cuda:0", is such a pair in every shardburst call)
        want = {"70.0": "cuda:0,1,2,3", "65.0": "x-all-knobB", "100.0": "cuda:0,1", "160.0": "cuda:0", "150.0": "x-0"}
        fails = 0
        for us, name in want.items():
            if not any(f" {us} " in f" {' '.join(r.split())} " and name in r for r in rows):
                print(f"FAIL: no row of {us} us a burst naming {name}")
                fails += 1
        # X of the 4-GPU rows over K = 150: 70 - 37.5 and 65 - 37.5
        for x in ("32.5", "27.5"):
            if not any(f" {x} " in r for r in rows):
                print(f"FAIL: no X of {x} us")
                fails += 1
        if "nan" in out.stdout:  # every row has the one-GPU baseline, whatever the files' order
            print("FAIL: a speedup without its baseline (nan)")
            fails += 1
        if len(rows) != 5:
            print(f"FAIL: {len(rows)} rows, want 5")
            fails += 1
        if fails:
            print(out.stdout, out.stderr)
        return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
