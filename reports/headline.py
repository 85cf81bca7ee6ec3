"""The figure a case is judged by, in its own unit, and which case stands for an op and for a
workload on a device. One-shot ops are judged by GB/s (GFLOP/s for GEMM, busbw for the
collectives); a stateful run (anneal, burst: a "run" object) by its time per run and iterations,
or time per burst and synaptic events/s, never by a GB/s that its host work between ops makes
meaningless."""

import percent
from figures import fmt_time

MATH_OPS = ("gemm", "gemv")
STRICT = ("fp32", "exact")


def figure(c):
    """The headline figure as text, e.g. '2982 GB/s', '51.4 TFLOP/s', '2.07 ms per run, 6 iterations'."""
    o = c.outcome
    if o is not None and o.burst is not None and o.burst.per_burst["median"]:
        rate = f", {_si(o.burst.events_per_s)} events/s" if o.burst.events_per_s else ""
        return f"{fmt_time(o.burst.per_burst['median'])} per burst{rate}"
    if o is not None:
        its = f", {o.iterations:.0f} iterations" if o.iterations else ""
        return f"{fmt_time(c.median_s)} per run{its}"
    if c.op in MATH_OPS and c.gflops:
        return f"{c.gflops / 1e3:.3g} TFLOP/s" if c.gflops >= 1e3 else f"{c.gflops:.3g} GFLOP/s"
    if c.busbw:
        return f"{c.busbw:.4g} GB/s busbw"
    if c.gbps:
        return f"{c.gbps:.4g} GB/s"
    return f"{fmt_time(c.median_s)} per launch"


def _si(v):
    """1.17e9 -> '1.17 G', for rates a reader compares at a glance."""
    for prefix, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if v >= scale:
            return f"{v / scale:.3g} {prefix}"
    return f"{v:.3g}"


def share(c):
    """The cell beside the figure: % of the library (GEMM), of the fp32 peak, or of the bandwidth
    roof, marked above 100%; '-' for stateful runs and where nothing is known."""
    if c.outcome is not None:
        return "-"
    if c.op in MATH_OPS and c.gflops:
        if c.pct_of_library is not None:
            return percent.library(c, f"{c.pct_of_library:.0f}%")
        return _of(c, c.pct_of_peak_fp32, "peak", "fp32 peak")
    if c.gbps:
        return _of(c, c.pct_of_roof, "roof", "roof")
    return "-"


def _of(c, pct, kind, what):
    return percent.share(c, pct, kind, f"{pct:.0f}% of {what}") if pct else "-"


def rank(c):
    """Bigger is better, within one op or workload: the rate in the headline's unit."""
    o = c.outcome
    if o is not None and o.burst is not None:
        return o.burst.events_per_s or 0.0
    if o is not None:
        return 1.0 / c.median_s
    return (c.gflops if c.op in MATH_OPS else None) or c.busbw or c.gbps or 1.0 / c.median_s


def per_op(cases):
    """{(workload, op): case}: per op its largest case that passed (the one that measures the
    memory or the math units, not the launch) and there the best variant, in fp32 where the op
    has an fp32 result (a tf32 or fp16-input variant never stands for an op that has one)."""
    ok = [c for c in cases if c.timed_ok]
    strict = {(c.workload, c.op) for c in ok if c.precision in STRICT}
    best = {}
    for c in ok:
        k = (c.workload, c.op)
        if k in strict and c.precision not in STRICT:
            continue
        if k not in best or (c.elements or 0, rank(c)) > (best[k].elements or 0, rank(best[k])):
            best[k] = c
    return best


def per_workload(cases):
    """{workload: case}: of the ops' headline cases, the best one, a cache-resident figure only
    when the workload has no other (it is not the DRAM figure a newcomer looks for)."""
    best = {}
    for (wl, _), c in per_op(cases).items():
        key = (not _cache_resident(c), rank(c))
        if wl not in best or key > best[wl][0]:
            best[wl] = (key, c)
    return {wl: c for wl, (_, c) in best.items()}


def _cache_resident(c):
    cell = share(c)
    return isinstance(cell, tuple) and cell[0].endswith(f"({percent.CACHE})")
