# scripts/device/tcslice.sh - phase tcslice of scripts/device-run.sh, which sources it (its header says what the phase does)
if has tcslice; then # issue 36: cuda/tc's anchor slice depth (XPB_CUDA_ASSIGN_TC_SLICE, the depths XPB_TCSLICE_VALUES), A/B at
  # XPB_TCSLICE_SIZE (the 1M x 128, m = 1024 run to 31 iterations): one process a value, two rounds in
  # alternated order; then compute-sanitizer (memcheck, racecheck) over cuda/tc at conformance with
  # slices of XPB_TCSLICE_SANITIZE (32; none skips them)
  sz=${XPB_TCSLICE_SIZE:-n=1000000,d=128,m=1024,iters=31}
  for round in 1 2; do
    order=${XPB_TCSLICE_VALUES:-16 32}; [ $round = 2 ] && order=$(echo $order | tr ' ' '\n' | tac | tr '\n' ' ')
    for v in $order; do
      export XPB_CUDA_ASSIGN_TC_SLICE=$v
      bench "tcslice-$v-r$round" --workload anneal --backend cuda --variant tc --size "$sz"
      unset XPB_CUDA_ASSIGN_TC_SLICE
    done
  done
  anneal_table "tcslice-*.json"
  sd=${XPB_TCSLICE_SANITIZE:-32} # the depth the sanitizers run at ("none": no sanitizer run)
  [ "$sd" = none ] || for tool in memcheck racecheck; do
    stamp "tcslice: compute-sanitizer --tool $tool, cuda/tc at conformance, slices of $sd"
    XPB_CUDA_ASSIGN_TC_SLICE=$sd timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 $bin run --backend cuda \
        --workload anneal --variant tc --preset conformance --validate-only > "$out/tcslice-sanitize-$tool.txt" 2>&1 || status=1
    grep -E "ERROR SUMMARY|results:" "$out/tcslice-sanitize-$tool.txt" | tail -2 | tee -a "$out/bench.txt"
  done
fi
