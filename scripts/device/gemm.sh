# scripts/device/gemm.sh - phase gemm of scripts/device-run.sh, which sources it (its header says what the phase does)
# GEMV is bandwidth-bound: the largest copy runs too, so its % of roof is the measured roof.
has gemm && XPB_BENCH_FILTER="^gemm/|elementwise/copy/n=268435456/" \
  bench gemm --backend cpu,cuda,vulkan --workload gemm,elementwise --preset default
has gemm && bench gemm8192 --backend cuda,vulkan --workload gemm --size m=8192,n=8192,k=8192
