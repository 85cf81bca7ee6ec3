# scripts/device/test.sh - phase test of scripts/device-run.sh, which sources it (its header says what the phase does)
if has test; then
  stamp "ctest (conformance on cpu, cuda, vulkan under the validation layer; CLI; fault injection)"
  # The mutation test and the CUDA emulators (tests/cuda_emu: the kernels' source on the CPU,
  # 100 - 200 s each) drive no GPU: CI and the developer's machine run them; here the device time
  # goes to the GPU tests (the whole suite at -j 8 took over 530 s on 4 x H200, 2026-11-28).
  # XPB_CTEST_ARGS splits the suite over calls (default: all but those, 8 at a time), e.g.
  # "-j 8 -E ^(mutants|aa_.*)$" then "-R ^aa_": a call's 600 s do not hold the whole suite.
  # Arguments that choose no tests (no -R, -E, -L), "-j 8" say, keep the default's exclusion: the
  # whole suite with the emulators took the whole 550 s of a call (2026-11-28).
  ctest_args=${XPB_CTEST_ARGS:--j 8}
  [[ " $ctest_args " =~ \ -(R|E|L|LE|I)\  ]] || ctest_args="$ctest_args -E ^(mutants|.*_emu)\$"
  # shellcheck disable=SC2086
  ctest --test-dir build-device --output-on-failure --timeout 600 $ctest_args > "$out/ctest.log" 2>&1 || status=1
  grep -E "tests passed|Failed|\*\*\*" "$out/ctest.log" | tail -30 | tee -a "$out/bench.txt"
fi
