#!/usr/bin/env bash
# report_stateful.sh XPUBENCH WORKDIR - a stateful workload (anneal) through run, compare and
# report: a real quick CPU run writes each op's time in every breakdown run (run.ops[].per_run);
# a small burst run goes into the report too;
# compare of the run with itself flags nothing and names the iteration counts; the report draws
# energy against iteration and the per-op stacked bars for a synthetic two-device file and the
# real one; a bad run object is one line and exit 2. Skipped (77) without the Python
# environment (scripts/report-env.sh).
set -u
bin=$1 work=$2
. "$(dirname "$0")/report_lib.sh"

# a real run: the breakdown repeated, its samples in the file
OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} "$bin" run --workload anneal --preset quick --backend cpu --min-time 0.002 \
  --out real.json >run.txt 2>&1 && ok || bad "anneal quick run failed: $(tail -5 run.txt)"
"$py" - <<'PY' && ok || bad "per-op samples in the real results file"
import json
cases = [c for c in json.load(open("real.json"))["cases"] if c.get("status") == "ok" and "run" in c]
assert cases, "no timed anneal case"
for c in cases:
    r = c["run"]
    runs = r["breakdown_runs"]
    assert runs >= 1 and r["ops"], r
    for o in r["ops"]:
        p = o["per_run"]
        assert p["n"] == runs == len(p["samples_s"]) and p["median_s"] == o["seconds"], (c["id"], o)
        assert all(s > 0 for s in p["samples_s"]) and "cv" in p and "p95_s" in p, o
PY
"$bin" compare real.json real.json >cmp.txt 2>&1; rc=$?
[ $rc -eq 0 ] && ok || bad "compare of a run with itself: exit $rc"
grep -qE "^anneal/compress/.* cpu:0 [a-z]+: iterations ([0-9]+) -> \1," cmp.txt && ok || bad "no iteration counts: $(cat cmp.txt)"
grep -qE "^  assign " cmp.txt && ! grep -q "slower (" cmp.txt && ok || bad "per-op rows or a 'slower': $(cat cmp.txt)"

# a burst run: its rate is events/s, so its throughput section is a table in its own units (time per
# run and burst, events/s), not an empty plot or a GB/s of 0 (UserWarnings, matplotlib's included,
# are errors here: an empty legend was one); the anneal runs likewise (per run, iterations)
OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} "$bin" run --workload burst --size neurons=1000,fanout=10,bursts=20 --backend cpu \
  --min-time 0.002 --out burst.json >burst.txt 2>&1 && ok || bad "burst run failed: $(tail -5 burst.txt)"

# the report: both plots for every stateful case id, tables beside them
"$py" "$here/synth_results.py" synth.json --anneal-only --op-shift assign=1.2 || exit 1
PYTHONWARNINGS=error::UserWarning "$bin" report synth.json real.json burst.json -o report >out.txt 2>err.txt && ok ||
  bad "report failed: $(cat out.txt err.txt)"
"$py" - <<'PY' && ok || bad "burst/run and anneal/compress not in their own units"
import re
html = open("report/index.html", encoding="utf-8").read()
for op, cols in (("burst/run", "<th>us per burst</th><th>events/s</th>"), ("anneal/compress", "<th>iterations</th>")):
    i = html.index(f"<b>{op}: time per run</b>")
    head = html[html.index("<thead>", i):html.index("</thead>", i)]
    assert cols in head and "GB/s" not in head and "% of roof" not in head, (op, head)
summary = html[:html.index("<h2>Runs</h2>")]
assert "per burst" in summary and "events/s" in summary and "per run, " in summary, "stateful headlines"
assert not re.search(r"GB/s\b[^<]*<br>(run|compress) ", summary), "a stateful headline in GB/s"
PY
"$py" - <<'PY' && ok || bad "stateful plots in the report"
import json, os, re
html = open("report/index.html", encoding="utf-8").read()
imgs = re.findall(r'<img class="plot" src="([^"]+)"', html)
ids = {c["id"] for f in ("synth.json", "real.json") for c in json.load(open(f))["cases"] if "run" in c}
assert len(ids) >= 2, ids
for cid in ids:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", cid).strip("_")
    for kind in ("energy", "ops"):
        src = f"plots/{kind}_{slug}.png"
        assert src in imgs, (src, imgs)
        assert os.path.getsize(os.path.join("report", src)) > 1000, src
        assert "<svg" in open(os.path.join("report", src[:-4] + ".svg"), encoding="utf-8").read(), src
for text in ("Stateful runs: energy against iteration", "Stateful runs: time per op", "reference energy",
             "breakdown runs", "assign (share)", "whole run (timed)", "device to host, in the run"):
    assert text in html, text
assert "nan" not in re.sub(r"<[^>]+>", " ", html).lower().split(), "a NaN in a table"
PY
# without run objects (a version 1 file) the sections are left out
"$py" -c "import json; d = json.load(open('synth.json')); [c.pop('run') for c in d['cases']]; d['schema_version'] = 1
json.dump(d, open('plain.json', 'w'))" || exit 1
"$bin" report plain.json -o plain >/dev/null 2>&1 && ! grep -q "Stateful runs" plain/index.html && ok ||
  bad "stateful sections in a report without stateful cases"
# a malformed run object: one line naming the field, exit 2
"$py" - <<'PY' || exit 1
import json
d = json.load(open("synth.json"))
next(c for c in d["cases"] if "run" in c)["run"]["trajectory"]["energy"] = ["high", "low"]
json.dump(d, open("broken.json", "w"))
PY
"$bin" report broken.json -o broken >/dev/null 2>err.txt; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -q "run.trajectory.energy: expected an array of numbers" err.txt &&
  ok || bad "broken run object: exit $rc $(cat err.txt)"
finish
