# scripts/device/compactab.sh - phase compactab of scripts/device-run.sh, which sources it (its header says what the phase does)
if has compactab; then # issue 33: the sharded burst's one-launch compact, a knob's A/B: XPB_COMPACTAB_KNOB
  # words (XPB_CUDA_SHARDED_COMPACT_WORDS, the default), lookback (XPB_CUDA_SHARDED_LOOKBACK_TILES) or
  # exchange (XPB_CUDA_SHARDED_EXCHANGE), each of XPB_COMPACTAB_WORDS (words: 1 4 8 16; lookback: 1 4 8;
  # exchange: plain window) on --devices all and 0,1, 5M x 100
  # batched, every run validated bit-exact, in rounds of alternated order (first round ascending,
  # second descending), one process a run; then the phase marks of the first and the last value on
  # all GPUs; the table last (scripts/burst-scaling.py)
  sz=${XPB_COMPACTAB_SIZE:-neurons=5000000,fanout=100,bursts=100,batched=1}
  case ${XPB_COMPACTAB_KNOB:-words} in
    words) knob=XPB_CUDA_SHARDED_COMPACT_WORDS tag=compact ws=${XPB_COMPACTAB_WORDS:-1 4 8 16} ;;
    lookback) knob=XPB_CUDA_SHARDED_LOOKBACK_TILES tag=lookback ws=${XPB_COMPACTAB_WORDS:-1 4 8} ;;
    exchange) knob=XPB_CUDA_SHARDED_EXCHANGE tag=exchange- ws=${XPB_COMPACTAB_WORDS:-plain window} ;;
    *) echo "compactab: XPB_COMPACTAB_KNOB is words, lookback or exchange" | tee -a "$out/bench.txt"; ws="" ;;
  esac
  rws=$(echo "$ws" | tr ' ' '\n' | tac | tr '\n' ' ')
  [ -n "$ws" ] && bench compactab-1gpu --backend cuda:0 --workload burst --size "$sz" --min-time 0.02
  for rep in 1 2; do
    order=$ws; [ $rep = 2 ] && order=$rws
    for w in $order; do
      for devs in all 0,1; do
        export "$knob=$w" # a function takes no VAR=value prefix of a computed name
        bench "compactab-${devs//,/_}-$tag$w-r$rep" --backend cuda --devices $devs --workload burst --size "$sz" --min-time 0.02
        unset "$knob"
      done
    done
  done
  for w in ${ws%% *} ${ws##* }; do
    stamp "compactab: phase marks, $knob=$w, --devices all"
    env "$knob=$w" XPB_CUDA_SHARDED_PROFILE=1 timeout 200 $bin run --backend cuda --devices all \
        --workload burst --min-time 0.02 --size "$sz" > "$out/compactab-phases-$tag$w.txt" 2>&1 || status=1
    grep "burst/sharded profile" "$out/compactab-phases-$tag$w.txt" | sed "s/^/$tag $w: /" | tee -a "$out/bench.txt"
  done
  python3 scripts/burst-scaling.py "$out"/compactab-*.json | tee "$out/compactab.txt" >> "$out/bench.txt"
fi
