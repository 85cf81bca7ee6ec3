#!/usr/bin/env bash
# build.sh [PRESET [CMAKE ARGS...]] - configures and builds with a CMake preset (default: release).
# The CUDA toolkit is looked for in its usual place when nvcc is not on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
shift || true
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
cmake --preset "$preset" "$@" | sed -n '/xpubench .* configuration/,/sanitizers/p'
cmake --build --preset "$preset" -j "$(nproc)"
