# scripts/device/anneal.sh - phase anneal of scripts/device-run.sh, which sources it (its header says what the phase does)
if has anneal; then # annealing: validated everywhere, then timed, with the PyTorch peers in the same call
  stamp "anneal: validate conformance and quick on cpu, cuda, vulkan (validation layer on)"
  for preset in conformance quick; do
    XPB_VULKAN_VALIDATION=1 $bin run --workload anneal --backend cpu,cuda,vulkan --preset $preset --validate-only \
        --out "$out/anneal-validate-$preset.json" > "$out/anneal-validate-$preset.txt" 2>&1 || status=1
    tail -1 "$out/anneal-validate-$preset.txt" | tee -a "$out/bench.txt"
    grep -E "failed-validation|error" "$out/anneal-validate-$preset.txt" | grep -v "^\[" | head -20 | tee -a "$out/bench.txt"
  done
  bench anneal-10k --workload anneal --backend cpu,cuda,vulkan --size n=10000,d=128,m=256,orig=1
  bench anneal-assign-1m --workload anneal --backend cuda,vulkan --size n=1000000,d=128,m=1024,iters=3
  # XPB_ANNEAL_INIT_SUMS (e.g. "shared shuffle shuffle shared"): the Vulkan 1M run again with each
  # XPB_VULKAN_INIT_SUM in that order, each its own process (the init's share is in its per-op times)
  k=0
  for sum in ${XPB_ANNEAL_INIT_SUMS:-}; do
    k=$((k + 1))
    XPB_VULKAN_INIT_SUM=$sum bench "anneal-1m-vulkan-init-$sum-r$k" --workload anneal --backend vulkan \
        --size n=1000000,d=128,m=1024,iters=3
  done
  [ -n "${XPB_ANNEAL_DEFAULT:-}" ] && bench anneal-default --workload anneal --backend cuda,vulkan --preset default
  python3 scripts/torch-peer-anneal.py > "$out/torch-anneal.txt" 2>&1 || status=1
  cat "$out/torch-anneal.txt" >> "$out/bench.txt"
  anneal_table "anneal-*.json"
fi
