# scripts/device/aa.sh - phase aa of scripts/device-run.sh, which sources it (its header says what the phase does)
if has aa; then # issue 9: the same build twice must compare clean; a real slowdown must not
  wl=${XPB_AA_WORKLOADS:-elementwise}
  reruns=() # XPB_AA_RUNS (default 1) runs a side, interleaved, pooled by compare (docs/reports.md)
  # XPB_AA_ARGS: more `run` options for every A/A run (the same on both sides, e.g. --validate
  # sampled). XPB_AA_BUDGET_S: start no further run once the phase's time plus the last run's
  # would pass it (the device call's limit), and compare the runs made.
  aa_t0=$(date +%s); last=0
  for ((i = 1; i <= ${XPB_AA_RUNS:-1}; i++)); do
    for side in A B; do
      name=$side; [ "$i" -gt 1 ] && name=$side$i
      if [ -n "${XPB_AA_BUDGET_S:-}" ] && [ $(( $(date +%s) - aa_t0 + last )) -gt "$XPB_AA_BUDGET_S" ]; then
        stamp "aa: run $name not started: ${last}s a run would pass XPB_AA_BUDGET_S=$XPB_AA_BUDGET_S"
        continue
      fi
      stamp "aa: run $name: default preset of $wl on cuda, vulkan ${XPB_AA_ARGS:-}"
      r0=$(date +%s)
      # shellcheck disable=SC2086 # XPB_AA_ARGS is a list of options
      $bin run --backend cuda,vulkan --workload "$wl" --preset default --filter "${XPB_AA_FILTER:-.}" ${XPB_AA_ARGS:-} \
          --out "$out/aa-$name.json" > "$out/aa-$name.txt" 2>&1 || status=1
      last=$(( $(date +%s) - r0 ))
      if [ "$i" -gt 1 ]; then
        [ $side = A ] && reruns+=(--rerun-base "$out/aa-$name.json") || reruns+=(--rerun-new "$out/aa-$name.json")
      fi
    done
  done
  $bin compare "$out/aa-A.json" "$out/aa-B.json" "${reruns[@]}" --json "$out/aa-compare.json" > "$out/aa-compare.txt" 2>&1
  echo "aa: compare A B exit $? (0 wanted): $(tail -1 "$out/aa-compare.txt")" | tee -a "$out/bench.txt"
  grep -E " (slower|faster) \(" "$out/aa-compare.txt" | head -10 | tee -a "$out/bench.txt"
  if [[ ",$wl," == *",elementwise,"* ]]; then
    i=0
    for slow in 'elementwise/copy/n=268435456/=0.1' 'elementwise/add/n=1048576/=0.25'; do
      i=$((i + 1))
      stamp "aa: deliberate slowdown XPB_SLOWDOWN=$slow"
      XPB_SLOWDOWN=$slow $bin run --backend cuda,vulkan --workload elementwise --preset default \
          --filter 'elementwise/(copy|add)/' --out "$out/aa-slow$i.json" > "$out/aa-slow$i.txt" 2>&1 || status=1
      $bin compare "$out/aa-A.json" "$out/aa-slow$i.json" > "$out/aa-slow$i-compare.txt" 2>&1
      echo "aa: compare A slowed$i exit $? (4 wanted): $(tail -1 "$out/aa-slow$i-compare.txt")" | tee -a "$out/bench.txt"
      grep -E " (slower|faster|noisy) \(" "$out/aa-slow$i-compare.txt" | head -6 | tee -a "$out/bench.txt"
    done
  fi
fi
