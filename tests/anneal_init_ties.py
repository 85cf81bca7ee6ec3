#!/usr/bin/env python3
"""anneal_init_ties.py XPUBENCH BACKEND WORKDIR: the anneal init op chooses the same anchors on
BACKEND as on the cpu backend, exact ties included (docs/workloads.md section 3: the farthest
point, ties to the lowest point index).

The points are small integers, so every squared distance and every running minimum is an exact
fp32 integer whatever the order of the sums: the choice is fixed by the contract alone, and the
many exact ties (equal distances of different points) leave only the lowest-index rule to decide
them. Each shape runs one iteration on both backends with --dump; the dumped initial anchors must
be equal bit for bit. The shapes cover d % 4 == 0 (vector loads; d = 128, all full 128-float
segments) and not, and awkward n.
Skipped (77) with the reason when numpy is missing or BACKEND has no usable device here."""

import glob
import os
import shutil
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print(f"SKIP: numpy is not installed for {sys.executable} (run scripts/report-env.sh)")
    sys.exit(77)

binary, backend, work = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]

# n, d, m, coordinates in -r .. r (r * r * 4 * d < 2^24: the sums stay exact)
SHAPES = [(1, 1, 1, 1), (3, 3, 3, 1), (257, 7, 20, 2), (255, 33, 30, 2), (4097, 8, 60, 2),
          (1030, 128, 60, 3), (2000, 132, 40, 2)]

listing = subprocess.run([binary, "list"], capture_output=True, text=True).stdout
reason = [ln.split("unavailable:", 1)[1].strip() for ln in listing.splitlines()
          if ln.strip().startswith(backend + " ") and "unavailable:" in ln]
if reason:
    print(f"SKIP: {backend} backend unavailable here: {reason[0]}")
    sys.exit(77)

shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []
rng = np.random.default_rng(36)
for n, d, m, r in SHAPES:
    pts = os.path.join(work, f"points_{n}_{d}.npy")
    np.save(pts, rng.integers(-r, r + 1, size=(n, d)).astype(np.float32))
    got = {}
    for b in ("cpu", backend):
        out = os.path.join(work, f"{b}_{n}_{d}")
        cmd = [binary, "run", "--backend", b, *(["--variant", "default"] if b == "cuda" else []), "--workload", "anneal", "--input", pts, "--size",
               f"m={m},iters=1", "--validate-only", "--dump", out]
        p = subprocess.run(cmd, capture_output=True, text=True)
        files = glob.glob(os.path.join(out, "*init_anchors.npy"))
        if p.returncode != 0 or len(files) != 1:
            failures.append(f"n={n},d={d},m={m} on {b}: exit {p.returncode}, {len(files)} init_anchors "
                            f"files; {p.stdout[-400:]} {p.stderr[-400:]}")
            break
        got[b] = np.load(files[0])
    if len(got) < 2 or backend == "cpu":
        continue
    a, c = got[backend], got["cpu"]
    if a.shape != c.shape or a.tobytes() != c.tobytes():
        rows = [j for j in range(min(len(a), len(c))) if a[j].tobytes() != c[j].tobytes()]
        failures.append(f"n={n},d={d},m={m}: {backend} chose other anchors than cpu, first at anchor "
                        f"{rows[0] if rows else '(shape)'}")
    else:
        print(f"ok n={n},d={d},m={m}: {len(a)} anchors equal")

for f in failures:
    print(f"FAIL: {f}")
sys.exit(1 if failures else 0)
