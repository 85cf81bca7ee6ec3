# scripts/device/exchange.sh - phase exchange of scripts/device-run.sh, which sources it (its header says what the phase does)
if has exchange; then # issue 33: how fast the burst's exchange could be (docs/multi-gpu.md)
  for neurons in 5000000 40000000; do
    np=$(nvidia-smi -L | grep -c "^GPU")
    stamp "exchange: ${neurons} neurons' bits on $np GPUs"
    timeout 120 build-device/tests/exchange_peak $(( (neurons / 32 + np - 1) / np )) 2000 2>&1 | tee -a "$out/exchange.txt" "$out/bench.txt" || status=1
  done
fi
