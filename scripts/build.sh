#!/usr/bin/env bash
# build.sh [PRESET [CMAKE ARGS...]] - configures and builds with a CMake preset (default: release).
# The CUDA toolkit is looked for in its usual place when nvcc is not on PATH.
#
# CUDA architectures, unless the arguments set CMAKE_CUDA_ARCHITECTURES or the preset does
# (device): `native` when `nvidia-smi -L` lists a GPU (that GPU's code only: the fastest build
# for the machine that runs it); without a GPU, for `ci` Hopper's machine code only (90-real:
# ptxas runs, so its warnings are errors for the GPU that the device runs use) and for `release`
# and `nodeps` PTX only (80-virtual: the driver compiles it for any GPU from sm_80 on, on first
# use; nothing runs CUDA on a machine without a GPU). The choice is printed and is in the
# configure summary ("archs ..."). Compiling for all five of CMakeLists.txt's default archs
# (80, 86, 89, 90 and PTX) took 87 s for softmax.cu alone on CI's 2 cores, 90-real 29 s,
# 80-virtual 18 s.
#
# Configure runs only when the build folder has no CMakeCache.txt or when the preset, the
# arguments, CMakePresets.json or the commit (and whether the tree is modified) changed since
# this script last configured it (the stamp .build.sh-configured in the folder); `cmake --build`
# reconfigures by itself when a CMakeLists.txt changed, and builds only what changed. Remove the
# stamp to configure again (e.g. after installing a toolkit that AUTO should now find).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
shift || true
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
# The preset's build folder (binaryDir), from CMakePresets.json.
dir=$(awk -v p="$preset" '
  /"name":/ { gsub(/[",]/, "", $2); name = $2 }
  /"binaryDir":/ && name == p { gsub(/[",]/, "", $2); sub(/\$\{sourceDir\}\//, "", $2); print $2; exit }
' CMakePresets.json)
[ -n "$dir" ] || { echo "build.sh: no configure preset '$preset' with a binaryDir in CMakePresets.json" >&2; exit 2; }

args=("$@")
case " ${args[*]} " in
  *" -DCMAKE_CUDA_ARCHITECTURES="*) ;;
  *)
    arch="" why=""
    if command -v nvcc >/dev/null && { [ "$preset" = release ] || [ "$preset" = ci ] || [ "$preset" = nodeps ]; }; then
      if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
        arch=native why="this machine's GPU (nvidia-smi -L)"
      elif [ "$preset" = ci ]; then
        arch=90-real why="no GPU here: Hopper's machine code, so ptxas's warnings are checked"
      else
        arch=80-virtual why="no GPU here: PTX only, compiled by the driver for any GPU from sm_80 on"
      fi
    fi
    if [ -n "$arch" ]; then
      args+=("-DCMAKE_CUDA_ARCHITECTURES=$arch")
      echo "build.sh: $preset: CUDA archs $arch ($why; -DCMAKE_CUDA_ARCHITECTURES=... chooses others)"
    fi
    ;;
esac

# The commit that configure bakes into the binary (results record it: CMakeLists.txt,
# XPB_GIT_COMMIT), so that a new commit configures again.
commit=${XPB_GIT_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
if [ -z "${XPB_GIT_COMMIT:-}" ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  commit=$commit-dirty
fi
stamp=$dir/.build.sh-configured
want="cmake --preset $preset ${args[*]} (CMakePresets.json $(cksum < CMakePresets.json | cut -d' ' -f1), commit $commit)"
if [ -f "$dir/CMakeCache.txt" ] && [ -f "$stamp" ] && [ "$(head -1 "$stamp")" = "$want" ]; then
  echo "build.sh: $dir is configured already: $want"
  tail -n +2 "$stamp"
else
  rm -f "$stamp"
  log=$(mktemp)
  if ! cmake --preset "$preset" "${args[@]}" > "$log" 2>&1; then
    cat "$log"; rm -f "$log"
    exit 1
  fi
  summary=$(sed -n '/xpubench .* configuration/,/^-- $/p' "$log")
  rm -f "$log"
  echo "$summary"
  printf '%s\n%s\n' "$want" "$summary" > "$stamp"
fi
cmake --build --preset "$preset" -j "$(nproc)"
