"""Validation error against tolerance, timing distributions (box plots of the raw samples) and
history over several runs of one machine."""

import math
from collections import defaultdict
from datetime import datetime

import changepoints
from figures import Figure, fmt_num, fmt_time, new_figure, not_drawn_note, plt, status_cell

EXACT_FLOOR = 1e-6  # where an error of exactly 0 is drawn on the log axis (marked "exact")
MAX_BOXES = 40      # per figure; more cases are split over several figures
MAX_PANELS = 12     # history small multiples per figure


def validation(canvas, cases):
    """Per device: max |err| / tolerance of every validated case; 1 is the bound."""
    figs = []
    groups = defaultdict(list)
    for c in cases:
        groups[(c.run.hostname, c.device)].append(c)
    for (host, device), cs in sorted(groups.items()):
        cs = sorted(cs, key=lambda c: (c.op_key, c.elements or 0, c.variant))
        drawn = [c for c in cs if c.validated and c.err_over_tol is not None]
        rows = [[c.id, c.variant, c.precision, c.tolerance or "-",
                 fmt_num(c.err_over_tol) if c.validated else "-", status_cell(c)] for c in cs]
        headers = ["case", "variant", "precision", "bound", "max err / tol", "status"]
        title = f"validation: {host} {device}"
        note = "; ".join(x for x in (
            f"{sum(1 for c in cs if not c.validated)} cases not validated (unsupported, error or skipped)"
            if any(not c.validated for c in cs) else "",
            f"an error of exactly 0 is drawn at {EXACT_FLOOR:g}" if any(c.err_over_tol == 0 for c in drawn) else "")
            if x)
        if not drawn:
            figs.append(Figure(title, None, None, headers, rows, note or "no validated case"))
            continue
        fig, ax = new_figure(max(8.0, min(20.0, len(drawn) * 0.18)), 4.8)
        for passed, color, label in ((True, "tab:blue", "passed"), (False, "tab:red", "failed")):
            idx = [i for i, c in enumerate(drawn) if c.passed == passed]
            ys = [max(drawn[i].err_over_tol, EXACT_FLOOR) for i in idx]
            if idx:
                ax.scatter(idx, ys, color=color, label=label, zorder=3, s=18)
        exact = [i for i, c in enumerate(drawn) if c.err_over_tol == 0]
        if exact:
            ax.scatter(exact, [EXACT_FLOOR] * len(exact), facecolors="none", edgecolors="tab:green", s=60,
                       label="exact (0)", zorder=4)
        ax.axhline(1.0, color="tab:red", linestyle="--", linewidth=1, label="tolerance")
        ax.set_yscale("log")
        ax.set_ylabel("max |err| / tolerance")
        ax.set_xticks(range(len(drawn)))
        ax.set_xticklabels([f"{c.op} {c.size_label} {c.variant}" for c in drawn], rotation=90, fontsize=6)
        ax.set_title(title)
        ax.legend(fontsize="small")
        png, svg = canvas.save(fig, f"validation_{host}_{device}")
        figs.append(Figure(title, png, svg, headers, rows, note))
    return figs


def boxes(canvas, cases, many_hosts):
    """Per op: the distribution of every kernel launch time of each case, relative to the case's
    median so that sizes decades apart share one axis (the medians are in the labels and table).
    Boxes are the quartiles, whiskers p1 and p99, and an x marks the slowest launch."""
    figs = []
    groups = defaultdict(list)
    for c in cases:
        groups[c.op_key].append(c)
    for op, cs in sorted(groups.items()):
        timed = sorted((c for c in cs if c.timed_ok and c.samples),
                       key=lambda c: (c.run.hostname, c.device, c.variant, c.elements or 0))
        if not timed:
            continue
        for part in range(0, len(timed), MAX_BOXES):
            chunk = timed[part:part + MAX_BOXES]
            fig, ax = new_figure(max(8.0, len(chunk) * 0.5), 4.8)
            rel = [[s / c.median_s for s in c.samples] for c in chunk]
            ax.boxplot(rel, whis=(1, 99), showfliers=False)
            ax.plot(range(1, len(chunk) + 1), [max(r) for r in rel], "x", color="tab:red", label="slowest launch")
            host = lambda c: f"{c.run.hostname} " if many_hosts else ""  # noqa: E731
            ax.set_xticks(range(1, len(chunk) + 1))
            ax.set_xticklabels([f"{host(c)}{c.device} {c.variant}\n{c.size_label}\n{fmt_time(c.median_s)}"
                                for c in chunk], rotation=90, fontsize=6)
            ax.set_yscale("log")
            ax.set_ylabel("launch time / median of the case")
            ax.legend(fontsize="small")
            title = f"{op}: timing distributions"
            ax.set_title(title + " (boxes: quartiles, whiskers: p1-p99)")
            png, svg = canvas.save(fig, f"timing_{op}_{part}")
            rows = [[c.size_label, c.device, c.variant, str(len(c.samples)), fmt_time(c.median_s),
                     fmt_time(_pct(c.samples, 5)), fmt_time(_pct(c.samples, 95)), fmt_time(max(c.samples)),
                     fmt_num(_rcv(c.samples))] for c in chunk]
            figs.append(Figure(title, png, svg, ["size", "device", "variant", "samples", "median", "p5", "p95", "max",
                                                 "robust CV"], rows, not_drawn_note(cs) if part == 0 else ""))
    return figs


def _pct(v, p):
    s = sorted(v)
    h = (len(s) - 1) * p / 100.0
    lo = math.floor(h)
    return s[lo] + (h - lo) * (s[min(lo + 1, len(s) - 1)] - s[lo])


def _rcv(v):
    med = _pct(v, 50)
    return (_pct(v, 75) - _pct(v, 25)) / 1.349 / med if len(v) >= 4 and med > 0 else None


def _when(run):
    try:
        return datetime.strptime(run.created_utc, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return None


def _result(c):
    return (c.status, c.median_s if c.timed_ok else None)


def history(canvas, runs):
    """For each host: every (case, device, variant) that two or more of its files hold with
    different results (a key in one file only has no history); per op, one small panel per case
    with the median time of each device/variant over those files, relative to its first (the table
    has the times). Files where a case failed or did not run are marked with a red x."""
    figs = []
    hosts = defaultdict(list)
    for r in runs:
        hosts[r.hostname].append(r)
    for host, rs in sorted(hosts.items()):
        rs = sorted(rs, key=lambda r: r.created_utc)
        if len(rs) < 2:
            continue
        series = defaultdict(lambda: [None] * len(rs))  # (op, id, device, variant) -> case or None per run
        for i, r in enumerate(rs):
            for c in r.cases:
                series[(c.op_key, c.id, c.device, c.variant)][i] = c
        by_op = defaultdict(lambda: defaultdict(dict))  # op -> id -> {(device, variant): [case or None]}
        same = defaultdict(int)  # op -> keys held by several files with identical results (not drawn)
        for (op, cid, device, variant), cs in sorted(series.items()):
            present = [c for c in cs if c is not None]
            if len(present) >= 2 and len({_result(c) for c in present}) > 1:
                by_op[op][cid][(device, variant)] = cs
            elif len(present) >= 2:
                same[op] += 1
        for op, per_case in sorted(by_op.items()):
            items = sorted(per_case.items())
            used = [i for i in range(len(rs)) if any(cs[i] is not None for _, ser in items for cs in ser.values())]
            ors = [rs[i] for i in used]
            whens = [_when(r) for r in ors]
            xs = whens if all(whens) else list(range(len(ors)))  # file order when a date is missing
            items = [(cid, {k: [cs[i] for i in used] for k, cs in ser.items()}) for cid, ser in items]
            for part in range(0, len(items), MAX_PANELS):
                figs.append(_history_figure(canvas, host, op, items[part:part + MAX_PANELS], xs, ors, part,
                                            same[op] if part == 0 else 0))
    return figs


def _history_figure(canvas, host, op, items, xs, rs, part, same=0):
    cols = min(3, len(items))
    nrows = (len(items) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(4.2 * cols, 3.0 * nrows + 0.4), squeeze=False,
                             layout="constrained")
    rows = []
    for ax, (cid, series) in zip(axes.flat, items):
        for (device, variant), cs in sorted(series.items()):
            pts = [(x, c.median_s) for x, c in zip(xs, cs) if c and c.timed_ok]
            cps = changepoints.detect([y for _, y in pts]) if changepoints.available() else []
            pts = [(x, y / pts[0][1]) for x, y in pts]
            if pts:
                line, = ax.plot(*zip(*pts), marker="o", markersize=3, label=f"{device} {variant}")
                for k, (index, _, change) in enumerate(cps):  # where a step change began (changepoints.py)
                    ax.axvline(pts[index][0], color=line.get_color(), linestyle="--", linewidth=1,
                               label=f"{device} {variant}: change point ({change * 100:+.1f}%)" if k == 0 else None)
            bad = [x for x, c in zip(xs, cs) if c and not c.timed_ok]
            if bad:
                ax.plot(bad, [0.04] * len(bad), "x", color="tab:red", transform=ax.get_xaxis_transform(),
                        label=f"{device} {variant}: not ok")
            rows.append([cid, device, variant] + [("-", "na") if c is None else
                                                  (fmt_time(c.median_s), "ok") if c.timed_ok else status_cell(c)
                                                  for c in cs])
        ax.set_title(cid.split("/", 2)[-1], fontsize=8)
        ax.set_ylabel("median / first run's", fontsize=7)
        ax.tick_params(labelsize=6)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=5)
    for ax in list(axes.flat)[len(items):]:
        ax.set_visible(False)
    for ax in axes.flat:
        ax.tick_params(axis="x", labelrotation=30)
    title = f"history: {op} on {host}"
    fig.suptitle(title)
    png, svg = canvas.save(fig, f"history_{host}_{op}_{part}")
    headers = ["case", "device", "variant"] + [f"{r.created_utc} {r.name}".strip() for r in rs]
    note = ("a red x marks a file where the case failed or did not run; - in the table: the file does not have "
            "the case") + (f"; {same} device/variant results identical in every file that has them are left out"
                           if same else "")
    return Figure(title, png, svg, headers, rows, note)
