# scripts/device/torchab.sh - phase torchab of scripts/device-run.sh, which sources it (its header says what the phase does)
if has torchab; then # issue 33: XPB_TORCHAB_OPS (all_to_all) of the default collectives preset, one process on
  # every GPU, then torch.distributed, XPB_TORCHAB_ROUNDS (2) rounds alternated: each xpubench run's
  # ratio against each torch run (a ratio from two runs a side, not one point)
  ops=${XPB_TORCHAB_OPS:-all_to_all} files=()
  for ((k = 1; k <= ${XPB_TORCHAB_ROUNDS:-2}; k++)); do
    stamp "torchab: round $k, xpubench $ops on --devices all, then torch.distributed"
    $bin run --backend cuda --devices all --workload collectives --preset default --filter "^collectives/(${ops//,/|})/" \
        --out "$out/torchab-xpb$k.json" > "$out/torchab-xpb$k.txt" 2>&1 || status=1
    files+=("$out/torchab-xpb$k.json")
    timeout 150 python3 scripts/torch-peer-collectives.py --preset default --ops "$ops" --json "$out/torchab-torch$k.json" \
        "${files[@]}" > "$out/torchab-torch$k.txt" 2>&1 || status=1
    cat "$out/torchab-torch$k.txt" >> "$out/bench.txt"
  done
fi
