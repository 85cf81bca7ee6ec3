# scripts/device/tcassign.sh - phase tcassign of scripts/device-run.sh, which sources it (its header says what the phase does)
if has tcassign; then # issue 36: anneal assign `tc`, fp16 tensor-core candidates and default's fp32 answers bit for bit
  stamp "tcassign: cuda/tc at conformance, validate-only; its ctest cases"
  timeout 240 $bin run --backend cuda --workload anneal --variant tc --preset conformance --validate-only \
      --out "$out/tcassign-conformance.json" > "$out/tcassign-conformance.txt" 2>&1 || status=1
  grep "results:" "$out/tcassign-conformance.txt" | tail -1 | tee -a "$out/bench.txt"
  (cd build-device && timeout 400 ctest -R 'anneal_tc|anneal_knob' --output-on-failure) > "$out/tcassign-ctest.txt" 2>&1 \
      || status=1
  grep -E "tests passed|Failed|Not Run|ok: |FAIL" "$out/tcassign-ctest.txt" | tee -a "$out/bench.txt"
  for tool in memcheck racecheck synccheck; do
    stamp "tcassign: compute-sanitizer --tool $tool, cuda/tc at conformance"
    timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 $bin run --backend cuda --workload anneal --variant tc \
        --preset conformance --validate-only > "$out/tcassign-sanitize-$tool.txt" 2>&1 || status=1
    grep -E "ERROR SUMMARY|results:" "$out/tcassign-sanitize-$tool.txt" | tail -2 | tee -a "$out/bench.txt"
  done
  bench tcassign-1m --workload anneal --backend cuda --variant default,tc --size n=1000000,d=128,m=1024,iters=3
  [ -n "${XPB_TCASSIGN_DEFAULT:-}" ] && bench tcassign-default --workload anneal --backend cuda --variant default,tc \
      --preset default
  python3 - "$out"/tcassign-1m.json "$out"/tcassign-default.json <<'PY' 2>/dev/null | tee -a "$out/bench.txt"
import json, sys
for f in sys.argv[1:]:
    try:
        cases = json.load(open(f))["cases"]
    except OSError:
        continue
    for c in cases:
        a = {o["op"]: o for o in c.get("run", {}).get("ops", [])}.get("assign")
        t = f'{a["seconds"] / max(1, a["launches"]) * 1e3:.3f} ms a launch' if a else "-"
        print(f'tcassign {c["id"]} {c["variant"]}: {c["status"]}, assign {t}')
PY
fi
