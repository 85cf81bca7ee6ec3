#!/usr/bin/env bash
# mpi_launch.sh XPUBENCH MPIEXEC - one process per GPU under MPI (docs/multi-gpu.md): what a run
# under mpirun must refuse, with its reason and the same exit code from every process, and, where
# the machine has GPUs, a real run: the collectives validated across every process, one results
# file written by rank 0 with each rank's host and device.
set -u
bin=$1 mpiexec=$2
# Open MPI refuses root unless told (CI's container runs as root); 2 processes on 2 cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
pass=0 fail=0
launch() { "$mpiexec" -np "$@"; }
expect() { # expect CODE PATTERN NP ARGS...: every process's exit code CODE, PATTERN on stderr
  local code=$1 pattern=$2 np=$3; shift 3
  local err rc
  err=$(timeout 120 "$mpiexec" -np "$np" "$bin" "$@" 2>&1 >/dev/null); rc=$?
  if [ "$rc" -eq "$code" ] && grep -qE -- "$pattern" <<<"$err"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL: mpirun -np $np xpubench $* -> exit $rc (want $code), stderr: $err"
  fi
}
"$bin" info | grep -q "(mpirun launch)" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: info does not name the MPI build"; }
expect 3 "under MPI \(2 processes\): the cpu backend has no device groups" 2 run --backend cpu --preset quick
expect 2 "under MPI \(2 processes\) needs one backend by name" 2 run --backend cpu,cuda
expect 2 "names device 0 twice" 2 run --backend cuda --devices 0,0
gpus=$(nvidia-smi -L 2>/dev/null | grep -c "^GPU" || true)
if [ "${gpus:-0}" -eq 0 ]; then
  expect 3 "backend cuda is unavailable" 2 run --backend cuda --workload collectives
  echo "mpi_launch: no GPU here: the collectives under mpirun were not run (the device runs them: scripts/device-run.sh mpi)"
else
  # more processes than GPUs: the rank without a GPU says so, and no process runs alone
  expect 3 "would take cuda:$gpus; its host has $gpus" $((gpus + 1)) run --backend cuda --workload collectives --preset conformance
  np=$(( gpus < 2 ? gpus : 2 ))
  out=$(mktemp -d)
  if timeout 300 "$mpiexec" -np "$np" "$bin" run --backend cuda --workload collectives --preset conformance \
       --validate-only --out "$out/r.json" > "$out/table.txt" 2> "$out/err.txt" \
     && python3 - "$out/r.json" "$np" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); n = int(sys.argv[2])
dev = r["system"]["devices"][0]
assert dev["launch"] == "mpi" and len(dev["ranks"]) == n, dev
assert all(c["status"] == "ok" for c in r["cases"]), [c["id"] for c in r["cases"] if c["status"] != "ok"]
PY
  then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: collectives under mpirun -np $np:"; tail -5 "$out/err.txt" "$out/table.txt"; fi
  rm -rf "$out"
fi
echo "mpi_launch: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
