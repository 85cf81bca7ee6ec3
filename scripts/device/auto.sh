# scripts/device/auto.sh - phase auto of scripts/device-run.sh, which sources it (its header says what the phase does)
if has auto; then # issue 32: run's default preset (auto) on a GPU machine gives every device the default suite
  stamp "auto: run with no --preset on cpu, cuda, vulkan (copy cases), and tests/preset_auto.sh"
  $bin run --backend all --workload elementwise --filter '/copy/' --out "$out/auto.json" > "$out/auto.txt" 2>&1 || status=1
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('auto presets:', ', '.join('%s %s=%s' % (x['id'], x['name'], x.get('preset')) for x in d['system']['devices']), '| note:', d.get('preset_note', '(none)'))" \
      "$out/auto.json" | tee -a "$out/bench.txt"
  tests/preset_auto.sh $bin "$out/preset-auto" 2>&1 | tail -4 | tee -a "$out/bench.txt" || status=1
fi
