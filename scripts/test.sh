#!/usr/bin/env bash
# test.sh - README's test command. Installs what is missing (nothing, after the quick start),
# builds, and runs every test:
#   1. three builds side by side (scripts/build.sh; each one configures only when it has to and
#      builds only what changed, so a second run of test.sh rebuilds nothing):
#        ci       every backend whose toolkit is here, warnings as errors (CUDA is required
#                 whenever its toolkit is installed, Vulkan always): the build the tests run;
#        nodeps   CUDA without NCCL and without MPI (no device groups, no mpirun launch), warnings
#                 as errors: a configuration users build, which must stay buildable;
#        sanitize the CPU backend under AddressSanitizer and UBSan;
#   2. the nodeps build runs: `list`, the CPU conformance suite, and a device group refused with
#      the reason (exit 3);
#   3. ctest on the ci build (CPU and Vulkan for real, CUDA skipped with its reason without a GPU);
#   4. ctest on the sanitize build.
# Each phase prints the seconds since the start. On CI's machine (2 cores, no GPU, lavapipe) it
# took ~29 minutes before the tests were made to share data and to stop spinning beside each
# other (tests/CMakeLists.txt); see the commit log for the times now.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
phase() { echo "== $* ($((SECONDS - start)) s) =="; }
scripts/install-deps.sh
scripts/report-env.sh
jobs=$(nproc)
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
cuda=AUTO
if command -v nvcc >/dev/null; then cuda=ON; fi

phase "builds: ci (-Werror; CUDA required whenever its toolkit is installed), nodeps, sanitize"
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
builds=(ci sanitize)
if [ $cuda = ON ]; then builds+=(nodeps); fi
declare -A pid
for b in "${builds[@]}"; do
  args=()
  [ "$b" = ci ] && args=("-DXPB_CUDA=$cuda")
  scripts/build.sh "$b" "${args[@]}" > "$logs/$b.log" 2>&1 &
  pid[$b]=$!
done
failed=()
for b in "${builds[@]}"; do
  if wait "${pid[$b]}"; then
    echo "-- $b: built ($(grep -c '^\[ *[0-9]*%\] Building' "$logs/$b.log" || true) files compiled)"
    sed -n '/^build.sh: /p; /xpubench .* configuration/,/^-- $/p' "$logs/$b.log"
  else
    failed+=("$b")
  fi
done
for b in "${failed[@]}"; do
  echo "-- $b: FAILED; its log:"
  cat "$logs/$b.log"
done
if [ ${#failed[@]} -gt 0 ]; then echo "test.sh: the build failed: ${failed[*]}"; exit 1; fi
if [ $cuda != ON ]; then
  echo "-- nodeps: not built (no CUDA toolkit here: it is the CUDA backend without NCCL and MPI)"
fi

echo "== backends on this machine =="
build-ci/xpubench list | sed -n '/^backends:/,$p'

if [ $cuda = ON ]; then
  phase "nodeps: the build without NCCL and MPI runs"
  nd=build-nodeps/xpubench
  "$nd" list | sed -n '/^backends:/,$p'
  OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive "$nd" run --backend cpu --preset conformance --validate-only \
    --out "$logs/nodeps-conformance.json" > "$logs/nodeps-conformance.txt" 2>&1 ||
    { tail -20 "$logs/nodeps-conformance.txt"; echo "test.sh: nodeps: the CPU conformance suite failed"; exit 1; }
  tail -1 "$logs/nodeps-conformance.txt"
  set +e
  out=$("$nd" run --backend cuda --devices 0 --workload collectives --validate-only 2>&1)
  rc=$?
  set -e
  echo "$out" | tail -2
  if [ $rc -ne 3 ] || ! grep -q "no device groups in this build" <<< "$out"; then
    echo "test.sh: nodeps: 'run --backend cuda --devices 0' exited $rc, not 3 with 'no device groups in this build'"
    exit 1
  fi
fi

phase "tests (build-ci)"
ctest --test-dir build-ci --output-on-failure -j "$jobs" --timeout 1500 --output-junit ctest-junit.xml
phase "CPU tests under AddressSanitizer + UBSan (build-asan)"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" --timeout 1500 --output-junit ctest-junit.xml
phase "test.sh: all tests passed"
