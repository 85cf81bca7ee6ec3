"""The opening summary, what a newcomer reads before any plot: whether a run was cut short, what
ran where (host, device, preset), what passed on each device, and each device's headline figure
per workload; the per-op figures folded under it."""

from html import escape

import headline
import percent
from figures import fmt_time
from htmltable import table

COUNTED = ("ok", "failed-validation", "unsupported", "error", "skipped")
BAD = ("failed-validation", "error")
WORKLOAD_ORDER = ("elementwise", "gemm", "anneal", "burst", "collectives", "sharded")


def _by_device(cases):
    """{(host, device, device name): [cases]}: the name too, since two machines may share a host
    name and a label ("vm", "cpu:0")."""
    out = {}
    for c in cases:
        out.setdefault((c.run.hostname, c.device, c.device_name), []).append(c)
    return dict(sorted(out.items()))


def partial_banners(runs):
    """One prominent line per results file that a signal or a time limit cut short."""
    out = []
    for r in sorted(runs, key=lambda r: r.created_utc):
        if r.complete:
            continue
        i = r.interrupted
        how = f"interrupted by {i['signal']}" if i["signal"] else "interrupted"
        done = i["cases_finished"] if i["cases_finished"] is not None else len(r.cases)
        of = f" of {i['cases_planned']:.0f}" if i["cases_planned"] is not None else ""
        out.append(f'<p class="partial"><b>partial run: {escape(how)} after {done:.0f}{of} cases</b> '
                   f'({escape(r.name)}, {escape(r.hostname)}). The report shows what it finished; the cases '
                   f'after the interruption did not run.</p>')
    return "\n".join(out)


def _count_cell(n, status):
    if not n:
        return "0"
    return (str(n), "bad" if status in BAD else "ok" if status == "ok" else "na")


def devices_table(cases):
    """What ran where and what passed: one row per device."""
    rows = []
    for (host, dev, name), cs in _by_device(cases).items():
        runs = list({id(c.run): c.run for c in cs}.values())
        presets = ", ".join(sorted({r.preset_of(dev) for r in runs} - {""})) or "-"
        soft = " (software device)" if any(c.software_device for c in cs) else ""
        counts = [_count_cell(sum(1 for c in cs if c.status == s), s) for s in COUNTED]
        rows.append([host, dev, f"{name}{soft}", presets, ", ".join(sorted(r.name for r in runs))] + counts)
    return table(["host", "device", "name", "preset", "files", "ok", "failed validation", "unsupported",
                  "error", "skipped"], rows)


def preset_notes(runs):
    notes = sorted({r.preset_note for r in runs if r.preset_note})
    return "\n".join(f'<p class="presetnote"><b>Preset:</b> {escape(n)}</p>' for n in notes)


def _workloads(cases):
    present = {c.workload for c in cases if c.timed_ok}
    return [w for w in WORKLOAD_ORDER if w in present] + sorted(present - set(WORKLOAD_ORDER))


def _headline_cell(c):
    if c is None:
        return "-"
    share = headline.share(c)
    what = f"{c.op} {c.size_label} {c.variant}"
    if isinstance(share, tuple):
        return (f"{headline.figure(c)}\n{what}\n{share[0]}", share[1], share[2])
    return f"{headline.figure(c)}\n{what}" + (f"\n{share}" if share != "-" else "")


def headlines_table(cases):
    """Per device, per workload: the best validated figure (headline.per_workload)."""
    workloads = _workloads(cases)
    rows = []
    for (host, dev, name), cs in _by_device(cases).items():
        best = headline.per_workload(cs)
        rows.append([f"{host} {dev}\n{name}"] + [_headline_cell(best.get(w)) for w in workloads])
    if not workloads:
        return "<p>No case was validated and timed: there is no figure to show.</p>"
    note = percent.footnote(rows)
    return (table(["device"] + workloads, rows, box="scroll headlines") +
            (f'<p class="note">{escape(note)}</p>' if note else ""))


def per_op_tables(cases):
    """Per device, the headline figure of every op, folded: the long view."""
    out = []
    for (host, dev, name), cs in _by_device(cases).items():
        rows = [[wl, op, c.size_label, c.variant, fmt_time(c.median_s), headline.figure(c), headline.share(c)]
                for (wl, op), c in sorted(headline.per_op(cs).items())]
        if rows:
            out.append(f"<h3>{escape(host)}: {escape(cs[0].run.device_label(dev) or name)}</h3>")
            out.append(table(["workload", "op", "largest case", "variant", "median", "headline",
                              "% of roof / library"], rows))
            note = percent.footnote(rows)
            out.append(f'<p class="note">{escape(note)}</p>' if note else "")
    if not out:
        return ""
    return ("<details><summary>Every op on every device: its largest case that passed, the best variant there"
            "</summary>" + "\n".join(out) + "</details>")


def render(runs, cases):
    """The summary section (the partial-run banners go above the page's first line: partial_banners)."""
    return "\n".join(x for x in (
        "<h2>Summary</h2>",
        "<p>What ran where, and how many cases passed validation on each device (a case that fails validation "
        "never reports a speed):</p>",
        devices_table(cases),
        preset_notes(runs),
        "<h3>Headlines</h3>",
        "<p>Per device and workload, the best validated figure: the largest case of each op (the one that "
        "measures the memory or the math units, not the launch), its fastest fp32 variant, and of those ops "
        "the best (a cache-resident one only when there is no other). GEMM is compared with the library call "
        "of its precision; stateful runs are given per run (anneal) or per burst (burst).</p>",
        headlines_table(cases),
        per_op_tables(cases),
    ) if x)
