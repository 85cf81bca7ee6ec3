# scripts/device/rowscheck.sh - phase rowscheck of scripts/device-run.sh, which sources it (its header says what the phase does)
if has rowscheck; then # issue 12: the long-row variants proven before they are timed: their ctest cases
  # (conformance on cuda and vulkan covers every variant), then compute-sanitizer memcheck and
  # racecheck over the CUDA in-launch-exchange variants (XPB_ROWSCHECK_VARIANTS) at conformance.
  stamp "ctest: conformance and row-variant cases on cuda and vulkan"
  ctest --test-dir build-device --output-on-failure -j 4 --timeout 150 \
      -R '^(conformance_(cuda|vulkan)|rows_.*|cuda_row_kernels|coopmat2_vulkan)$' > "$out/ctest-rows.log" 2>&1 || status=1
  grep -E "tests passed|Failed|\*\*\*" "$out/ctest-rows.log" | tail -20 | tee -a "$out/bench.txt"
  for tool in memcheck racecheck; do
    stamp "compute-sanitizer --tool $tool: cuda ${XPB_ROWSCHECK_VARIANTS:-regs,onchip,cluster} at conformance"
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $bin run --backend cuda --variant "${XPB_ROWSCHECK_VARIANTS:-regs,onchip,cluster}" \
        --workload elementwise --preset conformance --validate-only > "$out/sanitize-rows-$tool.txt" 2>&1 || status=1
    grep -E "SUMMARY|results:" "$out/sanitize-rows-$tool.txt" | tail -2 | tee -a "$out/bench.txt"
  done
fi
