#!/usr/bin/env bash
# cuda_row_kernels.sh NVCC SOURCE_DIR GENERATED_DIR - the device code of the CUDA row ops holds
# every kernel shape their host code launches. Runs without a GPU (CI): it compiles each row op
# to PTX and counts the entry points. Why: a kernel that nvcc's device pass does not instantiate
# still compiles and links, and fails only on a GPU with "invalid device function" (it happened:
# docs/performance.md, 2026-11-25); the GPU-less CI would never see it.
set -u
nvcc=$1 src=$2 gen=$3
# The device code is compiled unoptimized (-Xcicc -O0): which kernels exist does not depend on
# the optimizer, and it takes softmax.cu 3 s instead of 13 s.
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
fail=0
harness=() # each folder of the harness is on the include path, as in CMakeLists.txt
for d in "$src"/harness/*/; do harness+=(-I "${d%/}"); done
for op in softmax rmsnorm layernorm; do
  if ! "$nvcc" -I "$src/backends/cuda/runtime" "${harness[@]}" -I "$src/workloads" -I "$src/workloads/ops" -I "$gen" \
      -std=c++17 -O1 \
      -Xcicc -O0 -arch=compute_90 --ptx "$src/backends/cuda/rows/$op.cu" -o "$work/$op.ptx" 2>"$work/$op.log"; then
    echo "FAIL: $op.cu does not compile to PTX: $(head -3 "$work/$op.log")"; fail=1; continue
  fi
  # held: 25 shapes (tiny 6, warp 9, block 10); streamed: float4 and scalar; cluster: float4 and
  # scalar with thread loads, float4 with bulk copies; onchip: scalar with thread loads, float4
  # with bulk copies; regs: the 13 shapes of XPB_ROWOP_REGS_SHAPES, float4 and scalar (softmax
  # twice: with expf and with __expf, XPB_CUDA_ROW_EXP), which the default variant's long rows
  # launch too (cuda_rowop_default.cuh: no kernels of its own)
  regs=26; [ $op = softmax ] && regs=78
  for want in held_kernel:25 stream_kernel:2 cluster_kernel:3 onchip_kernel:2 regs_kernel:$regs; do
    k=${want%:*} n=${want#*:}
    got=$(grep -c "^\.visible \.entry _Z[0-9]*xpb_rowop_$k" "$work/$op.ptx")
    if [ "$got" -ne "$n" ]; then echo "FAIL: $op: $got xpb_rowop_$k entries in the PTX, $n wanted"; fail=1
    else echo "ok: $op: $got xpb_rowop_$k"; fi
  done
done
exit $fail
