#!/usr/bin/env python3
"""report_summary_check.py INDEX.html - checks what the report promises a newcomer (docs/reports.md,
"The opening summary"), on the report that tests/reports/report_html.sh writes (its h100.json is real H100
results made a partial run, with vulkan:0 on the quick preset):

- the partial-run banner and the preset note come before the summary, the summary (devices, counts,
  headlines) before any plot;
- no share of a roof or peak above 100% without its marker and reason;
- a library variant is never a percentage of itself;
- stateful runs (anneal, burst) are given in their own units, never as GB/s or a GB/s of 0.
Standard library only; exit 1 naming each failure.
"""

import re
import sys
from html.parser import HTMLParser


class Tables(HTMLParser):
    """Every <table>: its header texts and rows of (text, attributes) cells."""

    def __init__(self):
        super().__init__()
        self.tables, self.cell, self.attrs = [], None, {}

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append({"headers": [], "rows": []})
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append([])
        elif tag in ("td", "th"):
            self.cell, self.attrs = [], dict(attrs)
        elif tag == "br" and self.cell is not None:
            self.cell.append("\n")

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)

    def handle_endtag(self, tag):
        if tag == "tr" and self.tables and not self.tables[-1]["rows"][-1]:
            self.tables[-1]["rows"].pop()  # the header row
        if tag in ("td", "th") and self.cell is not None:
            text = "".join(self.cell).strip()
            if tag == "th":
                self.tables[-1]["headers"].append(text)
            else:
                self.tables[-1]["rows"][-1].append((text, self.attrs))
            self.cell = None


def problems(html):
    fails = []
    first_img = html.find("<img")
    pos = lambda s: html.find(s) if s in html else len(html) + 1  # noqa: E731
    banner = "partial run: interrupted by SIGTERM after 57 of 137 cases"
    if pos(banner) > pos("<h2>Summary</h2>"):
        fails.append(f"no '{banner}' above the summary")
    if "vulkan:0 ran the quick preset: a test of the note." not in html:
        fails.append("no preset note")
    if not (pos("<h2>Summary</h2>") < pos("<h3>Headlines</h3>") < first_img):
        fails.append("the summary and its headlines do not come before the first plot")

    p = Tables()
    p.feed(html)
    devices = next((t for t in p.tables if t["headers"][:4] == ["host", "device", "name", "preset"]), None)
    if not devices or not {"ok", "failed validation", "unsupported", "error"} <= set(devices["headers"]):
        fails.append("no devices table with the counts per status")
    elif not any(r[1][0] == "vulkan:0" and r[3][0] == "quick" for r in devices["rows"]):
        fails.append("vulkan:0's own preset (quick) is not in the devices table")
    heads = next((t for t in p.tables if t["headers"][:1] == ["device"] and "anneal" in t["headers"]), None)
    if not heads:
        fails.append("no headlines table with an anneal column")
    else:
        for name, want in (("anneal", ("per run", "iterations")), ("burst", ("s per burst", "events/s")),
                           ("gemm", ("FLOP/s",)), ("elementwise", ("GB/s",))):
            col = heads["headers"].index(name)
            cells = [r[col][0] for r in heads["rows"] if r[col][0] != "-"]
            if not cells or not all(all(w in c for w in want) for c in cells):
                fails.append(f"headline {name}: want {want} in every cell, got {cells}")
            if name in ("anneal", "burst") and any("GB/s" in c or "% of" in c for c in cells):
                fails.append(f"headline {name} in GB/s or a share of the roof: {cells}")

    marked = set()
    for t in p.tables:
        for k, h in enumerate(t["headers"]):
            share_col = h.startswith("% of roof") or h == "% of fp32 peak"
            for r in t["rows"]:
                if k >= len(r):
                    continue
                text, attrs = r[k]
                nums = ([float(m) for m in re.findall(r"([\d.]+)% of (?:roof|fp32 peak)", text)] if not share_col else
                        [float(m) for m in re.findall(r"^([\d.]+)", text)])
                if re.search(r"% of [a-z]+:\d+/", text):  # a library's share: above 100% it beats the library
                    nums = []
                if any(v > 100 for v in nums):
                    if attrs.get("class") != "beyond" or not attrs.get("title") or "(" not in text:
                        fails.append(f"a bare share above 100%: '{text}' under '{h}'")
                    marked |= set(re.findall(r"\(([a-z -]+)\)", text))
                if h == "GB/s" and text == "0":
                    fails.append(f"a GB/s of 0 in a table headed {t['headers']}")
                if h == "% of library":
                    dev, var = r[t["headers"].index("device")][0], r[t["headers"].index("variant")][0]
                    if text.endswith(f" of {dev}/{var}"):
                        fails.append(f"{dev}/{var} compared with itself: '{text}'")
        if t["headers"][:5] == ["size", "device", "variant", "status", "per run"] and "GB/s" in t["headers"]:
            fails.append("a stateful table with a GB/s column")
    for want in ("cache-resident", "tensor cores"):
        if want not in marked:
            fails.append(f"no share marked '{want}' (the H100 CPU copy at 2^20, cuBLAS tf32 at 4096)")
    if "is the library" not in html or re.search(r"100% of (cpu:0/blas|cuda:0/cublas)\b", html):
        fails.append("the library variant is not shown as 'is the library'")
    if not any(t["headers"][:5] == ["size", "device", "variant", "status", "per run"] and "iterations" in t["headers"]
               for t in p.tables):
        fails.append("no anneal table in its own units (per run, iterations)")
    return fails


def main():
    html = open(sys.argv[1], encoding="utf-8").read()
    fails = problems(html)
    for f in fails:
        print(f"FAIL: {f}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
