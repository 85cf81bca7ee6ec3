# scripts/device/cm2.sh - phase cm2 of scripts/device-run.sh, which sources it (its header says what the phase does)
if has cm2; then # issue 12: vulkan/coopmat2 (GL_NV_cooperative_matrix2) validated, then timed beside cuBLAS fp16
  # The workgroup-scope shapes the driver lists (a tile no shape divides is refused with the list).
  XPB_VULKAN_COOPMAT2=8x8x8 $bin run --backend vulkan --variant coopmat2 --workload gemm \
      --size m=64,n=64,k=64 --validate-only 2>&1 | grep -o "shapes MgxNgxKg[^)]*" | head -1 | tee -a "$out/bench.txt"
  for preset in conformance default; do
    stamp "validate $preset: vulkan coopmat2, coopmat-khr"
    timeout 120 $bin run --backend vulkan --variant coopmat2,coopmat-khr --workload gemm --preset $preset \
        --validate-only --out "$out/cm2-validate-$preset.json" > "$out/cm2-validate-$preset.txt" 2>&1 || status=1
    tail -1 "$out/cm2-validate-$preset.txt" | tee -a "$out/bench.txt"
    grep -E "failed-validation|error|unsupported" "$out/cm2-validate-$preset.txt" | grep -v "^\[" | head -8 | tee -a "$out/bench.txt"
  done
  # The rest of the Vulkan backend on the device that now also enables VK_NV_cooperative_matrix2.
  stamp "validate conformance: every vulkan gemm/elementwise variant"
  timeout 120 $bin run --backend vulkan --workload gemm,elementwise --preset conformance --validate-only \
      > "$out/cm2-vulkan-conformance.txt" 2>&1 || status=1
  tail -1 "$out/cm2-vulkan-conformance.txt" | tee -a "$out/bench.txt"
  for size in 4096 8192; do
    XPB_BENCH_FILTER=. bench "cm2-gemm-$size" --backend cuda,vulkan --variant cublas-fp16,coopmat-khr,coopmat2 \
        --workload gemm --size m=$size,n=$size,k=$size --validate sampled
  done
fi
