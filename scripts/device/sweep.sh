# scripts/device/sweep.sh - phase sweep of scripts/device-run.sh, which sources it (its header says what the phase does)
if has sweep; then # issue 33: the collectives' default preset timed on every GPU here, one process (with and
  # without --graph) and under mpirun, each within XPB_SWEEP_LIMIT_S (a run cut short keeps its
  # finished cases, marked partial), then torch.distributed's busbw beside each, same call
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  np=$(nvidia-smi -L | grep -c "^GPU") lim=${XPB_SWEEP_LIMIT_S:-120} sp=${XPB_SWEEP_PRESET:-default}
  # XPB_SWEEP_ONE=1: one more one-process run whose ranks' launches all go out from one host thread
  # (XPB_CUDA_SHARDED_LAUNCH=one, in NCCL groups; results' config.group_launch), as sweep-one; the
  # default launch is one thread a rank (threads, nccl-tests' -t)
  # XPB_SWEEP_PLAIN=0 leaves out the plain one-process run; XPB_SWEEP_FILTER narrows the one-process runs (regex on ids)
  plain=plain; [ "${XPB_SWEEP_PLAIN:-1}" = 1 ] || plain=
  for g in $plain ${XPB_SWEEP_GRAPH---graph} ${XPB_SWEEP_ONE:+one}; do # XPB_SWEEP_GRAPH= leaves out the --graph run
    [ "$g" = plain ] && g=
    stamp "sweep: collectives $sp on --devices all ($np GPUs) ${g:-(launches)}"
    t=$(date +%s) f=sweep${g:+-${g#--}} launch=${XPB_CUDA_SHARDED_LAUNCH:-threads}
    [ "$g" = one ] && launch=one g=
    # each progress line stamped with the seconds since the start: where the time goes, per case
    XPB_CUDA_SHARDED_LAUNCH=$launch timeout -s TERM "$lim" $bin run --backend cuda --devices all --workload collectives \
        --preset "$sp" --filter "${XPB_SWEEP_FILTER:-.}" $g --out "$out/$f.json" 2>&1 >"$out/$f.txt" \
        | while IFS= read -r line; do echo "$(( $(date +%s%N) / 1000000 - t * 1000 )) ms $line"; done > "$out/$f-progress.txt"
    echo "$f: exit ${PIPESTATUS[0]}, $(( $(date +%s) - t )) s; $(grep 'results:' "$out/$f.txt" | tail -1)" | tee -a "$out/bench.txt"
    sweep_phases "$out/$f.json" | tee -a "$out/bench.txt"
  done
  if [ "${XPB_SWEEP_MPI:-1}" = 1 ]; then # XPB_SWEEP_MPI=0 leaves out mpirun and torch (the full preset's 10 minutes)
  if [ "${XPB_SWEEP_MPIRUN:-1}" = 1 ]; then # XPB_SWEEP_MPIRUN=0 leaves out mpirun only (torch still runs)
  stamp "sweep: collectives $sp under mpirun -np $np"
  t=$(date +%s)
  # mpirun's SIGTERM reaches the ranks, then SIGKILL after odls_base_sigkill_timeout (1 s by default):
  # 10 s for rank 0 to write the finished cases of a cut run
  timeout -s TERM "$lim" mpirun ${XPB_MPIRUN_ARGS:-} --mca odls_base_sigkill_timeout 10 -np "$np" $bin run --backend cuda \
      --workload collectives --preset "$sp" --out "$out/sweep-mpi.json" > "$out/sweep-mpi.txt" 2>&1
  echo "sweep-mpi: exit $?, $(( $(date +%s) - t )) s; $(grep 'results:' "$out/sweep-mpi.txt" | tail -1)" | tee -a "$out/bench.txt"
  sweep_phases "$out/sweep-mpi.json" | tee -a "$out/bench.txt"
  fi
  stamp "sweep: torch.distributed beside them"
  files=()
  for f in sweep sweep-graph sweep-one sweep-mpi; do [ -s "$out/$f.json" ] && files+=("$out/$f.json"); done
  timeout 150 python3 scripts/torch-peer-collectives.py --preset "$sp" --json "$out/torch-collectives.json" \
      "${files[@]}" > "$out/torch-collectives.txt" 2>&1 || status=1
  cat "$out/torch-collectives.txt" >> "$out/bench.txt"
  fi
fi
