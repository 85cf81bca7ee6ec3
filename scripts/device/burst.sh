# scripts/device/burst.sh - phase burst of scripts/device-run.sh, which sources it (its header says what the phase does)
if has burst; then # burst propagation: bit-exact everywhere, then timed, PyTorch's peer in the same call
  for preset in conformance quick default; do
    stamp "burst: validate $preset on cpu, cuda, vulkan (validation layer on)"
    XPB_VULKAN_VALIDATION=1 $bin run --workload burst --backend cpu,cuda,vulkan --preset $preset --validate-only \
        --out "$out/burst-validate-$preset.json" > "$out/burst-validate-$preset.txt" 2>&1 || status=1
    tail -1 "$out/burst-validate-$preset.txt" | tee -a "$out/bench.txt"
    grep -E "failed-validation|error" "$out/burst-validate-$preset.txt" | grep -v "^\[" | head -20 | tee -a "$out/bench.txt"
  done
  # A timed burst run is short (tens of us a burst) but sets up its network afresh (a 10M-synapse
  # upload): --min-time 0.02 keeps each case to seconds of wall time (the 0.1 s default took the
  # default preset past 6 minutes on 2026-11-23).
  bench burst-default --workload burst --backend cuda,vulkan,cpu --preset default --min-time 0.02
  [ -n "${XPB_BURST_FULL:-}" ] && bench burst-full --workload burst --backend cuda,vulkan --preset full --min-time 0.02
  python3 scripts/torch-peer-burst.py > "$out/torch-burst.txt" 2>&1 || status=1
  cat "$out/torch-burst.txt" >> "$out/bench.txt"
fi
