#!/usr/bin/env bash
# report_html.sh XPUBENCH WORKDIR - `xpubench report` on synthetic results holding failed,
# unsupported, errored and skipped cases, three runs of one host (history) and a second host,
# plus a small real CPU run and a partial run made of real H100 results: the folder has
# index.html, a PNG and an SVG for every plot, the failed cases appear as such, and the opening
# summary says what a newcomer needs (report_summary_check.py). Skipped (77) when the Python environment is missing
# (scripts/report-env.sh creates it). report_chromium.sh then opens the result in a browser.
set -u
bin=$1 work=$2
. "$(dirname "$0")/report_lib.sh"
s="$py $here/synth_results.py"
$s run1.json --created 2026-11-20T06:00:00Z --fail-case elementwise/add/n=1048576/fp32 &&
$s run2.json --created 2026-11-21T06:00:00Z --shift 1.04 --seed 2 &&
$s run3.json --created 2026-11-22T06:00:00Z --shift 0.97 --seed 3 --problems &&
$s other.json --host otherbox --gpu "Other GPU" --shift 0.6 --seed 4 || exit 1
OMP_NUM_THREADS=2 "$bin" run --backend cpu --size n=4096,rows=16,cols=64 --min-time 0.002 --out real.json \
  >/dev/null 2>&1 && ok || bad "a small real run failed"

# real H100 results (results/h100), a few ops of each workload in one file, made a partial run of
# two presets: the opening summary, the stateful units, the >100% marks and the library rows
"$py" - "$root/results/h100" <<'PY' || exit 1
import json, lzma, os, sys
d = sys.argv[1]
# a large results file is kept xz-compressed (results/README.md)
load = lambda f: json.load(open(f"{d}/{f}") if os.path.exists(f"{d}/{f}") else lzma.open(f"{d}/{f}.xz", "rt"))
doc = load("2026-11-22-gemm.json")
keep = lambda c: (c["op"] in ("copy", "add") or c["op"] == "gemm" and c["params"].get("m") in (1024, 4096)
                  and c["variant"] in ("blas", "cublas", "cublas-tf32", "tiled"))
cases = [c for c in load("2026-11-22-elementwise.json")["cases"] + doc["cases"] if keep(c)]
cases += load("2026-11-23-anneal-default.json")["cases"]
cases += [c for c in load("2026-11-23-s5-burst-default.json")["cases"] if "hubs" not in c["id"] and "batched" not in c["id"]]
doc.update(cases=cases, complete=False, preset_note="vulkan:0 ran the quick preset: a test of the note.",
           interrupted={"signal": "SIGTERM", "cases_finished": 57, "cases_planned": 137})
doc["run_id"] += "-partial"
next(x for x in doc["system"]["devices"] if x["id"] == "vulkan:0")["preset"] = "quick"
json.dump(doc, open("h100.json", "w"))
PY
PYTHONWARNINGS=error::UserWarning "$bin" report run1.json run2.json run3.json other.json real.json h100.json -o report \
  --title "xpubench test report" >out.txt 2>err.txt && ok || bad "report failed: $(cat out.txt err.txt)"
grep -q "wrote report/index.html" out.txt && ok || bad "no 'wrote' line: $(cat out.txt)"
"$py" - <<'PY' && ok || bad "report contents"
import os, re
html = open("report/index.html", encoding="utf-8").read()
imgs = re.findall(r'<img class="plot" src="([^"]+)"', html)
assert len(imgs) >= 20, f"only {len(imgs)} plots"
for src in imgs:
    assert os.path.getsize(os.path.join("report", src)) > 1000, src
    svg = os.path.join("report", src[:-4] + ".svg")
    assert "<svg" in open(svg, encoding="utf-8").read(), svg
kinds = {re.match(r"plots/([a-z]+)_", s).group(1) for s in imgs}
assert kinds >= {"throughput", "speedup", "roofline", "validation", "timing", "history"}, kinds
for status in ("failed-validation", "unsupported", "error", "skipped"):
    assert f">{status}" in html, status
assert "cudaMalloc: out of memory" in html and "the cuda backend has no kernel for rope" in html
assert "never drawn as zero" in html
assert "nan" not in re.sub(r"<[^>]+>", " ", html).lower().split(), "a NaN in a table"
assert not os.listdir("report/plots") or all(f.endswith((".png", ".svg")) for f in os.listdir("report/plots"))
PY
"$py" "$here/report_summary_check.py" report/index.html && ok || bad "the opening summary"
# a bad results file: one line, exit 2, no traceback; matplotlib missing: exit 3 naming report-env.sh
printf '{"schema": "xpubench-results", "schema_version": 1, "cases": [{"id": 1' >trunc.json
"$bin" report run1.json trunc.json -o r2 >/dev/null 2>err.txt; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -q "trunc.json: truncated" err.txt && ok || bad "truncated: exit $rc $(cat err.txt)"
"$py" -c "import json; d = json.load(open('run1.json')); d['complete'] = 'no'; json.dump(d, open('badpartial.json', 'w'))"
"$bin" report badpartial.json -o r2 >/dev/null 2>err.txt; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -q "badpartial.json: complete: expected true or false" err.txt && ok ||
  bad "a 'complete' that is not a boolean: exit $rc $(cat err.txt)"
"$py" "$root/reports/report.py" trunc.json -o r2 >/dev/null 2>err.txt; rc=$?
[ $rc -eq 2 ] && ! grep -q Traceback err.txt && ok || bad "report.py on a truncated file: exit $rc $(cat err.txt)"
python_nompl=$(command -v python3)
if ! "$python_nompl" -c "import matplotlib" 2>/dev/null; then
  XPB_PYTHON=$python_nompl "$bin" report run1.json -o r3 >/dev/null 2>err.txt; rc=$?
  [ $rc -eq 3 ] && grep -q "scripts/report-env.sh" err.txt && ok || bad "no matplotlib: exit $rc $(cat err.txt)"
fi
finish
