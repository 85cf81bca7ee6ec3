# scripts/device/scaling.sh - phase scaling of scripts/device-run.sh, which sources it (its header says what the phase does)
if has scaling; then # issue 33: 1, 2, ..., N GPUs in one results file (run --devices 0:0,1:...), XPB_SCALING_PRESET
  # (quick) of the collectives, each group its own device with its own gpus=P cases and its nccl entry
  np=$(nvidia-smi -L | grep -c "^GPU") spec="0" prev="0"
  for ((k = 1; k < np; k++)); do prev="$prev,$k"; spec="$spec:$prev"; done
  stamp "scaling: collectives ${XPB_SCALING_PRESET:-quick} on --devices $spec"
  t=$(date +%s)
  timeout -s TERM "${XPB_SWEEP_LIMIT_S:-120}" $bin run --backend cuda --devices "$spec" --workload collectives \
      --preset "${XPB_SCALING_PRESET:-quick}" --out "$out/scaling.json" > "$out/scaling.txt" 2>&1 || status=1
  echo "scaling: $(( $(date +%s) - t )) s; $(grep 'results:' "$out/scaling.txt" | tail -1)" | tee -a "$out/bench.txt"
  python3 - "$out/scaling.json" <<'PY' | tee -a "$out/bench.txt" || status=1
import json, sys
r = json.load(open(sys.argv[1]))
for d in r["system"]["devices"]:
    cs = [c for c in r["cases"] if c["device"] == d["id"]]
    gpus = sorted({c["id"].split("gpus=")[1].split("/")[0] for c in cs})
    ok = sum(c["status"] == "ok" for c in cs)
    print(f'scaling {d["id"]}: {ok}/{len(cs)} ok, gpus={",".join(gpus)}, nccl {d.get("nccl")}')
PY
  sweep_phases "$out/scaling.json" | tee -a "$out/bench.txt"
  $bin report "$out/scaling.json" -o "$out/scaling-report" > /dev/null 2>&1 || echo "scaling: report failed" | tee -a "$out/bench.txt"
fi
