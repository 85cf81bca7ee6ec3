#!/usr/bin/env bash
# plugins_gemm.sh XPUBENCH EXAMPLE_SO OUTDIR - GEMM and GEMV from a plugin library (docs/plugins.md,
# "GEMM and GEMV"): the example's correct kernel (examples/plugins/cpu_gemm) passes every
# conformance case of both ops, alpha/beta with c_in included, and its k loop one short
# (example-lastk) fails validation, in the same results as the built-in variants; the quick preset
# times it (GFLOP/s derived as for a built-in variant), and under --isolate it runs in the child.
set -u
bin=$1 good=$2 out=$3
py=python3
# shellcheck source=plugins_lib.sh
. "$(dirname "$0")/plugins_lib.sh"

# 1. both example variants beside the built-in ones, every conformance case, validated only:
#    the wrong one fails validation (exit 1)
expect 1 conf run --backend cpu --workload gemm --preset conformance --validate-only --kernels "$good" --out "$out/conf.json"
"$py" - "$out/conf.json" "$good" <<'PY' || fail=1
import json, os, sys
res = json.load(open(sys.argv[1]))
lib = os.path.realpath(sys.argv[2])
bad = []
by = {}
for c in res["cases"]:
    by.setdefault((c["op"], c["variant"]), []).append(c)
for op in ("gemm", "gemv"):
    good, wrong = by.get((op, "example"), []), by.get((op, "example-lastk"), [])
    ref = max((v for (o, var), v in by.items() if o == op and "plugin" not in v[0]), key=len, default=[])
    if not good or len(good) != len(ref) or len(wrong) != len(ref):
        bad.append("%s: example %d, example-lastk %d, built-in %d cases: every variant must run every case"
                   % (op, len(good), len(wrong), len(ref)))
    if op == "gemm" and not any(c["params"].get("axpby") and c["status"] == "ok" for c in good):
        bad.append("gemm: no alpha/beta case (axpby=1, c_in read) passed")
    bad += ["%s example: %s is %s: %s" % (op, c["id"], c["status"], c.get("message", "")) for c in good if c["status"] != "ok"]
    if not any(c["status"] == "failed-validation" for c in wrong):
        bad.append("%s: example-lastk passed every case; the checker must reject it" % op)
    if any(c.get("plugin") != lib for c in good + wrong):
        bad.append("%s: cases' \"plugin\" field is not the library's path" % op)
    print("%s: %d example cases ok, %d of %d example-lastk failed validation" %
          (op, sum(c["status"] == "ok" for c in good), sum(c["status"] == "failed-validation" for c in wrong), len(wrong)))
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY
# 2. the correct one timed at the quick preset: exit 0, a row with GFLOP/s in the table and the results
expect 0 quick run --backend cpu --workload gemm --preset quick --variant example --kernels "$good" --min-time 0.01 --out "$out/quick.json"
grep -q "cpu:0 *example " "$out/quick.out" || bad "quick: the table has no cpu:0 example row"
"$py" - "$out/quick.json" <<'PY' || fail=1
import json, sys
res = json.load(open(sys.argv[1]))
cs = [c for c in res["cases"] if c["variant"] == "example" and c["params"].get("input") != "exact"] # exact: validated, not timed
bad = [c["id"] for c in cs if c["status"] != "ok" or not (c.get("throughput") or {}).get("gflops")]
if not cs or bad:
    print("FAIL: quick: example cases without an ok status and GFLOP/s: %s" % (bad or "none ran"))
    sys.exit(1)
print("quick: %d example cases timed, GFLOP/s %s" % (len(cs), [round(c["throughput"]["gflops"], 2) for c in cs]))
PY
# 3. isolated (the kernel in a child process): the same verdicts
expect 0 isolated run --backend cpu --workload gemm --preset conformance --validate-only --variant example --isolate --kernels "$good"
[ "$fail" -eq 0 ] && echo "OK: plugins_gemm"
exit "$fail"
