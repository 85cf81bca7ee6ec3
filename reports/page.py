"""The report page: one self-contained index.html (inline CSS, relative links to plots/), with
the runs' fingerprints, the cases that did not pass, and each plot beside its table."""

from html import escape
from figures import fmt_time

CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { margin-bottom: 0.2em; } h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
.meta { color: #555; }
.figrow { display: flex; flex-wrap: wrap; gap: 1.5em; align-items: flex-start; margin: 1em 0 2em; }
figure { margin: 0; flex: 0 1 auto; max-width: 60em; }
figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { font-size: 0.9em; color: #444; }
.note { font-size: 0.85em; color: #8a5a00; }
.tablewrap { flex: 1 1 26em; max-height: 36em; overflow: auto; }
table { border-collapse: collapse; font-size: 0.8em; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; position: sticky; top: 0; }
td.ok { color: #1a7f37; } td.bad { color: #fff; background: #c62828; } td.na { color: #555; background: #eee; }
img.broken { outline: 4px solid red; }
#imgcheck { font-size: 0.8em; color: #777; }
"""

CHECK_JS = """
window.addEventListener('load', function () {
  var imgs = document.querySelectorAll('img.plot'), ok = 0;
  imgs.forEach(function (i) {
    if (i.complete && i.naturalWidth > 0) { ok++; } else { i.classList.add('broken'); }
  });
  document.body.setAttribute('data-images-ok', String(ok));
  document.body.setAttribute('data-images-total', String(imgs.length));
  document.getElementById('imgcheck').textContent = ok + ' of ' + imgs.length + ' plots loaded';
});
"""


def _cell(c, tag="td"):
    if isinstance(c, tuple):
        text, cls = c
        return f'<{tag} class="{escape(cls)}">{escape(str(text))}</{tag}>'
    return f"<{tag}>{escape(str(c))}</{tag}>"


def table(headers, rows):
    head = "".join(_cell(h, "th") for h in headers)
    body = "\n".join("<tr>" + "".join(_cell(c) for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>\n{body}\n</tbody></table>"


def figure(f):
    parts = ['<div class="figrow">']
    if f.png:
        parts.append(f'<figure><img class="plot" src="{escape(f.png)}" alt="{escape(f.title)}" loading="eager">'
                     f'<figcaption>{escape(f.title)} &middot; <a href="{escape(f.svg)}">SVG</a> &middot; '
                     f'<a href="{escape(f.png)}">PNG</a>')
    else:
        parts.append(f"<figure><figcaption><b>{escape(f.title)}</b>: no plot")
    if f.note:
        parts.append(f'<div class="note">{escape(f.note)}</div>')
    parts.append("</figcaption></figure>")
    if f.rows:
        parts.append(f'<div class="tablewrap">{table(f.headers, f.rows)}</div>')
    parts.append("</div>")
    return "\n".join(parts)


def _status_counts(run):
    counts = {}
    for c in run.cases:
        counts[c.status] = counts.get(c.status, 0) + 1
    return ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "no cases"


def runs_table(runs, current_cases=()):
    shown = {}
    for c in current_cases:
        shown[id(c.run)] = shown.get(id(c.run), 0) + 1
    rows = []
    for r in sorted(runs, key=lambda r: (r.hostname, r.created_utc)):
        devices = "; ".join(f"{d.get('id', '?')}: {d.get('name', '')} ({d.get('driver', '') or d.get('runtime', '')})"
                            for d in r.devices.values())
        build = " ".join(f"{k}={v}" for k, v in sorted(r.build.items()))
        rows.append([r.hostname, r.name, r.created_utc, f"{r.version} {r.git_commit}", build,
                     str(r.config.get("preset", "")), r.system.get("cpu_model", ""), devices, _status_counts(r),
                     f"{shown.get(id(r), 0)} of {len(r.cases)}"])
    return table(["host", "file", "created (UTC)", "xpubench", "build", "preset", "CPU", "devices", "cases",
                  "in the plots"], rows)


def problems_table(cases):
    """Failed and errored cases in full; unsupported and skipped ones (many on a software device,
    each with its reason) folded under a summary line, so that they do not push the plots down."""
    bad = [c for c in cases if c.status != "ok"]
    if not bad:
        return "<p>Every case validated.</p>"
    cls = {"failed-validation": "bad", "error": "bad"}
    headers = ["host", "file", "case", "device", "variant", "status", "reason"]
    rows = lambda cs: [[c.run.hostname, c.run.name, c.id, c.device, c.variant, (c.status, cls.get(c.status, "na")),
                        c.message] for c in sorted(cs, key=lambda c: (c.status, c.id))]
    failed = [c for c in bad if c.status in cls]
    other = [c for c in bad if c.status not in cls]
    out = [table(headers, rows(failed)) if failed else "<p>No case failed or errored.</p>"]
    if other:
        out.append(f"<details><summary>{len(other)} unsupported or skipped case(s), with the reason for each"
                   f"</summary>{table(headers, rows(other))}</details>")
    return "\n".join(out)


def _headline(c):
    """The figure a case is judged by: GFLOP/s for GEMM, else GB/s, with its % of the roof."""
    if c.op in ("gemm", "gemv") and c.gflops:
        pct = c.pct_of_library if c.pct_of_library else None
        return f"{c.gflops / 1e3:.3g} TFLOP/s", f"{pct:.0f}% of {c.library_variant}" if pct else "-"
    if c.gbps:
        return f"{c.gbps:.4g} GB/s", f"{c.pct_of_roof:.0f}%" if c.pct_of_roof else "-"
    if c.outcome is not None and c.outcome.burst is not None and c.outcome.burst.per_burst["median"]:
        return f"{c.outcome.burst.per_burst['median'] * 1e6:.3g} us/burst", "-"
    return fmt_time(c.median_s), "-"


def summary(cases):
    """Per device: the counts of ok, failed, unsupported, ... cases, and per op the headline figure
    of its largest case that passed (the one that measures the memory or the math units), in fp32
    where the op has an fp32 result."""
    by_dev = {}  # the device's name too: two machines may share a host name and a label ("vulkan:0")
    for c in cases:
        by_dev.setdefault((c.run.hostname, c.device, c.device_name), []).append(c)
    out = []
    for (host, dev, _), cs in sorted(by_dev.items()):
        counts = {}
        for c in cs:
            counts[c.status] = counts.get(c.status, 0) + 1
        name = cs[0].run.device_label(dev)
        out.append(f"<h3>{escape(host)}: {escape(name)}</h3><p>"
                   + escape(", ".join(f"{n} {s}" for s, n in sorted(counts.items()))) + "</p>")
        best = {}
        strict = {(c.workload, c.op) for c in cs if c.timed_ok and c.precision in ("fp32", "exact")}
        for c in cs:  # a lower precision (tf32, fp16 inputs) never stands for an op that has an fp32 figure
            if not c.timed_ok or ((c.workload, c.op) in strict and c.precision not in ("fp32", "exact")):
                continue
            size = c.elements or 0
            k = (c.workload, c.op)
            if k not in best or size > (best[k].elements or 0) or (
                    size == (best[k].elements or 0) and (c.gflops or c.gbps or 0) > (best[k].gflops or best[k].gbps or 0)):
                best[k] = c
        rows = []
        for (wl, op), c in sorted(best.items()):
            figure_, roof = _headline(c)
            rows.append([wl, op, c.id.split("/", 2)[-1], c.variant, fmt_time(c.median_s), figure_, roof])
        if rows:
            out.append(table(["workload", "op", "largest case", "variant", "median", "headline", "% of roof / library"],
                             rows))
    return "\n".join(out)


def render(title, runs, current_cases, sections):
    """The whole page. sections: list of (heading, intro, [Figure])."""
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{escape(title)}</title><style>{CSS}</style></head><body>",
           f"<h1>{escape(title)}</h1>",
           f'<p class="meta">{len(runs)} results file(s). Plots and tables show the current results of each host: '
           f'for every case, device and variant, the result from the newest file that has it (files that '
           f'cover different workloads combine; "in the plots" below counts what each file contributes). '
           f'<span id="imgcheck"></span></p>', "<h2>Summary</h2>",
           "<p>Per device: how many cases passed, and per op the headline figure of its largest case that "
           "passed (the fastest fp32 variant there, when the op has one; GEMM against the library call of its "
           "precision).</p>",
           summary(current_cases), "<h2>Runs</h2>", runs_table(runs, current_cases),
           "<h2>Cases that did not pass</h2>",
           "<p>Failed, unsupported, errored and skipped cases have no speed: they are listed here and in "
           "the tables, never drawn as zero.</p>", problems_table(current_cases)]
    toc = "".join(f'<li><a href="#s{i}">{escape(h)}</a> ({len(figs)})</li>' for i, (h, _, figs) in enumerate(sections))
    out.append(f"<h2>Contents</h2><ul>{toc}</ul>")
    for i, (heading, intro, figs) in enumerate(sections):
        out.append(f'<h2 id="s{i}">{escape(heading)}</h2>')
        if intro:
            out.append(f"<p>{escape(intro)}</p>")
        if not figs:
            out.append("<p>Nothing to show for these results.</p>")
        out.extend(figure(f) for f in figs)
    out.append(f"<script>{CHECK_JS}</script></body></html>")
    return "\n".join(out)
