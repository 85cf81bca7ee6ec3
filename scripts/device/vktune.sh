# scripts/device/vktune.sh - phase vktune of scripts/device-run.sh, which sources it (its header says what the phase does)
if has vktune; then
  for tile in ${XPB_VKTUNE_TILES:-default 128x128x8/8x8 64x64x16/4x4 128x64x16/8x4 64x128x16/4x8}; do
    [ "$tile" = default ] && t= || t=$tile
    stamp "vktune: vulkan anneal assign 1M x 128 x 1024, tile ${tile}"
    XPB_VULKAN_ANNEAL_TILE=$t XPB_VULKAN_PIPELINE_STATS=1 $bin run --workload anneal --backend vulkan \
        --size n=1000000,d=128,m=1024,iters=2 --out "$out/vktune-${tile//\//_}.json" > "$out/vktune.txt" 2> "$out/vktune-stats.txt" \
      || status=1
    grep -E "anneal_assign|tiled" "$out/vktune-stats.txt" | sort -u | cut -c1-400 | tee -a "$out/bench.txt"
    python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["cases"][0]; o={x["op"]: x for x in c["run"]["ops"]}["assign"]; print(sys.argv[2], c["status"], "assign %.3f ms per launch" % (o["seconds"] / o["launches"] * 1e3))' \
        "$out/vktune-${tile//\//_}.json" "$tile" | tee -a "$out/bench.txt"
  done
  XPB_VULKAN_PIPELINE_STATS=1 bench vktune-gemm --workload gemm --backend cuda,vulkan --size m=131072,n=1024,k=128
  grep -E "pipeline tiled" "$out/bench-stderr.log" | sort -u | cut -c1-400 | tee -a "$out/bench.txt"
  grep -E "^gemm " "$out/bench.txt" | tail -8
fi
