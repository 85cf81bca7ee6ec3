#!/usr/bin/env bash
# report_nightly.sh XPUBENCH WORKDIR - scripts/nightly.sh on a tiny CPU run (validate-only, so
# timing noise cannot make it flaky): the first run creates the baseline, the second compares
# with it (exit 0, compare files written), a run with a broken kernel exits 1.
set -u
bin=$1 work=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work" && mkdir -p "$work" || exit 1
export XPB_BIN=$bin XPB_RESULTS_DIR=$work/results XPB_HOST=testhost XPB_REPORT_SCRIPT=$root/reports/report.py
export OMP_NUM_THREADS=2
args=(--backend cpu --size n=1000,rows=3,cols=7 --validate-only)
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
"$root/scripts/nightly.sh" "${args[@]}" >"$work/1.log" 2>&1; rc=$?
[ $rc -eq 0 ] && ok || bad "first run: exit $rc: $(tail -5 "$work/1.log")"
[ -s "$work/results/baseline/testhost.json" ] && ok || bad "no baseline created"
# the default, 2 runs a night: the baseline keeps the second process's run as well
[ -s "$work/results/baseline/testhost.rerun2.json" ] && ok || bad "baseline without its rerun"
grep -q "baseline .* created" "$work/1.log" && ok || bad "first run does not say it created the baseline"
sleep 1
XPB_NIGHTLY_RUNS=2 "$root/scripts/nightly.sh" "${args[@]}" >"$work/2.log" 2>&1; rc=$?
[ $rc -eq 0 ] && ok || bad "second run: exit $rc: $(tail -5 "$work/2.log")"
[ "$(ls "$work"/results/history/testhost/*Z.json | wc -l)" -eq 2 ] && ok || bad "history does not hold two runs"
ls "$work"/results/history/testhost/*.compare.md >/dev/null 2>&1 && ok || bad "no compare summary written"
# XPB_NIGHTLY_RUNS=2: a second process's run kept beside the night's, pooled into the new side
ls "$work"/results/history/testhost/*Z.rerun2.json >/dev/null 2>&1 && ok || bad "no rerun file"
grep -q "units pool the rounds of 2 base and 2 new runs" "$work/2.log" && ok || bad "reruns not pooled by compare"
sleep 1
"$root/scripts/nightly.sh" "${args[@]}" --inject-fault value >"$work/3.log" 2>&1; rc=$?
[ $rc -eq 1 ] && ok || bad "validation failure: exit $rc, want 1: $(tail -5 "$work/3.log")"
XPB_BIN=/nonexistent "$root/scripts/nightly.sh" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok || bad "missing binary: exit $rc, want 2"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
