#!/usr/bin/env python3
"""xpubench report: results files -> a self-contained HTML report (one folder: index.html and
plots/*.png, plots/*.svg). Usually run through `xpubench report RESULTS.json... -o DIR`.

Exit codes follow xpubench's: 0 written, 2 bad arguments or a bad results file (one line on
stderr), 3 matplotlib missing or the report could not be written.
"""

import argparse
import glob
import os
import sys

PROG = "xpubench report"


def fail(code, msg):
    print(f"{PROG}: {msg}", file=sys.stderr)
    return code


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit 2, like xpubench
        sys.exit(fail(2, f"{message} (xpubench report --help)"))


def parse_args(argv):
    p = Parser(prog=PROG, description="HTML report with plots from xpubench results files.")
    p.add_argument("results", nargs="+", help="results JSON files (several runs of one host give history plots)")
    p.add_argument("-o", "--out", required=True, help="output folder (created)")
    p.add_argument("--title", help="page title")
    return p.parse_args(argv)


def latest_per_host(runs):
    latest = {}
    for r in runs:
        if r.hostname not in latest or r.created_utc >= latest[r.hostname].created_utc:
            latest[r.hostname] = r
    return list(latest.values())


def build_sections(canvas, runs):
    import plots_dist
    import plots_perf

    current = latest_per_host(runs)
    cases = [c for r in current for c in r.cases]
    many = len(current) > 1
    return cases, [
        ("Throughput against size", "Per op: GB/s (GFLOP/s for compute-heavy ops) from the median kernel time, "
         "log-log, one line per device and variant.", plots_perf.throughput(canvas, cases, many)),
        ("Speedup against the CPU", "The fastest validated CPU variant's median over each GPU variant's median.",
         plots_perf.speedup(canvas, cases, many)),
        ("Roofline per device", "Achieved GFLOP/s against arithmetic intensity, under the bandwidth roof "
         "measured by the copy op in the run (else the datasheet) and the fp32 compute peak.",
         plots_perf.roofline(canvas, cases)),
        ("Validation error against tolerance", "The worst |error| / allowed error of each validated case: "
         "a case passes at 1 or below.", plots_dist.validation(canvas, cases)),
        ("Timing distributions", "Every measured launch (timing.kernel.samples_s) relative to its case's median: "
         "boxes are the quartiles, whiskers p1 and p99, x the slowest launch.", plots_dist.boxes(canvas, cases, many)),
        ("History", "Median kernel time of each case over the runs of one host (two or more runs given).",
         plots_dist.history(canvas, runs)),
    ]


def write_report(args, runs):
    from figures import Canvas
    import page

    plots = os.path.join(args.out, "plots")
    os.makedirs(plots, exist_ok=True)
    for old in glob.glob(os.path.join(plots, "*.png")) + glob.glob(os.path.join(plots, "*.svg")):
        os.remove(old)
    cases, sections = build_sections(Canvas(args.out), runs)
    hosts = sorted({r.hostname for r in runs})
    title = args.title or f"xpubench report: {', '.join(hosts)}"
    html = page.render(title, runs, cases, sections)
    index = os.path.join(args.out, "index.html")
    tmp = f"{index}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(html)
    os.replace(tmp, index)
    n = sum(1 for _, _, figs in sections for fig in figs if fig.png)
    print(f"{PROG}: wrote {index} ({n} plots, PNG and SVG)")


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from results import ResultsError, load

    try:
        runs = [load(p) for p in args.results]
    except ResultsError as e:
        return fail(2, str(e))
    except (ValueError, TypeError, AttributeError, KeyError) as e:  # a shape the checks did not foresee
        return fail(2, f"bad results file: {type(e).__name__}: {e}")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return fail(3, f"matplotlib is not installed for {sys.executable}: run scripts/report-env.sh "
                       "(it creates .venv with reports/requirements.txt; xpubench report uses .venv by itself)")
    try:
        write_report(args, runs)
    except OSError as e:
        return fail(3, f"cannot write the report in {args.out}: {e.strerror or e}")
    except Exception as e:  # a drawing bug: one line, the traceback on request
        if os.environ.get("XPB_REPORT_DEBUG"):
            raise
        return fail(3, f"internal error while drawing: {type(e).__name__}: {e} (XPB_REPORT_DEBUG=1 shows where)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
