# scripts/device/sanitize.sh - phase sanitize of scripts/device-run.sh, which sources it (its header says what the phase does)
if has sanitize; then
  # XPB_SANITIZE_TOOLS (memcheck racecheck), XPB_SANITIZE_FILTER (every case): a shorter pass
  # XPB_SANITIZE_SCOPE: single (one GPU's cases), group (--devices all), both (default);
  # XPB_SANITIZE_COMPACTS / _PROPAGATES / _EXCHANGES: XPB_CUDA_SHARDED_COMPACT / _PROPAGATE /
  # _EXCHANGE values the group pass runs the sharded burst with (each combination its own pass;
  # "plain window window" runs the window twice: one of three racecheck passes with it crashed)
  for tool in ${XPB_SANITIZE_TOOLS:-memcheck racecheck}; do
    if [ "${XPB_SANITIZE_SCOPE:-both}" != group ]; then
      stamp "compute-sanitizer --tool $tool over the CUDA conformance cases ${XPB_SANITIZE_FILTER:-}"
      timeout 400 compute-sanitizer --tool $tool --error-exitcode 9 $bin run --backend cuda --preset conformance \
          --filter "${XPB_SANITIZE_FILTER:-.}" --validate-only > "$out/sanitize-$tool.txt" 2>&1 || status=1
      grep -E "SUMMARY|results:" "$out/sanitize-$tool.txt" | tail -2 | tee -a "$out/bench.txt"
    fi
    [ "${XPB_SANITIZE_SCOPE:-both}" = single ] && continue
    # the device-group ops (NCCL collectives, sharded GEMM) on a group of this machine's GPUs.
    # --report-api-errors no: ncclCommInitAll probes kernels its library has no image of for this
    # GPU (cudaFuncGetAttributes -> cudaErrorNoKernelImageForDevice, 4 reports, handled by NCCL;
    # 2026-11-25); our own CUDA calls are checked by our code, a failure is the case's error.
    for cmp in ${XPB_SANITIZE_COMPACTS:-lookback}; do
     for prop in ${XPB_SANITIZE_PROPAGATES:-auto}; do
      pass=0
      for ex in ${XPB_SANITIZE_EXCHANGES:-plain}; do
      pass=$((pass + 1))
      ctag=""; [ "$cmp" = lookback ] || ctag="-compact-$cmp"
      [ "$prop" = auto ] || ctag="$ctag-propagate-$prop"
      [ "$ex" = plain ] || ctag="$ctag-exchange-$ex"
      [ "$pass" -gt 1 ] && ctag="$ctag-pass$pass" # a value listed twice keeps both logs
      stamp "compute-sanitizer --tool $tool over the group conformance cases (--devices all), compact $cmp, propagate $prop, exchange $ex"
      XPB_CUDA_SHARDED_PROPAGATE=$prop XPB_CUDA_SHARDED_COMPACT=$cmp XPB_CUDA_SHARDED_EXCHANGE=$ex timeout 400 compute-sanitizer --tool $tool --report-api-errors no --error-exitcode 9 \
          $bin run --backend cuda --devices all --workload collectives,sharded,burst,anneal --filter "${XPB_SANITIZE_FILTER:-.}" \
          --preset conformance --validate-only > "$out/sanitize-group-$tool$ctag.txt" 2>&1 || status=1
      grep -E "SUMMARY|results:|didn't terminate" "$out/sanitize-group-$tool$ctag.txt" | tail -3 | tee -a "$out/bench.txt"
      done
     done
    done
  done
fi
