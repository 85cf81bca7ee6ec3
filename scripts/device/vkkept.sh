# scripts/device/vkkept.sh - phase vkkept of scripts/device-run.sh, which sources it (its header says what the phase does)
if has vkkept; then # issue 36: do a case's runs that keep their inputs on the device (XPB_STATEFUL_INPUTS=kept)
  # hold the SM clock a Vulkan process loses between runs? The default burst preset on vulkan and cuda,
  # fresh and kept in alternated order, 3 rounds each, one process each, nvidia-smi's SM clock beside;
  # first the stateful_kept ctest cases on this GPU. Per case and round: wall and device time, clock.
  (cd build-device && timeout 120 ctest -R stateful_kept --output-on-failure) > "$out/vkkept-ctest.txt" 2>&1 || status=1
  grep -E "tests passed|Failed|Not Run" "$out/vkkept-ctest.txt" | tee -a "$out/bench.txt"
  nvidia-smi -i 0 --query-gpu=timestamp,clocks.sm,power.draw --format=csv,noheader -lms 500 > "$out/vkkept-clocks.csv" 2>&1 &
  smi=$!
  for be in vulkan cuda; do
    for m in fresh kept kept fresh; do
      [ "$(left_s)" -gt 40 ] || { stamp "vkkept: deadline, $be $m not run"; continue; }
      n=$(ls "$out"/vkkept-$be-$m-*.json 2>/dev/null | wc -l)
      stamp "vkkept: the default burst preset on $be, XPB_STATEFUL_INPUTS=$m, 3 rounds"
      t1=$(date +%s.%N)
      XPB_STATEFUL_INPUTS=$m timeout 300 $bin run --backend $be --workload burst --preset default --rounds 3 \
          --out "$out/vkkept-$be-$m-$n.json" > "$out/vkkept-$be-$m-$n.txt" 2>&1 || status=1
      echo "vkkept: $be $m process wall $(python3 -c "import time; print(round(time.time() - $t1, 1))") s" | tee -a "$out/bench.txt"
    done
  done
  kill $smi 2>/dev/null
  rounds_table vkkept "$out"/vkkept-*.json | tee "$out/vkkept.txt" | tee -a "$out/bench.txt"
fi
