#!/usr/bin/env bash
# report_compare.sh XPUBENCH WORKDIR - `xpubench compare` on synthetic results with known shifts
# (tests/reports/synth_results.py, Python standard library only): verdicts, exit codes, output files,
# fingerprint warnings, --machines, and one-line errors (exit 2) for bad results files.
set -u
bin=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
if ! command -v "$py" >/dev/null; then echo "SKIP: $py not found (needed to write synthetic results)"; exit 77; fi
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
synth() { "$py" "$here/synth_results.py" "$@" || { echo "FAIL: synth_results.py $*"; exit 1; }; }
# run_compare WANT_RC PATTERN ARGS...: exit code and a stdout line matching PATTERN
run_compare() {
  local want=$1 pattern=$2; shift 2
  "$bin" compare "$@" >out.txt 2>err.txt; local rc=$?
  if [ "$rc" -eq "$want" ] && grep -qE -- "$pattern" out.txt; then ok; else
    bad "compare $* -> exit $rc (want $want), pattern '$pattern'"; cat out.txt err.txt | head -20; fi
}

synth base.json --seed 1
synth slow10.json --seed 2 --shift 1.10 --commit def456
synth shift1.json --seed 3 --shift 1.01
synth fast.json --seed 4 --shift 0.85
synth noisy_base.json --seed 5 --noise 0.8 --samples 30
synth noisy_new.json --seed 6 --noise 0.8 --samples 30 --shift 1.10
synth failing.json --seed 7 --fail-case elementwise/add/n=1048576/fp32
synth other_gpu.json --seed 8 --gpu "Other GPU" --driver 560.1

# a clean 10% slowdown: every case slower, exit 4, and the files
run_compare 4 "summary: 18 slower, 0 faster, 0 same, 0 noisy" base.json slow10.json \
  --markdown cmp.md --json cmp.json --junit cmp.xml
grep -q "slower" out.txt && ok || bad "no 'slower' row"
grep -q "^## xpubench compare: regression" cmp.md && ok || bad "markdown header"
"$py" - <<'PY' && ok || bad "JSON/JUnit outputs"
import json, xml.etree.ElementTree as ET
j = json.load(open("cmp.json"))
assert j["schema"] == "xpubench-compare" and j["regression"] is True and j["summary"]["slower"] == 18
assert j["method"].startswith("median-ratio-ci+mann-whitney-on-samples/"), j.get("method")
assert all(c["verdict"] == "slower" and 1.05 < c["ratio"] < 1.15 for c in j["cases"]), j["cases"][0]
suite = ET.parse("cmp.xml").getroot().find("testsuite")
assert suite.get("tests") == "18" and suite.get("failures") == "18", suite.attrib
assert {p.get("name"): p.get("value") for p in suite.iter("property")}["method"] == j["method"]
assert len(suite.findall("testcase")) == 18
PY
# 1%: same, exit 0
run_compare 0 "summary: 0 slower, 0 faster, 18 same, 0 noisy" base.json shift1.json
# faster is not a regression
run_compare 0 "summary: 0 slower, 18 faster" base.json fast.json
# heavy noise: noisy, never a verdict
run_compare 0 "summary: 0 slower, 0 faster, 0 same, 18 noisy" noisy_base.json noisy_new.json
# threshold: a 10% slowdown is 'same' under --threshold 15%
run_compare 0 "summary: 0 slower, 0 faster, 18 same" base.json slow10.json --threshold 15%
# a new validation failure: listed, exit 4, a JUnit failure
run_compare 4 "status changed: elementwise/add/n=1048576/fp32 cuda:0 default: ok -> failed-validation" \
  base.json failing.json --junit fail.xml
grep -q 'type="failed-validation"' fail.xml && ok || bad "JUnit failure for the validation failure"
# a validation failure fixed: not a regression
run_compare 0 "status changed: .*failed-validation -> ok" failing.json base.json
# added / removed cases
synth problems.json --seed 9 --problems
run_compare 4 "added: elementwise/rope/n=4096/fp32 cuda:0 default \(unsupported" base.json problems.json
run_compare 0 "removed: elementwise/mul/n=16777216/fp32 cuda:0 default" problems.json base.json
# different GPU and driver: warned
run_compare 0 "warning: fingerprints differ: device cuda:0 differs: 'Synthetic GPU' \(base\) vs 'Other GPU'" \
  base.json other_gpu.json
grep -q "driver of cuda:0 differs" out.txt && ok || bad "driver warning"

# stateful cases (anneal): the total and each op, with the iteration counts of both sides
synth ann_base.json --seed 11 --anneal
synth ann_same.json --seed 12 --anneal
synth ann_assign.json --seed 13 --anneal --op-shift assign=1.3
synth ann_longer.json --seed 14 --anneal --iterations 36 --op-shift assign=1.3
synth ann_old.json --seed 15 --anneal --no-per-run
synth ann_old_slow.json --seed 16 --anneal --no-per-run --op-shift assign=1.5
# the same build twice: no verdict "slower" anywhere, exit 0
run_compare 0 "ops of stateful cases: 0 slower, 0 faster, 10 same, 0 noisy, 0 info-only" ann_base.json ann_same.json
grep -qE "^anneal/compress/n=10000,d=128,m=256/fp32 cuda:0 default: iterations 31 -> 31" out.txt && ok ||
  bad "no iteration counts for the stateful case"
grep -qE "^  total .* same " out.txt && grep -qE "^  assign .* same " out.txt && ok || bad "total/op rows"
! grep -q "slower (" out.txt && ok || bad "a 'slower' verdict comparing a build with itself"
# one op 30% slower, the total the same: that op is flagged slower, exit 4, a JUnit failure naming it
run_compare 4 "ops of stateful cases: 2 slower, 0 faster, 8 same" ann_base.json ann_assign.json \
  --markdown ann.md --json ann.json --junit ann.xml
grep -qE "^  assign .* slower \(" out.txt && grep -qE "^  total .* same " out.txt && ok || bad "assign not flagged"
grep -q "| assign | .* | \*\*slower\*\* |" ann.md && ok || bad "markdown stateful table"
"$py" - <<'PY' && ok || bad "JSON/JUnit of the stateful comparison"
import json, xml.etree.ElementTree as ET
j = json.load(open("ann.json"))
assert j["regression"] is True and j["summary"]["ops"]["slower"] == 2, j["summary"]
row = [c for c in j["cases"] if c["id"].startswith("anneal/") and c["device"] == "cuda:0"][0]
assert row["run"]["base_iterations"] == 31 and row["run"]["iterations_differ"] is False
ops = {o["op"]: o for o in row["run"]["ops"]}
assert ops["assign"]["verdict"] == "slower" and ops["assign"]["tested"] and ops["stats"]["verdict"] == "same", ops
fails = [t for t in ET.parse("ann.xml").getroot().iter("testcase") if t.find("failure") is not None]
assert len(fails) == 2 and all("assign slower" in t.find("failure").get("message") for t in fails)
PY
# a different iteration count: said in the verdict text, never a regression
run_compare 0 "2 incomparable; ops of stateful cases: 0 slower, 0 faster, 0 same, 0 noisy, 10 incomparable" \
  ann_base.json ann_longer.json
grep -q "incomparable (iterations differ (31 -> 36): per-run times are not comparable" out.txt && ok ||
  bad "no 'iterations differ' verdict text"
# older files (one breakdown run, no per-run samples): the ops are information only, labelled
run_compare 0 "ops of stateful cases: 0 slower, 0 faster, 0 same, 0 noisy, 10 info-only" ann_old.json ann_old_slow.json
grep -qE "^  assign .* 1\.5[0-9]* .* info-only \(a side has no per-run samples" out.txt && ok || bad "info-only op rows"
run_compare 0 "10 info-only" ann_old.json ann_assign.json

# machines side by side, with prices
synth m2.json --seed 10 --host fastbox --shift 0.5
run_compare 0 "all cases \(geometric mean\) +1\.00x over 9 +cases +2\.00x" --machines base.json m2.json \
  --price synth=10000 --price fastbox=40000 --markdown mach.md --json mach.json
grep -q "per dollar" out.txt && ok || bad "per-dollar line"
"$py" -c "import json; j=json.load(open('mach.json')); assert abs(j['machines'][1]['geomean_speedup']-2)<0.05" \
  && ok || bad "machines JSON"

# machines like with like (issue 10): an fp16-input variant never stands for a case's fp32 figure
# (its rows are apart, marked [fp16]); machines named by what they are; --label; small ratios
# printed with their digits ("... slower"), never 0.00x; no "nan" anywhere
synth gpu16.json --seed 11 --host vm --fp16-gemm --gpu "Big GPU" --cpu "Fast CPU"
synth slowcpu.json --seed 12 --host vm --cpu-only 2000 --cpu "Small CPU"
run_compare 0 "all cases \(geometric mean\)" --machines gpu16.json slowcpu.json --json mach2.json
grep -qE "^gemm/gemm/m=[0-9]+,n=[0-9]+,k=[0-9]+/fp32 +1\.00x cuda:0/default" out.txt && ok || bad "fp32 row took a lower precision"
grep -qE "^gemm/gemm/m=[0-9]+,n=[0-9]+,k=[0-9]+/fp32 \[fp16\] +1\.00x cuda:0/cublas-fp16" out.txt && ok || bad "no [fp16] row"
grep -q "^machine Big GPU + Fast CPU: gpu16.json" out.txt && grep -q "^machine Small CPU: slowcpu.json" out.txt && ok ||
  bad "machines not named by their GPU and CPU"
grep -qE "x slower cpu:0/default" out.txt && ok || bad "a 2000x slower case not printed as 'x slower'"
grep -qiE "nan|0\.00x" out.txt && bad "nan or 0.00x in the machines table" || ok
grep -qE "^gemm/gemm \[fp16\]" out.txt && bad "an op with no common case has a row" || ok
grep -qE "^gemm: GFLOP/s +[0-9.e+]+ over 3 cases +[0-9.e+]+ over 3 cases" out.txt && ok ||
  bad "no buyer's table (geometric-mean GFLOP/s per machine over the common cases)"
run_compare 0 "^machine fast box: gpu16.json" --machines gpu16.json slowcpu.json --label "fast box" --label small
grep -q "^machine small: slowcpu.json" out.txt && ok || bad "--label"

# bad input: exit 2 with one line on stderr, never a crash or a traceback
expect_error() { # PATTERN ARGS...
  local pattern=$1; shift
  "$bin" "$@" >/dev/null 2>err.txt; local rc=$?
  if [ "$rc" -eq 2 ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -qE -- "$pattern" err.txt; then ok; else
    bad "$* -> exit $rc, stderr: $(cat err.txt)"; fi
}
head -c 5000 base.json >truncated.json
printf '{"schema": "xpubench-results", "schema_version": 1, "cases": [}' >corrupt.json
printf '\x00\x01\x02garbage' >binary.json
: >empty.json
echo '{"schema": "xpubench-results", "schema_version": 9, "cases": []}' >future.json
echo '{"schema": "something-else", "schema_version": 1}' >other.json
expect_error "truncated.json: truncated results file" compare base.json truncated.json
expect_error "corrupt.json: corrupt results file" compare corrupt.json base.json
expect_error "binary.json: corrupt results file" compare base.json binary.json
expect_error "empty.json: empty results file" compare base.json empty.json
expect_error "future.json: results schema_version 9 is not supported" compare base.json future.json
expect_error "other.json: not an xpubench results file" compare base.json other.json
expect_error "missing.json: cannot read" compare base.json missing.json
expect_error "truncated.json: truncated" compare --machines base.json truncated.json
expect_error "give exactly two results files" compare base.json
expect_error "bad --threshold" compare base.json base.json --threshold -3
expect_error "unknown or incomplete option" compare --frobnicate base.json base.json
expect_error "truncated.json: truncated" plot truncated.json
expect_error "bad --noise-k" compare base.json base.json --noise-k x
expect_error "missing.json: cannot read" compare base.json base.json --history missing.json
expect_error "corrupt.json: corrupt" report corrupt.json -o rep
expect_error "cannot write" compare base.json slow10.json --json /nonexistent-dir/x.json
# Issue 9: verdicts on independent units (the rounds' medians, run --rounds). Each round drifts
# by a factor exp(N(0, round-noise)) that the back-to-back samples inside it do not see.
for rn in 0.005 0.04; do
  synth "aa1-$rn.json" --seed 1 --rounds 5 --round-noise $rn --noise 0.005 --anneal
  synth "aa2-$rn.json" --seed 12 --rounds 5 --round-noise $rn --noise 0.005 --anneal
  synth "slow-$rn.json" --seed 12 --rounds 5 --round-noise $rn --noise 0.005 --anneal \
    --slow-case elementwise/add/n=16777216/fp32=1.10 --slow-case elementwise/relu/n=65536/fp32=1.25
  # the A/A test: the same "build" twice, rounds drifting, compares clean (cases and ops)
  run_compare 0 "summary: 0 slower, 0 faster, 20 same, 0 noisy; ops of stateful cases: 0 slower, 0 faster, 10 same" \
    "aa1-$rn.json" "aa2-$rn.json"
done
# real changes are still caught: 10% on a quiet bandwidth-bound case (3.4 ms on cuda), 25% on a
# 40-us launch-bound one with 4% round-to-round noise (its band widens to 3x its noise)
run_compare 4 "summary: 4 slower, 0 faster, 16 same" aa1-0.005.json slow-0.005.json
grep -qE "^elementwise/add/n=16777216/fp32 cuda:0 .* slower \(1[0-9.]+% slower, outside \+-5%" out.txt && ok || bad "10% slowdown"
run_compare 4 "^elementwise/relu/n=65536/fp32 +cuda:0 .*slower \(.*every round agrees" aa1-0.04.json slow-0.04.json
"$bin" compare aa1-0.04.json slow-0.04.json --json u.json >/dev/null
"$py" - u.json <<'PY' && ok || bad "compare --json: the units method, band, noise and units per case"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["method"] == "units-median-ratio+noise-band/4", j["method"]
r = [r for r in j["cases"] if r["id"] == "elementwise/relu/n=65536/fp32" and r["device"] == "cuda:0"][0]
assert r["verdict"] == "slower" and r["base_units"] == 5 and r["band"] > 0.05 and r["noise"] > 0, r
PY
# too noisy to judge: 15% between rounds
synth vn1.json --seed 1 --rounds 5 --round-noise 0.15 --noise 0.005
synth vn2.json --seed 2 --rounds 5 --round-noise 0.15 --noise 0.005
run_compare 0 "too noisy to judge" vn1.json vn2.json
# --history: the case's medians over earlier nights (8% apart) widen its band past the 10%
synth h1.json --seed 21 --rounds 5 --round-noise 0.005 --noise 0.005 --shift 0.92
synth h2.json --seed 22 --rounds 5 --round-noise 0.005 --noise 0.005 --shift 1.08
synth h3.json --seed 23 --rounds 5 --round-noise 0.005 --noise 0.005 --shift 1.0
synth hs.json --seed 12 --rounds 5 --round-noise 0.005 --noise 0.005 --shift 1.10
run_compare 4 "summary: 18 slower" h3.json hs.json
run_compare 0 "summary: 0 slower, 0 faster, 18 same.*" h3.json hs.json --history h1.json --history h2.json --all
grep -q "noise [0-9.]*%, history" out.txt && ok || bad "history named as the noise source"
# ... and the ops of stateful cases: each history file is one process, and its op's median there
# is one more figure for the between-process spread (a 10% op shift inside 8% nights is `same`)
for h in "1 0.92" "2 1.08" "3 1.0" "s 1.10"; do
  set -- $h
  synth "ho$1.json" --seed "3${1/s/9}" --rounds 5 --round-noise 0.005 --noise 0.005 --anneal-only --op-shift "assign=$2"
done
run_compare 4 "ops of stateful cases: 2 slower, 0 faster" ho3.json hos.json
run_compare 0 "ops of stateful cases: 0 slower, 0 faster, 10 same" ho3.json hos.json --history ho1.json --history ho2.json
grep -qE "^  assign .* same \(shift [0-9.]+% inside .*noise [0-9.]*%, history\)" out.txt && ok || bad "an op's band from history"
# --rerun-base/--rerun-new: runs of each build in their own processes pool their rounds. One
# stray process (15% slow, every round of it) is `slower` alone but not when two more runs of
# each build are pooled in; a 10% slowdown of every new run is still `slower`.
for r in "a1 41 1.0" "a2 42 1.0" "a3 43 1.0" "b1 44 1.15" "b2 45 1.0" "b3 46 1.0" "s1 47 1.10" "s2 48 1.10" "s3 49 1.10"; do
  set -- $r
  synth "p$1.json" --seed "$2" --rounds 5 --round-noise 0.005 --noise 0.005 --shift "$3" --anneal
done
run_compare 4 "summary: 20 slower.*ops of stateful cases: 10 slower" pa1.json pb1.json
run_compare 0 "summary: 0 slower, 0 faster, .*ops of stateful cases: 0 slower, 0 faster" pa1.json pb1.json \
  --rerun-base pa2.json --rerun-base pa3.json --rerun-new pb2.json --rerun-new pb3.json
grep -q "^units pool the rounds of 3 base and 3 new runs" out.txt && ok || bad "compare names the pooled runs"
run_compare 4 "summary: 20 slower.*ops of stateful cases: 10 slower" pa1.json ps1.json \
  --rerun-base pa2.json --rerun-base pa3.json --rerun-new ps2.json --rerun-new ps3.json
expect_error "missing.json: cannot read" compare pa1.json pb1.json --rerun-new missing.json
# Processes in states 8% apart (CI's A/A of 2026-11-25: a CPU case 18% "faster", every round of
# three runs agreeing). Base ran two of its runs in one state and one 8% slower, new all three 8%
# faster: the MAD of the pooled rounds sees only the two alike, the spread of the runs' medians
# (pooled over both sides: 3.1%, 4 degrees of freedom) sees all three, so the band is
# t(4) 6.62 x 3.1% x sqrt(2/3) = 17% and the verdict `same`, with the noise named `processes`.
# Two runs a side in one state each cannot show it: `faster`.
for r in "q1 51 1.0" "q2 52 1.0" "q3 53 1.08" "f1 54 0.92" "f2 55 0.92" "f3 56 0.92"; do
  set -- $r
  synth "p$1.json" --seed "$2" --rounds 5 --round-noise 0.005 --noise 0.005 --shift "$3" --anneal
done
run_compare 0 "summary: 0 slower, 0 faster, 20 same.*ops of stateful cases: 0 slower, 0 faster, 10 same" \
  pq1.json pf1.json --rerun-base pq2.json --rerun-base pq3.json --rerun-new pf2.json --rerun-new pf3.json --all --json pq.json
grep -qE "same \(shift -8\.[0-9]% inside \+-1[67]\.[0-9]+% \(noise 3\.[0-9]+%, processes\)" out.txt && ok \
  || bad "the spread of pooled runs' medians named as the noise"
python3 -c 'import json,sys; j=json.load(open("pq.json")); assert all(r["noise_source"] == "processes" for r in j["cases"]), "noise_source"' \
  && ok || bad "compare --json: noise_source per case"
# (Their two runs' medians agree to ~0.5%: t(2) 19.2 x that is a band of 5-12%, so the 8% comes
# out `faster` for most cases, `same` for the rest.)
run_compare 0 "summary: 0 slower, [1-9][0-9]* faster" pq1.json pf1.json --rerun-base pq2.json --rerun-new pf2.json
# fewer than 5 rounds: noisy, with the fix named
synth r2a.json --seed 1 --rounds 2 --round-noise 0.005
synth r2b.json --seed 2 --rounds 2 --round-noise 0.005 --shift 1.3
run_compare 0 "a verdict needs 5 on each side \(run --rounds\)" r2a.json r2b.json
# conditions (NVML): a run throttled or at other clocks is named, per case in --json
synth c1.json --seed 1 --rounds 5 --round-noise 0.005 --sm-mhz 1980
synth c2.json --seed 2 --rounds 5 --round-noise 0.005 --sm-mhz 1755 --throttled sw_power_cap
run_compare 0 "warning: 9 cases ran throttled and 9 at SM clocks over 5% apart in one of the runs; first: .*throttled: no in base, sw_power_cap in new; SM clock after the timed rounds 1980 MHz in base, 1755 in new" \
  c1.json c2.json --json c.json
grep -q '"conditions":.*sw_power_cap' c.json && ok || bad "compare --json: the row's conditions"
# rounds that drift one way (a clock stepping down between them) are named, per case in --json
synth d1.json --seed 1 --rounds 5 --round-noise 0.002
synth d2.json --seed 2 --rounds 5 --round-noise 0.002 --drift 1.6
run_compare 0 "warning: 18 cases' rounds drift one way in one of the runs .*: 1\.[56][0-9]x in new" d1.json d2.json --json d.json
grep -qE '"drift_next":\s*1\.[56]' d.json && ok || bad "compare --json: the row's drift"
run_compare 0 "summary:" d1.json d1.json
grep -q "rounds drift" out.txt && bad "compare of steady rounds named a drift" || ok
# files without rounds are compared the old way, and the output says so
run_compare 4 "warning: .*18 cases compared on their within-run samples" base.json slow10.json

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
