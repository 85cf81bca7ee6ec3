#!/usr/bin/env bash
# aa_quick.sh XPUBENCH BACKEND WORKDIR - the A/A test of issue 9 on this machine: the quick preset
# run twice on BACKEND, in two processes, must compare clean (exit 0, no case and no op of a
# stateful case `slower` or `faster`); docs/reports.md, "Verdicts". Skipped (77) when BACKEND has
# no device here.
set -u
bin=$1 backend=$2 work=$3
reason=$("$bin" list 2>&1 | sed -n "s/^  $backend *unavailable: //p")
if [ -n "$reason" ]; then echo "SKIP: $backend backend unavailable here: $reason"; exit 77; fi
# A software device (lavapipe) runs on the CPU's threads beside everything else: in CI its burst
# quick case came out 11.6% faster in the second process with all 5 rounds agreeing, a shift
# between processes that rounds inside one process cannot see (docs/reports.md, "Verdicts").
# Its times are for correctness only (README); the A/A is asserted on the CPU and on GPUs.
if "$bin" list 2>&1 | grep -E "^    $backend:[0-9]+ .*\[software device\]" >/dev/null; then
  echo "SKIP: $backend here is a software device (lavapipe): its run-to-run shifts between processes"
  echo "      (up to 12% seen in CI, every round agreeing) are not what this test judges"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work" || exit 1
for side in A B; do
  "$bin" run --backend "$backend" --preset quick --out "$work/$side.json" > "$work/$side.txt" 2>&1 \
    || { echo "FAIL: run $side exited $? ($work/$side.txt)"; tail -5 "$work/$side.txt"; exit 1; }
done
"$bin" compare "$work/A.json" "$work/B.json" --json "$work/compare.json" > "$work/compare.txt" 2>&1
rc=$?
tail -1 "$work/compare.txt"
grep -E " (slower|faster) \(" "$work/compare.txt"
if [ "$rc" -ne 0 ] || ! grep -qE "^summary: 0 slower, 0 faster, .*ops of stateful cases: 0 slower, 0 faster" \
    "$work/compare.txt"; then
  echo "FAIL: the same build twice compared as different (exit $rc): $work/compare.txt"
  exit 1
fi
echo "OK: A/A clean"
