#!/usr/bin/env bash
# report_plot.sh XPUBENCH WORKDIR - `xpubench plot` through gnuplot: an ASCII chart in the
# terminal, PNG and SVG files, the .gp/.dat written beside them (and rerunnable), --case, and
# failed/unsupported cases left out. Skipped (77) when gnuplot or python3 is missing.
set -u
bin=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
command -v gnuplot >/dev/null || { echo "SKIP: gnuplot not installed (apt-get install gnuplot-nox)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found (needed to write synthetic results)"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
python3 "$here/synth_results.py" r.json --problems || exit 1

"$bin" plot r.json --case 'elementwise/(add|mul)' >dumb.txt 2>err.txt && ok || bad "dumb plot: $(cat err.txt)"
grep -q "GB/s against size" dumb.txt && ok || bad "no chart title in the terminal output"
grep -q "add cuda:0 default" dumb.txt && ok || bad "no series key in the terminal output"
[ -s xpubench-plot.gp ] && [ -s xpubench-plot.dat ] && ok || bad "dumb: .gp/.dat not written"
grep -q "not drawn: .* without a validated timing" err.txt && ok || bad "failed cases not reported: $(cat err.txt)"

"$bin" plot r.json --term png -o missing-dir/chart.png >/dev/null 2>err.txt; [ $? -eq 2 ] && ok || bad "unwritable -o accepted"
mkdir -p out && "$bin" plot r.json --term png -o out/chart.png 2>err.txt && ok || bad "png: $(cat err.txt)"
[ "$(head -c 8 out/chart.png | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] && ok || bad "chart.png is not a PNG"
[ -s out/chart.gp ] && [ -s out/chart.dat ] && ok || bad "png: .gp/.dat not beside the output"
(cd out && rm chart.png && gnuplot chart.gp) && [ -s out/chart.png ] && ok || bad "the .gp script does not rerun"
"$bin" plot r.json --term svg --case gemm 2>err.txt && ok || bad "svg: $(cat err.txt)"
grep -q "<svg" r.svg && grep -q "GFLOP/s" r.svg && ok || bad "r.svg: not an SVG of GFLOP/s (gemm is compute-heavy)"
# the failed-validation and errored mul cases must not appear as points
! grep -q "mul" r.dat && ok || bad "r.dat holds a failed case"
"$bin" plot r.json --case 'elementwise/mul/n=16777216' >/dev/null 2>err.txt; rc=$?
[ "$rc" -eq 2 ] && grep -q "no validated, timed case" err.txt && ok || bad "only-failed selection: exit $rc $(cat err.txt)"
"$bin" plot r.json --term jpeg >/dev/null 2>err.txt; [ $? -eq 2 ] && ok || bad "bad --term accepted"
"$bin" plot r.json --case '(' >/dev/null 2>err.txt; [ $? -eq 2 ] && ok || bad "bad --case regex accepted"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
