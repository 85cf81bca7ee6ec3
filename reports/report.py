#!/usr/bin/env python3
"""xpubench report: results files -> a self-contained HTML report (one folder: index.html and
plots/*.png, plots/*.svg). Usually run through `xpubench report RESULTS.json... -o DIR`.

Exit codes follow xpubench's: 0 written, 2 bad arguments or a bad results file (one line on
stderr), 3 matplotlib missing or the report could not be written.
"""

import argparse
import glob
import os
import re
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


def unique_runs(runs):
    """The runs in time order, one per run_id (the same file given twice counts once)."""
    seen, out = set(), []
    for r in sorted(runs, key=lambda r: r.created_utc):  # stable: equal times keep the given order
        k = r.run_id or os.path.realpath(r.path)
        if k not in seen:
            seen.add(k)
            out.append(r)
    return out


def current_view(runs):
    """The current results of each host: for every (case id, device, variant), the result from the
    newest file that has it, so files of one session split by workload combine. A GPU result whose
    own file had no CPU result for the case gets its speedup from the CPU result of the same case
    in the current view (marked with the file it came from)."""
    best = {}
    for r in unique_runs(runs):
        for c in r.cases:
            best[c.key] = c  # newer files replace older ones
    cases = list(best.values())
    cpu = {}
    for c in cases:
        if c.backend == "cpu" and c.timed_ok:
            k = (c.run.hostname, c.id)
            if k not in cpu or c.median_s < cpu[k].median_s:
                cpu[k] = c
    for c in cases:
        ref = cpu.get((c.run.hostname, c.id))
        if c.backend != "cpu" and c.timed_ok and c.speedup_vs_cpu is None and ref is not None:
            c.speedup_vs_cpu = ref.median_s / c.median_s
            c.speedup_cpu_from = ref.run.name
    return cases


def stateful_sections(canvas, cases, many):
    """The stateful workloads' sections (anneal, burst), when some case has a run object."""
    import plots_run

    if not any(c.outcome is not None for c in cases):
        return []
    sections = [
        ("Stateful runs: energy against iteration", "Per stateful case: the energy after each iteration "
         "(run.series energy; run.trajectory.energy in files of schema 2), one line per device and variant on one plot (a run that failed validation "
         "dashed); the dotted line and the star are the fp64 reference run's final energy and last iteration "
         "(run.check). The y axis is logarithmic when the energies span more than a decade.",
         plots_run.energy(canvas, cases, many)),
        ("Burst runs: spikes and time per burst", "Per burst case: the neurons fired in each burst "
         "(run.series fired; run.burst.trajectory.fired in files of schema 2), one line per device and variant (they coincide: validation checks every "
         "fired set bit for bit), and a table of the time per burst (the whole run's median, p05 and p95 over "
         "the timed runs, divided by the bursts), events per burst, events/s and the fired fraction.",
         plots_run.spikes(canvas, cases, many)),
        ("Stateful runs: time per op", "Per stateful case and device: each op's device time in one run "
         "(run.ops[].seconds, the median over the breakdown runs) stacked, with the whole run's timed median "
         "(the bar marks it); the ops' shares; and, apart, the transfers (the initial upload, and the host-device "
         "copies during the run).", plots_run.op_time(canvas, cases, many)),
    ]
    return [sec for sec in sections if sec[2]]  # a section without figures (no anneal case) is left out


def build_sections(canvas, runs):
    import plots_dist
    import plots_perf
    import plots_scaling

    cases = current_view(runs)
    many = len({r.hostname for r in runs}) > 1
    return cases, [
        ("Throughput against size", "Per op: GB/s (GFLOP/s for compute-heavy ops) from the median kernel time, "
         "log-log, one line per device and variant.", plots_perf.throughput(canvas, cases, many)),
        ("Speedup against the CPU", "The fastest validated CPU variant's median over each GPU variant's median "
         "(throughput.speedup_vs_cpu; when the GPU result's file has no CPU result for the case, the CPU result of "
         "the same case from another file of the host, named in the table).",
         plots_perf.speedup(canvas, cases, many)),
        ("Roofline per device", "Achieved GFLOP/s against arithmetic intensity, log-log, under the roofline "
         "min(bandwidth roof x intensity, fp32 peak): the bandwidth roof is throughput.roof_gbps (measured by the "
         "copy op, else the datasheet), the peak the device's peak_gflops_fp32 (a Vulkan device without one uses "
         "the CUDA device of the same name). Tensor-core variants (tf32, fp16) can lie above the fp32 peak.",
         plots_perf.roofline(canvas, cases)),
        ("Scaling across GPUs", "The multi-device workloads against the GPU count (params.gpus): bus bandwidth "
         "for the collectives (nccl-tests' busbw), GFLOP/s for the sharded GEMM; speedup over the same series' "
         "1-GPU point and efficiency (speedup / GPUs) in the table (docs/multi-gpu.md).",
         plots_scaling.scaling(canvas, cases, many)),
        ("Validation error against tolerance", "The worst |error| / allowed error of each validated case: "
         "a case passes at 1 or below.", plots_dist.validation(canvas, cases)),
        ("Timing distributions", "Every measured launch (timing.kernel.samples_s) relative to its case's median: "
         "boxes are the quartiles, whiskers p1 and p99, x the slowest launch.", plots_dist.boxes(canvas, cases, many)),
        ("History", "Median kernel time of each case, device and variant that two or more files of one host "
         "hold with different results, over those files. A dashed vertical line marks where a step change "
         "began (change-point detection, E-Divisive with a t-test by Apache Otava, p <= 0.001, steps of 3% or "
         "more, series of 6 runs or more; reports/changepoints.py), when Otava is installed.",
         plots_dist.history(canvas, unique_runs(runs))),
    ] + stateful_sections(canvas, cases, many)


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


def _machine(r):
    return r.system.get("cpu_model", ""), r.system.get("logical_cpus")


def distinct_hosts(runs):
    """Two machines may share a host name (cloud VMs are often "vm"): when files of one host name
    come from different machines (CPU model, logical CPUs), each gets what tells them apart in its
    name, so that their results neither replace each other in the current view nor share a line
    in a plot."""
    seen = {}
    for r in runs:
        seen.setdefault(r.hostname, set()).add(_machine(r))
    for r in runs:
        machines = seen[r.hostname]
        if len(machines) < 2:
            continue
        model, cpus = _machine(r)
        parts = []
        if len({m for m, _ in machines}) > 1:
            parts.append(" ".join(re.sub(r"\((R|TM)\)|\b(Processor|CPU)\b", " ", model).split()) or "unknown CPU")
        if len({n for _, n in machines}) > 1:
            parts.append(f"{cpus} CPUs")
        r.hostname = f"{r.hostname} ({', '.join(parts)})"
    return runs


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from results import ResultsError, load

    try:
        runs = distinct_hosts([load(p) for p in args.results])
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
