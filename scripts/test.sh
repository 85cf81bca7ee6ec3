#!/usr/bin/env bash
# test.sh - installs what is missing, builds every backend whose toolkit is here with warnings as
# errors, runs all tests (CPU and Vulkan for real; CUDA skipped with its reason when there is no
# GPU), then the CPU tests again under AddressSanitizer and UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/report-env.sh
jobs=$(nproc)
echo "== build (-Werror; CUDA is required whenever its toolkit is installed) =="
cuda=AUTO
if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then cuda=ON; fi
scripts/build.sh ci -DXPB_CUDA=$cuda
echo "== backends on this machine =="
build-ci/xpubench list | sed -n '/^backends:/,$p'
echo "== tests =="
ctest --test-dir build-ci --output-on-failure -j "$jobs" --timeout 1500
echo "== CPU tests under AddressSanitizer + UBSan =="
scripts/build.sh sanitize
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" --timeout 1500
echo "test.sh: all tests passed"
