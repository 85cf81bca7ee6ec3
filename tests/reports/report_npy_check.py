#!/usr/bin/env python3
"""report_npy_check.py DIR: loads every array a --dump sidecar in DIR lists with numpy and
checks dtype and shape against the sidecar (and the expected shapes of the test cases), and
that a correct output is within the tolerance of the reference. Exits 77 (skipped) when numpy
is not installed (scripts/report-env.sh installs it into .venv)."""

import glob
import json
import os
import sys

try:
    import numpy as np
except ImportError:
    print(f"SKIP: numpy is not installed for {sys.executable} (run scripts/report-env.sh)")
    sys.exit(77)

EXPECTED = {"elementwise/add/n=1000/fp32": (1000,), "elementwise/softmax/rows=3,cols=7/fp32": (3, 7),
            "elementwise/rope/batch=1,heads=2,seq=3,head_dim=4/fp32": (1, 2, 3, 4)}
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {what}")


d = sys.argv[1]
sidecars = sorted(glob.glob(os.path.join(d, "*.json")))
check(len(sidecars) >= 3, f"sidecars in {d}: {len(sidecars)}")
for sc in sidecars:
    meta = json.load(open(sc))
    entries = dict(meta["arrays"])
    entries.update({f"out {k}": v for k, v in meta["outputs"].items()})
    loaded = {}
    for name, e in entries.items():
        a = np.load(os.path.join(d, e["file"]), allow_pickle=False)
        loaded[name] = a
        check(a.dtype == np.dtype(e["dtype"]), f"{e['file']}: dtype {a.dtype} vs {e['dtype']}")
        check(list(a.shape) == e["shape"], f"{e['file']}: shape {a.shape} vs {e['shape']}")
    want = EXPECTED.get(meta["case_id"])
    if want:
        check(loaded["reference"].shape == want, f"{meta['case_id']}: reference shape {loaded['reference'].shape}")
        good, bad = loaded["out cpu:0/default"], loaded["out cuda:0/tiled"]
        check(good.shape == want, f"{meta['case_id']}: output shape {good.shape}")
        err = np.abs(good.astype(np.float64) - loaded["reference"])
        check(bool(np.all(err <= loaded["tolerance.fp32"])), f"{meta['case_id']}: correct output within tolerance")
        check(int(np.sum(bad != good)) == 1, f"{meta['case_id']}: the damaged output differs in one element")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
