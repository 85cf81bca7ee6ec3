#!/usr/bin/env bash
# cuda_probe_messages.sh XPUBENCH DIR - `xpubench list` says why CUDA is unusable in the user's
# terms (backends/cuda/runtime/cuda_device.c), never the runtime's "CUDA driver version is insufficient
# for CUDA runtime version" where there is no driver to update:
#  1. no libcuda.so.1 and no NVIDIA kernel module (a machine without a GPU):
#     "no NVIDIA driver on this machine (libcuda.so.1 not found)";
#  2. a libcuda.so.1 whose cuDriverGetVersion is older than the runtime (a stand-in built into DIR,
#     first on LD_LIBRARY_PATH, so this part runs on GPU machines too): "NVIDIA driver ...
#     (CUDA 11.4) is older than the CUDA runtime X.Y this xpubench uses: update the driver";
#  3. a GPU machine with the GPUs hidden (CUDA_VISIBLE_DEVICES=): "the NVIDIA driver ... is loaded
#     but sees no GPU (CUDA_VISIBLE_DEVICES=)".
# Parts 1 and 3 run where they apply (1 without a driver, 3 with one). Skipped (77) when xpubench
# is built without CUDA, or when no C compiler is here for part 2 and part 1 does not apply.
set -u
bin=$1 dir=$2
fail=0 ran=0
cuda_line() { "$bin" list 2>&1 | sed -n 's/^  cuda  *//p'; }
check() { # check WHAT LINE PATTERN
  ran=$((ran + 1))
  if grep -qE -- "$3" <<<"$2"; then echo "ok: $1: $2"; else echo "FAIL: $1: '$2' does not match '$3'"; fail=1; fi
}
line=$(cuda_line)
case $line in
  *"built without CUDA"*) echo "SKIP: $line"; exit 77 ;;
esac
have_driver=0
{ [ -e /proc/driver/nvidia/version ] || ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; } && have_driver=1
# 1.
if [ "$have_driver" -eq 0 ]; then
  check "no driver" "$line" '^unavailable: no NVIDIA driver on this machine \(libcuda\.so\.1 not found\)$'
fi
# 2.
rm -rf "$dir" && mkdir -p "$dir" || exit 1
echo 'int cuDriverGetVersion(int *v) { *v = 11040; return 0; } /* CUDA 11.4 */' > "$dir/fake.c"
if ${CC:-cc} -shared -fPIC -o "$dir/libcuda.so.1" "$dir/fake.c" 2>"$dir/cc.log"; then
  line=$(LD_LIBRARY_PATH=$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} cuda_line)
  check "old driver" "$line" \
    '^unavailable: NVIDIA driver( [0-9.]+)? \(CUDA 11\.4\) is older than the CUDA runtime [0-9]+\.[0-9]+ this xpubench uses: update the driver$'
else
  echo "note: no C compiler for the stand-in libcuda.so.1: $(head -1 "$dir/cc.log")"
fi
# 3.
if [ "$have_driver" -eq 1 ] && grep -q "^available" <<<"$(cuda_line)"; then
  check "GPUs hidden" "$(CUDA_VISIBLE_DEVICES= cuda_line)" \
    '^unavailable: the NVIDIA driver( [0-9.]+)?( \(CUDA [0-9.]+\))? is loaded but sees no GPU \(CUDA_VISIBLE_DEVICES=\)$'
fi
[ "$fail" -eq 0 ] || exit 1
[ "$ran" -gt 0 ] || { echo "SKIP: no part applies here"; exit 77; }
echo "OK: $ran messages"
