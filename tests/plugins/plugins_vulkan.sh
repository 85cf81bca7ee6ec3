#!/usr/bin/env bash
# plugins_vulkan.sh XPUBENCH EXAMPLE_DIR FIXTURE_DIR OUTDIR - SPIR-V kernels (run/list --kernels
# FILE.spv, docs/plugins.md "Vulkan: SPIR-V kernels"): the example softmax (EXAMPLE_DIR, built by
# examples/plugins/vulkan_softmax) passes every conformance case and its twin that drops an element
# from the sum fails validation, in the same results with the module's path, SHA-256, version and
# manifest; it times at quick beside the built-in variants; rmsnorm and add modules (FIXTURE_DIR:
# tests/plugins/vk_*.comp) pass theirs, gemm and gemv ones too, and a gemm without k's last term
# fails validation; a module that does not match its op's layout (a binding,
# the push constants, the entry point, the manifest) or is no SPIR-V is one line and exit 2.
# Exit 77 (skipped) when this machine has no Vulkan device.
set -u
bin=$1 ex=$2 fx=$3 out=$4
py=python3
reason=$("$bin" list 2>&1 | sed -n "s/^  vulkan *unavailable: //p")
if [ -n "$reason" ]; then
  echo "SKIP: vulkan backend unavailable here: $reason"
  exit 77
fi
# shellcheck source=plugins_lib.sh
. "$(dirname "$0")/plugins_lib.sh"
# module NAME SPV MANIFEST_JSON: $out/NAME.spv (a copy of SPV) with that manifest beside it
module() {
  cp "$2" "$out/$1.spv" && printf '%s\n' "$3" > "$out/$1.spv.json"
}

good=$ex/softmax.spv dropped=$ex/softmax_dropped.spv
conf=(run --backend vulkan --workload elementwise --preset conformance --validate-only)
# 1. the example and its dropped-element twin beside the built-in variants: the twin fails (exit 1)
expect 1 both "${conf[@]}" --filter '^elementwise/softmax/' --kernels "$good" --kernels "$dropped" \
    --out "$out/both.json"
"$py" - "$out/both.json" "$good" "$dropped" <<'PY' || fail=1
import hashlib, json, os, sys
res = json.load(open(sys.argv[1]))
good, dropped = os.path.realpath(sys.argv[2]), os.path.realpath(sys.argv[3])
sha = lambda p: hashlib.sha256(open(p, "rb").read()).hexdigest()
bad = []
by = {}
for c in res["cases"]:
    by.setdefault(c["variant"], []).append(c)
ex, dr, builtin = by.get("example", []), by.get("example-dropped", []), by.get("default", [])
if not ex or len(ex) != len(builtin) or len(dr) != len(builtin):
    bad.append("example %d, example-dropped %d, default %d cases: each must run every case"
               % (len(ex), len(dr), len(builtin)))
bad += ["example: %s is %s: %s" % (c["id"], c["status"], c.get("message", "")) for c in ex if c["status"] != "ok"]
if not any(c["status"] == "failed-validation" for c in dr):
    bad.append("example-dropped passed every case; the checker must reject it")
if any(c.get("plugin") != good for c in ex) or any(c.get("plugin") != dropped for c in dr) or \
        any("plugin" in c for c in builtin):
    bad.append("cases' \"plugin\" is not the module's path (or is set on a built-in variant)")
libs = {p["path"]: p for p in res.get("plugins", [])}
for path, variant in ((good, "example"), (dropped, "example-dropped")):
    p = libs.get(path)
    if not p:
        bad.append("plugins: no entry for %s: %r" % (path, list(libs)))
        continue
    want = {"sha256": sha(path), "format": "spirv", "manifest": path + ".json", "manifest_sha256": sha(path + ".json")}
    bad += ["plugins %s: %s is %r, expected %r" % (variant, k, p.get(k), v) for k, v in want.items() if p.get(k) != v]
    if not p.get("version", "").startswith("example-vulkan-softmax 1.0"):
        bad.append("plugins %s: version %r" % (variant, p.get("version")))
    k = p["kernels"]
    if len(k) != 1 or k[0]["variant"] != variant or k[0]["backend"] != "vulkan" or k[0]["op"] != "softmax" or \
            k[0]["entry_point"] != "main" or k[0]["local_size"] != [256, 1, 1] or k[0]["per_workgroup"] != 1:
        bad.append("plugins %s: kernels %r" % (variant, k))
for b in bad:
    print("FAIL: " + b)
print("checked %d example, %d example-dropped cases (%d failed validation)" %
      (len(ex), len(dr), sum(c["status"] == "failed-validation" for c in dr)))
sys.exit(1 if bad else 0)
PY
# 2. timed at quick beside the built-in variants (the timing path, the results' plugin record)
expect 0 quick run --backend vulkan --workload elementwise --filter '^elementwise/softmax/' --preset quick \
    --min-time 0.002 --kernels "$good" --variant default,example --out "$out/quick.json"
grep -Eq "^softmax .*vulkan:0 +example " "$out/quick.out" || bad "quick: the table has no vulkan:0 example row"
# 3. list: the variant, marked, and the module with its SHA-256
expect 0 list list --kernels "$good"
grep -Eq "softmax .*vulkan/example \(plugin\)" "$out/list.out" || bad "list: softmax's vulkan/example (plugin) not shown"
grep -q "sha256 $(sha256sum "$good" | cut -d' ' -f1), SPIR-V" "$out/list.out" || bad "list: no SPIR-V module with its sha256"
# 4. rmsnorm (two rows a workgroup) and add (4 elements an invocation), each op's own layout
module rmsnorm "$fx/vk_rmsnorm.spv" '{"op": "rmsnorm", "variant": "spv", "version": "t 1", "rows_per_workgroup": 2}'
module add "$fx/vk_add.spv" '{"op": "add", "variant": "spv", "version": "t 1", "elements_per_invocation": 4}'
expect 0 ops "${conf[@]}" --filter '^elementwise/(rmsnorm|add)/' --variant spv --kernels "$out/rmsnorm.spv" \
    --kernels "$out/add.spv"
n=$(grep -cE "^(rmsnorm|add) .*vulkan:0 +spv .* ok$" "$out/ops.out")
[ "$n" -ge 10 ] || bad "ops: $n rmsnorm/add cases of vulkan/spv passed, expected every one"
# 5. gemm and gemv (a 16 x 16 tile of C a workgroup) at every conformance case, alpha/beta with
#    c_in included; the module without k's last term fails validation (exit 1)
gemm_tile='"tile_rows": 16, "tile_cols": 16'
module gemm "$fx/vk_gemm.spv" "{\"op\": \"gemm\", \"variant\": \"spv\", \"version\": \"t 1\", $gemm_tile}"
module gemv "$fx/vk_gemm.spv" "{\"op\": \"gemv\", \"variant\": \"spv\", \"version\": \"t 1\", $gemm_tile}"
module gemm_lastk "$fx/vk_gemm_lastk.spv" "{\"op\": \"gemm\", \"variant\": \"spv-lastk\", \"version\": \"t 1\", $gemm_tile}"
expect 1 gemm run --backend vulkan --workload gemm --preset conformance --validate-only --kernels "$out/gemm.spv" \
    --kernels "$out/gemv.spv" --kernels "$out/gemm_lastk.spv" --out "$out/gemm.json"
"$py" - "$out/gemm.json" <<'PY' || fail=1
import json, sys
res = json.load(open(sys.argv[1]))
bad, by = [], {}
for c in res["cases"]:
    by.setdefault((c["op"], c["variant"]), []).append(c)
for op, variant, want in (("gemm", "spv", "ok"), ("gemv", "spv", "ok"), ("gemm", "spv-lastk", "failed-validation")):
    cs = by.get((op, variant), [])
    ref = max((v for (o, var), v in by.items() if o == op and "plugin" not in v[0]), key=len, default=[])
    if not cs or len(cs) != len(ref):
        bad.append("%s %s: %d cases, the built-in variants %d" % (op, variant, len(cs), len(ref)))
    if want == "ok":
        bad += ["%s %s: %s is %s: %s" % (op, variant, c["id"], c["status"], c.get("message", "")) for c in cs if c["status"] != "ok"]
    elif not any(c["status"] == want for c in cs):
        bad.append("%s %s: no case failed validation; the checker must reject it" % (op, variant))
if not any(c["params"].get("axpby") and c["status"] == "ok" for c in by.get(("gemm", "spv"), [])):
    bad.append("gemm spv: no alpha/beta case (c_in read) passed")
k = [k for p in res.get("plugins", []) for k in p["kernels"] if k["op"] == "gemm" and k["variant"] == "spv"]
if not k or k[0].get("per_workgroup") != 16 or k[0].get("per_workgroup_cols") != 16:
    bad.append("plugins: gemm spv's tile not recorded: %r" % k)
for b in bad:
    print("FAIL: " + b)
print("gemm/gemv SPIR-V: %s" % {"%s %s" % key: sum(c["status"] == "ok" for c in v) for key, v in by.items()})
sys.exit(1 if bad else 0)
PY
expect 0 gemm_list list --kernels "$out/gemm.spv"
grep -q "a 16x16 tile of C a workgroup" "$out/gemm_list.out" || bad "list: gemm's tile not shown"
# 6. refusals at load: one line each, exit 2
expect 2 bad_binding list --kernels "$ex/softmax_bad_binding.spv"
one_line bad_binding "softmax_bad_binding.spv: set 0 binding 2 is not in the layout: softmax's layout is set 0, bindings 0 x, 1 out"
expect 2 bad_binding_run "${conf[@]}" --filter softmax --kernels "$ex/softmax_bad_binding.spv"
one_line bad_binding_run "set 0 binding 2 is not in the layout"
module bad_push "$fx/vk_add_bad_push.spv" '{"op": "add", "variant": "mine", "version": "1"}'
expect 2 bad_push list --kernels "$out/bad_push.spv"
one_line bad_push "push-constant member 0 is not a 32-bit int n at offset 0: add's block is \{uint n; float a;\}"
# the example module under a manifest that does not fit it: NAME|MANIFEST|MESSAGE (grep -E)
while IFS='|' read -r name json want; do
  module "$name" "$good" "$json"
  expect 2 "$name" list --kernels "$out/$name.spv"
  one_line "$name" "$want"
done <<'CASES'
wrong_op|{"op": "rmsnorm", "variant": "mine", "version": "1"}|no binding 2 \(out\): rmsnorm's layout is set 0, bindings 0 x, 1 w, 2 out
no_entry|{"op": "softmax", "variant": "mine", "version": "1", "entry_point": "softmax_main"}|no compute entry point "softmax_main"
taken|{"op": "softmax", "variant": "default", "version": "1"}|vulkan/default already exists for softmax
no_op|{"op": "rope", "variant": "mine", "version": "1"}|op "rope" has no SPIR-V layout
typo|{"op": "softmax", "variant": "mine", "version": "1", "rows_per_group": 2}|unknown key "rows_per_group"
no_version|{"op": "softmax", "variant": "mine"}|"op", "variant" and "version" are required
wrong_key|{"op": "add", "variant": "mine", "version": "1", "rows_per_workgroup": 2}|"rows_per_workgroup" is for row ops; add takes "elements_per_invocation"
gemm_key|{"op": "softmax", "variant": "mine", "version": "1", "tile_cols": 8}|"tile_cols" is for gemm and gemv ops; softmax takes "rows_per_workgroup"
CASES
cp "$good" "$out/no_manifest.spv"
expect 2 no_manifest list --kernels "$out/no_manifest.spv"
one_line no_manifest "no_manifest.spv: its manifest .*no_manifest.spv.json: No such file or directory"
printf 'not spir-v' > "$out/text.spv"
printf '{"op": "softmax", "variant": "mine", "version": "1"}' > "$out/text.spv.json"
expect 2 not_spirv list --kernels "$out/text.spv"
one_line not_spirv "text.spv: not a SPIR-V module"
head -c 100 "$good" > "$out/cut.spv" && cp "$out/text.spv.json" "$out/cut.spv.json"
expect 2 truncated list --kernels "$out/cut.spv"
one_line truncated "cut.spv: SPIR-V instruction at word [0-9]+ .*runs past the end"
expect 2 twice list --kernels "$good" --kernels "$good"
one_line twice "already loaded"
[ "$fail" -eq 0 ] && echo "OK: plugins_vulkan"
exit "$fail"
