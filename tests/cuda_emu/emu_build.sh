#!/usr/bin/env bash
# emu_build.sh CXX SOURCE_DIR WORK_DIR TEST FAMILY_DIR HEADER KERNEL... - builds an emulated kernel
# test: each KERNEL (a .cu of backends/cuda/FAMILY_DIR, named without .cu) adapted by transform.py,
# HEADER (the family's .cuh) also written over emu.h as WORK_DIR/<header>_emu.h for the test's own
# source, and tests/cuda_emu/TEST.cc, compiled with the emulator into WORK_DIR/TEST. Shared by the
# *_emu.sh tests: no GPU, no CUDA toolkit needed, a C++20 compiler and python3.
# emu_build.sh CXX SOURCE_DIR WORK_DIR TEST --generated: the test's kernels are already adapted
# into WORK_DIR by its own script (rows_regs_emu.sh: rows_transform.py); only the compile and link.
set -eu
cxx=$1 src=$2 work=$3 test=$4
here=$src/tests/cuda_emu
mkdir -p "$work"
if [ "$5" = --generated ]; then
  shift 5
else
  family=$src/backends/cuda/$5 header=$6
  shift 6
  py=$src/.venv/bin/python
  [ -x "$py" ] || py=python3
  for f in "$@"; do
    "$py" "$here/transform.py" "$family/$f.cu" "$work/$f.cc" "$family/$header"
  done
  # the family's header for the test's source, over emu.h, as transform.py inlines it into the kernels
  "$py" -c 'import sys; s = open(sys.argv[1]).read(); open(sys.argv[2], "w").write(s.replace("#include \"cuda_common.cuh\"", "#include \"emu.h\""))' \
    "$family/$header" "$work/${header%.cuh}_emu.h"
  grep -q '#include "emu.h"' "$work/${header%.cuh}_emu.h"
fi
# no contraction: the kernels' float sums in their own order, as the GPU adds them without fma
flags=(-std=c++20 -O2 -ffp-contract=off -pthread -I"$here" -I"$work" -I"$src/harness/core" -I"$src/workloads/ops")
objs=() pids=()
for f in "$here/emu.cc" "$here/$test.cc" "${@/#/$work/}"; do
  f=${f%.cc}.cc o=$work/$(basename "$f" .cc).o
  "$cxx" "${flags[@]}" -w -c "$f" -o "$o" &
  objs+=("$o") pids+=($!)
done
# the per-op knob items' parser (harness/core/xpb_op_item.c, C: -x c), which cuda/regs' plan calls
"$cxx" -x c -O2 -I"$src/harness/core" -c "$src/harness/core/xpb_op_item.c" -o "$work/xpb_op_item.o" &
objs+=("$work/xpb_op_item.o") pids+=($!)
for p in "${pids[@]}"; do wait "$p"; done # a failed compile fails the test
"$cxx" -pthread "${objs[@]}" -o "$work/$test"
