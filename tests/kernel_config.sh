#!/usr/bin/env bash
# kernel_config.sh XPUBENCH WORK - what a kernel chose by itself is in the results (a case's
# kernel_config, docs/results-schema.md): Vulkan onchip's path for the partials (auto picks
# tagged slots where the device has 64-bit buffer atomics), its chunking, the default variant's
# path for rows past one chunk; and compare warns when the two runs of a case ran different code
# (here a copy of the results as another device whose auto took the release path would write);
# the report shows it. The first run is untuned (--no-tuning): a shipped tuning of the device
# (tuning/h200.json: softmax's exps=once) would change what the checks expect.
# Skips (77) without a Vulkan device.
set -u
bin=$1 work=$2
. "$(dirname "$0")/kernel_config_lib.sh"
out=$(XPB_VULKAN_ROW_ONCHIP_CHUNK=1024 "$here/run_backend_test.sh" "$bin" vulkan run --no-tuning --backend vulkan \
    --variant default,onchip --workload elementwise --size rows=3,cols=4097 --filter 'softmax|rmsnorm' \
    --validate-only --out "$work/a.json" 2>&1)
rc=$?
[ "$rc" -eq 77 ] && { echo "$out" | head -1; exit 77; }
[ "$rc" -ne 0 ] && { echo "$out" | tail -5; no "the onchip run"; exit 1; }
on=$(kc "$work/a.json" softmax onchip)
case "$on" in
  "chunk=1024 chunks=5 invocations=32 values=32 publish="*" exps=twice") ok "onchip softmax: $on" ;;
  *) no "onchip softmax's kernel_config: '$on'" ;;
esac
rms=$(kc "$work/a.json" rmsnorm onchip)
[[ "$rms" == *publish=* && "$rms" != *exps=* ]] && ok "onchip rmsnorm: $rms (no exp form)" || no "onchip rmsnorm: '$rms'"
def=$(kc "$work/a.json" softmax default)
[[ "$def" == path=workgroup-per-row* ]] && ok "default, 4097 columns: $def" || no "default at 4097 columns: '$def'"
XPB_VULKAN_ROW_ONCHIP_CHUNK=1024 XPB_VULKAN_ROW_ONCHIP_PUBLISH=release "$bin" run --backend vulkan --variant onchip --workload elementwise \
    --size rows=3,cols=4097 --filter softmax --validate-only --out "$work/r.json" > "$work/r.log" 2>&1 || no "the release run"
[[ "$(kc "$work/r.json" softmax onchip)" == *publish=release* ]] && ok "XPB_VULKAN_ROW_ONCHIP_PUBLISH=release recorded" \
  || no "release not recorded: '$(kc "$work/r.json" softmax onchip)'"
"$bin" run --backend vulkan --variant default --workload elementwise --size rows=2,cols=40000 --filter softmax \
    --validate-only --out "$work/long.json" > "$work/long.log" 2>&1 || no "the long-row run"
long=$(kc "$work/long.json" softmax default)
[[ "$long" == "path=onchip chunk="* ]] && ok "default, 40000 columns: $long" || no "default at 40000 columns: '$long'"
# the same case, as a device whose auto chose the other path would record it
other=$([[ "$on" == *publish=tagged* ]] && echo release || echo tagged)
sed "s/publish=[a-z]*/publish=$other/" "$work/a.json" > "$work/b.json"
"$bin" compare "$work/a.json" "$work/b.json" > "$work/cmp.txt" 2>&1
grep -q "cases ran different code in the two runs (kernel_config" "$work/cmp.txt" \
  && ok "compare warns where the code differs" || { no "compare's warning"; cat "$work/cmp.txt"; }
"$bin" compare "$work/a.json" "$work/a.json" > "$work/same.txt" 2>&1
grep -q "ran different code" "$work/same.txt" && no "compare warns for the same code" || ok "same code, no warning"
# the report's throughput tables show it (a column where any case of the table has one)
if "$bin" report "$work/a.json" -o "$work/report" > "$work/report.log" 2>&1; then
  grep -q "publish=" "$work/report/index.html" && ok "the report shows kernel_config" || no "the report lacks kernel_config"
else
  no "xpubench report failed: $(tail -1 "$work/report.log")"
fi
exit $fail
