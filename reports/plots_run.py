"""Stateful workloads (anneal, burst; docs/results-schema.md, "run"): energy against iteration with
every backend on one plot, the spikes of each burst, and where one run's time goes, per op, as
stacked bars per backend."""

from collections import defaultdict

from figures import Figure, fmt_num, fmt_time, new_figure, plt, series_label, status_cell

SHARE_LABEL_MIN = 0.08  # segments with a smaller share carry no percentage label
# (marker, line width, marker size) per line, thinner ones drawn over thicker ones, so that
# backends whose trajectories coincide (the usual case) stay visible
LINE_STYLES = (("o", 3.2, 7.0), ("s", 2.0, 5.0), ("^", 1.2, 3.5), ("x", 0.8, 3.0))
TRANSFERS = (("upload_s", "upload (once, before the run)"), ("h2d_in_run_s", "host to device, in the run"),
             ("d2h_in_run_s", "device to host, in the run"))


def _stateful(cases):
    """The cases that carry a run object, by case id."""
    groups = defaultdict(list)
    for c in cases:
        if c.outcome is not None:
            groups[c.id].append(c)
    return dict(sorted(groups.items()))


def _ordered(cs, many_hosts):
    return sorted(cs, key=lambda c: series_label(c, many_hosts))


def _not_shown(cs, shown, what):
    """'not drawn: 1 error (...)' for the cases of cs that are not in shown, or ''."""
    counts = defaultdict(int)
    for c in cs:
        if c not in shown:
            counts[c.status] += 1
    if not counts:
        return ""
    return f"not drawn ({what}): " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))


def _references(cs):
    """The distinct (final energy, iterations) of the reference runs the cases were checked against."""
    return sorted({(c.outcome.reference_energy, c.outcome.reference_iterations) for c in cs
                   if c.outcome.reference_energy is not None})


def spikes(canvas, cases, many_hosts):
    """Per burst case id: the fired count of every burst, one line per device and variant (they
    coincide when the run is bit-exact, which validation checks), with a table of time per burst
    (median, p05, p95), events per burst, events/s and the fired fraction."""
    figs = []
    for cid, cs in _stateful(cases).items():
        cs = [c for c in _ordered(cs, many_hosts) if c.outcome.burst is not None]
        if not cs:
            continue
        drawn = [c for c in cs if c.status in ("ok", "failed-validation") and c.outcome.burst.fired]
        us = lambda c, k: fmt_num(c.outcome.burst.per_burst[k] * 1e6, 4) if c.outcome.burst.per_burst[k] else "-"
        rows = [[series_label(c, many_hosts), status_cell(c), us(c, "median"), us(c, "p05"), us(c, "p95"),
                 fmt_num(c.outcome.burst.events_per_burst, 4), fmt_num(c.outcome.burst.events_per_s, 3),
                 fmt_num(c.outcome.burst.fired_fraction * 100 if c.outcome.burst.fired_fraction is not None else None, 3)]
                for c in cs]
        headers = ["device, variant", "status", "us/burst", "p05", "p95", "events/burst", "events/s", "fired %"]
        title = f"{cid}: neurons fired per burst"
        note = _not_shown(cs, drawn, "no trajectory")
        if not drawn:
            figs.append(Figure(title, None, None, headers, rows, note or "no trajectory"))
            continue
        fig, ax = new_figure()
        for k, c in enumerate(drawn):
            pts = [(i, f) for i, f in enumerate(c.outcome.burst.fired) if f is not None]
            failed = c.status != "ok"
            marker, width, size = LINE_STYLES[k % len(LINE_STYLES)]
            ax.plot(*zip(*pts), marker=marker if len(pts) <= 60 else None, linewidth=width, markersize=size,
                    linestyle="--" if failed else "-", alpha=0.85,
                    label=series_label(c, many_hosts) + (" (failed validation)" if failed else ""))
        ax.set_xlabel("burst")
        ax.set_ylabel("neurons fired")
        ax.set_title(title, fontsize="medium")
        ax.legend(fontsize="small")
        png, svg = canvas.save(fig, f"spikes_{cid}")
        figs.append(Figure(title, png, svg, headers, rows, note))
    return figs


def energy(canvas, cases, many_hosts):
    """Per stateful case id: the trajectory's energy against iteration, one line per device and
    variant (a run that failed validation dashed), the reference's final energy marked; log y
    when the energies span more than a decade."""
    figs = []
    for cid, cs in _stateful(cases).items():
        cs = [c for c in _ordered(cs, many_hosts) if c.outcome.burst is None]  # burst runs: spikes()
        if not cs:
            continue
        drawn = [c for c in cs if c.status in ("ok", "failed-validation") and
                 any(e is not None for e in c.outcome.energies)]
        rows = [[series_label(c, many_hosts), status_cell(c), fmt_num(c.outcome.iterations, 4),
                 "yes" if c.outcome.converged else "no", fmt_num(c.outcome.energy, 4),
                 fmt_num(c.outcome.reference_energy, 4), fmt_num(c.outcome.energy_rel_err),
                 fmt_num(c.outcome.parted_at, 4) if c.outcome.parted_at is not None else "-"] for c in cs]
        headers = ["device, variant", "status", "iterations", "converged", "final energy", "reference energy",
                   "rel. error", "trajectories part at"]
        title = f"{cid}: energy against iteration"
        note = _not_shown(cs, drawn, "no trajectory")
        if not drawn:
            figs.append(Figure(title, None, None, headers, rows, note or "no trajectory"))
            continue
        fig, ax = new_figure()
        ys = []
        for k, c in enumerate(drawn):
            pts = [(i, e) for i, e in enumerate(c.outcome.energies) if e is not None]
            ys += [e for _, e in pts]
            failed = c.status != "ok"
            marker, width, size = LINE_STYLES[k % len(LINE_STYLES)]
            ax.plot(*zip(*pts), marker=marker if len(pts) <= 60 else None, linewidth=width, markersize=size,
                    linestyle="--" if failed else "-", alpha=0.85,
                    label=series_label(c, many_hosts) + (" (failed validation)" if failed else ""))
        for k, (e, it) in enumerate(_references(drawn)):
            ys.append(e)
            ax.axhline(e, color="black", linestyle=":", linewidth=1,
                       label=f"reference final energy {e:.4g}" if k == 0 else None)
            if it:
                ax.plot([it - 1], [e], marker="*", color="black", markersize=11, linestyle="none",
                        label=f"reference: last iteration ({it:.0f})" if k == 0 else None)
        if min(ys) > 0 and max(ys) / min(ys) > 10:
            ax.set_yscale("log")
        ax.set_xlabel("iteration")
        ax.set_ylabel("energy (mean squared distance to its anchor)")
        ax.set_title(title, fontsize="medium")
        ax.legend(fontsize="small")
        png, svg = canvas.save(fig, f"energy_{cid}")
        figs.append(Figure(title, png, svg, headers, rows, note))
    return figs


def _op_names(cs):
    names = []
    for c in cs:
        names += [o.op for o in c.outcome.ops if o.op not in names]
    return names


def _op_row(c, names, many_hosts):
    ops = {o.op: o for o in c.outcome.ops}
    cells = [f"{fmt_time(ops[n].seconds)} ({fmt_num(100 * (ops[n].share or 0), 3)}%)" if n in ops else "-"
             for n in names]
    x = c.outcome.transfers
    runs = c.outcome.breakdown_runs
    runs_cell = "-" if not (c.timed_ok and c.outcome.ops) else f"{runs:.0f}" if runs else "1 (older file)"
    return ([series_label(c, many_hosts), status_cell(c), runs_cell] + cells +
            [fmt_time(sum(o.seconds or 0 for o in c.outcome.ops) if c.outcome.ops else None),
             fmt_time(c.outcome.total_s if c.timed_ok else None)] + [fmt_time(x[k]) for k, _ in TRANSFERS])


def _stack(ax, drawn, names, colors, share):
    """Stacked bars, one per case: each op's seconds (or share of the ops' time)."""
    bottoms = [0.0] * len(drawn)
    for i, name in enumerate(names):
        ops = [{o.op: o for o in c.outcome.ops}.get(name) for c in drawn]
        vals = [((o.share or 0) * 100 if share else o.seconds or 0) if o else 0 for o in ops]
        bars = ax.bar(range(len(drawn)), vals, bottom=bottoms, color=colors(i % colors.N), label=name,
                      edgecolor="white", linewidth=0.5)
        if share:
            for b, v, o in zip(bars, vals, ops):
                if o and (o.share or 0) >= SHARE_LABEL_MIN:
                    ax.text(b.get_x() + b.get_width() / 2, b.get_y() + v / 2, f"{v:.0f}%", ha="center",
                            va="center", fontsize="x-small", color="white")
        bottoms = [b + v for b, v in zip(bottoms, vals)]
    return bottoms


def op_time(canvas, cases, many_hosts):
    """Per stateful case id: where one run's time goes on each device and variant. Left, each op's
    device time in one run (the median over the breakdown runs) stacked, the whole run's timed
    median marked; middle, the ops' shares; right, apart, the transfers."""
    figs = []
    for cid, cs in _stateful(cases).items():
        cs = _ordered(cs, many_hosts)
        drawn = [c for c in cs if c.timed_ok and c.outcome.ops]
        names = _op_names(drawn or cs)
        headers = (["device, variant", "status", "breakdown runs"] + [f"{n} (share)" for n in names] +
                   ["sum of ops", "whole run (timed)"] + [label for _, label in TRANSFERS])
        rows = [_op_row(c, names, many_hosts) for c in cs]
        title = f"{cid}: time per op in one run"
        note = "; ".join(x for x in (
            _not_shown(cs, drawn, "not validated and timed"),
            "each op is timed in separate breakdown runs that wait for every launch, so the ops add up to more "
            "than the whole run (timed without those waits)") if x)
        if not drawn:
            figs.append(Figure(title, None, None, headers, rows, note))
            continue
        width = min(16.0, 8.0 + 1.2 * len(drawn))
        fig, (ax_s, ax_p, ax_x) = plt.subplots(1, 3, figsize=(width, 5.6), layout="constrained",
                                               gridspec_kw={"width_ratios": [3, 3, 2]})
        colors = plt.get_cmap("tab10")
        labels = [series_label(c, many_hosts) for c in drawn]
        tops = _stack(ax_s, drawn, names, colors, share=False)
        for i, (c, top) in enumerate(zip(drawn, tops)):
            ax_s.text(i, top, fmt_time(top), ha="center", va="bottom", fontsize="x-small")
        whole = [(i, c.outcome.total_s) for i, c in enumerate(drawn) if c.outcome.total_s]
        if whole:
            ax_s.scatter(*zip(*whole), marker="_", s=900, color="black", zorder=3, label="whole run (timed)")
        _stack(ax_p, drawn, names, colors, share=True)
        bar_w = 0.8 / len(TRANSFERS)
        for k, (key, label) in enumerate(TRANSFERS):
            ax_x.bar([i + (k - 1) * bar_w for i in range(len(drawn))], [c.outcome.transfers[key] or 0 for c in drawn],
                     width=bar_w, label=label, color=("0.3", "0.55", "0.8")[k], hatch="//" if k == 0 else None)
        for ax, ylabel, head in ((ax_s, "seconds in one run", "seconds per op"),
                                 (ax_p, "% of the ops' time", "op shares"),
                                 (ax_x, "seconds in one run", "transfers (apart)")):
            ax.set_xticks(range(len(drawn)))
            ax.set_xticklabels(labels, rotation=25 if len(drawn) > 1 else 0, ha="right" if len(drawn) > 1 else "center",
                               fontsize="small")
            ax.set_ylabel(ylabel)
            ax.set_title(head, fontsize="medium")
            ax.grid(True, axis="y", alpha=0.3)
        handles, names_ = [], []
        for ax in (ax_s, ax_x):
            h, n = ax.get_legend_handles_labels()
            handles, names_ = handles + h, names_ + n
        fig.legend(handles, names_, loc="outside lower center", ncols=min(5, len(handles)), fontsize="small")
        fig.suptitle(title, fontsize="medium")
        png, svg = canvas.save(fig, f"ops_{cid}")
        figs.append(Figure(title, png, svg, headers, rows, note))
    return figs
