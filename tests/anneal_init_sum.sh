#!/usr/bin/env bash
# anneal_init_sum.sh XPUBENCH [SIZE...] - the Vulkan init's two ways of adding a point's lane
# partials (XPB_VULKAN_INIT_SUM=shuffle and shared, backends/vulkan/anneal/anneal_init.c) add the
# same partials in the same order, so their runs must be equal byte for byte: each --size given
# (default: sizes whose lane groups fit the device's subgroups, d of 1 to 64) runs with each, --dump,
# and every array (initial and final anchors, final assignments, trajectory) is compared.
# Skips (77) without a Vulkan device, or where the device cannot shuffle (the form then never runs).
set -u
bin=$1
shift
here=$(dirname "$0")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
[ $# -gt 0 ] || set -- n=4097,d=64,m=33,iters=3 n=1000,d=3,m=17,iters=3 n=257,d=1,m=5,iters=2
for size in "$@"; do
  for sum in shared shuffle; do
    XPB_VULKAN_INIT_SUM=$sum "$here/run_backend_test.sh" "$bin" vulkan run --backend vulkan --workload anneal \
        --validate-only --dump "$dir/$sum" --size "$size" > "$dir/$sum.log" 2>&1
    rc=$?
    [ "$rc" -eq 77 ] && { head -1 "$dir/$sum.log"; exit 77; }
    if [ "$sum" = shuffle ] && grep -q "XPB_VULKAN_INIT_SUM=shuffle: this device has no subgroup shuffle" "$dir/$sum.log"; then
      echo "skip: this device has no subgroup shuffle"; exit 77
    fi
    [ "$rc" -eq 0 ] || { tail -20 "$dir/$sum.log"; exit 1; }
  done
done
for f in "$dir"/shared/*.run.vulkan_0__default.*.npy; do
  [ -e "$f" ] && echo "$f $dir/shuffle/$(basename "$f")"
done | "$here/arrays_equal.sh" "the shuffle form's runs and the shared form's"
