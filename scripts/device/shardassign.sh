# scripts/device/shardassign.sh - phase shardassign of scripts/device-run.sh, which sources it (its header says what the phase does)
if has shardassign; then # issue 33: the sharded anneal assign on 1 GPU (a group of one), on all, under mpirun
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  np=$(nvidia-smi -L | grep -c "^GPU")
  sa=(--workload sharded --filter anneal_assign_sharded) # `run` has no --op: the op is in the case id
  for preset in conformance quick; do
    for devs in 0 all; do
      stamp "shardassign: $preset on --devices $devs, validate-only"
      timeout 240 $bin run --backend cuda --devices $devs "${sa[@]}" --preset $preset --validate-only \
          --out "$out/shardassign-validate-$preset-$devs.json" > "$out/shardassign-validate-$preset-$devs.txt" 2>&1 || status=1
      grep "results:" "$out/shardassign-validate-$preset-$devs.txt" | tail -1 | tee -a "$out/bench.txt"
      grep -E "failed-validation|error" "$out/shardassign-validate-$preset-$devs.txt" | head -10 | cut -c1-300 | tee -a "$out/bench.txt"
    done
    stamp "shardassign: $preset under mpirun -np $np, validate-only"
    timeout 240 mpirun ${XPB_MPIRUN_ARGS:-} -np "$np" $bin run --backend cuda "${sa[@]}" --preset $preset --validate-only \
        > "$out/shardassign-validate-$preset-mpi.txt" 2>&1 || status=1
    grep "results:" "$out/shardassign-validate-$preset-mpi.txt" | tail -1 | tee -a "$out/bench.txt"
    grep -E "failed-validation|error" "$out/shardassign-validate-$preset-mpi.txt" | head -10 | cut -c1-300 | tee -a "$out/bench.txt"
  done
  # an n, d, m size makes assign cases only (the sharded GEMM's sizes need k); the points are
  # sampled for validation at this size, the counts only bounded (docs/multi-gpu.md)
  size=${XPB_SHARDASSIGN_SIZE:-n=10000000,d=128,m=4096}
  bench shardassign-1gpu --backend cuda --devices 0 --workload sharded --size "$size" --validate sampled
  [ "$np" -gt 1 ] && bench shardassign-all --backend cuda --devices all --workload sharded --size "$size" --validate sampled
  # XPB_SHARDASSIGN_PEER=1: the one-GPU anneal workload at the same size (its assign op's time in
  # its per-op times; a whole run with init, so minutes at 10M points: not by default)
  [ -n "${XPB_SHARDASSIGN_PEER:-}" ] && bench shardassign-peer-anneal --backend cuda:0 --workload anneal \
      --size "$size,iters=1,queries=0"
  python3 - "$out" <<'PY' > "$out/shardassign-scaling.txt" 2>&1 || status=1
import glob, json, sys
pts = {}  # (n, d, m) -> {gpus: (median_s, ranks' mean_s, validation)}
peer = {}
for f in sorted(glob.glob(sys.argv[1] + "/shardassign-*.json")):
    if "-validate-" in f:
        continue
    for c in json.load(open(f))["cases"]:
        p = c["params"]
        key = (p.get("n"), p.get("d"), p.get("m"))
        if c["workload"] == "anneal":
            ops = {o["op"]: o for o in c.get("run", {}).get("ops", [])}
            if "assign" in ops:
                peer[key] = ops["assign"]["seconds"] / max(1, ops["assign"]["launches"])
            continue
        if c["status"] != "ok" or "kernel" not in c.get("timing", {}):
            print(f"{c['id']} on {c['device']}: {c['status']} {c.get('message', '')[:200]}")
            continue
        v = c.get("validation", {})
        pts.setdefault(key, {})[p["gpus"]] = (c["timing"]["kernel"]["median_s"], c.get("rank_kernel_mean_s", []),
                                              f"{v.get('method', '?')} err/tol {v.get('max_err_over_tol', float('nan')):.3g}")
print(f"{'n x d x m':24} {'gpus':>4} {'median ms':>10} {'GFLOP/s':>9} {'1 GPU / P':>9} {'efficiency':>10}  ranks' mean ms; validation")
for key in sorted(pts):
    n, d, m = key
    flops = 2.0 * n * d * m
    one = pts[key].get(1, (None,))[0]
    if key in peer:
        print(f"{n}x{d}x{m:<14} {'1':>4} {peer[key] * 1e3:>10.3f} {flops / peer[key] / 1e9:>9.0f} {'-':>9} {'-':>10}  anneal workload's assign op, one GPU")
    for g in sorted(pts[key]):
        t, ranks, val = pts[key][g]
        sp = one / t if one else float("nan")
        rk = " ".join(f"{r * 1e3:.2f}" for r in ranks)
        print(f"{n}x{d}x{m:<14} {g:>4} {t * 1e3:>10.3f} {flops / t / 1e9:>9.0f} {sp:>9.2f} {sp / g:>10.2f}  {rk}; {val}")
PY
  cat "$out/shardassign-scaling.txt" >> "$out/bench.txt"
fi
