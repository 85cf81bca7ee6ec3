# scripts/device/anneal31.sh - phase anneal31 of scripts/device-run.sh, which sources it (its header says what the phase does)
if has anneal31; then # issue 36: the annealing run at 1M x 128, m = 1024, 31 iterations (the original's count), on
  # cuda (default, tc) and vulkan: total, init and per-op times
  bench anneal31 --workload anneal --backend cuda,vulkan --variant default,tc \
      --size n=1000000,d=128,m=1024,iters=31 --rounds 2
  anneal_table "anneal31.json"
fi
