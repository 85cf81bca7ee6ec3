#!/usr/bin/env bash
# kernel_config_cuda.sh XPUBENCH WORK - what CUDA's row kernels chose by themselves is in the
# results (a case's kernel_config, docs/results-schema.md): cuda/regs' shape per op (its policy's
# or XPB_CUDA_REGS_SHAPE's OP:SHAPE item), its chunking, float4 or float loads, softmax's exp
# form (XPB_CUDA_ROW_EXP; the others have none); the default variant's path (a held shape, or
# regs' launch past 32768 columns); cuda/onchip's chunking. Skips (77) without a CUDA device.
set -u
bin=$1 work=$2
. "$(dirname "$0")/kernel_config_lib.sh"
out=$(XPB_CUDA_REGS_SHAPE=softmax:512x16x2 XPB_CUDA_ROW_EXP=once "$here/run_backend_test.sh" "$bin" cuda \
    run --backend cuda --variant default,regs,onchip --workload elementwise --size rows=3,cols=40001 \
    --filter 'softmax|rmsnorm' --validate-only --out "$work/a.json" 2>&1)
rc=$?
[ "$rc" -eq 77 ] && { echo "$out" | head -1; exit 77; }
[ "$rc" -ne 0 ] && { echo "$out" | tail -5; no "the run at 40001 columns"; exit 1; }
# 40001 columns: not a multiple of 4, so float loads; 512 x 16 = 8192-float chunks, 5 a row
v=$(kc "$work/a.json" softmax regs)
[ "$v" = "shape=512x16x2 chunk=8192 chunks=5 loads=float exp=once" ] && ok "regs softmax: $v" \
  || no "regs softmax's kernel_config: '$v'"
v=$(kc "$work/a.json" rmsnorm regs)
[[ "$v" == shape=* && "$v" != *512x16x2* && "$v" != *exp=* ]] && ok "regs rmsnorm (its own shape, no exp form): $v" \
  || no "regs rmsnorm's kernel_config: '$v'"
v=$(kc "$work/a.json" softmax default)
[ "$v" = "path=regs shape=512x16x2 chunk=8192 chunks=5 loads=float exp=once" ] && ok "default softmax, 40001 columns: $v" \
  || no "default softmax at 40001 columns: '$v'"
v=$(kc "$work/a.json" softmax onchip)
[[ "$v" == chunk=*" chunks="*" grid="*" loads=threads" ]] && ok "onchip softmax: $v" || no "onchip softmax: '$v'"
"$bin" run --no-tuning --backend cuda --variant default,regs --workload elementwise --size rows=3,cols=4096 --filter softmax \
    --validate-only --out "$work/b.json" > "$work/b.log" 2>&1 || no "the run at 4096 columns"
v=$(kc "$work/b.json" softmax default)
[ "$v" = "path=block-per-row loads=float4" ] && ok "default, 4096 columns: $v" || no "default at 4096 columns: '$v'"
v=$(kc "$work/b.json" softmax regs)
[[ "$v" == *" chunks=1 loads=float4 exp=fast" ]] && ok "regs, one chunk, untuned (--no-tuning): the knob's default exp: $v" \
  || no "regs at 4096 columns: '$v'"
exit $fail
