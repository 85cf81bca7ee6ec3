# scripts/device/validate.sh - phase validate of scripts/device-run.sh, which sources it (its header says what the phase does)
if has validate; then
  for preset in conformance default; do
    stamp "validate $preset (every input class) on cpu, cuda, vulkan"
    XPB_VULKAN_VALIDATION=1 $bin run --backend cpu,cuda,vulkan --preset $preset --validate-only \
        --out "$out/validate-$preset.json" > "$out/validate-$preset.txt" 2>&1 || status=1
    tail -1 "$out/validate-$preset.txt" | tee -a "$out/bench.txt"
    grep -E "failed-validation|error" "$out/validate-$preset.txt" | grep -v "^\[" | head -20 | tee -a "$out/bench.txt"
  done
fi
