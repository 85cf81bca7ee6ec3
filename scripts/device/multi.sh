# scripts/device/multi.sh - phase multi of scripts/device-run.sh, which sources it (its header says what the phase does)
if has multi; then # issue 11: device groups on every GPU here (nvidia-h200-x2), NCCL, torch.distributed beside
  # validated at every default size (which holds every quick size) and the conformance sizes
  for preset in conformance default; do
    for devs in 0 all; do
      stamp "multi: collectives $preset on --devices $devs, validate-only"
      $bin run --backend cuda --devices $devs --workload collectives --preset $preset --validate-only \
          --out "$out/multi-validate-$preset-$devs.json" > "$out/multi-validate-$preset-$devs.txt" 2>&1 || status=1
      tail -1 "$out/multi-validate-$preset-$devs.txt" | tee -a "$out/bench.txt"
      grep -E "failed-validation|error" "$out/multi-validate-$preset-$devs.txt" | grep -v "^\[" | head -10 | tee -a "$out/bench.txt"
    done
  done
  # one process per GPU under MPI (mpirun -np <GPUs>): validated, then timed beside the single process
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  np=$(nvidia-smi -L | grep -c "^GPU")
  for preset in conformance default; do
    stamp "multi: collectives $preset under mpirun -np $np, validate-only"
    mpirun ${XPB_MPIRUN_ARGS:-} -np "$np" $bin run --backend cuda --workload collectives --preset $preset --validate-only \
        --out "$out/mpi-validate-$preset.json" > "$out/mpi-validate-$preset.txt" 2>&1 || status=1
    grep "results:" "$out/mpi-validate-$preset.txt" | tail -1 | tee -a "$out/bench.txt"
  done
  # timed: the default preset (up to 1 GiB, issue 11's all_reduce target) on several GPUs, quick on one
  mp=${XPB_MULTI_PRESET:-$([ "$np" -gt 1 ] && echo default || echo quick)}
  stamp "benchmark multi-collectives-mpi: mpirun -np $np, preset $mp"
  mpirun ${XPB_MPIRUN_ARGS:-} -np "$np" $bin run --backend cuda --workload collectives --preset "$mp" --out "$out/multi-collectives-mpi.json" \
      >> "$out/bench.txt" 2>> "$out/bench-stderr.log" || status=1
  bench multi-collectives --backend cuda --devices all --workload collectives --preset "$mp"
  python3 scripts/torch-peer-collectives.py --preset "$mp" --json "$out/torch-collectives.json" \
      "$out/multi-collectives.json" > "$out/torch-collectives.txt" 2>&1 || status=1
  cat "$out/torch-collectives.txt" >> "$out/bench.txt"
fi
