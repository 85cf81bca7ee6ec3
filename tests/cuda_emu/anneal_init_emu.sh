#!/usr/bin/env bash
# anneal_init_emu.sh CXX SOURCE_DIR WORK_DIR [CASE...] - the sharded anneal run's INIT (each rank
# init's step kernel over its points, the winner's key all_reduced as a max a step) against the
# one-GPU init, anneal_init.cu's own source adapted by transform.py and run on the CPU by emu.h
# (anneal_init_emu.cc): groups of 1 - 4 ranks, every rank's anchors and chosen equal bit for bit.
# No GPU, no CUDA toolkit needed: a C++20 compiler and python3.
set -eu
"$(dirname "$0")/emu_build.sh" "$1" "$2" "$3" anneal_init_emu anneal cuda_anneal.cuh anneal_init
work=$3
shift 3
exec "$work/anneal_init_emu" "$@"
