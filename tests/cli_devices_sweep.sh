#!/usr/bin/env bash
# cli_devices_sweep.sh XPUBENCH [MPIEXEC] - run --devices with several groups (0:0,1:0,1,2,3, a
# scaling sweep into one results file, docs/multi-gpu.md): the list's errors are one line with
# exit 2 on any machine, a backend without groups or a GPU the machine lacks exit 3, and under MPI
# (where the processes are one group) a sweep is exit 2 naming why, from every process. With
# GPUs (nvidia-smi lists 2 or more) it also runs the conformance collectives on groups 0 and 0,1
# and checks that the one file holds both devices, each with its own gpus=P cases.
set -u
bin=$1 mpiexec=${2:-}
pass=0 fail=0
expect() { # expect CODE PATTERN ARGS... : exit code and a one-line stderr matching PATTERN
  local code=$1 pattern=$2; shift 2
  local err rc
  err=$("$bin" "$@" 2>&1 >/dev/null); rc=$?
  if [ "$rc" -eq "$code" ] && grep -qE -- "$pattern" <<<"$err" && [ "$(wc -l <<<"$err")" -eq 1 ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL: xpubench $* -> exit $rc (want $code), stderr: $err"
  fi
}
expect 2 "bad --devices '0::1'" run --backend cuda --devices 0::1
expect 2 "bad --devices '0:'" run --backend cuda --devices 0:
expect 2 "bad --devices '0:0,x'" run --backend cuda --devices 0:0,x
expect 2 "names the group 0,1 twice" run --backend cuda --devices 0,1:0:0,1
expect 2 "names device 1 twice" run --backend cuda --devices 0:1,1
expect 2 "more than 16 groups" run --backend cuda --devices 0:1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16
expect 2 "--devices needs one backend by name" run --backend cpu,cuda --devices 0:0,1
expect 3 "the cpu backend has no device groups" run --backend cpu --devices 0:0,1
expect 3 "cuda:999 does not exist|backend cuda is unavailable|no device groups" run --backend cuda --devices 0:999
if [ -n "$mpiexec" ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  err=$(timeout 120 "$mpiexec" -np 2 "$bin" run --backend cuda --devices 0:0,1 2>&1 >/dev/null); rc=$?
  if [ "$rc" -eq 2 ] && grep -qE "several device groups; under MPI the processes are one group" <<<"$err" ||
     { [ "$rc" -eq 3 ] && grep -qE "backend cuda is unavailable|no device groups" <<<"$err"; }; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL: mpirun -np 2 xpubench run --backend cuda --devices 0:0,1 -> exit $rc, stderr: $err"
  fi
fi
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
if [ "${gpus:-0}" -ge 2 ]; then
  out=$(mktemp -d)
  if "$bin" run --backend cuda --devices 0:0,1 --workload collectives --preset conformance --rounds 1 \
       --out "$out/r.json" >/dev/null 2>"$out/err"; then
    python3 - "$out/r.json" <<'PY' && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: sweep results"; cat "$out/err"; }
import json, sys
r = json.load(open(sys.argv[1]))

by = {}
for c in r["cases"]:
    by.setdefault(c["device"], set()).add(c["id"].split("gpus=")[1].split("/")[0])
assert by == {"cuda:0": {"1"}, "cuda:0,1": {"2"}}, by
assert all(c["status"] == "ok" for c in r["cases"]), [c["id"] for c in r["cases"] if c["status"] != "ok"]
PY
  else
    fail=$((fail + 1)); echo "FAIL: the sweep on 0:0,1 exited non-zero"; cat "$out/err"
  fi
  rm -rf "$out"
fi
echo "cli_devices_sweep: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
