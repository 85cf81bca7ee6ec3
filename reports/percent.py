"""Shares of a roof, a peak or a library as table cells that cannot mislead. A share above 100%
says why in place (a marker, a tooltip and a footnote under the table): a working set that fits
in the last-level cache beats the DRAM copy roof, tensor cores beat the fp32 peak, and a measured
roof is a measurement, not a limit. A library variant is never "100% of" itself."""

from figures import fmt_num

MIB = float(1 << 20)
BEYOND = "beyond"  # the CSS class of a marked cell; footnote() finds the markers by it

CACHE, BEATS, TENSOR, ESTIMATE = "cache-resident", "beats the copy", "tensor cores", "peak estimate"
REASONS = {
    CACHE: "the working set fits in the last-level cache, so it beats the DRAM copy roof",
    BEATS: "the working set is larger than the last-level cache, but the roof is the best copy this run "
           "measured, not a hardware limit: an op that reads more than it writes can move data faster than "
           "the copy did",
    TENSOR: "tensor cores (tf32, fp16 inputs) are not bound by the fp32 peak",
    ESTIMATE: "the fp32 peak is an estimate (datasheet, or the measured multiply-add rate), not a limit",
}


def _why_bandwidth(case):
    """(tag, tooltip) for a bandwidth share above 100%: decided by the working set against the
    device's last-level cache when the file knows it, else taken as cache-resident."""
    cache = case.run.cache_bytes(case.device)
    ws = case.bytes
    if not cache:
        return CACHE, (f"{CACHE}: {REASONS[CACHE]} (the device reports no cache size: taken as cache-resident "
                       "because it beats the roof)")
    sizes = f"working set {ws / MIB:.4g} MiB, last-level cache {cache / MIB:.4g} MiB"
    tag = CACHE if ws and ws <= cache else BEATS
    return tag, f"{tag}: {REASONS[tag]} ({sizes})"


def _why_peak(case):
    if case.precision and case.precision not in ("fp32", "exact", "fp64"):
        return TENSOR, f"{TENSOR}: {REASONS[TENSOR]} (precision {case.precision})"
    return ESTIMATE, f"{ESTIMATE}: {REASONS[ESTIMATE]}"


def share(case, pct, of="roof", text=None):
    """A cell for pct % of the bandwidth roof (of="roof") or of the fp32 peak (of="peak"): the
    number (text, else fmt_num), or over 100 the number with its marker, a CSS class and the
    reason as a tooltip."""
    if pct is None:
        return "-"
    text = text or fmt_num(pct)
    if pct <= 100:
        return text
    tag, why = _why_peak(case) if of == "peak" else _why_bandwidth(case)
    return (f"{text} ({tag})", BEYOND, why)


def library(case, text=None):
    """A cell for throughput.pct_of_library: "is the library" for the library variant itself,
    else "<pct> of <device>/<variant>"; "-" without one."""
    pct = case.pct_of_library
    if pct is None or not case.library_variant:
        return "-" if pct is None else (text or fmt_num(pct))
    if case.library_variant == f"{case.device}/{case.variant}":
        return "is the library"
    return f"{text or fmt_num(pct)} of {case.library_variant}"


def footnote(rows):
    """The meaning of every marker used in rows ('' when none): one sentence per marker."""
    tags = sorted({c[0].rsplit("(", 1)[1].rstrip(")") for r in rows for c in r
                   if isinstance(c, tuple) and len(c) == 3 and c[1] == BEYOND})
    return "; ".join(f"({t}) {REASONS[t]}" for t in tags)
