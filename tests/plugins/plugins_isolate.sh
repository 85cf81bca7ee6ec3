#!/usr/bin/env bash
# plugins_isolate.sh XPUBENCH BROKEN_SO OUTDIR - crash isolation (run --isolate, --case-timeout;
# docs/plugins.md, "Isolation") with the broken twins of examples/plugins/cpu_softmax_broken: on
# the conformance preset, the 257-row cases of the crashing kernel are errors "killed by SIGSEGV"
# and those of the hanging one "timed out after 3 s", every other case is ok, the results parse,
# and the run exits 3 (a case error, README "Exit codes"). Built-in kernels under --isolate are
# validated and timed in their own processes, every round's samples back in the results.
# --case-timeout without isolation, and --isolate with --no-isolate, are usage errors (exit 2).
set -u
bin=$1 broken=$2 out=$3
# Under the sanitizers (the sanitize build, XPB_TEST_CRASH_SIGNAL=SIGABRT) the crashing twin's
# store through a null pointer is UBSan's report, then its exit; abort_on_error=1 makes that an
# abort(), a signal, which isolation must name.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}abort_on_error=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}abort_on_error=1"
py=python3
# shellcheck source=plugins_lib.sh
. "$(dirname "$0")/plugins_lib.sh"

conf=(run --backend cpu --workload elementwise --filter '^elementwise/softmax/' --preset conformance --validate-only)
# 1. the broken twins beside the built-in softmax, isolated by default: one case error each, the rest ok
expect 3 broken "${conf[@]}" --kernels "$broken" --case-timeout 3 --out "$out/broken.json"
"$py" - "$out/broken.json" <<'PY' || fail=1
import json, os, sys
res = json.load(open(sys.argv[1]))  # the file is whole and parses
bad = []
cfg = res["config"]
if cfg.get("isolate") != "plugins" or cfg.get("case_timeout_s") != 3:
    bad.append("config: isolate %r, case_timeout_s %r; expected plugins, 3" % (cfg.get("isolate"), cfg.get("case_timeout_s")))
want = {"example-crash": "killed by " + os.environ.get("XPB_TEST_CRASH_SIGNAL", "SIGSEGV"), "example-hang": "timed out after 3 s"}
seen = {v: 0 for v in want}
n = {}
for c in res["cases"]:
    v = c["variant"]
    n[v] = n.get(v, 0) + 1
    if c["isolated"] != (v in want):
        bad.append("%s %s: isolated is %r" % (c["id"], v, c["isolated"]))
    if v in want and "rows=257," in c["id"]:
        seen[v] += 1
        if c["status"] != "error" or not c.get("message", "").startswith(want[v]):
            bad.append("%s %s: %s %r, expected error '%s'" % (c["id"], v, c["status"], c.get("message"), want[v]))
    elif c["status"] != "ok":
        bad.append("%s %s: %s %r, expected ok" % (c["id"], v, c["status"], c.get("message")))
if set(n) != {"default", "example-crash", "example-hang"} or len(set(n.values())) != 1:
    bad.append("cases per variant: %r (every variant must run every case)" % n)
if any(k != 4 for k in seen.values()):
    bad.append("257-row cases per broken variant: %r, expected 4 (one per input class)" % seen)
for b in bad:
    print("FAIL: " + b)
print("checked %d cases: %r" % (len(res["cases"]), n))
sys.exit(1 if bad else 0)
PY
# 2. --isolate on built-in kernels, timed: every round (its samples and units) comes back
expect 0 builtin run --backend cpu --workload elementwise --filter '^elementwise/(softmax|add)/' --preset quick \
    --isolate --rounds 3 --min-time 0.002 --warmup 0 --out "$out/builtin.json"
"$py" - "$out/builtin.json" <<'PY' || fail=1
import json, sys
res = json.load(open(sys.argv[1]))
bad = []
if res["config"].get("isolate") != "all" or res["config"].get("case_timeout_s") is not None:
    bad.append("config: isolate %r, case_timeout_s %r" % (res["config"].get("isolate"), res["config"].get("case_timeout_s")))
timed = [c for c in res["cases"] if "timing" in c]
if not timed:
    bad.append("no timed case")
for c in res["cases"]:
    if c["status"] != "ok" or not c["isolated"]:
        bad.append("%s: %s, isolated %r" % (c["id"], c["status"], c["isolated"]))
for c in timed:
    k, u = c["timing"]["kernel"], c["timing"]["units"]["medians_s"]
    if k["n"] < 3 or len(k["samples_s"]) != k["n"] or len(u) != 3 or not k["median_s"] > 0:
        bad.append("%s: kernel n %r, %d samples, %d units (3 rounds)" % (c["id"], k["n"], len(k["samples_s"]), len(u)))
for b in bad:
    print("FAIL: " + b)
print("checked %d isolated built-in cases, %d timed" % (len(res["cases"]), len(timed)))
sys.exit(1 if bad else 0)
PY
# 3. usage errors: one line, exit 2
expect 2 timeout_alone "${conf[@]}" --case-timeout 5
one_line timeout_alone "--case-timeout applies to isolated cases only"
expect 2 timeout_no_isolate "${conf[@]}" --kernels "$broken" --no-isolate --case-timeout 5
one_line timeout_no_isolate "--case-timeout applies to isolated cases only"
expect 2 both "${conf[@]}" --isolate --no-isolate
one_line both "--isolate and --no-isolate"
expect 2 bad_timeout "${conf[@]}" --isolate --case-timeout soon
one_line bad_timeout "bad --case-timeout"
[ "$fail" -eq 0 ] && echo "OK: plugins_isolate"
exit "$fail"
