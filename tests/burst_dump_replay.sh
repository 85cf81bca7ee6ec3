#!/usr/bin/env bash
# burst_dump_replay.sh XPUBENCH BACKEND DIR
# `--dump DIR` of burst cases (per-burst and batched, hubs included) on BACKEND, then
# scripts/burst-replay.py, a numpy implementation of docs/workloads.md section 4, replays each
# dump from its files alone and must get the dumped reference's and the device's fired sets and v
# bit for bit. Skipped (77) with the reason when the backend has no device here or numpy is missing.
set -u
bin=$1 backend=$2 dir=$3
root=$(cd "$(dirname "$0")/.." && pwd)
py="$root/.venv/bin/python"
[ -x "$py" ] || py=python3
if ! "$py" -c "import numpy" 2>/dev/null; then
  echo "SKIP: numpy is missing (scripts/report-env.sh installs it)"
  exit 77
fi
rm -rf "$dir"
"$root/tests/run_backend_test.sh" "$bin" "$backend" run --backend "$backend" --workload burst \
  --size neurons=4097,fanout=33,bursts=25,hubs=4 --validate-only --dump "$dir"
rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
n=0
for f in "$dir"/*.json; do
  "$py" "$root/scripts/burst-replay.py" "$f" || exit 1
  n=$((n + 1))
done
[ "$n" -eq 2 ] || { echo "FAIL: expected 2 dumps (per-burst and batched), found $n"; exit 1; }
