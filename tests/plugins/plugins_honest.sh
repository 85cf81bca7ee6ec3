#!/usr/bin/env bash
# plugins_honest.sh XPUBENCH CACHED_SO OUTDIR - the checks after timing (docs/validation.md, "After
# timing"; docs/plugins.md, "Impossible to game") with the dishonest twins of
# examples/plugins/cpu_softmax_cached, at the quick preset on the cpu: every timed case of
# cpu/example-cached (replays its first output) fails the fresh-seed recheck and every one of
# cpu/example-once (right only once) fails the timed launches' output check, exit 1, in a case's
# own process (the default for plugins) and without isolation; the built-in variants still pass
# at the quick preset with both checks recorded as passed, on the cpu and on Vulkan when this
# machine has a Vulkan device (lavapipe in CI).
set -u
bin=$1 cached=$2 out=$3
py=python3
# shellcheck source=plugins_lib.sh
. "$(dirname "$0")/plugins_lib.sh"

# check_cases FILE MODE: MODE twins (the twins fail as they should, the built-in softmax passes) or
# builtin (every timed case passed both checks)
check_cases() {
  "$py" - "$1" "$2" <<'PY' || fail=1
import json, sys
res = json.load(open(sys.argv[1]))
mode = sys.argv[2]
bad = []
want = {"example-cached": "the fresh-seed recheck (seed ", "example-once": "the timed launches' output: "}
failed = {v: 0 for v in want}
timed = 0
for c in res["cases"]:
    v, val = c["variant"], c.get("validation", {})
    random_input = "input" not in c["params"]  # the cases that are timed
    if v in want and random_input:
        msg = c.get("message", "")
        if c["status"] != "failed-validation" or want[v] not in msg:
            bad.append("%s %s: %s, %r; expected failed-validation, %r" % (v, c["id"], c["status"], msg, want[v]))
        elif "timing" in c or "throughput" in c:
            bad.append("%s %s failed but reports a speed" % (v, c["id"]))
        else:
            failed[v] += 1
        check = val.get("recheck" if v == "example-cached" else "timed_output", {})
        if check.get("status") != "failed" or not check.get("reason"):
            bad.append("%s %s: validation check %r, expected failed with a reason" % (v, c["id"], check))
        if v == "example-cached" and not isinstance(val.get("recheck_seed"), int):
            bad.append("%s %s: no validation.recheck_seed" % (v, c["id"]))
    elif v not in want and c["status"] != "skipped" and "timing" in c:
        timed += 1
        if c["status"] != "ok":
            bad.append("%s %s: %s %s" % (v, c["id"], c["status"], c.get("message", "")))
        for k in ("timed_output", "recheck"):
            st = val.get(k, {}).get("status")
            if st not in ("passed", "skipped") or (st == "skipped" and not val[k].get("reason")):
                bad.append("%s %s: validation.%s is %r" % (v, c["id"], k, val.get(k)))
        if val.get("recheck", {}).get("status") == "passed" and val.get("recheck_seed") == res["config"]["seed"]:
            bad.append("%s %s: the recheck used the run's own seed" % (v, c["id"]))
if mode == "twins" and min(failed.values()) == 0:
    bad.append("twins failed as expected in too few cases: %r" % failed)
if timed == 0:
    bad.append("no built-in variant was timed")
for b in bad:
    print("FAIL: " + b)
print("%s: %d timed built-in results passed; twins caught: %r" % (sys.argv[1], timed, failed))
sys.exit(1 if bad else 0)
PY
}

soft=(run --workload elementwise --filter '^elementwise/softmax/' --preset quick --kernels "$cached")
# 1. the twins beside the built-in softmax, each case in its own process (the default for plugins)
expect 1 twins "${soft[@]}" --backend cpu --out "$out/twins.json"
check_cases "$out/twins.json" twins
# 2. the same without isolation: the checks run in xpubench's own process
expect 1 twins_inproc "${soft[@]}" --backend cpu --no-isolate --out "$out/twins_inproc.json"
check_cases "$out/twins_inproc.json" twins
# 3. built-in variants pass with the checks on: every workload of the quick preset on the cpu
expect 0 builtin_cpu run --backend cpu --preset quick --rounds 1 --min-time 0.01 --out "$out/builtin_cpu.json"
check_cases "$out/builtin_cpu.json" builtin
# 4. ... and on Vulkan (lavapipe in CI), when this machine has a Vulkan device
if "$bin" list 2>/dev/null | grep -Eq '^  vulkan +available'; then
  expect 0 builtin_vk run --backend vulkan --workload elementwise,gemm --preset quick --rounds 1 --min-time 0.01 \
    --out "$out/builtin_vk.json"
  check_cases "$out/builtin_vk.json" builtin
else
  echo "no Vulkan device: the Vulkan part is skipped"
fi
[ "$fail" -eq 0 ] && echo "OK: plugins_honest"
exit "$fail"
