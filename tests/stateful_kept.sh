#!/usr/bin/env bash
# stateful_kept.sh XPUBENCH BACKEND - XPB_STATEFUL_INPUTS=kept (harness/run/xpb_runner_stateful.c):
# burst (per burst and batched) and anneal run, validated and timed, with fresh buffers every run
# and with kept ones. Both ok; the kept results say so (run.transfers.inputs), a later run
# uploaded less (the network, the points stay on the device: inputs_kept_bytes), and the same
# cases ran. The timed burst runs' fired counts are checked against the validated run's either
# way (workloads/burst/checks.c), so kept buffers that changed a run would fail the case; compare
# warns when one run kept its inputs and the other did not. On CUDA, a device group: fresh, kept refused.
# Exit 77 (skipped) when BACKEND has no device here.
set -u
bin=$1 backend=$2
reason=$("$bin" list 2>&1 | sed -n "s/^  $backend *unavailable: //p")
[ -z "$reason" ] || { echo "SKIP: $backend backend unavailable here: $reason"; exit 77; }
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
size=neurons=20000,fanout=50,bursts=20,n=5000,d=16,m=32,iters=3
for m in fresh kept; do
  XPB_STATEFUL_INPUTS=$m OMP_NUM_THREADS=2 "$bin" run --backend "$backend" --workload burst,anneal --size $size \
    --rounds 2 --min-time 0.01 --out "$work/$m.json" > "$work/$m.txt" 2>&1 \
    || { echo "FAIL: XPB_STATEFUL_INPUTS=$m exited $?"; tail -5 "$work/$m.txt"; exit 1; }
done
python3 - "$work/fresh.json" "$work/kept.json" <<'PY'
import json, sys
fresh, kept = ({c["id"]: c for c in json.load(open(f))["cases"]} for f in sys.argv[1:])
bad = []
if sorted(fresh) != sorted(kept) or len(kept) != 3:
    bad.append(f"cases differ: {sorted(fresh)} / {sorted(kept)}")
for i, k in kept.items():
    f, tk = fresh.get(i, {}), k.get("run", {}).get("transfers", {})
    tf = f.get("run", {}).get("transfers", {})
    if k["status"] != "ok" or f.get("status") != "ok":
        bad.append(f"{i}: {f.get('status')} / {k['status']}")
    if tk.get("inputs") != "kept" or "inputs" in tf:
        bad.append(f"{i}: transfers.inputs {tf.get('inputs')} / {tk.get('inputs')}")
    if not tk.get("inputs_kept_bytes", 0) > 0 or not tk.get("upload_bytes", 0) < tf.get("upload_bytes", 0):
        bad.append(f"{i}: upload {tf.get('upload_bytes')} -> {tk.get('upload_bytes')}, kept {tk.get('inputs_kept_bytes')}")
print("\n".join(["FAIL: " + b for b in bad]) or f"OK: {len(kept)} cases, kept inputs uploaded once")
sys.exit(1 if bad else 0)
PY
[ $? = 0 ] || exit 1
# compare names the difference (the uploads and end-to-end times differ by design), and only then
"$bin" compare "$work/fresh.json" "$work/kept.json" > "$work/cmp.txt" 2>&1
# (3 case ids; CUDA runs anneal with two variants, so 4 results there)
grep -Eq "[34] stateful cases kept their inputs on the device between runs in one run only" "$work/cmp.txt" \
  || { echo "FAIL: compare fresh kept: no warning"; cat "$work/cmp.txt"; exit 1; }
"$bin" compare "$work/kept.json" "$work/kept.json" 2>&1 | grep -q "kept their inputs" \
  && { echo "FAIL: compare kept kept warns"; exit 1; }
echo "OK: compare warns where one run kept its inputs"
# A device group (CUDA: --devices all, a group of one GPU too) stays fresh by default; kept named
# for it is each case's unsupported status with the reason (harness/run/xpb_runner_stateful.c).
[ "$backend" = cuda ] || exit 0
gsize=neurons=2000,fanout=20,bursts=5
for m in default kept; do
  if [ $m = kept ]; then export XPB_STATEFUL_INPUTS=kept; else unset XPB_STATEFUL_INPUTS; fi
  "$bin" run --backend cuda --devices all --workload burst \
      --size $gsize --rounds 1 --min-time 0.01 --out "$work/group-$m.json" > "$work/group-$m.txt" 2>&1
  rc=$?
  unset XPB_STATEFUL_INPUTS
  if [ ! -f "$work/group-$m.json" ]; then
    grep -qi "group\|nccl" "$work/group-$m.txt" && { echo "OK (group part skipped): $(tail -1 "$work/group-$m.txt")"; exit 0; }
    echo "FAIL: group run ($m) exited $rc without results"; tail -5 "$work/group-$m.txt"; exit 1
  fi
done
python3 - "$work/group-default.json" "$work/group-kept.json" <<'PY'
import json, sys
dflt, kept = (json.load(open(f))["cases"] for f in sys.argv[1:])
bad = [f"default: {c['id']}: {c['status']}, transfers.inputs {c.get('run', {}).get('transfers', {}).get('inputs')}"
       for c in dflt if c["status"] != "ok" or "inputs" in c.get("run", {}).get("transfers", {})]
bad += [f"kept: {c['id']}: {c['status']} ({c.get('message', '')})" for c in kept
        if c["status"] != "unsupported" or "not yet proven on a group" not in c.get("message", "")]
print("\n".join(["FAIL: " + b for b in bad]) or f"OK: a group's {len(dflt)} cases ran fresh; kept named for it: unsupported")
sys.exit(1 if bad or not dflt else 0)
PY
