#!/usr/bin/env bash
# rows_regs_emu.sh CXX SOURCE_DIR WORK_DIR [CASE...] - cuda/regs' long-row kernel of softmax,
# rmsnorm and layernorm (the three .cu files' policies and cuda_rowop_regs.cuh, their own source
# adapted by rows_transform.py) run on the CPU by emu.h (rows_regs_emu.cc): near an fp64
# reference, nothing written past the rows, every chunk claimed once. No GPU, no CUDA toolkit
# needed: a C++20 compiler and python3.
set -eu
src=$2 work=$3
py=$src/.venv/bin/python
[ -x "$py" ] || py=python3
mkdir -p "$work"
"$py" "$src/tests/cuda_emu/rows_transform.py" "$src" "$work/rows_gen.h"
"$(dirname "$0")/emu_build.sh" "$1" "$src" "$work" rows_regs_emu --generated
shift 3
exec "$work/rows_regs_emu" "$@"
