#!/usr/bin/env bash
# interrupt.sh XPUBENCH WORKDIR - a run stopped by SIGTERM (then by Ctrl-C's SIGINT) halfway
# keeps what it finished: it exits 128 + the signal's number, and its results file is a valid
# one holding only whole cases, marked "complete": false with the signal and how far it got;
# compare reads it and says it is partial. A run stopped before any case finished writes no file.
set -u
bin=$1 dir=$2
mkdir -p "$dir"
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
py=python3

# interrupt SIGNAL CODE: start a CPU run whose cases take seconds, wait for its fifth result
# line, send SIGNAL, check the exit code and the file.
interrupt() {
  local sig=$1 code=$2 out="$dir/partial-$1.json" log="$dir/partial-$1.log"
  rm -f "$out" "$log" # a log left by an earlier run must not count as this one's progress
  OMP_NUM_THREADS=2 "$bin" run --backend cpu --workload elementwise --preset quick --rounds 20 --min-time 0.02 \
    --out "$out" >"$log.stdout" 2>"$log" &
  local pid=$! waited=0
  local lines=0
  until [ "$lines" -ge 5 ] || [ $waited -ge 600 ]; do
    sleep 0.1
    waited=$((waited + 1))
    lines=$(grep -c '^\[' "$log" 2>/dev/null) || lines=0
  done
  kill -"$sig" $pid
  wait $pid
  local rc=$?
  [ $rc -eq "$code" ] && ok "$sig: exit $rc" || bad "$sig: exit $rc, expected $code"
  grep -q "xpubench: SIG$sig after [0-9]* of [0-9]* cases" "$log" && ok "$sig: says how far it got" ||
    bad "$sig: no 'after N of M cases' line in $log"
  if "$py" - "$out" "SIG$sig" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
i = d["interrupted"]
assert d["complete"] is False, "complete is not false"
assert i["signal"] == sys.argv[2], i
assert 0 < i["cases_finished"] < i["cases_planned"], i
ids = [c["id"] for c in d["cases"]]
assert len(set(ids)) == i["cases_finished"], (len(set(ids)), i)
for c in d["cases"]:  # only whole results: validated, and timed with their rounds' medians
    assert c["status"] == "ok", c["id"]
    assert c["validation"]["passed"], c["id"]
print("file: %d results of %d cases, %d planned" % (len(ids), i["cases_finished"], i["cases_planned"]))
PY
  then ok "$sig: $out is a valid partial results file"; else bad "$sig: $out missing or not a valid partial file"; fi
}
interrupt TERM 143
interrupt INT 130

# compare names the partial side
cmp=$("$bin" compare "$dir/partial-TERM.json" "$dir/partial-INT.json" 2>&1)
grep -q "warning: base is a partial run (interrupted by SIGTERM after" <<<"$cmp" &&
  grep -q "warning: new is a partial run (interrupted by SIGINT after" <<<"$cmp" && ok "compare says both are partial" ||
  { bad "compare does not say the files are partial"; echo "$cmp" | head -5; }

# stopped before any case finished (a 1024^3 naive GEMM validates for seconds): no file, and an
# existing one is left alone
echo keep >"$dir/early.json"
"$bin" run --backend cpu --workload gemm --size m=1024,n=1024,k=1024,input=random --variant naive --out "$dir/early.json" \
  >/dev/null 2>"$dir/early.log" &
pid=$!
sleep 1
kill -TERM $pid
wait $pid
rc=$?
[ $rc -eq 143 ] && [ "$(cat "$dir/early.json")" = keep ] && ok "stopped before a case finished: exit 143, file untouched" ||
  bad "early stop: exit $rc, file now '$(head -c 40 "$dir/early.json")'"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
