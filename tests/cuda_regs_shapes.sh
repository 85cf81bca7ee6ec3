#!/usr/bin/env bash
# cuda_regs_shapes.sh XPUBENCH - every compiled block shape of cuda/regs (XPB_ROWOP_REGS_SHAPES in
# backends/cuda/cuda_rowop_regs.cuh) validates: the conformance sizes, and rows of 100003 columns
# (13 to 25 chunks a row, the last one partial, float4 loads off) in every input class.
# Skips (77) without a CUDA device.
set -u
bin=$1
here=$(dirname "$0")
fail=0
for shape in 512x16x2 512x16x3 256x16x4 256x16x6 512x8x4 1024x8x2 512x32x2 256x32x3 256x32x4 128x32x8 32x16x1; do
  for args in "--preset conformance" "--size rows=5,cols=100003 --filter softmax|rmsnorm|layernorm"; do
    # shellcheck disable=SC2086
    out=$(XPB_CUDA_REGS_SHAPE=$shape "$here/run_backend_test.sh" "$bin" cuda run --backend cuda --variant regs \
        --workload elementwise --validate-only $args 2>&1)
    rc=$?
    [ "$rc" -eq 77 ] && { echo "$out" | head -1; exit 77; }
    echo "$shape $args: $(echo "$out" | grep "results:" | tail -1)"
    [ "$rc" -ne 0 ] && { echo "$out" | grep -E "failed-validation|error" | head -5; fail=1; }
  done
done
exit $fail
