"""The report page: one self-contained index.html (inline CSS, relative links to plots/), with
the runs' fingerprints, the cases that did not pass, and each plot beside its table."""

from html import escape

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
    bad = [c for c in cases if c.status != "ok"]
    if not bad:
        return "<p>Every case validated.</p>"
    cls = {"failed-validation": "bad", "error": "bad"}
    rows = [[c.run.hostname, c.run.name, c.id, c.device, c.variant, (c.status, cls.get(c.status, "na")), c.message]
            for c in sorted(bad, key=lambda c: (c.status, c.id))]
    return table(["host", "file", "case", "device", "variant", "status", "reason"], rows)


def render(title, runs, current_cases, sections):
    """The whole page. sections: list of (heading, intro, [Figure])."""
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{escape(title)}</title><style>{CSS}</style></head><body>",
           f"<h1>{escape(title)}</h1>",
           f'<p class="meta">{len(runs)} results file(s). Plots and tables show the current results of each host: '
           f'for every case, device and variant, the result from the newest file that has it (files that '
           f'cover different workloads combine; "in the plots" below counts what each file contributes). '
           f'<span id="imgcheck"></span></p>', "<h2>Runs</h2>", runs_table(runs, current_cases),
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
