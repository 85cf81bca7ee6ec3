"""Speed plots: throughput against size per op, speedup against the CPU, roofline per device."""

from collections import defaultdict

from figures import (Figure, compute_heavy, fmt_num, fmt_time, new_figure, not_drawn_note,
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


def throughput(canvas, cases, many_hosts):
    """One log-log figure per op: GB/s (or GFLOP/s for compute-heavy ops) against elements."""
    figs = []
    for op, cs in _by_op(cases).items():
        ok = [c for c in cs if c.timed_ok and c.elements]
        gflops = compute_heavy(ok)
        metric = "GFLOP/s" if gflops else "GB/s"
        rows = []
        for c in sorted(cs, key=lambda c: (c.elements or 0, c.device, c.variant)):
            val = (c.gflops if gflops else c.gbps) if c.timed_ok else None
            rows.append([c.size_label, c.device, c.variant, status_cell(c), fmt_time(c.median_s if c.timed_ok else None),
                         fmt_num(val), fmt_num(c.pct_of_roof if c.timed_ok else None)])
        headers = ["size", "device", "variant", "status", "median", metric, "% of roof"]
        if not ok:
            figs.append(Figure(f"{op}: throughput", None, None, headers, rows, "no validated, timed case"))
            continue
        fig, ax = new_figure()
        for label, pts in sorted(_series(ok, many_hosts).items()):
            pts.sort(key=lambda c: c.elements)
            ys = [(c.gflops if gflops else c.gbps) for c in pts]
            xy = [(c.elements, y) for c, y in zip(pts, ys) if y and y > 0]
            if xy:
                ax.plot(*zip(*xy), marker="o", label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("elements")
        ax.set_ylabel(metric)
        ax.set_title(f"{op}: {metric} against size")
        ax.legend(fontsize="small")
        png, svg = canvas.save(fig, f"throughput_{op}")
        figs.append(Figure(f"{op}: throughput against size", png, svg, headers, rows, not_drawn_note(cs)))
    return figs


def speedup(canvas, cases, many_hosts):
    """One figure per op with GPU results: speedup over the fastest validated CPU variant."""
    figs = []
    for op, cs in _by_op(cases).items():
        gpu = [c for c in cs if c.backend != "cpu"]
        pts = [c for c in gpu if c.timed_ok and c.speedup_vs_cpu and c.elements]
        if not gpu:
            continue
        rows = [[c.size_label, c.device, c.variant, status_cell(c),
                 fmt_num(c.speedup_vs_cpu) if c.timed_ok else "-"]
                for c in sorted(gpu, key=lambda c: (c.elements or 0, c.device, c.variant))]
        headers = ["size", "device", "variant", "status", "speedup vs cpu"]
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
        figs.append(Figure(f"{op}: speedup against the CPU", png, svg, headers, rows, not_drawn_note(gpu)))
    return figs


def _device_roofs(run_cases, run, device):
    """(bandwidth roof GB/s and its source, compute roof GFLOP/s or None)."""
    roofs = [c.roof_gbps for c in run_cases if c.roof_gbps]
    bw = max(roofs) if roofs else None
    src = "measured copy" if bw else None
    if not bw:
        peak = run.devices.get(device, {}).get("peak_gbps")
        if isinstance(peak, (int, float)) and peak > 0:
            bw, src = float(peak), "datasheet"
    peak = run.device_peak_gflops(device)
    return bw, src, (peak if peak and peak > 0 else None)


def roofline(canvas, cases):
    """One roofline per device: achieved GFLOP/s against flops per byte, under the measured
    bandwidth roof (throughput.roof_gbps) and the compute roof (devices[].peak_gflops_fp32)."""
    figs = []
    groups = defaultdict(list)
    for c in cases:
        groups[(c.run.hostname, c.device, c.run)].append(c)
    for (host, device, run), cs in sorted(groups.items(), key=lambda kv: kv[0][:2]):
        pts = [c for c in cs if c.timed_ok and c.intensity and c.achieved_gflops]
        bw, src, peak = _device_roofs(cs, run, device)
        title = f"roofline: {host} {run.device_label(device)}"
        rows = [[c.id, c.variant, fmt_num(c.intensity), fmt_num(c.achieved_gflops),
                 fmt_num(min(bw * c.intensity, peak or float("inf")) if bw else None)] for c in pts]
        headers = ["case", "variant", "flops/byte", "GFLOP/s", "roof GFLOP/s"]
        skipped = sum(1 for c in cs if c.timed_ok and not c.intensity)
        note = not_drawn_note(cs)
        if skipped:
            note = (note + "; " if note else "") + f"{skipped} cases without flops (copy) have no intensity"
        if not pts:
            figs.append(Figure(title, None, None, headers, rows, note or "no case with flops"))
            continue
        fig, ax = new_figure()
        xs = [c.intensity for c in pts]
        lo, hi = min(xs) / 4, max(xs) * 4
        if bw and peak:
            hi = max(hi, peak / bw * 4)
        grid = [lo * (hi / lo) ** (i / 200) for i in range(201)]
        if bw:
            ax.plot(grid, [min(bw * x, peak or float("inf")) for x in grid], color="black",
                    label=f"roof: {bw:.4g} GB/s ({src})" + (f", {peak:.4g} GFLOP/s peak" if peak else ""))
        elif peak:
            ax.axhline(peak, color="black", label=f"compute roof {peak:.4g} GFLOP/s")
        for op, ser in sorted(_by_op(pts).items()):
            ax.scatter([c.intensity for c in ser], [c.achieved_gflops for c in ser], label=op, zorder=3)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("arithmetic intensity (flops per byte moved)")
        ax.set_ylabel("achieved GFLOP/s")
        ax.set_title(title)
        ax.legend(fontsize="small")
        png, svg = canvas.save(fig, f"roofline_{host}_{device}")
        figs.append(Figure(title, png, svg, headers, rows, note))
    return figs
