#!/usr/bin/env python3
"""perf-table.py RESULTS.json [--workload W] - Markdown tables for docs/performance.md.

One row per case id and variant; one column group per backend: median time, GB/s (or GFLOP/s
for compute-bound GEMM) and % of the roof. Failed or unsupported cases say so; they never show
a number. Standard library only, so it runs wherever the results file is.
"""
import argparse
import json
import sys
from collections import OrderedDict


def fmt_case(c):
    p = ",".join(f"{k}={v}" for k, v in c["params"].items())
    return f"{c['op']} {p}"


def cell(c, metric):
    if c["status"] != "ok" or "throughput" not in c:
        return c["status"]
    t = c["throughput"]
    med = c["timing"]["kernel"]["median_s"] * 1e6
    if metric == "gflops":
        pct = t.get("pct_of_library")
        if c["op"] == "gemv":  # bandwidth-bound: GB/s and % of the copy roof
            return f"{t['gbps']:.0f} GB/s ({t.get('pct_of_roof') or 0:.0f}% roof)"
        extra = f" ({pct:.0f}%)" if pct else ""
        return f"{t['gflops'] / 1000:.2f}{extra}"
    pct = t.get("pct_of_roof") or 0
    return f"{med:.1f} us, {t['gbps']:.0f} GB/s ({pct:.0f}%)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--workload", default=None)
    ap.add_argument("--metric", choices=["gbps", "gflops"], default="gbps")
    a = ap.parse_args()
    d = json.load(open(a.results))
    backends = []
    rows = OrderedDict()
    for c in d["cases"]:
        if a.workload and c["workload"] != a.workload:
            continue
        key = fmt_case(c)
        be = f"{c['backend']}/{c['variant']}"
        if be not in backends:
            backends.append(be)
        rows.setdefault(key, {})[be] = cell(c, a.metric)
    print("| case | " + " | ".join(backends) + " |")
    print("|---|" + "---|" * len(backends))
    for key, cells in rows.items():
        print(f"| {key} | " + " | ".join(cells.get(b, "") for b in backends) + " |")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # piped into head
        sys.exit(0)
