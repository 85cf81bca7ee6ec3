#!/usr/bin/env bash
# rows_regs_emu.sh CXX SOURCE_DIR WORK_DIR [CASE...] - cuda/regs' long-row kernel of softmax,
# rmsnorm and layernorm (the three .cu files' policies and cuda_rowop_regs.cuh, their own source
# adapted by rows_transform.py) run on the CPU by emu.h (rows_regs_emu.cc): near an fp64
# reference, nothing written past the rows, every chunk claimed once. No GPU, no CUDA toolkit
# needed: a C++20 compiler and python3.
set -eu
cxx=$1 src=$2 work=$3
shift 3
here=$src/tests/cuda_emu
py=$src/.venv/bin/python
[ -x "$py" ] || py=python3
mkdir -p "$work"
"$py" "$here/rows_transform.py" "$src" "$work/rows_gen.h"
# no contraction: the kernels' float sums in their own order, as the GPU adds them without fma
flags=(-std=c++20 -O2 -ffp-contract=off -pthread -I"$here" -I"$work" -I"$src/harness/core" -I"$src/workloads/ops")
"$cxx" "${flags[@]}" -w -c "$here/emu.cc" -o "$work/emu.o" &
"$cxx" "${flags[@]}" -w -c "$here/rows_regs_emu.cc" -o "$work/rows_regs_emu.o" &
wait %1 && wait %2
"$cxx" -pthread "$work/emu.o" "$work/rows_regs_emu.o" -o "$work/rows_regs_emu"
exec "$work/rows_regs_emu" "$@"
