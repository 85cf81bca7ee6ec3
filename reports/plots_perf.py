"""Speed plots: throughput against size per op, speedup against the CPU, roofline per device."""

from collections import defaultdict

import percent
from figures import (Figure, compute_heavy, fmt_num, fmt_time, new_figure, not_drawn_note, plt,
                     series_label, status_cell)


def _by_op(cases):
    ops = defaultdict(list)
    for c in cases:
        ops[c.op_key].append(c)
    return dict(sorted(ops.items()))


def _series(cases, many_hosts):
    s = defaultdict(list)
    for c in cases:
        s[series_label(c, many_hosts)].append(c)
    return s


def _row(c, gflops, precisions, library, configs=False):
    """One case of the throughput table: GB/s (GFLOP/s) and its share of the roof (fp32 peak),
    marked when above 100%; the library share, '-' for the library variant itself; what the
    kernel chose by itself (kernel_config) where any case of the table says."""
    t = c.timed_ok
    val = (c.gflops if gflops else c.gbps) if t else None
    # for compute-heavy ops the bandwidth roof says little: show the share of the fp32 peak
    pct = (c.pct_of_peak_fp32 if gflops else c.pct_of_roof) if t else None
    row = [c.size_label, c.device, c.variant] + ([c.precision or "-"] if precisions else [])
    row += [status_cell(c), fmt_time(c.median_s if t else None), fmt_num(val),
            percent.share(c, pct, "peak" if gflops else "roof")]
    if library:
        row.append(percent.library(c) if t else "-")
    if configs:
        row.append(c.kernel_config or "-")
    return row


def _stateful_table(op, cs):
    """A stateful op (anneal, burst) in its own units: time per run and iterations, or time per
    burst and events/s; no GB/s (the run's host work between ops makes bytes / time meaningless)
    and no plot against size (its figures are drawn in the Stateful runs sections)."""
    burst = any(c.outcome is not None and c.outcome.burst is not None for c in cs)
    rows = []
    for c in sorted(cs, key=lambda c: (c.elements or 0, c.device, c.variant)):
        t = c.timed_ok and c.outcome is not None
        row = [c.size_label, c.device, c.variant, status_cell(c), fmt_time(c.median_s if t else None)]
        if burst:
            b = c.outcome.burst if t else None
            row += [fmt_num(b.per_burst["median"] * 1e6 if b and b.per_burst["median"] else None, 4),
                    fmt_num(b.events_per_s if b else None)]
        else:
            row.append(fmt_num(c.outcome.iterations if t else None, 4))
        rows.append(row)
    headers = ["size", "device", "variant", "status", "per run"] + (
        ["us per burst", "events/s"] if burst else ["iterations"])
    return Figure(f"{op}: time per run", None, None, headers, rows,
                  "a stateful run: its figures are per run (and per burst), drawn in the Stateful runs sections; "
                  "GB/s and % of roof do not apply")


def throughput(canvas, cases, many_hosts):
    """One log-log figure per op: GB/s (or GFLOP/s for compute-heavy ops) against elements."""
    figs = []
    for op, cs in _by_op(cases).items():
        if any(c.outcome is not None for c in cs):
            figs.append(_stateful_table(op, cs))
            continue
        ok = [c for c in cs if c.timed_ok and c.elements]
        gflops = compute_heavy(ok)
        metric = "GFLOP/s" if gflops else "GB/s"
        precisions = len({c.precision for c in cs}) > 1
        library = any(c.pct_of_library is not None for c in cs)
        configs = any(c.kernel_config for c in cs)
        rows = [_row(c, gflops, precisions, library, configs)
                for c in sorted(cs, key=lambda c: (c.elements or 0, c.device, c.variant))]
        headers = ["size", "device", "variant"] + (["precision"] if precisions else []) + [
            "status", "median", metric, "% of fp32 peak" if gflops else "% of roof"] + (
            ["% of library"] if library else []) + (["kernel config"] if configs else [])
        marks = percent.footnote(rows)
        if not ok:
            figs.append(Figure(f"{op}: throughput", None, None, headers, rows, "no validated, timed case"))
            continue
        lines = {}
        for label, pts in sorted(_series(ok, many_hosts).items()):
            pts.sort(key=lambda c: c.elements)
            ys = [(c.gflops if gflops else c.gbps) for c in pts]
            xy = [(c.elements, y) for c, y in zip(pts, ys) if y and y > 0]
            if xy:
                lines[label] = xy
        if not lines:
            figs.append(Figure(f"{op}: throughput", None, None, headers, rows,
                               f"no validated case reports {metric}"))
            continue
        fig, ax = new_figure()
        for label, xy in lines.items():
            ax.plot(*zip(*xy), marker="o", label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("elements")
        ax.set_ylabel(metric)
        ax.set_title(f"{op}: {metric} against size")
        ax.legend(fontsize="small")
        png, svg = canvas.save(fig, f"throughput_{op}")
        note = "; ".join(x for x in (not_drawn_note(cs), marks) if x)
        figs.append(Figure(f"{op}: throughput against size", png, svg, headers, rows, note))
    return figs


def speedup(canvas, cases, many_hosts):
    """One figure per op with GPU results: speedup over the fastest validated CPU variant."""
    figs = []
    for op, cs in _by_op(cases).items():
        gpu = [c for c in cs if c.backend != "cpu"]
        pts = [c for c in gpu if c.timed_ok and c.speedup_vs_cpu and c.elements]
        if not gpu:
            continue
        other = any(c.speedup_cpu_from for c in gpu)
        rows = [[c.size_label, c.device, c.variant, status_cell(c),
                 fmt_num(c.speedup_vs_cpu) if c.timed_ok else "-"] +
                ([f"CPU result from {c.speedup_cpu_from}" if c.speedup_cpu_from else "same file"] if other else [])
                for c in sorted(gpu, key=lambda c: (c.elements or 0, c.device, c.variant))]
        headers = ["size", "device", "variant", "status", "speedup vs cpu"] + (["CPU result"] if other else [])
        if not pts:
            figs.append(Figure(f"{op}: speedup against the CPU", None, None, headers, rows,
                               "no speedup: the run has no validated CPU result for these cases"))
            continue
        fig, ax = new_figure()
        for label, ser in sorted(_series(pts, many_hosts).items()):
            ser.sort(key=lambda c: c.elements)
            ax.plot([c.elements for c in ser], [c.speedup_vs_cpu for c in ser], marker="o", label=label)
        ax.axhline(1.0, color="grey", linestyle="--", linewidth=1)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("elements")
        ax.set_ylabel("speedup (CPU median / this median)")
        ax.set_title(f"{op}: speedup against the fastest CPU variant")
        ax.legend(fontsize="small")
        png, svg = canvas.save(fig, f"speedup_{op}")
        nocpu = sum(1 for c in gpu if c.timed_ok and not c.speedup_vs_cpu)
        note = "; ".join(x for x in (not_drawn_note(gpu), f"{nocpu} GPU results without a CPU result of the same "
                                     "case (no speedup, -)" if nocpu else "") if x)
        figs.append(Figure(f"{op}: speedup against the CPU", png, svg, headers, rows, note))
    return figs


MEASURED_SKIP = ("", "datasheet", "unknown")
PRECISION_MARKERS = {"fp32": "o", "tf32": "^", "fp16-fp32acc": "s", "fp16": "s", "bf16": "D"}


def _device_info(runs, device):
    """The device's entry in the newest file that lists it."""
    for r in sorted(runs, key=lambda r: r.created_utc, reverse=True):
        if device in r.devices:
            return r.devices[device]
    return {}


def _pos(v):
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 else None


def _device_roofs(cs, runs, device):
    """(bandwidth roof GB/s, its label, fp32 peak GFLOP/s or None, where the peak came from).
    The bandwidth roof: the best measured throughput.roof_gbps of the device's cases (the copy op),
    else their datasheet roof, else the device's datasheet peak_gbps. The peak: the device's
    peak_gflops_fp32, else (a Vulkan device reports 0) that of a device with the same name on the
    same host that has one (the same GPU through CUDA)."""
    measured = [(c.roof_gbps, c.roof_source) for c in cs
                if c.roof_gbps and c.roof_gbps > 0 and c.roof_source.strip().lower() not in MEASURED_SKIP]
    sheet = [(c.roof_gbps, "datasheet") for c in cs if c.roof_gbps and c.roof_gbps > 0 and
             c.roof_source.strip().lower() == "datasheet"]
    info = _device_info(runs, device)
    bw, src = None, None
    if measured:
        bw, s = max(measured)
        src = f"measured: {s}"
    elif sheet:
        bw, src = max(sheet)
    elif _pos(info.get("peak_gbps")):
        bw, src = _pos(info.get("peak_gbps")), "datasheet"
    peak, peak_from = _pos(info.get("peak_gflops_fp32")), ""
    if not peak and info.get("name"):
        for r in sorted(runs, key=lambda r: r.created_utc, reverse=True):
            same = [(0 if d.get("backend") == "cuda" else 1, i, d) for i, d in r.devices.items()
                    if i != device and d.get("name") == info.get("name") and _pos(d.get("peak_gflops_fp32"))]
            if same:
                _, other, d = min(same, key=lambda t: t[:2])
                peak, peak_from = _pos(d.get("peak_gflops_fp32")), other
                break
    return bw, src, peak, peak_from


def roofline(canvas, cases):
    """One roofline per device (the current results of its host, from every file): achieved GFLOP/s
    against flops per byte, log-log, under min(bandwidth roof x intensity, fp32 peak). Points of
    tensor-core variants (tf32, fp16) may lie above the fp32 peak: the y range takes them in and
    the legend names each op, variant and precision."""
    figs = []
    groups = defaultdict(list)
    for c in cases:
        groups[(c.run.hostname, c.device)].append(c)
    for (host, device), cs in sorted(groups.items()):
        runs = list({id(c.run): c.run for c in cases if c.run.hostname == host}.values())
        # a stateful run's time includes host work between its ops: no point under a kernel's roof
        stateful = sum(1 for c in cs if c.timed_ok and c.outcome is not None)
        pts = [c for c in cs if c.timed_ok and c.intensity and c.achieved_gflops and c.outcome is None]
        bw, src, peak, peak_from = _device_roofs(cs, runs, device)
        name = _device_info(runs, device).get("name", "")
        title = f"roofline: {host} {device} {name}".strip()

        def roof(x):
            return min(bw * x, peak) if bw and peak else bw * x if bw else peak

        def pct(c):
            r = roof(c.intensity)
            # on the flat part of the roofline the share is of the fp32 peak (tensor cores beat it)
            return percent.share(c, 100 * c.achieved_gflops / r if r else None,
                                 "peak" if peak and r == peak else "roof")

        rows = [[c.id, c.variant, c.precision or "-", fmt_num(c.intensity), fmt_num(c.achieved_gflops),
                 fmt_num(roof(c.intensity)), pct(c)]
                for c in sorted(pts, key=lambda c: (c.op_key, c.intensity, c.variant))]
        headers = ["case", "variant", "precision", "flops/byte", "GFLOP/s", "roof GFLOP/s", "% of roof"]
        skipped = sum(1 for c in cs if c.timed_ok and not c.intensity and c.outcome is None)
        notes = [not_drawn_note(cs), percent.footnote(rows)]
        if skipped:
            notes.append(f"{skipped} cases without flops (copy) have no intensity")
        if stateful:
            notes.append(f"{stateful} stateful runs (anneal, burst) left out: their time includes host work "
                         "between the ops")
        if peak_from:
            notes.append(f"{device} reports no fp32 peak: the peak of {peak_from} (same GPU: {name}) is used")
        elif not peak:
            notes.append("no fp32 peak known for this device: bandwidth roof only")
        if not bw:
            notes.append("no bandwidth roof known for this device")
        above = [c for c in pts if peak and c.achieved_gflops > peak]
        if above:
            precs = ", ".join(sorted({c.precision or c.variant for c in above}))
            notes.append(f"{len(above)} points above the fp32 peak ({precs}: tensor cores, not bound by it)")
        note = "; ".join(n for n in notes if n)
        if not pts:
            figs.append(Figure(title, None, None, headers, rows, note or "no case with flops"))
            continue
        fig, ax = new_figure(10.0, 5.6)
        xs = [c.intensity for c in pts]
        ys = [c.achieved_gflops for c in pts]
        lo, hi = min(xs) / 4, max(xs) * 4
        if bw and peak:
            lo, hi = min(lo, peak / bw / 16), max(hi, peak / bw * 4)
        grid = [lo * (hi / lo) ** (i / 400) for i in range(401)]
        if bw:
            ax.plot(grid, [roof(x) for x in grid], color="black", linewidth=1.5,
                    label=f"roof: {bw:.4g} GB/s x intensity ({src})")
        if peak:
            ax.plot([], [], " ", label=f"fp32 peak {peak:.4g} GFLOP/s" +
                    (f" (of {peak_from}, same GPU)" if peak_from else "") + (": the flat roof" if bw else ""))
            if not bw:
                ax.axhline(peak, color="black", linewidth=1.5)
        series = defaultdict(list)
        for c in pts:
            series[(c.op_key, c.variant, c.precision)].append(c)
        colors = plt.get_cmap("tab20" if len(series) > 10 else "tab10")
        for i, ((op, variant, prec), ser) in enumerate(sorted(series.items())):
            ax.scatter([c.intensity for c in ser], [c.achieved_gflops for c in ser], zorder=3, s=28,
                       marker=PRECISION_MARKERS.get(prec, "D"), color=colors(i % colors.N),
                       label=f"{op.split('/')[-1]} {variant} ({prec or '?'})")
        ylo = min(ys + ([roof(lo)] if bw else [])) / 3
        yhi = max(ys + ([peak] if peak else [])) * 3  # without a peak the diagonal is clipped
        ax.set_xlim(lo, hi)
        ax.set_ylim(ylo, yhi)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("arithmetic intensity (flops per byte moved)")
        ax.set_ylabel("achieved GFLOP/s")
        ax.set_title(title)
        ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        png, svg = canvas.save(fig, f"roofline_{host}_{device}")
        figs.append(Figure(title, png, svg, headers, rows, note))
    return figs
