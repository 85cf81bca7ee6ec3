"""Scaling across GPUs: the multi-device workloads (collectives, sharded, burst, anneal) against the group size.

A case of a device group carries its size in params.gpus (docs/multi-gpu.md); a stateful run that
runs alike on one GPU and on a group (burst, anneal) does not, so its GPU count comes from its
device: "cuda:0" one GPU (the single-device kernels), "cuda:0,1,2,3" and "cuda:mpi4" four. For each op, the
cases that differ only in gpus form a series (one per size, variant and host); the figure draws
each series' throughput against the GPU count, busbw for the collectives (nccl-tests' bus
bandwidth, comparable at any n), synaptic events/s for burst, iterations/s of the whole run
(init included) for anneal and GFLOP/s for the sharded GEMM and anneal assign. The table gives every point
with its speedup over the series' 1-GPU point and the efficiency, speedup / GPUs.
"""

from collections import defaultdict

from figures import Figure, fmt_num, fmt_time, new_figure, status_cell

# stateful workloads whose cases run on one GPU and on a device group under the same ids
GROUP_RUNS = ("burst", "anneal")

# collectives: only the largest sizes are drawn (the small ones measure latency, not links)
DRAWN_SIZES = 3


def _gpus(c):
    """The case's GPU count, or None when it is not a multi-device case."""
    if "gpus" in c.params:
        return int(c.params["gpus"])
    if c.workload in GROUP_RUNS and c.backend == "cuda" and ":" in c.device:
        name = c.device.split(":", 1)[1]
        return int(name[3:]) if name.startswith("mpi") else len(name.split(","))
    return None


def _size_key(c):
    """The case's size without its group size: what stays the same along a series."""
    return tuple((k, v) for k, v in c.params.items() if k != "gpus")


def _size_text(key):
    return ",".join(f"{k}={int(v) if float(v).is_integer() else v}" for k, v in key) or "-"


def _metric(c):
    if c.workload == "collectives":
        return c.busbw
    if c.workload == "burst":
        b = c.outcome.burst if c.outcome else None
        return b.events_per_s if b else None
    if c.workload == "anneal":
        o = c.outcome
        return o.iterations / o.total_s if o and o.iterations and o.total_s else None
    return c.achieved_gflops


def _unit(c):
    return {"collectives": "busbw GB/s", "burst": "events/s", "anneal": "iterations/s"}.get(c.workload, "GFLOP/s")


def scaling(canvas, cases, many_hosts):
    """One figure per multi-device op with results at two or more group sizes."""
    figs = []
    ops = defaultdict(list)
    for c in cases:
        if _gpus(c) is not None:
            ops[c.op_key].append(c)
    for op, cs in sorted(ops.items()):
        series = defaultdict(dict)  # (host, size, variant) -> {gpus: case}
        for c in cs:
            host = c.run.hostname if many_hosts else ""
            variant = c.variant + (" (mpirun)" if ":mpi" in c.device else "")  # one process a GPU
            series[(host, _size_key(c), variant)][_gpus(c)] = c
        if len({g for s in series.values() for g in s}) < 2:
            continue  # one group size: nothing scales yet
        collective = cs[0].workload == "collectives"
        unit = _unit(cs[0])
        rows = []
        drawn = []
        sizes = sorted({k[1] for k in series}, key=lambda s: [v for _, v in s])
        big = set(sizes[-DRAWN_SIZES:]) if collective else set(sizes)
        for key in sorted(series, key=lambda k: (k[0], [v for _, v in k[1]], k[2])):
            host, size, variant = key
            pts = series[key]
            one = pts.get(1)
            if one is None:  # an mpirun series: the 1-GPU point of the same size's one-process series
                one = next((p[1] for k, p in series.items() if k[:2] == key[:2] and 1 in p), None)
            base = _metric(one) if one is not None and one.timed_ok else None
            line = []
            for g in sorted(pts):
                c = pts[g]
                m = _metric(c) if c.timed_ok else None
                speedup = m / base if m and base else None
                rows.append([(host + " " if host else "") + _size_text(size), variant, str(g), status_cell(c),
                             fmt_time(c.median_s if c.timed_ok else None), fmt_num(m),
                             fmt_num(speedup), fmt_num(speedup / g if speedup else None)])
                if m:
                    line.append((g, m))
            if len(line) >= 2 and size in big:
                drawn.append((f"{host + ' ' if host else ''}{_size_text(size)} {variant}", line))
        headers = ["size", "variant", "GPUs", "status", "median", unit, "speedup vs 1 GPU", "efficiency"]
        if not drawn:
            figs.append(Figure(f"{op}: scaling across GPUs", None, None, headers, rows,
                               "no series with two validated, timed group sizes"))
            continue
        fig, ax = new_figure()
        for label, line in drawn:
            ax.plot(*zip(*line), marker="o", label=label)
        gmax = max(g for _, line in drawn for g, _ in line)
        ax.set_xticks(range(1, gmax + 1))
        ax.set_xlabel("GPUs")
        ax.set_ylabel(unit)
        ax.set_title(f"{op}: {unit} against GPUs")
        ax.legend(fontsize="small")
        png, svg = canvas.save(fig, f"scaling_{op}")
        note = (f"drawn: the {DRAWN_SIZES} largest sizes (busbw of smaller messages measures latency); every size "
                "is in the table" if collective else "")
        figs.append(Figure(f"{op}: scaling across GPUs", png, svg, headers, rows, note))
    return figs
