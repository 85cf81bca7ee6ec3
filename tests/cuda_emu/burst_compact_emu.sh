#!/usr/bin/env bash
# burst_compact_emu.sh CXX SOURCE_DIR WORK_DIR - a device group's rank's compact of the gathered
# fired bits, both forms (burst_compact.cu's two launches, burst_compact_lookback.cu's single pass;
# their own source, adapted by transform.py), run on the CPU by emu.h and compared bit for bit with
# each other and with a serial compaction (burst_compact_emu.cc): the fired list, the degree scan,
# the counters. No GPU, no CUDA toolkit needed: a C++20 compiler and python3.
set -eu
cxx=$1 src=$2 work=$3
shift 3
here=$src/tests/cuda_emu
burst=$src/backends/cuda/burst
py=$src/.venv/bin/python
[ -x "$py" ] || py=python3
mkdir -p "$work"
for f in burst_compact burst_compact_lookback; do
  "$py" "$here/transform.py" "$burst/$f.cu" "$work/$f.cc" "$burst/cuda_burst.cuh"
done
# the header for burst_compact_emu.cc: cuda_burst.cuh over emu.h, as transform.py inlines it
"$py" -c 'import sys; s = open(sys.argv[1]).read(); open(sys.argv[2], "w").write(s.replace("#include \"cuda_common.cuh\"", "#include \"emu.h\""))' \
  "$burst/cuda_burst.cuh" "$work/cuda_burst_emu.h"
grep -q '#include "emu.h"' "$work/cuda_burst_emu.h"
flags=(-std=c++20 -O2 -pthread -I"$here" -I"$work" -I"$src/harness/core" -I"$src/workloads/ops")
for f in "$here/emu.cc" "$here/burst_compact_emu.cc" "$work/burst_compact.cc" "$work/burst_compact_lookback.cc"; do
  "$cxx" "${flags[@]}" -w -c "$f" -o "$work/$(basename "$f" .cc).o" &
done
wait
"$cxx" -pthread "$work"/emu.o "$work"/burst_compact*.o -o "$work/burst_compact_emu"
exec "$work/burst_compact_emu" "$@"
