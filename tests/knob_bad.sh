#!/usr/bin/env bash
# knob_bad.sh XPUBENCH BACKEND KNOB=VALUE:VARIANT... - each knob set to an invalid value makes the
# row case of its variant an error (exit 3) whose message names the knob, not a silent default
# (harness/core/xpb_knob.h). Skips (77) where BACKEND has no device here. KNOB_CASE: the run options of
# the case each knob is tried on (default: a row case of rmsnorm).
set -u
bin=$1 backend=$2
shift 2
here=$(dirname "$0")
fail=0
for entry in "$@"; do
  knob=${entry%:*} variant=${entry##*:} # the variant after the last ':' (a value may hold one)
  # shellcheck disable=SC2086
  out=$(env "$knob" "$here/run_backend_test.sh" "$bin" "$backend" --expect 3 run --backend "$backend" \
      --variant "$variant" ${KNOB_CASE:---workload elementwise --size rows=3,cols=5000 --filter rmsnorm} --validate-only 2>&1)
  rc=$?
  [ "$rc" -eq 77 ] && { echo "$out" | head -1; exit 77; }
  if [ "$rc" -ne 0 ] || ! echo "$out" | grep -q "${knob%%=*}"; then
    echo "FAIL: $knob ($variant): exit or message wrong"; echo "$out" | tail -5; fail=1
  else
    echo "ok: $knob ($variant): $(echo "$out" | grep -o "${knob%%=*}[^|]*" | head -1)"
  fi
done
exit $fail
