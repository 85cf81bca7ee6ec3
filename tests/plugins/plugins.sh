#!/usr/bin/env bash
# plugins.sh XPUBENCH EXAMPLE_SO BAD_ABI_SO NOT_PLUGIN_SO DUP_SO OUTDIR - kernels from plugin
# libraries (run/list --kernels, docs/plugins.md): the example's correct softmax passes every
# conformance case and its wrong one (no max subtraction) fails validation, in the same results
# with the plugin's path, SHA-256 and version; a library that is missing, not a library, not a
# plugin, of another ABI version or taking a built-in variant's name is one line and exit 2.
set -u
bin=$1 good=$2 bad_abi=$3 not_plugin=$4 dup=$5 out=$6
py=python3
# shellcheck source=plugins_lib.sh
. "$(dirname "$0")/plugins_lib.sh"
say() { echo "$*"; }

conf=(run --backend cpu --workload elementwise --filter '^elementwise/softmax/' --preset conformance --validate-only)
# 1. both example variants beside the built-in one: the wrong one fails validation (exit 1)
expect 1 both "${conf[@]}" --kernels "$good" --out "$out/both.json"
"$py" - "$out/both.json" "$good" <<'PY' || fail=1
import hashlib, json, os, sys
res = json.load(open(sys.argv[1]))
lib = os.path.realpath(sys.argv[2])
bad = []
by = {}
for c in res["cases"]:
    by.setdefault(c["variant"], []).append(c)
good, wrong, builtin = by.get("example", []), by.get("example-nomax", []), by.get("default", [])
if not good or len(good) != len(builtin) or len(wrong) != len(builtin):
    bad.append("example %d, example-nomax %d, default %d cases: every variant must run every case"
               % (len(good), len(wrong), len(builtin)))
bad += ["example: %s is %s: %s" % (c["id"], c["status"], c.get("message", "")) for c in good if c["status"] != "ok"]
if not any(c["status"] == "failed-validation" for c in wrong):
    bad.append("example-nomax passed every case; the checker must reject it")
if any(c.get("plugin") != lib for c in good + wrong) or any("plugin" in c for c in builtin):
    bad.append("cases' \"plugin\" field is not the library's path (or is set on a built-in variant)")
p = res.get("plugins", [])
sha = hashlib.sha256(open(lib, "rb").read()).hexdigest()
if len(p) != 1 or p[0]["path"] != lib or p[0]["sha256"] != sha or p[0]["version"] != "example-cpu-softmax 1.0":
    bad.append("plugins: %r, expected path %s sha256 %s" % (p, lib, sha))
elif sorted(k["variant"] for k in p[0]["kernels"]) != ["example", "example-nomax"]:
    bad.append("plugins[0].kernels: %r" % p[0]["kernels"])
for b in bad:
    print("FAIL: " + b)
print("checked %d example, %d example-nomax cases (%d failed validation)" %
      (len(good), len(wrong), sum(c["status"] == "failed-validation" for c in wrong)))
sys.exit(1 if bad else 0)
PY
# 2. the correct one alone: exit 0
expect 0 good "${conf[@]}" --kernels "$good" --variant example
grep -q "cpu:0 *example " "$out/good.out" || bad "good: the table has no cpu:0 example row"
# 3. list --kernels: the variants, marked, and the library with its SHA-256
expect 0 list list --kernels "$good"
grep -Eq "softmax .*cpu/example \(plugin\) cpu/example-nomax \(plugin\)" "$out/list.out" || bad "list: softmax's plugin variants not shown"
sha=$(sha256sum "$good" | cut -d' ' -f1)
grep -q "sha256 $sha" "$out/list.out" || bad "list: no 'sha256 $sha'"
# 4. refusals: one line each, exit 2, in run and in list
abi=$(sed -n 's/^#define XPB_PLUGIN_ABI_VERSION \([0-9]*\).*/\1/p' "$(dirname "$0")/../../include/xpubench/xpubench_plugin.h")
expect 2 abi "${conf[@]}" --kernels "$bad_abi"
one_line abi "plugin ABI version $((abi + 1)), but this xpubench speaks plugin ABI version $abi"
expect 2 abi_list list --kernels "$bad_abi"
one_line abi_list "plugin ABI version $((abi + 1))"
expect 2 missing "${conf[@]}" --kernels "$out/no-such-plugin.so"
one_line missing "no-such-plugin.so: No such file or directory"
expect 2 not_plugin "${conf[@]}" --kernels "$not_plugin"
one_line not_plugin "not an xpubench plugin: it exports no xpubench_plugin_entry"
echo "not a library" > "$out/text.so"
expect 2 not_library list --kernels "$out/text.so"
one_line not_library "text.so: cannot load it: "
expect 2 dup "${conf[@]}" --kernels "$dup"
one_line dup "cpu/default already exists for softmax"
expect 2 twice list --kernels "$good" --kernels "$good"
one_line twice "already loaded"
expect 2 no_path list --kernels
one_line no_path "list: unexpected argument '--kernels'"
[ "$fail" -eq 0 ] && say "OK: plugins"
exit "$fail"
