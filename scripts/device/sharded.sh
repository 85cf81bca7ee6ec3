# scripts/device/sharded.sh - phase sharded of scripts/device-run.sh, which sources it (its header says what the phase does)
if has sharded; then # issue 11: the sharded GEMM on 1 GPU (a group of one) and on all, under mpirun too
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  np=$(nvidia-smi -L | grep -c "^GPU")
  for devs in 0 all; do
    stamp "sharded: conformance on --devices $devs, validate-only"
    $bin run --backend cuda --devices $devs --workload sharded --preset conformance --validate-only \
        --out "$out/sharded-validate-$devs.json" > "$out/sharded-validate-$devs.txt" 2>&1 || status=1
    grep "results:" "$out/sharded-validate-$devs.txt" | tail -1 | tee -a "$out/bench.txt"
  done
  stamp "sharded: conformance under mpirun -np $np, validate-only"
  mpirun ${XPB_MPIRUN_ARGS:-} -np "$np" $bin run --backend cuda --workload sharded --preset conformance --validate-only \
      > "$out/sharded-validate-mpi.txt" 2>&1 || status=1
  grep "results:" "$out/sharded-validate-mpi.txt" | tail -1 | tee -a "$out/bench.txt"
  sp=${XPB_SHARDED_PRESET:-default}
  bench sharded-1gpu --backend cuda --devices 0 --workload sharded --filter gemm_sharded --preset "$sp" --validate sampled
  [ "$np" -gt 1 ] && bench sharded-all --backend cuda --devices all --workload sharded --filter gemm_sharded --preset "$sp" --validate sampled
  # one GPU's plain gemm cublas at the same sizes: the single-GPU peer of the table
  for s in 4096 8192 16384; do
    bench sharded-peer-gemm$s --backend cuda:0 --workload gemm --variant cublas --size m=$s,n=$s,k=$s --validate sampled
  done
  python3 scripts/sharded-scaling.py "$out"/sharded-*.json | tee "$out/sharded-scaling.txt" >> "$out/bench.txt"
fi
