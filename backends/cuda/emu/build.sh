#!/bin/bash
# emu/build.sh - builds xpubench-cuda-emu: the real harness, the CPU backend and this CUDA
# backend's own sources, with the kernels run on the CPU (cuda_runtime.h, emu_*.cpp here).
# A developer tool for machines without a GPU; not part of the CMake build or of CI.
#
#   cmake -S . -B build-cpu -DXPB_CUDA=OFF -DXPB_VULKAN=OFF && cmake --build build-cpu --target xpubench
#   backends/cuda/emu/build.sh build-cpu /tmp/emu
#   EMU_SMS=3 /tmp/emu/xpubench-cuda-emu run --backend cuda --preset conformance --validate-only
#
# It checks the kernels' indexing, guards, reductions, launch shapes and error paths against the
# fp64 reference; not CUDA's math library (the host's expf/sincosf are used), the memory model,
# or speed.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 CPU_ONLY_BUILD_DIR OUT_DIR" >&2; exit 2; }
EMU=$(cd "$(dirname "$0")" && pwd)
CUDA_SRC=$(dirname "$EMU")
ROOT=$(cd "$CUDA_SRC/../.." && pwd)
BUILD=$(cd "$1" && pwd)
OUT=$2
CUDA_INC=${CUDA_INC:-/usr/local/cuda/include}
[ -f "$BUILD/libxpb.a" ] && [ -f "$BUILD/CMakeFiles/xpubench.dir/harness/main.c.o" ] ||
  { echo "$BUILD: build xpubench there first (a CPU-only configuration)" >&2; exit 2; }
rm -rf "$OUT/src" "$OUT/obj"
mkdir -p "$OUT/src" "$OUT/obj"

# Copy the .cu/.cuh sources with every launch rewritten to emu_launch(ctx->stream, ...).
python3 - "$CUDA_SRC" "$OUT/src" <<'PY'
import glob, os, re, sys
src, dst = sys.argv[1], sys.argv[2]
launch = re.compile(r'(\w+(?:<[^;<>]*>)?)\s*<<<\s*([^,]+?),\s*(dim3\([^)]*\)|[^,]+?),\s*0,\s*'
                    r'ctx->stream\s*>>>\s*\((.*?)\);', re.S)
for f in glob.glob(src + '/*.cu') + glob.glob(src + '/*.cuh'):
    text = launch.sub(lambda m: 'emu_launch(ctx->stream, dim3(%s), dim3(%s), &%s, %s);'
                      % (m.group(2), m.group(3), m.group(1), m.group(4)), open(f).read())
    if '<<<' in text:
        sys.exit('emu: a launch in %s has a form build.sh does not rewrite' % f)
    name = os.path.basename(f)
    open(os.path.join(dst, name + ('.cpp' if name.endswith('.cu') else '')), 'w').write(text)
PY

CXXFLAGS="-std=c++17 -O2 -g -Wall -Wextra -Wno-unknown-pragmas -I$EMU -I$OUT/src -I$CUDA_SRC -I$ROOT/harness -I$CUDA_INC"
CFLAGS="-std=c11 -O2 -g -Wall -Wextra -I$CUDA_SRC -I$ROOT/harness -I$CUDA_INC -I$BUILD/generated"
pids=()
for f in "$OUT"/src/*.cu.cpp; do g++ $CXXFLAGS -c "$f" -o "$OUT/obj/$(basename "$f" .cu.cpp).o" & pids+=($!); done
for f in "$CUDA_SRC"/*.c; do gcc $CFLAGS -c "$f" -o "$OUT/obj/$(basename "$f" .c).host.o" & pids+=($!); done
for f in "$EMU"/*.cpp; do g++ $CXXFLAGS -c "$f" -o "$OUT/obj/$(basename "$f" .cpp).o" & pids+=($!); done
# The registry with the cuda backend in it (the CPU-only libxpb.a has it without).
gcc $CFLAGS -DXPB_HAVE_CUDA=1 -c "$ROOT/harness/xpb_registry.c" -o "$OUT/obj/xpb_registry.o" & pids+=($!)
for p in "${pids[@]}"; do wait "$p"; done

# Link like the CPU-only xpubench (its link line names the libraries), plus the objects above.
libs=$(sed -e 's/.*libxpb\.a//' "$BUILD/CMakeFiles/xpubench.dir/link.txt")
g++ -o "$OUT/xpubench-cuda-emu" "$BUILD/CMakeFiles/xpubench.dir/harness/main.c.o" "$OUT"/obj/*.o \
    "$BUILD/libxpb.a" $libs -fopenmp -lpthread -lm
echo "built $OUT/xpubench-cuda-emu"
