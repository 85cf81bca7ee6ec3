# scripts/device/graph.sh - phase graph of scripts/device-run.sh, which sources it (its header says what the phase does)
if has graph; then # issue 33: run --graph (CUDA graphs) against plain launches, same cases, same call
  for g in "" --graph; do
    stamp "graph: cuda elementwise quick copy/add/softmax ${g:-(launches)}"
    $bin run --backend cuda --workload elementwise --preset quick --filter '/(copy|add|softmax)/' $g \
        --out "$out/graph${g:+-on}.json" > "$out/graph${g:+-on}.txt" 2>&1 || status=1
    grep -E "^(copy|add|softmax) " "$out/graph${g:+-on}.txt" | sed "s/^/${g:-launches} /" | cut -c1-150 | tee -a "$out/bench.txt"
  done
fi
