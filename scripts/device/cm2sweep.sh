# scripts/device/cm2sweep.sh - phase cm2sweep of scripts/device-run.sh, which sources it (its header says what the phase does)
if has cm2 || has cm2sweep; then
  # Tile sweep at XPB_CM2_SWEEP_SIZES (8192) (XPB_CM2_SWEEP: BMxBNxBK[xUNROLL[xINVOCATIONS[xBT]]][@GROUPS] ...; @GROUPS caps the
  # grid, XPB_VULKAN_MAX_GROUPS: a persistent grid walking the tiles), each its own process with
  # cuBLAS fp16 beside it, each validated at the conformance sizes first. The default list: the
  # default and what session 13 left untried (docs/performance.md).
  # An entry may start with VAR=V, knobs for its process (e.g. XPB_VULKAN_COOPMAT_GROUP_M=16,128x256x32x32x256).
  # XPB_CM2_SWEEP_VARIANT (coopmat2) picks the variant swept; its knob is XPB_VULKAN_<VARIANT>
  # (coopmat-khr: XPB_VULKAN_COOPMAT_KHR=BMxBNxBK/WMxWN/STAGES; the default entries are coopmat2 tiles,
  # so give XPB_CM2_SWEEP with it); XPB_VULKAN_PIPELINE_STATS lines go beside each size.
  sv=${XPB_CM2_SWEEP_VARIANT:-coopmat2}
  knob=XPB_VULKAN_$(echo "$sv" | tr '[:lower:]-' '[:upper:]_')
  for entry in ${XPB_CM2_SWEEP:-128x256x32x32x256 128x128x32x32x128 128x256x32x32x256@264}; do
    IFS=, read -r -a parts <<< "$entry"
    tile=${parts[-1]} envs=("${parts[@]:0:${#parts[@]}-1}")
    cfg=${tile%@*} groups=
    [ "$tile" != "$cfg" ] && groups=${tile#*@}
    envs+=("XPB_VULKAN_MAX_GROUPS=$groups" "$knob=$cfg")
    name=${entry//[=,\/]/_}
    env "${envs[@]}" timeout 60 $bin run --backend vulkan --variant "$sv" --workload gemm --preset conformance \
        --validate-only 2>&1 | tail -1 | sed "s|^|$sv $entry conformance: |" | tee -a "$out/cm2-sweep.txt"
    for size in ${XPB_CM2_SWEEP_SIZES:-8192}; do
      stamp "cm2 sweep $sv $entry at $size"
      env "${envs[@]}" XPB_VULKAN_PIPELINE_STATS=1 $bin run --backend cuda,vulkan --variant "cublas-fp16,$sv" \
          --workload gemm --size m=$size,n=$size,k=$size --validate sampled \
          --out "$out/cm2-sweep-$sv-${name/@/-g}-$size.json" >> "$out/bench.txt" 2> "$out/cm2-sweep-stderr.txt" || status=1
      cat "$out/cm2-sweep-stderr.txt" >> "$out/bench-stderr.log"
      grep "pipeline ${sv//-/_}" "$out/cm2-sweep-stderr.txt" | sort -u | cut -c1-200 \
          | sed "s|^|$sv $entry |" | tee -a "$out/cm2-sweep.txt"
      grep -E "^gemm .*($sv|cublas-fp16) " "$out/bench.txt" | grep -v "input=exact" | tail -2 \
          | sed "s|^|$entry |" | tee -a "$out/cm2-sweep.txt"
    done
  done
fi
