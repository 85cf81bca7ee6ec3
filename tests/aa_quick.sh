#!/usr/bin/env bash
# aa_quick.sh XPUBENCH BACKEND WORKDIR [RUN OPTIONS...] - the A/A test of issue 9 on this machine:
# the same build run as two "builds" A and B, XPB_AA_RUNS (default 3) runs of the quick preset on
# BACKEND each (RUN OPTIONS, e.g. --filter and --rounds, narrow every run alike), every run its
# own process, interleaved in time (A1 B1 A2 B2 A3 B3); then
#   compare A1 B1 --rerun-base A2 --rerun-base A3 --rerun-new B2 --rerun-new B3
# must be clean: exit 0, no case and no op of a stateful case `slower` or `faster`
# (docs/reports.md, "Verdicts"). Several runs per side because one process's rounds cannot see a
# shift between processes: on a shared 2-core VM whole cases move by 10-170% from one process to
# the next, every round of the process agreeing. A verdict needs 5 units a side: the rounds of a
# side's runs are pooled, so runs x rounds must be at least 5 (checked here). Skipped (77) when
# BACKEND has no device here.
set -u
bin=$1 backend=$2 work=$3
shift 3
reason=$("$bin" list 2>&1 | sed -n "s/^  $backend *unavailable: //p")
if [ -n "$reason" ]; then echo "SKIP: $backend backend unavailable here: $reason"; exit 77; fi
rm -rf "$work" && mkdir -p "$work" || exit 1
runs=${XPB_AA_RUNS:-3}
rounds=5
for ((i = 1; i <= $#; i++)); do [ "${!i}" = --rounds ] && { j=$((i + 1)); rounds=${!j}; }; done
if [ $((runs * rounds)) -lt 5 ]; then
  echo "FAIL: $runs runs of $rounds rounds give $((runs * rounds)) units a side; a verdict needs 5"; exit 1
fi
for ((i = 1; i <= runs; i++)); do
  for side in A B; do
    "$bin" run --backend "$backend" --preset quick "$@" --out "$work/$side$i.json" > "$work/$side$i.txt" 2>&1 \
      || { echo "FAIL: run $side$i exited $? ($work/$side$i.txt)"; tail -5 "$work/$side$i.txt"; exit 1; }
  done
done
reruns=()
for ((i = 2; i <= runs; i++)); do reruns+=(--rerun-base "$work/A$i.json" --rerun-new "$work/B$i.json"); done
"$bin" compare "$work/A1.json" "$work/B1.json" "${reruns[@]}" --json "$work/compare.json" > "$work/compare.txt" 2>&1
rc=$?
tail -1 "$work/compare.txt"
grep -E " (slower|faster) \(" "$work/compare.txt"
if [ "$rc" -ne 0 ] || ! grep -qE "^summary: 0 slower, 0 faster, .*ops of stateful cases: 0 slower, 0 faster" \
    "$work/compare.txt"; then
  echo "FAIL: the same build twice compared as different (exit $rc): $work/compare.txt"
  exit 1
fi
# every case and op was judged on enough units, none "noisy" for want of them
if grep -q "a verdict needs" "$work/compare.txt"; then
  echo "FAIL: too few units a side: $work/compare.txt"; grep -m3 "a verdict needs" "$work/compare.txt"; exit 1
fi
echo "OK: A/A clean over $runs runs a side of $rounds rounds each"
