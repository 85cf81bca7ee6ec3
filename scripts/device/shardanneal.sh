# scripts/device/shardanneal.sh - phase shardanneal of scripts/device-run.sh, which sources it (its header says what the phase does)
if has shardanneal; then # issue 33: the sharded anneal run (docs/multi-gpu.md, "Sharded annealing run")
  # validated at conformance on --devices 0, all and under mpirun, then timed at XPB_SHARDANNEAL_SIZE
  # on one GPU (the one-GPU run), a group of one and all GPUs, the scaling table last
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  np=$(nvidia-smi -L | grep -c "^GPU")
  for devs in 0 all; do
    stamp "shardanneal: conformance on --devices $devs, validate-only"
    timeout 300 $bin run --backend cuda --devices $devs --workload anneal --preset conformance --validate-only \
        --out "$out/shardanneal-validate-$devs.json" > "$out/shardanneal-validate-$devs.txt" 2>&1 || status=1
    tail -1 "$out/shardanneal-validate-$devs.txt" | sed "s/^/shardanneal conformance --devices $devs: /" | tee -a "$out/bench.txt"
    grep -E "failed-validation|error|FAIL|OUTSIDE|DIFFERS" "$out/shardanneal-validate-$devs.txt" | grep -v "^\[" | head -5 | cut -c1-300 | tee -a "$out/bench.txt"
  done
  stamp "shardanneal: conformance under mpirun -np $np, validate-only"
  timeout 300 mpirun ${XPB_MPIRUN_ARGS:-} -np "$np" $bin run --backend cuda --workload anneal --preset conformance --validate-only \
      > "$out/shardanneal-validate-mpi.txt" 2>&1 || status=1
  tail -1 "$out/shardanneal-validate-mpi.txt" | sed "s/^/shardanneal conformance mpirun: /" | tee -a "$out/bench.txt"
  grep -E "failed-validation|error|FAIL|OUTSIDE|DIFFERS" "$out/shardanneal-validate-mpi.txt" | grep -v "^\[" | head -5 | cut -c1-300 | tee -a "$out/bench.txt"
  # iters bounds the run (max_iter); no fp64 reference run at this size (past 4.5e10 n m d an
  # iteration), so the ops are checked and the run is not
  size=${XPB_SHARDANNEAL_SIZE:-n=1000000,d=128,m=1024,iters=20,queries=0}
  bench shardanneal-1gpu --backend cuda:0 --workload anneal --variant default --size "$size"
  bench shardanneal-group1 --backend cuda --devices 0 --workload anneal --size "$size"
  [ "$np" -gt 1 ] && bench shardanneal-all --backend cuda --devices all --workload anneal --size "$size"
  # A/B: the init replicated on every rank (before the split), the same call, the same machine
  [ "$np" -gt 1 ] && [ "${XPB_SHARDANNEAL_AB:-1}" = 1 ] && XPB_CUDA_SHARDED_ANNEAL_INIT=replicated \
    bench shardanneal-all-replicated --backend cuda --devices all --workload anneal --size "$size"
  if [ "$np" -gt 1 ]; then # one process a rank: the split init's steps queued by each process alone
    stamp "shardanneal: $size under mpirun -np $np"
    # shellcheck disable=SC2086
    timeout "${XPB_BENCH_TIMEOUT_S:-590}" mpirun ${XPB_MPIRUN_ARGS:-} -np "$np" $bin run --backend cuda --workload anneal --size "$size" \
        --out "$out/shardanneal-mpi.json" ${XPB_BENCH_ARGS:-} > "$out/shardanneal-mpi.txt" 2>&1 || status=1
  fi
  python3 - "$out" <<'PY' | tee "$out/shardanneal-scaling.txt" >> "$out/bench.txt"
import glob, json, sys
rows = []
for f in sorted(glob.glob(sys.argv[1] + "/shardanneal-*.json")):
    if "-validate-" in f:
        continue
    for c in json.load(open(f))["cases"]:
        r = c.get("run") or {}
        rows.append((f.rsplit("/", 1)[-1][:-5], c["device"], c["status"], r.get("iterations"),
                     r.get("per_iteration_s"), (c.get("message") or "")[:160]))
base = next((x[4] for x in rows if x[0] == "shardanneal-1gpu" and x[4]), None)
print(f"{'file':22} {'device':14} {'status':6} {'iters':>5} {'ms/iter':>9} {'1 GPU / this':>12}")
for name, dev, st, it, per, msg in rows:
    sp = f"{base / per:.2f}x" if base and per else "-"
    print(f"{name:22} {dev:14} {st:6} {it if it is not None else '-':>5} {per * 1e3 if per else float('nan'):>9.3f} {sp:>12}  {msg}")
PY
  anneal_table "shardanneal-[1agm]*.json" # per op (init=ms/launches): the split init against the replicated
fi
