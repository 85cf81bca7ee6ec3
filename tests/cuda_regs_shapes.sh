#!/usr/bin/env bash
# cuda_regs_shapes.sh XPUBENCH - every compiled block shape of cuda/regs (XPB_ROWOP_REGS_SHAPES in
# backends/cuda/rows/cuda_rowop_regs.cuh) validates: the conformance sizes, and rows of 100003 columns
# (13 to 25 chunks a row, the last one partial, float4 loads off) in every input class. The
# shapes are the binary's own list, from its error for a shape it was not compiled with.
# Skips (77) without a CUDA device.
set -u
bin=$1
here=$(dirname "$0")
fail=0
out=$(XPB_CUDA_REGS_SHAPE=none "$here/run_backend_test.sh" "$bin" cuda --expect 3 run --backend cuda --variant regs \
    --workload elementwise --size rows=1,cols=1 --filter softmax --validate-only 2>&1)
rc=$?
[ "$rc" -eq 77 ] && { echo "$out" | head -1; exit 77; }
shapes=$(echo "$out" | grep -o "one of:[^)]*" | head -1 | cut -d: -f2)
[ "$rc" -ne 0 ] || [ -z "$shapes" ] && { echo "FAIL: no list of compiled shapes"; echo "$out" | tail -5; exit 1; }
echo "compiled shapes:$shapes"
for shape in $shapes; do
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
