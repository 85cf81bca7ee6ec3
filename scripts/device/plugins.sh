# scripts/device/plugins.sh - phase plugins of scripts/device-run.sh, which sources it (its header says what the phase does)
if has plugins; then # issue 35: the CUDA example plugin (docs/plugins.md) validated at conformance, then timed
  # at quick beside cuda/default in one run; its library's path, SHA-256 and version in the results
  so=build-device/examples/plugins/cuda_softmax/libxpb_example_cuda_softmax.so
  stamp "plugins: cuda/example from $so"
  $bin run --backend cuda --kernels "$so" --workload elementwise --filter '^elementwise/softmax/' --variant example \
      --preset conformance --validate-only > "$out/plugins-conformance.txt" 2>&1 || status=1
  tail -2 "$out/plugins-conformance.txt" | tee -a "$out/bench.txt"
  bench plugins-quick --backend cuda --kernels "$so" --workload elementwise --filter '^elementwise/softmax/' \
      --variant default,example --preset quick
  grep -E "^softmax " "$out/bench.txt" | tail -20 | cut -c1-150
  # crash isolation (docs/plugins.md, "Isolation"): the out-of-bounds twin leaves a sticky error at 257 rows,
  # in its own process; every other case, cuda/default's too (--isolate: a CUDA context per case), is ok
  so=build-device/examples/plugins/cuda_softmax_oob/libxpb_example_cuda_softmax_oob.so
  for iso in --isolate --no-isolate; do
    stamp "plugins: cuda/example-oob beside cuda/default, conformance, $iso"
    t=$(date +%s%N)
    v=default to=
    [ "$iso" = --isolate ] && v=default,example-oob to="--case-timeout 60"
    $bin run --backend cuda --kernels "$so" --workload elementwise --filter '^elementwise/softmax/' --variant "$v" \
        --preset conformance --validate-only $iso $to --out "$out/plugins-oob$iso.json" \
        > "$out/plugins-oob$iso.txt" 2>&1
    rc=$?
    echo "plugins-oob$iso: exit $rc (3 expected with the twin, 0 without), $(( ($(date +%s%N) - t) / 1000000 )) ms" | tee -a "$out/bench.txt"
  done
  python3 - "$out/plugins-oob--isolate.json" <<'PY' 2>&1 | tee -a "$out/bench.txt" || status=1
import json, sys
res = json.load(open(sys.argv[1]))
bad = []
for c in res["cases"]:
    broken = c["variant"] == "example-oob" and "rows=257," in c["id"]
    if not c["isolated"] or (c["status"] == "error") != broken or c["status"] not in ("ok", "error"):
        bad.append("%s %s: %s isolated=%s %s" % (c["id"], c["variant"], c["status"], c["isolated"], c.get("message", "")))
    elif broken:
        print("oob at 257 rows: " + c.get("message", ""))
print("\n".join(["FAIL: " + b for b in bad] + ["plugins-oob: %d cases checked" % len(res["cases"])]))
sys.exit(1 if bad else 0)
PY
  spv=build-device/examples/plugins/vulkan_softmax/softmax.spv # the SPIR-V example (manifest beside it), the same way
  XPB_VULKAN_VALIDATION=1 $bin run --backend vulkan --kernels "$spv" --workload elementwise --filter '^elementwise/softmax/' \
      --variant example --preset conformance --validate-only > "$out/plugins-vulkan-conformance.txt" 2>&1 || status=1
  tail -2 "$out/plugins-vulkan-conformance.txt" | tee -a "$out/bench.txt"
  bench plugins-vulkan-quick --backend vulkan --kernels "$spv" --workload elementwise --filter '^elementwise/softmax/' \
      --variant default,l2,onchip,example --preset quick
  # GEMM and GEMV from plugins: the CUDA example (examples/plugins/cuda_gemm) validated at conformance
  # (every input class, alpha/beta) and timed at quick beside cuda/cublas and cuda/tiled, and under
  # compute-sanitizer memcheck at conformance; then the test fixture SPIR-V module (tests/plugins/vk_gemm.comp, a 16 x 16
  # tile of C a workgroup) validated at conformance under the validation layer as gemm and gemv, then
  # timed at quick beside vulkan/tiled
  so=build-device/examples/plugins/cuda_gemm/libxpb_example_cuda_gemm.so
  $bin run --backend cuda --kernels "$so" --workload gemm --variant example --preset conformance --validate-only \
      > "$out/plugins-cuda-gemm.txt" 2>&1 || status=1
  tail -1 "$out/plugins-cuda-gemm.txt" | tee -a "$out/bench.txt"
  compute-sanitizer --tool memcheck --error-exitcode 9 $bin run --backend cuda --kernels "$so" --workload gemm \
      --variant example --preset conformance --validate-only --no-isolate > "$out/plugins-cuda-gemm-memcheck.txt" 2>&1 || status=1
  grep -E "SUMMARY|results:" "$out/plugins-cuda-gemm-memcheck.txt" | tail -2 | tee -a "$out/bench.txt"
  bench plugins-cuda-gemm-quick --backend cuda --kernels "$so" --workload gemm --variant cublas,tiled,gemv,example \
      --preset quick
  for op in gemm gemv; do
    cp build-device/tests/vk_fixtures/vk_gemm.spv "$out/plugin-$op.spv"
    printf '{"op": "%s", "variant": "spv", "version": "vk_gemm.comp", "tile_rows": 16, "tile_cols": 16}\n' "$op" \
        > "$out/plugin-$op.spv.json"
  done
  XPB_VULKAN_VALIDATION=1 $bin run --backend vulkan --kernels "$out/plugin-gemm.spv" --kernels "$out/plugin-gemv.spv" \
      --workload gemm --variant spv --preset conformance --validate-only > "$out/plugins-vulkan-gemm.txt" 2>&1 || status=1
  tail -1 "$out/plugins-vulkan-gemm.txt" | tee -a "$out/bench.txt"
  bench plugins-vulkan-gemm-quick --backend vulkan --kernels "$out/plugin-gemm.spv" --kernels "$out/plugin-gemv.spv" \
      --workload gemm --variant tiled,gemv,spv --preset quick
fi
