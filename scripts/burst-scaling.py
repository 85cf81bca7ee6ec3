#!/usr/bin/env python3
"""burst-scaling.py RESULTS.json... - the scaling table of burst propagation across GPUs
(docs/multi-gpu.md): for each burst case, the median time a burst and the synaptic events/s on
every device found in the files (one GPU, "cuda:0"; a device group, "cuda:0,1", "cuda:mpi4"),
the speedup over the one-GPU run of the same case (no group: the single-device kernels) and the
efficiency (speedup / GPUs), and whether each run was bit-exact against the reference. Where the
files hold a group of one (`--devices 0`: the sharded code on one GPU, K its fastest run a burst),
each group's speedup over it and X = T(P) - K / P, what a burst on P GPUs adds to a perfect split
of that work (the exchange, the launch gaps, work every rank repeats, the wait for the slowest rank:
docs/multi-gpu.md, "What 3.4x at 5M x 100 would take"); speedup s over it needs X <= K (1/s - 1/P).
"""
import json
import lzma
import re
import sys


def load(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def gpus(device):
    """1 for "cuda:0"; the count of a group ("cuda:0,1" -> 2, "cuda:mpi4" -> 4)."""
    name = device.split(" ")[0]
    name = name.split(":", 1)[1] if ":" in name else name
    if name.startswith("mpi"):
        return int(name[3:])
    return len(name.split(","))


def main(paths):
    points = {}  # case id -> {device: (per-burst s, events/s, exact, grouped)}
    for p in paths:
        # an A/B run is its own row, tagged from its file name (device-run.sh): a launch mode
        # (XPB_SHARDBURST_MODES) "cuda:0,1 threads-never", a compact knob (compactab) "cuda:0,1,2,3
        # compact8-r1" or "... lookback4-r2", an exchange (compactab) "... exchange-window-r1", a
        # propagate (XPB_SHARDBURST_PROPAGATE, its rounds) "cuda:0,1 bits-r2" or "... list-r1", its
        # exchange overlap (a value PROP+own) "cuda:0,1 auto-own-r1", an
        # mpirun binding (XPB_SHARDBURST_MPI_BINDS) "cuda:mpi2 bind-none", an mpirun capture
        # (XPB_SHARDBURST_MPI_CAPTURES) "cuda:mpi4 capture-never"
        tags = re.findall(r"(?<=-)(?:(?:one|threads|capture)-(?:auto|again|first|never|default)|(?:auto|bits|list)-own|bits|list|bind-[a-z]+|compact\d+|lookback\d+|exchange-(?:plain|window)|r\d+)(?=-|\.json)",
                          p.rsplit("/", 1)[-1])
        mode = "-".join(tags)
        r = load(p)
        in_group = {d["id"] for d in r.get("system", {}).get("devices", []) if "ranks" in d}
        for c in r["cases"]:
            if c["workload"] != "burst" or c["backend"] != "cuda" or c["status"] != "ok" or "kernel" not in c.get("timing", {}):
                continue
            run = c["run"]
            if "burst" in run:  # results schema 2
                per_burst, eps = run["burst"]["per_burst_s"]["median"], run["burst"]["events_per_s"]
            else:  # schema 3: the named timing and metric
                per_burst = next(t["median_s"] for t in run["timings"] if t["name"] == "per_burst")
                eps = next(m["value"] for m in run["metrics"] if m["name"] == "events_per_s")
            exact = c.get("validation", {}).get("passed")
            grouped = "," in c["device"] or "mpi" in c["device"] or c["device"] in in_group
            dev = c["device"] + (" " + mode if mode else "")
            runs = points.setdefault(c["id"], {})
            if dev in runs:  # two files the tags above do not tell apart: each keeps its row, named by its file
                stem = p.rsplit("/", 1)[-1].split(".json")[0]
                print(f"burst-scaling: {stem}: the same device and tags as another file; its row is named by the file",
                      file=sys.stderr)
                dev = c["device"] + " " + stem
            runs[dev] = (per_burst, eps, exact, grouped, bool(mode))
    print(f"{'case':52} {'device':26} {'gpus':>4} {'us/burst':>9} {'events/s':>9} {'speedup':>8} {'eff.':>5} "
          f"{'vs g1':>6} {'X us':>6} exact")
    for case in sorted(points):
        runs = points[case]
        # the one-GPU baseline: a run without a group and without a launch-mode tag
        one = next((v[0] for d, v in runs.items() if not v[3] and not v[4]), None)
        # the sharded code on one GPU (a group of one), its fastest run: K
        ones = [v[0] for d, v in runs.items() if v[3] and gpus(d) == 1]
        k = min(ones) if ones else None
        for dev in sorted(runs, key=lambda d: (gpus(d), runs[d][3], d)):
            t, eps, exact, grouped, _ = runs[dev]
            g = gpus(dev)
            sp = one / t if one else float("nan")
            g1 = f"{k / t:>6.2f}" if k and grouped else f"{'':>6}"
            x = f"{(t - k / g) * 1e6:>6.1f}" if k and grouped and g > 1 else f"{'':>6}"
            name = case.replace("burst/run/", "").replace("/fp32", "")
            print(f"{name:52} {dev:26} {g:>4} {t * 1e6:>9.1f} {eps:>9.2e} {sp:>8.2f} {sp / g:>5.2f} {g1} {x} {exact}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
