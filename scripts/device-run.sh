#!/usr/bin/env bash
# device-run.sh [PHASES] - build, test and benchmark on a GPU machine in one go, logs under $OUT.
# Used on the lent H100 (see docs/performance.md):
#   source .devkit/env.sh && scripts/device-run.sh build,test,bench
# PHASES: comma list of build, test, bench (default all). XPB_BENCH_ARGS adds `run` options,
# XPB_BENCH_FILTER restricts the benchmark (regex on case ids).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/out}
mkdir -p "$out"
phases=${1:-build,test,bench}
has() { [[ ",$phases," == *",$1,"* ]]; }
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
status=0
# The NVIDIA Vulkan ICD may live outside the loader's default folders on the lent machine.
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f $icd ] && ! ls /usr/share/vulkan/icd.d/nvidia* /etc/vulkan/icd.d/nvidia* >/dev/null 2>&1; then
  export VK_DRIVER_FILES=$icd
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv > "$out/gpu.txt" 2>&1
cat "$out/gpu.txt"

if has build; then
  stamp "build (preset device: sm_90, CUDA and Vulkan required, -Werror)"
  { cmake --preset device && cmake --build --preset device -j "$(nproc)"; } > "$out/build.log" 2>&1 \
    || { tail -40 "$out/build.log"; exit 2; }
  build-device/xpubench info > "$out/info.txt" 2>&1; cat "$out/info.txt"
fi
bin=build-device/xpubench

if has test; then
  stamp "ctest (conformance on cpu, cuda, vulkan under the validation layer; CLI; fault injection)"
  ctest --test-dir build-device --output-on-failure -j 4 --timeout 600 > "$out/ctest.log" 2>&1 || status=1
  grep -E "tests passed|Failed|\*\*\*|Skipped" "$out/ctest.log" | tail -30
fi

if has bench; then
  stamp "benchmark: default elementwise preset on cpu, cuda, vulkan"
  filter=${XPB_BENCH_FILTER:-.}
  # shellcheck disable=SC2086
  $bin run --backend cpu,cuda,vulkan --workload elementwise --preset default --filter "$filter" \
      --out "$out/results.json" --markdown "$out/results.md" --csv "$out/results.csv" ${XPB_BENCH_ARGS:-} \
      > "$out/bench.txt" 2> "$out/bench.log" || status=$?
  stamp "benchmark done (exit $status)"
  cat "$out/bench.txt"
fi
stamp "done"
exit $status
