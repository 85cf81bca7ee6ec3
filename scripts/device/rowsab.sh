# scripts/device/rowsab.sh - phase rowsab of scripts/device-run.sh, which sources it (its header says what the phase does)
if has rowsab; then # A/B of row-op knobs at 1024 x 262144: each XPB_ROWS_AB entry (VAR=V[,VAR=V...],
  # or "-" for none) its own process, XPB_ROWS_AB_ROUNDS (2) alternated rounds, the copy roof in
  # every process (150 s at most); XPB_ROWS_AB_VARIANTS (cluster,l2), XPB_ROWS_AB_BACKENDS (cuda,vulkan)
  # and XPB_ROWS_AB_OPS (softmax|rmsnorm|layernorm); then scripts/rows-ab-summary.py's table
  # (rowsab-summary.txt: each side's process medians against the first's, disjoint or not).
  for round in $(seq "${XPB_ROWS_AB_ROUNDS:-2}"); do
    for entry in ${XPB_ROWS_AB:--}; do
      envs=()
      [ "$entry" != "-" ] && IFS=, read -r -a envs <<< "$entry"
      stamp "rows A/B round $round: $entry"
      timeout 150 env "${envs[@]}" $bin run --backend "${XPB_ROWS_AB_BACKENDS:-cuda,vulkan}" \
          --variant "default,${XPB_ROWS_AB_VARIANTS:-cluster,l2}" --workload elementwise --preset default \
          --filter "copy/n=268435456/|(${XPB_ROWS_AB_OPS:-softmax|rmsnorm|layernorm})/rows=1024,cols=262144/" --validate sampled \
          --out "$out/rowsab-$round-${entry//[=,]/_}.json" > "$out/rowsab-$round.tmp" 2>&1 || status=1
      grep -E "^(copy|softmax|rmsnorm|layernorm) " "$out/rowsab-$round.tmp" | grep -v " default " \
          | sed "s|^|$entry r$round |" | tee -a "$out/rowsab.txt" >> "$out/bench.txt"
      grep -E "^copy " "$out/rowsab-$round.tmp" | sed "s|^|$entry r$round |" >> "$out/rowsab.txt"
    done
  done
  python3 scripts/rows-ab-summary.py "$out" > "$out/rowsab-summary.txt" 2>&1 || status=1
  cat "$out/rowsab-summary.txt" >> "$out/bench.txt"
fi
