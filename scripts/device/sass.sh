# scripts/device/sass.sh - phase sass of scripts/device-run.sh, which sources it (its header says what the phase does)
if has sass; then
  for v in ${XPB_SASS_VARIANTS:-coopmat2 coopmat-khr coopmat tiled}; do
    stamp "sass: vulkan/$v"
    cache=$(mktemp -d) # a fresh cache: it then holds this process's pipelines only
    __GL_SHADER_DISK_CACHE_PATH=$cache __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1 \
      XPB_VULKAN_PIPELINE_STATS=1 timeout 60 $bin run --backend vulkan --variant "$v" --workload gemm \
      --size m=4096,n=4096,k=256 --validate sampled --validate-only > "$out/sass-$v-run.txt" 2>&1 || status=1
    grep "pipeline" "$out/sass-$v-run.txt" | sed "s/^/$v: /" | cut -c1-300 | tee -a "$out/sass.txt"
    python3 scripts/nv-cache-sass.py "$cache" "$out/sass-$v" 2>&1 | sed "s/^/$v: /" | cut -c1-900 | tee -a "$out/sass.txt"
    rm -rf "$cache"
  done
  stamp "sass: the HMMA ceiling, then cuBLAS fp16 and coopmat2 at 8192"
  build-device/tests/hmma_peak | tee -a "$out/sass.txt" || status=1
  bench sass-gemm-8192 --backend cuda,vulkan --variant cublas-fp16,coopmat2 --workload gemm \
      --size m=8192,n=8192,k=8192 --validate sampled
fi
