#!/usr/bin/env python3
"""rows-ab-summary.py - the A/B of scripts/device-run.sh's rowsab phase, one line a case and side.

  python3 scripts/rows-ab-summary.py DIR      (DIR holds rowsab-<round>-<entry>.json)

Each results file is one process (one side's entry in one round). Per (backend, variant, op) and
side: the process medians (each a process's kernel median, us), their median, the ratio to the
first side's ("-": no knob set, when present), and whether every process of the side lies beyond
every process of the base ("disjoint"): the claim an A/B makes here rests on the processes, which
are the independent repetitions; the rounds inside a process are not (docs/reports.md). The
per-round medians' spread inside the processes is printed too (max/min of the round medians, the
worst process): a large one means rounds at a low clock (docs/reports.md, "Rounds that drift"), and
so is the warm-up XPB_WARMUP_CLOCK_S added for the clock (conditions.warmup_clock_s, the most of
any process of the side, seconds over all its rounds)."""
import glob
import json
import os
import re
import statistics
import sys


def side_of(path):
    m = re.match(r"rowsab-(\d+)-(.*)\.json$", os.path.basename(path))
    return (int(m.group(1)), m.group(2) or "-") if m else (None, None)


def main(folder):
    procs = {}  # (backend, variant, op, id) -> side -> [(kernel median s, round spread, clock wait s)]
    order = []
    for path in sorted(glob.glob(os.path.join(folder, "rowsab-*.json"))):
        rnd, side = side_of(path)
        if rnd is None:
            continue
        if side not in order:
            order.append(side)
        for c in json.load(open(path)).get("cases", []):
            t = c.get("timing", {})
            k = t.get("kernel", {}).get("median_s")
            if c.get("status") != "ok" or k is None:
                continue
            units = t.get("units", {}).get("medians_s") or [k]
            key = (c["backend"], c["variant"], c["op"], c["id"])
            wait = (c.get("conditions") or {}).get("warmup_clock_s", 0.0)
            procs.setdefault(key, {}).setdefault(side, []).append((k, max(units) / min(units), wait))
    if not procs:
        print(f"rows-ab-summary: no rowsab-*.json results in {folder}", file=sys.stderr)
        return 1
    base = "-" if "-" in order else order[0]
    print(f"{'op':<10} {'backend':<8} {'variant':<8} {'side':<60} {'n':>2} {'median us':>10} "
          f"{'range us':>17} {'vs base':>8} {'disjoint':>8} {'rounds':>7} {'clock s':>7}")
    for key in sorted(procs, key=lambda k: (k[2], k[0], k[1])):
        sides = procs[key]
        b = [p[0] for p in sides.get(base, [])]
        for side in [s for s in order if s in sides]:
            ks = [p[0] for p in sides[side]]
            med = statistics.median(ks)
            ratio = med / statistics.median(b) if b else float("nan")
            disjoint = "-" if side == base or not b else \
                "yes" if max(ks) < min(b) or min(ks) > max(b) else "no"
            spread = max(p[1] for p in sides[side])
            wait = max(p[2] for p in sides[side])
            print(f"{key[2]:<10} {key[0]:<8} {key[1]:<8} {side[:60]:<60} {len(ks):>2} {med * 1e6:>10.2f} "
                  f"{min(ks) * 1e6:>8.2f}-{max(ks) * 1e6:<8.2f} {ratio:>8.4f} {disjoint:>8} {spread:>6.2f}x {wait:>7.2f}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
