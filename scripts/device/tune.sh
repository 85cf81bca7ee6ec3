# scripts/device/tune.sh - phase tune of scripts/device-run.sh, which sources it (its header says what the phase does)
if has tune; then # issue 36: the shipped tuning of this GPU (docs/tuning.md), one entry per backend
  [ -f tuning.json ] && cp tuning.json "$out/tuning.json" # an earlier call's, to merge into
  for b in ${XPB_TUNE_BACKENDS:-cuda vulkan}; do
    stamp "tune: $b at the long rows"
    timeout "${XPB_TUNE_TIMEOUT_S:-590}" $bin tune --backend $b --preset default --validate sampled \
        --filter "${XPB_TUNE_FILTER:-cols=(32768|262144)/}" --tuning "$out/tuning.json" ${XPB_TUNE_KNOBS:+--knobs "$XPB_TUNE_KNOBS"} ${XPB_TUNE_ARGS:-} \
        > "$out/tune-$b.txt" 2> "$out/tune-$b.err" || status=1
    cat "$out/tune-$b.txt" >> "$out/bench.txt"
  done
fi
