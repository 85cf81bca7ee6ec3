#!/usr/bin/env python3
"""Change points in the history of each case (docs/reports.md, "History and change points").

A nightly run compares with one baseline, which flaps when a case's time wanders by a few percent
from day to day. Over the series of a case's median times in the last N results files of a host,
change-point detection finds where a step change began instead: Apache Otava's implementation of
E-Divisive with a t-test significance test (the Hunter algorithm, Fleming et al., ICPE 2023),
deterministic (no permutations). Chosen over MongoDB's signal-processing-algorithms, whose
E-Divisive uses permutation tests (random unless seeded) and which requires numpy < 2; Otava's
analysis module needs only numpy and scipy (scripts/report-env.sh installs it without its
command-line tool's dependencies).

A series is one (host, case id, device, variant): the files' timing.kernel medians where the case
ran and passed, in the order of the files' creation times. A change point is reported when
p <= MAX_PVALUE and the medians before and after it differ by at least MIN_CHANGE (relative).

Usage: changepoints.py RESULTS.json... [--json OUT] [--markdown OUT]
Prints one line per change point; exit 0 (informational), 2 on unreadable input, 3 when Otava
is missing."""
import json
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results  # noqa: E402

MAX_PVALUE = 0.001   # Otava's default significance for a change point
MIN_CHANGE = 0.03    # steps smaller than 3% are not reported (run-to-run noise of short kernels)
WINDOW = 30          # Otava's sliding window (runs)
MIN_RUNS = 6         # a shorter series has no change point worth the name


def available():
    try:
        import otava.analysis  # noqa: F401
        return True
    except ImportError:
        return False


def detect(values):
    """The change points of one series of positive numbers: a list of (index, p-value, relative
    change of the mean after against the mean before), index = the first value after the step."""
    from otava.analysis import compute_change_points

    if len(values) < MIN_RUNS:
        return []
    cps, _ = compute_change_points([float(v) for v in values], window_len=WINDOW, max_pvalue=MAX_PVALUE)
    out = []
    bounds = [0] + [int(c.index) for c in cps] + [len(values)]
    for k, c in enumerate(cps):
        before = statistics.median(values[bounds[k]:bounds[k + 1]])
        after = statistics.median(values[bounds[k + 1]:bounds[k + 2]])
        change = after / before - 1.0
        if abs(change) >= MIN_CHANGE:
            out.append((int(c.index), float(c.stats.pvalue), change))
    return out


def series_of(runs):
    """(host, id, device, variant) -> [(run, median_s)] over the runs that hold the case ok and
    timed, in creation order."""
    out = defaultdict(list)
    for r in sorted(runs, key=lambda r: (r.created_utc, r.name)):
        for c in r.cases:
            if c.timed_ok:
                out[(r.hostname, c.id, c.device, c.variant)].append((r, c.median_s))
    return out


def find(runs):
    """Every change point of every series: dicts with the case, the run where the step began, the
    medians before and after, the change and the p-value."""
    found = []
    for (host, cid, device, variant), pts in sorted(series_of(runs).items()):
        values = [m for _, m in pts]
        for index, p, change in detect(values):
            r = pts[index][0]
            found.append({"host": host, "id": cid, "device": device, "variant": variant,
                          "run": r.name, "created_utc": r.created_utc, "index": index, "runs": len(values),
                          "median_before_s": statistics.median(values[:index]),
                          "median_after_s": statistics.median(values[index:]),
                          "change": change, "p_value": p,
                          "direction": "slower" if change > 0 else "faster"})
    return found


def main(argv):
    paths, json_out, md_out = [], None, None
    it = iter(argv)
    for a in it:
        if a == "--json":
            json_out = next(it, None)
        elif a == "--markdown":
            md_out = next(it, None)
        else:
            paths.append(a)
    if not paths:
        print(__doc__.strip().splitlines()[-3], file=sys.stderr)
        return 2
    if not available():
        print("changepoints: Apache Otava is not installed (scripts/report-env.sh installs it)", file=sys.stderr)
        return 3
    try:
        runs = [results.load(p) for p in paths]
    except results.ResultsError as e:
        print(f"changepoints: {e}", file=sys.stderr)
        return 2
    found = find(runs)
    lines = [f"{f['id']} {f['device']} {f['variant']}: {f['direction']} by {abs(f['change']) * 100:.1f}% from run "
             f"{f['run']} ({f['index'] + 1} of {f['runs']}; median {f['median_before_s'] * 1e6:.4g} -> "
             f"{f['median_after_s'] * 1e6:.4g} us, p = {f['p_value']:.2g})" for f in found]
    print(f"changepoints: {len(found)} change point(s) over {len(runs)} runs "
          f"(E-Divisive, p <= {MAX_PVALUE}, steps >= {MIN_CHANGE * 100:.0f}%)")
    for line in lines:
        print("  " + line)
    if json_out:
        tmp = json_out + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"method": {"algorithm": "E-Divisive with t-test (Apache Otava 0.8)", "max_pvalue": MAX_PVALUE,
                                  "min_change": MIN_CHANGE, "window": WINDOW}, "runs": [r.name for r in runs],
                       "change_points": found}, f, indent=1)
        os.replace(tmp, json_out)
    if md_out:
        tmp = md_out + ".tmp"
        with open(tmp, "w") as f:
            f.write(f"# Change points over {len(runs)} runs\n\n" + ("\n".join(f"- {x}" for x in lines) or "none") + "\n")
        os.replace(tmp, md_out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
