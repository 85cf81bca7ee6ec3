# scripts/device/vkrounds.sh - phase vkrounds of scripts/device-run.sh, which sources it (its header says what the phase does)
if has vkrounds; then # issue 36: does a Vulkan burst run slow down from round to round, alone and in a preset?
  # 100K x 100 batched alone, XPB_VKROUNDS_N (8) rounds, replayed and recorded inline; then the default burst
  # preset on vulkan and cuda, 3 rounds: each case's per-round medians (wall, and the ops' device time)
  sz=neurons=100000,fanout=100,bursts=100,batched=1
  # the SM clock every 0.5 s beside (the driver steps it down when the GPU idles between runs);
  # each case's clock before and after its rounds is in the results (conditions) too
  nvidia-smi -i 0 --query-gpu=timestamp,clocks.sm,power.draw --format=csv,noheader -lms 500 > "$out/vkrounds-clocks.csv" 2>&1 &
  smi=$!
  for rp in 1 0; do
    stamp "vkrounds: $sz alone, XPB_VULKAN_BURST_REPLAY=$rp, ${XPB_VKROUNDS_N:-8} rounds"
    XPB_VULKAN_BURST_REPLAY=$rp timeout 200 $bin run --backend vulkan --workload burst --size "$sz" --rounds "${XPB_VKROUNDS_N:-8}" \
        --out "$out/vkrounds-alone-replay$rp.json" > "$out/vkrounds-alone-replay$rp.txt" 2>&1 || status=1
  done
  for be in vulkan cuda; do
    stamp "vkrounds: the default burst preset on $be, 3 rounds"
    timeout 300 $bin run --backend $be --workload burst --preset default --rounds 3 \
        --out "$out/vkrounds-preset-$be.json" > "$out/vkrounds-preset-$be.txt" 2>&1 || status=1
    grep -E "error|did not repeat" "$out/vkrounds-preset-$be.txt" | head -5 | tee -a "$out/bench.txt"
  done
  kill $smi 2>/dev/null
  rounds_table vkrounds "$out"/vkrounds-*.json | tee "$out/vkrounds.txt" | tee -a "$out/bench.txt"
fi
