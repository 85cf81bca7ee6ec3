#!/usr/bin/env bash
# report_dump_run.sh XPUBENCH WORKDIR - `xpubench run --dump DIR` end to end, and the automatic
# dump plus rerun line of a case that fails validation. Skipped (77) while `run` has no --dump.
set -u
bin=$1 work=$2
"$bin" run --help 2>&1 | grep -q -- "--dump" || { echo "SKIP: this xpubench run has no --dump option yet"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
export OMP_NUM_THREADS=2
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
"$bin" run --backend cpu --size rows=3,cols=7 --filter softmax --validate-only --dump dump >run.log 2>&1
rc=$?
[ $rc -eq 0 ] && ok || bad "run --dump: exit $rc: $(tail -3 run.log)"
stem=dump/elementwise__softmax__rows-3_cols-7__fp32
for f in "$stem.json" "$stem.reference.npy" "$stem.tolerance.fp32.npy"; do
  [ -s "$f" ] && ok || bad "missing $f"
done
ls "$stem".out.cpu_0__*.npy >/dev/null 2>&1 && ok || bad "no output .npy for cpu:0"
"$bin" run --backend cpu --size n=1000 --filter 'add' --validate-only --inject-fault value --out r.json >fail.log 2>&1
rc=$?
[ $rc -eq 1 ] && ok || bad "a failing case: exit $rc, want 1"
grep -q "rerun: $(readlink -f "$bin") run --backend cpu:0 --workload elementwise --size n=1000 --filter '^elementwise/add/n=1000/fp32\$' --seed" fail.log \
  && ok || bad "no rerun line: $(cat fail.log)"
grep -q "dump: .*elementwise__add__n-1000__fp32.json" fail.log && ok || bad "no automatic dump line: $(cat fail.log)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
