# scripts/device/vkgrid.sh - phase vkgrid of scripts/device-run.sh, which sources it (its header says what the phase does)
if has vkgrid; then # issue 36: Vulkan burst propagate's grid, XPB_VULKAN_BURST_PROPAGATE_GROUPS = each of
  # XPB_VKGRID_VALUES ("default 0": the built-in fixed grid, the indirect dispatch; N: N workgroups) on
  # the default burst preset (XPB_VKGRID_PRESET=default; none leaves it out) and each of XPB_VKGRID_SIZES
  # (space-separated; 5M x 100 batched), XPB_VKGRID_ROUNDS (2) rounds alternated, each its own process;
  # the table: device time a burst (the ops' per-run medians) and wall time, per value
  sizes=${XPB_VKGRID_SIZES:-neurons=5000000,fanout=100,bursts=30,batched=1}
  for ((k = 1; k <= ${XPB_VKGRID_ROUNDS:-2}; k++)); do
    for g in ${XPB_VKGRID_VALUES:-default 0}; do
      [ "$g" = default ] && unset XPB_VULKAN_BURST_PROPAGATE_GROUPS || export XPB_VULKAN_BURST_PROPAGATE_GROUPS=$g
      [ "${XPB_VKGRID_PRESET:-default}" = none ] || \
        bench "vkgrid-$g-preset-r$k" --workload burst --backend vulkan --preset "${XPB_VKGRID_PRESET:-default}" --min-time 0.05
      j=0
      for sz in $sizes; do
        j=$((j + 1))
        bench "vkgrid-$g-size$j-r$k" --workload burst --backend vulkan --size "$sz" --min-time 0.05
      done
      unset XPB_VULKAN_BURST_PROPAGATE_GROUPS
    done
  done
  python3 - "$out" <<'PY' | tee "$out/vkgrid.txt" | tee -a "$out/bench.txt"
import glob, json, sys
rows = {}
for f in sorted(glob.glob(sys.argv[1] + "/vkgrid-*.json")):
    value = f.rsplit("/", 1)[-1].split("-")[1]
    for c in json.load(open(f))["cases"]:
        r = c.get("run") or {}
        n = r.get("iterations") or 1
        dev = sum(o["per_run"]["median_s"] for o in r.get("ops", []) if "per_run" in o) / n * 1e6
        wall = r.get("per_iteration_s", 0) * 1e6
        rows.setdefault(c["id"], {}).setdefault(value, []).append(f"{dev:.1f} [{wall:.1f}]" if c["status"] == "ok" else c["status"])
print("vkgrid: us a burst, device time [wall], each run (XPB_VULKAN_BURST_PROPAGATE_GROUPS: default = built in, 0 = indirect)")
for i, v in rows.items():
    print(f"{i[10:]:62s} " + " | ".join(f"{k} {' '.join(x)}" for k, x in v.items()))
PY
fi
