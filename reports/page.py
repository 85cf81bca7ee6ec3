"""The report page: one self-contained index.html (inline CSS, relative links to plots/), with
the runs' fingerprints, the cases that did not pass, and each plot beside its table."""

from html import escape

import summary
from htmltable import table

CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { margin-bottom: 0.2em; } h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
.meta { color: #555; }
.partial { border: 2px solid #c62828; background: #fdecea; color: #8e0000; padding: 0.5em 0.8em; font-size: 1.1em; }
.presetnote { border-left: 4px solid #8a5a00; background: #fff8e6; padding: 0.3em 0.8em; }
.figrow { display: flex; flex-wrap: wrap; gap: 1.5em; align-items: flex-start; margin: 1em 0 2em; }
figure { margin: 0; flex: 0 1 auto; min-width: 0; max-width: min(60em, 100%); }
figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { font-size: 0.9em; color: #444; }
.note { font-size: 0.85em; color: #8a5a00; }
/* a table sits beside its plot when it fits there whole (its own width is the flex basis), else it
   wraps below it; wider than the page, it scrolls inside its box: a column is never cut off */
.tablewrap { flex: 1 1 auto; min-width: 0; max-width: 100%; max-height: 36em; overflow: auto; }
.scroll { max-width: 100%; overflow-x: auto; }
.scrolls { border-right: 3px double #888; }
.scrollhint { font-size: 0.75em; color: #777; }
table { border-collapse: collapse; font-size: 0.8em; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; position: sticky; top: 0; }
td.ok { color: #1a7f37; } td.bad { color: #fff; background: #c62828; } td.na { color: #555; background: #eee; }
td.beyond { background: #fff4d6; cursor: help; }
.headlines td::first-line { font-weight: 600; }
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

# The page checks its own layout at this window's width, so that a test (tests/reports/report_chromium.sh)
# can assert it: every table either fits in the visible area of its container or scrolls inside
# its own box, that box fits in the window and takes the whole row (a table squeezed into a
# scrolling box beside its plot looks cut off: its place is below the plot), and the page itself
# never scrolls sideways. Folded
# tables (<details>) are opened for the measurement. Sets data-layout-* on <body>; marks each box
# that scrolls, with a hint above it.
LAYOUT_JS = """
window.addEventListener('load', function () {
  var vw = document.documentElement.clientWidth, bad = [], scrolling = 0;
  var folded = Array.prototype.filter.call(document.querySelectorAll('details'), function (d) { return !d.open; });
  folded.forEach(function (d) { d.open = true; });
  function scrollBox(el) {
    for (var b = el.parentElement; b && b !== document.body; b = b.parentElement) {
      var o = getComputedStyle(b).overflowX;
      if (o === 'auto' || o === 'scroll') { return b; }
    }
    return null;
  }
  var tables = document.querySelectorAll('table');
  tables.forEach(function (t, i) {
    var box = scrollBox(t), r = t.getBoundingClientRect(), name = 'table ' + i + ' (' + (t.rows[0] ? t.rows[0].textContent.slice(0, 40) : '') + ')';
    if (box) {
      var b = box.getBoundingClientRect();
      if (b.left < -0.5 || b.right > vw + 0.5) { bad.push(name + ': its scroll box ends at ' + Math.round(b.right) + ' px'); }
      var row = box.parentElement, rs = getComputedStyle(row);
      var room = row.clientWidth - parseFloat(rs.paddingLeft) - parseFloat(rs.paddingRight);
      if (box.scrollWidth > box.clientWidth + 1 && b.width < room - 2) {
        // it scrolls though the row has room: squeezed beside its plot, its last columns hidden
        bad.push(name + ': scrolls in a box of ' + Math.round(b.width) + ' px in a row of ' + Math.round(room) + ' px');
      }
      if (box.scrollWidth > box.clientWidth + 1 && !box.classList.contains('scrolls')) {
        scrolling++;
        box.classList.add('scrolls');
        var hint = document.createElement('div');
        hint.className = 'scrollhint';
        hint.textContent = 'wider than the window: scroll sideways for ' + (box.scrollWidth - box.clientWidth) + ' px more';
        box.parentElement.insertBefore(hint, box);
      }
    } else {
      var p = t.parentElement.getBoundingClientRect();
      if (r.right > Math.min(p.right, vw) + 0.5) { bad.push(name + ': ends at ' + Math.round(r.right) + ' px without a scroll box'); }
    }
  });
  document.querySelectorAll('.figrow > figure').forEach(function (f, i) {
    if (f.getBoundingClientRect().right > vw + 0.5) { bad.push('figure ' + i + ' ends past the window'); }
  });
  var page = document.documentElement.scrollWidth;
  if (page > vw + 1) { bad.push('the page is ' + page + ' px wide in a ' + vw + ' px window'); }
  folded.forEach(function (d) { d.open = false; });
  var body = document.body;
  body.setAttribute('data-layout-width', String(vw));
  body.setAttribute('data-layout-tables', String(tables.length));
  body.setAttribute('data-layout-scrolling', String(scrolling));
  body.setAttribute('data-layout-overflow', String(bad.length));
  body.setAttribute('data-layout-detail', bad.slice(0, 5).join('; '));
});
"""


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
        parts.append(table(f.headers, f.rows, box="tablewrap"))
    parts.append("</div>")
    return "\n".join(parts)


def _status_counts(run):
    counts = {}
    for c in run.cases:
        counts[c.status] = counts.get(c.status, 0) + 1
    text = ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "no cases"
    return text if run.complete else (f"{text}; partial run", "bad")


def _presets(run):
    """The run's preset, and each device that ran another one."""
    own = str(run.config.get("preset", "") or "")
    other = [f"{d}: {p}" for d, p in sorted(run.presets.items()) if p != own]
    return "; ".join([own] + other if own else other) or "-"


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
                     _presets(r), r.system.get("cpu_model", ""), devices, _status_counts(r),
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


def render(title, runs, current_cases, sections):
    """The whole page. sections: list of (heading, intro, [Figure])."""
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{escape(title)}</title><style>{CSS}</style></head><body>",
           f"<h1>{escape(title)}</h1>", summary.partial_banners(runs),
           f'<p class="meta">{len(runs)} results file(s). Plots and tables show the current results of each host: '
           f'for every case, device and variant, the result from the newest file that has it (files that '
           f'cover different workloads combine; "in the plots" below counts what each file contributes). '
           f'<span id="imgcheck"></span></p>', summary.render(runs, current_cases),
           "<h2>Runs</h2>", runs_table(runs, current_cases),
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
    out.append(f"<script>{CHECK_JS}{LAYOUT_JS}</script></body></html>")
    return "\n".join(out)
