#!/usr/bin/env bash
# anneal_tc_same.sh XPUBENCH [RUN OPTIONS...] - cuda/tc must reproduce cuda/default's runs bit for bit
# (backends/cuda/anneal/anneal_assign_tc.cu settles every assignment in default's own fp32
# arithmetic, so any difference is a bug, never rounding): both variants run the anneal cases of
# the options (default: --preset conformance) with --dump, and every array of a tc run (initial
# and final anchors, final assignments, trajectory) must equal default's byte for byte.
# XPB_CUDA_ASSIGN_TC_RECHECK and XPB_CUDA_ASSIGN_TC_SLICE pass through. Skips (77) where there is no CUDA device.
set -u
bin=$1
shift
here=$(dirname "$0")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
[ $# -gt 0 ] || set -- --preset conformance
"$here/run_backend_test.sh" "$bin" cuda run --backend cuda --workload anneal --variant default,tc --validate-only \
    --dump "$dir" "$@" > "$dir/log" 2>&1
rc=$?
[ "$rc" -eq 77 ] && { head -1 "$dir/log"; exit 77; }
[ "$rc" -eq 0 ] || { tail -20 "$dir/log"; exit 1; }
for f in "$dir"/*.run.cuda_0__default.*.npy; do
  [ -e "$f" ] && echo "$f ${f/.run.cuda_0__default./.run.cuda_0__tc.}"
done | "$here/arrays_equal.sh" "cuda/tc's runs and cuda/default's"
