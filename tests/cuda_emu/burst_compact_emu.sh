#!/usr/bin/env bash
# burst_compact_emu.sh CXX SOURCE_DIR WORK_DIR - a device group's rank's compact of the gathered
# fired bits, both forms (burst_compact.cu's two launches, burst_compact_lookback.cu's single pass;
# their own source, adapted by transform.py), run on the CPU by emu.h and compared bit for bit with
# each other and with a serial compaction (burst_compact_emu.cc): the fired list, the degree scan,
# the counters. No GPU, no CUDA toolkit needed: a C++20 compiler and python3.
set -eu
"$(dirname "$0")/emu_build.sh" "$1" "$2" "$3" burst_compact_emu burst cuda_burst.cuh burst_compact burst_compact_lookback
work=$3
shift 3
exec "$work/burst_compact_emu" "$@"
