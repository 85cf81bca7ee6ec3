#!/usr/bin/env python3
"""anneal_dump_replay.py XPUBENCH BACKEND WORKDIR: `--dump DIR` of the anneal workload replays its
run from the dump alone (docs/workloads.md section 3, layout in docs/reports.md).

1. `xpubench run --workload anneal --preset quick --backend BACKEND --dump WORKDIR/dump`, and into
   the same directory a case whose anchors split at maintenance (n=1000,d=16,m=4,k=16,iters=25);
2. each sidecar (schema "xpubench-dump" 2) and every .npy it names: dtype and shape;
3. self-consistency: the initial anchors are rows of the points, the first one points[0]; the mean
   squared distance of the points to final_anchors[final_assign] is the trajectory's last energy
   (relative 1e-5); the trajectory agrees with the run's figures, T with t0 and cooling;
4. replay: xpubench again on the dumped points (--input) with the dumped params (m, orig, iters),
   and again with the sidecar's own "replay" command: the same configuration, and the same
   trajectory, anchors and assignments bit for bit (same backend and device);
5. a case that fails validation (--inject-fault value) is dumped automatically beside --out, and
   the console names its rerun command and the dump.
Skipped (77) with the reason when numpy is missing or BACKEND has no usable device here."""

import glob
import json
import os
import shlex
import shutil
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print(f"SKIP: numpy is not installed for {sys.executable} (run scripts/report-env.sh)")
    sys.exit(77)

binary, backend, work = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
failures = []


def check(cond, what):
    """Records what failed (printed at once); returns cond, to guard the checks that need it."""
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")
    return cond


def xpubench(args, log):
    """Runs xpubench in WORKDIR; its exit status, the output kept in log."""
    with open(os.path.join(work, log), "w") as f:
        return subprocess.run([binary] + args, cwd=work, stdout=f, stderr=subprocess.STDOUT).returncode


def load_dump(d):
    """{case_id: (sidecar, {array key: ndarray}, run entry, {run array key: ndarray})} of dump d."""
    out = {}
    for sc in sorted(glob.glob(os.path.join(work, d, "*.json"))):
        meta = json.load(open(sc))
        arrays = {k: np.load(os.path.join(work, d, e["file"]), allow_pickle=False) for k, e in meta["arrays"].items()}
        run = next(iter(meta["runs"].values()))
        run_arrays = {k: np.load(os.path.join(work, d, e["file"]), allow_pickle=False)
                      for k, e in run["arrays"].items()}
        out[meta["case_id"]] = (meta, arrays, run, run_arrays)
    return out


listing = subprocess.run([binary, "list"], capture_output=True, text=True).stdout
reason = [ln.split("unavailable:", 1)[1].strip() for ln in listing.splitlines()
          if ln.strip().startswith(backend + " ") and "unavailable:" in ln]
if reason:
    print(f"SKIP: {backend} backend unavailable here: {reason[0]}")
    sys.exit(77)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

# 1. the dump
# One run per case: cuda's assign has two variants (default, tc; anneal_tc_same compares their runs)
ONE_VARIANT = ["--variant", "default"] if backend == "cuda" else []
rc = xpubench(["run", "--workload", "anneal", "--preset", "quick", "--backend", backend, *ONE_VARIANT, "--min-time", "0.002",
               "--dump", "dump"], "run.log")
check(rc == 0, f"run --dump: exit {rc}: {open(os.path.join(work, 'run.log')).read()[-600:]}")
SPLIT = "anneal/compress/n=1000,d=16,m=4,k=16,orig=1,iters=25/fp32"
rc = xpubench(["run", "--workload", "anneal", "--size", SPLIT.split("/")[2], "--backend", backend, *ONE_VARIANT,
               "--validate-only", "--dump", "dump"], "split.log")
check(rc == 0, f"run --dump (maintenance): exit {rc}: {open(os.path.join(work, 'split.log')).read()[-600:]}")
dump = load_dump("dump")
check(len(dump) == 3, f"sidecars in dump/: {len(dump)}, want the 2 quick cases and {SPLIT}")
check(SPLIT not in dump or dump[SPLIT][2]["anchors"] > dump[SPLIT][0]["config"]["m"], f"{SPLIT}: no split")

for case_id, (meta, arrays, run, ra) in dump.items():
    cfg, runs = meta["config"], meta["runs"]
    n, d = cfg["n"], cfg["d"]
    # 2. sidecar and files
    check(meta["schema"] == "xpubench-dump" and meta["schema_version"] == 2, f"{case_id}: schema")
    check(len(runs) == 1 and run["backend"] == backend and run["device"].startswith(backend + ":"),
          f"{case_id}: runs {list(runs)}")
    for key in ("m", "k", "seed", "t0", "cooling", "lr", "trim", "max_iter", "energy_tol", "min_changes", "interval"):
        check(isinstance(cfg.get(key), (int, float)), f"{case_id}: config.{key} = {cfg.get(key)}")
    check(cfg["input"] is None and cfg["max_iter"] == meta["params"].get("iters", cfg["max_iter"]),
          f"{case_id}: config.input {cfg['input']}, max_iter {cfg['max_iter']}")
    for key in ("rerun", "replay", "precision", "variant", "iterations", "converged", "energy", "compression_ratio",
                "anchors", "check"):
        check(key in run, f"{case_id}: run has no {key}")
    want = {"points": ("<f4", (n, d)), "init_anchors": ("<f4", (cfg["m"], d)),
            "final_anchors": ("<f4", (run["anchors"], d)), "final_assign": ("<u4", (n,)),
            "trajectory": ("<f8", (run["iterations"], 4))}
    entries = dict(meta["arrays"], **run["arrays"])
    check(sorted(entries) == sorted(want), f"{case_id}: arrays {sorted(entries)}")
    for key, a in dict(arrays, **ra).items():
        e = entries[key]
        check(a.dtype == np.dtype(e["dtype"]) and list(a.shape) == e["shape"],
              f"{case_id}: {e['file']}: {a.dtype} {a.shape} vs sidecar {e['dtype']} {e['shape']}")
        check((a.dtype.str, a.shape) == want[key], f"{case_id}: {key}: {a.dtype.str} {a.shape}, want {want[key]}")
    # 3. self-consistency
    x, a0, af, asg = arrays["points"], ra["init_anchors"], ra["final_anchors"], ra["final_assign"]
    traj = ra["trajectory"]
    check(np.array_equal(a0[0], x[0]), f"{case_id}: init_anchors[0] != points[0]")
    rows = {r.tobytes() for r in x}
    check(all(r.tobytes() in rows for r in a0), f"{case_id}: an initial anchor is not a row of the points")
    check(int(asg.max()) < run["anchors"], f"{case_id}: an assignment past the anchors")
    diff = x.astype(np.float64) - af[asg].astype(np.float64)
    e = float(np.mean(np.sum(diff * diff, axis=1)))
    check(abs(e - traj[-1, 0]) <= 1e-5 * traj[-1, 0],
          f"{case_id}: mean squared distance to final_anchors[final_assign] {e!r} vs last energy {traj[-1, 0]!r}")
    check(traj[-1, 0] == run["energy"] and traj[-1, 2] == run["anchors"] and traj[0, 1] == n,
          f"{case_id}: trajectory vs run: {traj[-1]} {run['energy']} {run['anchors']}")
    t = cfg["t0"] * (1 - cfg["cooling"]) ** np.arange(len(traj))
    check(np.allclose(traj[:, 3], t, rtol=1e-12), f"{case_id}: T {traj[:, 3]} vs t0, cooling")
    check(run["compression_ratio"] == (run["anchors"] * d * 2 + n * 4) / (n * d * 4),
          f"{case_id}: compression_ratio {run['compression_ratio']}")

    # 4. replay from the dump alone: the points as --input, the dumped params
    points = os.path.join("dump", meta["arrays"]["points"]["file"])
    p = meta["params"]
    size = f"m={cfg['m']}" + "".join(f",{k}={p[k]}" for k in ("orig", "iters") if k in p)
    stem = meta["arrays"]["points"]["file"][:-len(".points.npy")]
    replays = {"params": ["run", "--backend", run["device"], "--workload", "anneal", "--input", points,
                          "--size", size, "--validate-only"],
               "sidecar": shlex.split(run["replay"])[1:] + ["--validate-only"]}
    for how, args in replays.items():
        out = f"replay.{how}.{stem}"
        rc = xpubench(args + ["--dump", out], out + ".log")
        if not check(rc == 0, f"{case_id}: replay ({how}) {' '.join(args)}: exit {rc}"):
            continue
        again = load_dump(out)
        if not check(len(again) == 1, f"{case_id}: replay ({how}) dumped {len(again)} cases"):
            continue
        meta2, arrays2, run2, ra2 = next(iter(again.values()))
        cfg2 = meta2["config"]
        check(cfg2["input"] == points, f"{case_id}: replay ({how}) input {cfg2['input']}")
        same = [k for k in cfg if k not in ("input", "k", "seed") and cfg2.get(k) != cfg[k]]
        check(not same, f"{case_id}: replay ({how}) configuration differs in {same}")
        check(np.array_equal(arrays2["points"], x), f"{case_id}: replay ({how}) points differ")
        t2 = ra2["trajectory"]
        check(t2.shape == traj.shape, f"{case_id}: replay ({how}) ran {len(t2)} iterations, the dump {len(traj)}")
        if t2.shape == traj.shape:
            check(np.array_equal(t2[:, 1:3], traj[:, 1:3]),
                  f"{case_id}: replay ({how}) changes or anchor counts differ")
            check(np.array_equal(t2[:, 0].view(np.uint64), traj[:, 0].view(np.uint64)),
                  f"{case_id}: replay ({how}) energies not bit-equal: {t2[:, 0] - traj[:, 0]}")
            check(np.array_equal(t2[:, 3], traj[:, 3]), f"{case_id}: replay ({how}) T differs")
        for key in ("init_anchors", "final_anchors", "final_assign"):
            check(ra2[key].shape == ra[key].shape and ra2[key].tobytes() == ra[key].tobytes(),
                  f"{case_id}: replay ({how}) {key} differ")
        check((run2["iterations"], run2["converged"], run2["energy"]) == (run["iterations"], run["converged"],
              run["energy"]), f"{case_id}: replay ({how}) outcome differs")

# 5. the automatic dump of a failed case
rc = xpubench(["run", "--workload", "anneal", "--size", "n=300,d=64,m=10", "--backend", backend, *ONE_VARIANT, "--validate-only",
               "--inject-fault", "value", "--out", "fail.json"], "fail.log")
log = open(os.path.join(work, "fail.log")).read()
check(rc == 1, f"a failing case: exit {rc}, want 1")
check(f"rerun: {os.path.realpath(binary)} run --backend {backend}:0 --workload anneal --size n=300,d=64,m=10 --filter "
      "'^anneal/compress/n=300,d=64,m=10/fp32$' --seed 1" in log, f"no rerun line: {log[-800:]}")
check("dump: fail.dump/anneal__compress__n-300_d-64_m-10__fp32.json (inputs, configuration, "
      "the run's state and trajectory as .npy)" in log, f"no automatic dump line: {log[-800:]}")
failed_dump = load_dump("fail.dump")
check(len(failed_dump) == 1 and not next(iter(failed_dump.values()))[2]["check"]["ops_passed"],
      "the automatic dump is not the failed run's")
print(f"{backend}: {len(failures)} checks failed")
sys.exit(1 if failures else 0)
