#!/usr/bin/env bash
# burst_propagate_bits_emu.sh CXX SOURCE_DIR WORK_DIR - a device group's rank's propagate read from
# the gathered fired bits (burst_propagate_bits.cu, XPB_CUDA_SHARDED_PROPAGATE=bits; its own source,
# adapted by transform.py), run on the CPU by emu.h and compared bit for bit with a serial
# propagate of the same fired set through the same shard (burst_propagate_bits_emu.cc): every
# neuron's input, and nothing written past the array. No GPU, no CUDA toolkit needed.
set -eu
"$(dirname "$0")/emu_build.sh" "$1" "$2" "$3" burst_propagate_bits_emu burst cuda_burst.cuh burst_propagate_bits
work=$3
shift 3
exec "$work/burst_propagate_bits_emu" "$@"
