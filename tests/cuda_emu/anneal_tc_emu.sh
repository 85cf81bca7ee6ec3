#!/usr/bin/env bash
# anneal_tc_emu.sh CXX SOURCE_DIR WORK_DIR [CASE...] - cuda/tc and cuda/default (their own .cu
# source, adapted by transform.py) run on the CPU by emu.h and compared bit for bit
# (anneal_tc_emu.cc), so that a machine without a GPU checks the tc variant's indexing, its bound's
# use and its exact recheck. No GPU, no CUDA toolkit needed: a C++20 compiler and python3.
set -eu
cxx=$1 src=$2 work=$3
shift 3
here=$src/tests/cuda_emu
anneal=$src/backends/cuda/anneal
py=$src/.venv/bin/python
[ -x "$py" ] || py=python3
mkdir -p "$work"
for f in anneal_assign anneal_assign_tc; do
  "$py" "$here/transform.py" "$anneal/$f.cu" "$work/$f.cc" "$anneal/cuda_anneal.cuh"
done
flags=(-std=c++20 -O2 -ffp-contract=off -pthread -I"$here" -I"$src/harness/core" -I"$src/workloads/ops")
for f in "$here/emu.cc" "$here/anneal_tc_emu.cc" "$work/anneal_assign.cc" "$work/anneal_assign_tc.cc"; do
  "$cxx" "${flags[@]}" -w -c "$f" -o "$work/$(basename "$f" .cc).o" &
done
wait
"$cxx" -pthread "$work"/*.o -o "$work/anneal_tc_emu"
exec "$work/anneal_tc_emu" "$@"
