#!/usr/bin/env bash
# glslang_slang.sh PYTHON SCRIPT LIB SHADER TMPDIR - scripts/glslang-slang.py, the build's compiler
# for the GL_NV_cooperative_matrix2 shaders: a real shader gives SPIR-V (magic word, the tensor-
# addressing capability of GL_NV_cooperative_matrix2) as binary and as the C words the build embeds; a
# broken one exits 1 with the compiler's message and leaves no output file behind.
set -u
py=$1 script=$2 lib=$3 shader=$4 tmp=$5
mkdir -p "$tmp" && rm -f "$tmp"/out.*
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=$((fail + 1)); fi; }
"$py" "$script" "$lib" "$shader" "$tmp/out.spv"
check "compiles $(basename "$shader")" '[ $? -eq 0 ] && [ "$(od -An -tx4 -N4 "$tmp/out.spv" | tr -d " ")" = 07230203 ]'
# OpCapability CooperativeMatrixTensorAddressingNV: the words 0x00020011 (131089), 5433
check "declares CooperativeMatrixTensorAddressingNV" \
  'od -An -tu4 -v "$tmp/out.spv" | tr -s " " "\n" | grep -A1 -x 131089 | grep -qx 5433'
"$py" "$script" "$lib" "$shader" "$tmp/out.spv.inc"
check "writes the embedded words" '[ $? -eq 0 ] && head -1 "$tmp/out.spv.inc" | grep -qx "0x07230203,"'
printf '#version 450\nlayout(local_size_x = 1) in;\nvoid main() { undeclared = 1; }\n' > "$tmp/bad.comp"
msg=$("$py" "$script" "$lib" "$tmp/bad.comp" "$tmp/out.bad.spv" 2>&1)
rc=$?
check "a broken shader exits 1 with the compiler's message" '[ $rc -eq 1 ] && grep -q "undeclared" <<<"$msg"'
check "and leaves no output" '[ ! -e "$tmp/out.bad.spv" ] && [ ! -e "$tmp/out.bad.spv.tmp" ]'
exit $((fail > 0))
