# scripts/device/rows.sh - phase rows of scripts/device-run.sh, which sources it (its header says what the phase does)
if has rows; then # the row ops at the default sizes (+ the copy roof) and PyTorch's, in one call;
  # sampled validation (the fp64 reference of every row at every size took this phase past 400 s,
  # session 16); XPB_ROWS_FILTER narrows the sizes (e.g. cols=262144)
  XPB_BENCH_FILTER="(softmax|rmsnorm|layernorm)/${XPB_ROWS_FILTER:-}|elementwise/copy/n=268435456/" \
    bench rows --backend cuda,vulkan --workload elementwise --preset default --validate sampled
  python3 scripts/torch-peer-rows.py > "$out/torch-rows.txt" 2>&1 || status=1
  cat "$out/torch-rows.txt" >> "$out/bench.txt"
fi
