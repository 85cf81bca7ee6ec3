#!/usr/bin/env bash
# anneal_init_forms.sh XPUBENCH BACKEND KNOB A B [SIZE...] - two settings of a knob that change how
# the anneal init computes, never what: the Vulkan init's two ways of adding a point's lane partials
# (XPB_VULKAN_INIT_SUM=shared|shuffle: the same partials in the same order), or a step skipping the
# rows its bound allows against reading every row (XPB_CUDA_INIT_BOUND, XPB_VULKAN_INIT_BOUND=on|off:
# a skipped point keeps its minimum bit for bit). So their runs must be equal byte for byte: each
# --size given (default: sizes whose lane groups fit the device's subgroups, d of 1 to 64) runs with
# KNOB=A and KNOB=B, --dump, and every array (initial and final anchors, final assignments,
# trajectory) is compared. Skips (77) without a device of BACKEND, or where the device cannot run
# a setting (its error names the knob: e.g. a device that cannot shuffle).
set -u
bin=$1 backend=$2 knob=$3 a=$4 b=$5
shift 5
here=$(dirname "$0")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
[ $# -gt 0 ] || set -- n=4097,d=64,m=33,iters=3 n=1000,d=3,m=17,iters=3 n=257,d=1,m=5,iters=2 n=8191,d=12,m=48,iters=2
for size in "$@"; do
  for v in "$a" "$b"; do
    env "$knob=$v" "$here/run_backend_test.sh" "$bin" "$backend" run --backend "$backend" --workload anneal \
        --validate-only --dump "$dir/$v" --size "$size" > "$dir/$v.log" 2>&1
    rc=$?
    [ "$rc" -eq 77 ] && { head -1 "$dir/$v.log"; exit 77; }
    if grep -q "$knob=$v: " "$dir/$v.log"; then
      echo "skip: $(grep -m1 "$knob=$v: " "$dir/$v.log")"; exit 77
    fi
    [ "$rc" -eq 0 ] || { tail -20 "$dir/$v.log"; exit 1; }
  done
done
for f in "$dir/$a"/*.run.*.npy; do
  [ -e "$f" ] && echo "$f $dir/$b/$(basename "$f")"
done | "$here/arrays_equal.sh" "the runs with $knob=$b and $knob=$a"
