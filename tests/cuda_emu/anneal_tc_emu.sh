#!/usr/bin/env bash
# anneal_tc_emu.sh CXX SOURCE_DIR WORK_DIR [CASE...] - cuda/tc and cuda/default (their own .cu
# source, adapted by transform.py) run on the CPU by emu.h and compared bit for bit
# (anneal_tc_emu.cc), so that a machine without a GPU checks the tc variant's indexing, its bound's
# use and its exact recheck. No GPU, no CUDA toolkit needed: a C++20 compiler and python3.
set -eu
"$(dirname "$0")/emu_build.sh" "$1" "$2" "$3" anneal_tc_emu anneal cuda_anneal.cuh anneal_assign anneal_assign_tc
work=$3
shift 3
exec "$work/anneal_tc_emu" "$@"
