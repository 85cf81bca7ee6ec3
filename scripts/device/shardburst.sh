# scripts/device/shardburst.sh - phase shardburst of scripts/device-run.sh, which sources it (its header says what the phase does)
if has shardburst; then # issue 33: sharded burst bit-exact on groups of 1, 2 and all GPUs and under mpirun, then
  # timed at XPB_SHARDBURST_SIZES (space-separated --size values) on one GPU (the single-device
  # kernels) and on each group, the scaling table last (scripts/burst-scaling.py)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # a XPB_SHARDBURST_PROPAGATE value PROP+own also sets XPB_CUDA_SHARDED_OVERLAP=own ("auto auto+own": the A/B)
  overlap_of() { [[ $1 == *+own ]] && echo own || echo off; }
  np=$(nvidia-smi -L | grep -c "^GPU")
  groups="0 all"; [ "$np" -gt 2 ] && groups="0 0,1 all"
  # every XPB_SHARDBURST_PROPAGATE value validated the same way before any is timed
  for prop in ${XPB_SHARDBURST_PROPAGATE:-auto}; do
    ptag=""; [ "$prop" = auto ] || ptag="-${prop/+/-}"
    for devs in $groups; do
      for p in ${XPB_SHARDBURST_PRESETS:-conformance quick default}; do
        stamp "shardburst: $p on --devices $devs, propagate $prop, validate-only"
        XPB_CUDA_SHARDED_PROPAGATE=${prop%+*} XPB_CUDA_SHARDED_OVERLAP=$(overlap_of "$prop") timeout 300 $bin run --backend cuda --devices $devs --workload burst --preset $p --validate-only \
            --out "$out/shardburst-validate-$p-$devs$ptag.json" > "$out/shardburst-validate-$p-$devs$ptag.txt" 2>&1 || status=1
        tail -1 "$out/shardburst-validate-$p-$devs$ptag.txt" | sed "s/^/shardburst $p --devices $devs $prop: /" | tee -a "$out/bench.txt"
        grep -E "failed-validation|error|FAIL" "$out/shardburst-validate-$p-$devs$ptag.txt" | grep -v "^\[" | head -5 | tee -a "$out/bench.txt"
      done
    done
    stamp "shardburst: conformance under mpirun -np $np, propagate $prop, validate-only"
    XPB_CUDA_SHARDED_PROPAGATE=${prop%+*} XPB_CUDA_SHARDED_OVERLAP=$(overlap_of "$prop") timeout 300 mpirun ${XPB_MPIRUN_ARGS:-} -np "$np" \
        -x XPB_CUDA_SHARDED_PROPAGATE -x XPB_CUDA_SHARDED_OVERLAP $bin run --backend cuda --workload burst \
        --preset conformance --validate-only > "$out/shardburst-validate-mpi$ptag.txt" 2>&1 || status=1
    tail -1 "$out/shardburst-validate-mpi$ptag.txt" | sed "s/^/shardburst conformance mpirun $prop: /" | tee -a "$out/bench.txt"
  done
  for sz in ${XPB_SHARDBURST_SIZES:-neurons=5000000,fanout=100,bursts=100}; do
    tag=$(echo "$sz" | tr -c 'a-z0-9' '-' | cut -c1-40)
    bench "shardburst-$tag-1gpu" --backend cuda:0 --workload burst --size "$sz" --min-time 0.02
    for devs in ${XPB_SHARDBURST_TIME_GROUPS:-$groups}; do
      # XPB_SHARDBURST_MODES: LAUNCH:CAPTURE pairs of XPB_CUDA_SHARDED_LAUNCH / _CAPTURE (docs/knobs.md), one run each
      # XPB_SHARDBURST_PROPAGATE: XPB_CUDA_SHARDED_PROPAGATE values, one run each ("list bits": the A/B)
      # XPB_SHARDBURST_ROUNDS (1): rounds of the A/B, the order reversed every other round
      props=${XPB_SHARDBURST_PROPAGATE:-auto}; rprops=$(echo "$props" | tr ' ' '\n' | tac | tr '\n' ' ')
      for rep in $(seq "${XPB_SHARDBURST_ROUNDS:-1}"); do
        order=$props; [ $((rep % 2)) = 0 ] && order=$rprops
        rtag=""; [ "${XPB_SHARDBURST_ROUNDS:-1}" = 1 ] || rtag="-r$rep"
        for mode in ${XPB_SHARDBURST_MODES:-threads:auto}; do
          for prop in $order; do
            mtag=""; [ "$mode" = threads:auto ] || mtag="-${mode/:/-}"
            [ "$prop" = auto ] || mtag="$mtag-${prop/+/-}"
            XPB_CUDA_SHARDED_PROPAGATE=${prop%+*} XPB_CUDA_SHARDED_OVERLAP=$(overlap_of "$prop") XPB_CUDA_SHARDED_LAUNCH=${mode%:*} XPB_CUDA_SHARDED_CAPTURE=${mode#*:} \
              bench "shardburst-$tag-$devs$mtag$rtag" --backend cuda --devices $devs --workload burst --size "$sz" --min-time 0.02
          done
        done
      done
    done
    # XPB_SHARDBURST_MPI_BINDS: mpirun --bind-to values, one run each ("default": Open MPI's own,
    # a core a process at -np <= 2; "default none": the A/B of the processes' CPU room)
    # and each XPB_SHARDBURST_PROPAGATE value under mpirun too
    # XPB_SHARDBURST_MPI_CAPTURES (auto): XPB_CUDA_SHARDED_CAPTURE values under mpirun, one run each
    # ("auto never": whether the graphs a process of one rank captures are what makes mpirun slower)
    for bind in ${XPB_SHARDBURST_MPI_BINDS:-default}; do
     for cap in ${XPB_SHARDBURST_MPI_CAPTURES:-auto}; do
     for prop in ${XPB_SHARDBURST_PROPAGATE:-auto}; do
      btag=""; bargs=(); [ "$bind" = default ] || { btag="-bind-$bind"; bargs=(--bind-to "$bind"); }
      [ "$cap" = auto ] || btag="$btag-capture-$cap"
      [ "$prop" = auto ] || btag="$btag-${prop/+/-}"
      [ "$(left_s)" -gt 30 ] || { stamp "shardburst: mpirun $prop $cap skipped: past XPB_DEADLINE_S"; continue; }
      stamp "shardburst: $sz under mpirun -np $np ${bargs[*]}, propagate $prop, capture $cap"
      XPB_CUDA_SHARDED_PROPAGATE=${prop%+*} XPB_CUDA_SHARDED_OVERLAP=$(overlap_of "$prop") XPB_CUDA_SHARDED_CAPTURE=$cap timeout "$(( $(left_s) < 300 ? $(left_s) : 300 ))" \
          mpirun ${XPB_MPIRUN_ARGS:-} "${bargs[@]}" -np "$np" -x XPB_CUDA_SHARDED_PROPAGATE -x XPB_CUDA_SHARDED_OVERLAP -x XPB_CUDA_SHARDED_CAPTURE \
          $bin run --backend cuda --workload burst --size "$sz" \
          --min-time 0.02 --out "$out/shardburst-$tag-mpi$btag.json" >> "$out/shardburst-mpi.txt" 2>&1 || status=1
     done
     done
    done
  done
  python3 scripts/burst-scaling.py "$out"/shardburst-*.json | tee "$out/shardburst-scaling.txt" >> "$out/bench.txt"
fi
