# scripts/device/vkburst.sh - phase vkburst of scripts/device-run.sh, which sources it (its header says what the phase does)
if has vkburst; then # issue 36: the Vulkan batch replayed from its capture, beside CUDA's graphs
  for preset in conformance quick default; do
    stamp "vkburst: validate $preset on cuda, vulkan after a warm run (validation layer on)"
    XPB_VALIDATE_WARM=1 XPB_VULKAN_VALIDATION=1 $bin run --workload burst --backend cuda,vulkan --preset $preset \
        --validate-only --out "$out/vkburst-validate-$preset.json" > "$out/vkburst-validate-$preset.txt" 2>&1 || status=1
    tail -1 "$out/vkburst-validate-$preset.txt" | tee -a "$out/bench.txt"
    grep -E "failed-validation|error" "$out/vkburst-validate-$preset.txt" | grep -v "^\[" | head -20 | tee -a "$out/bench.txt"
  done
  sz=${XPB_VKBURST_SIZE:-neurons=100000,fanout=100,bursts=100,batched=1}
  bench vkburst-1-cuda --workload burst --backend cuda --size "$sz" --min-time 0.05
  bench vkburst-2-vulkan --workload burst --backend vulkan --size "$sz" --min-time 0.05
  XPB_VULKAN_BURST_REPLAY=0 bench vkburst-3-vulkan-inline --workload burst --backend vulkan --size "$sz" --min-time 0.05
  for g in ${XPB_VKBURST_GRIDS:-264 528 1056}; do
    XPB_VULKAN_BURST_PROPAGATE_GROUPS=$g bench "vkburst-4-vulkan-grid$g" --workload burst --backend vulkan --size "$sz" \
        --min-time 0.05
  done
  # the capture's descriptors as sets from its own pool rather than pushed at every dispatch
  XPB_VULKAN_NO_PUSH_DESCRIPTOR=1 bench vkburst-5-vulkan-sets --workload burst --backend vulkan --size "$sz" --min-time 0.05
  python3 - "$out"/vkburst-[1-5]-*.json <<'PY' | tee "$out/vkburst.txt"
import json, sys
for f in sys.argv[1:]:
    for c in json.load(open(f))["cases"]:
        r = c.get("run") or {}
        n = r.get("iterations") or 1
        gpu = sum(o["per_run"]["median_s"] for o in r.get("ops", []) if "per_run" in o) / n
        print(f'{f.rsplit("/", 1)[-1][:-5]:26} {c["id"]:60} {c["status"]:4} per burst {r.get("per_iteration_s", 0) * 1e6:7.1f} us, '
              f'device {gpu * 1e6:6.1f} us')
PY
fi
