"""What the plotting modules share: a Figure record (image files plus the table shown beside
them), saving a matplotlib figure as PNG and SVG, number formatting and series labels."""

import math
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

STATUS_NOTE = "not drawn"


class Figure:
    """One plot in the report: PNG and SVG paths (relative to the report folder), a title, an
    optional note under it, and a table (headers, rows of cells) shown beside it. A cell is a
    string, or a (text, css_class) pair."""

    def __init__(self, title, png, svg, headers, rows, note=""):
        self.title, self.png, self.svg = title, png, svg
        self.headers, self.rows, self.note = headers, rows, note


class Canvas:
    """Where figures are saved: DIR/plots/<slug>.png and .svg, slugs made unique."""

    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.used = set()

    def slug(self, text):
        base = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")[:80] or "plot"
        s, i = base, 2
        while s in self.used:
            s, i = f"{base}_{i}", i + 1
        self.used.add(s)
        return s

    def save(self, fig, name):
        """Writes fig as PNG and SVG, closes it, and returns the two relative paths."""
        s = self.slug(name)
        png, svg = f"plots/{s}.png", f"plots/{s}.svg"
        fig.savefig(f"{self.out_dir}/{png}", dpi=110)
        fig.savefig(f"{self.out_dir}/{svg}")
        plt.close(fig)
        return png, svg


def new_figure(width=8.0, height=4.8):
    fig, ax = plt.subplots(figsize=(width, height), layout="constrained")
    ax.grid(True, which="both", alpha=0.3)
    return fig, ax


def fmt_time(s):
    if s is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s * 1e9:.3g} ns"


def fmt_num(v, digits=3):
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    if v != 0 and (abs(v) >= 1e6 or abs(v) < 1e-3):
        return f"{v:.{digits}e}"
    return f"{v:.{digits}g}"


def status_cell(case):
    """The status as a table cell; anything but ok carries its reason."""
    if case.status == "ok":
        return ("ok", "ok")
    msg = f": {case.message}" if case.message else ""
    return (f"{case.status}{msg}", "bad" if case.status in ("failed-validation", "error") else "na")


def series_label(case, many_hosts):
    host = f"{case.run.hostname} " if many_hosts else ""
    return f"{host}{case.device} {case.variant}"


def not_drawn_note(cases):
    """'not drawn: 2 failed-validation, 1 unsupported (see the table)' or ''."""
    counts = {}
    for c in cases:
        if not c.timed_ok:  # an ok case without timing was validated only (an input class)
            s = "validated only (not timed)" if c.status == "ok" else c.status
            counts[s] = counts.get(s, 0) + 1
    if not counts:
        return ""
    parts = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
    return f"{STATUS_NOTE}: {parts} (listed in the table, never drawn as zero)"


def compute_heavy(cases):
    """True when the median case does more than 4 flops per byte: plot GFLOP/s, not GB/s."""
    ai = sorted(c.intensity or 0.0 for c in cases)
    return bool(ai) and ai[len(ai) // 2] > 4
