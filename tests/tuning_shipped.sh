#!/usr/bin/env bash
# tuning_shipped.sh XPUBENCH SOURCE_DIR - every shipped tuning file (tuning/*.json) is one that
# `xpubench run` accepts: schema xpubench-tuning, an entry a backend with the device's name, and
# every knob one that `xpubench tune --list` sweeps on that backend (a knob renamed or no longer
# tunable would make run warn and drop the file on the GPU it was made for: docs/tuning.md).
set -u
bin=$1 src=$2
list=$("$bin" tune --list) || { echo "FAIL: xpubench tune --list"; exit 1; }
n=0 fail=0
for f in "$src"/tuning/*.json; do
  [ -e "$f" ] || continue
  n=$((n + 1))
  python3 - "$f" "$list" <<'PY' || fail=1
import json, re, sys
path, listing = sys.argv[1], sys.argv[2]
tunable = {}  # knob -> backend, from "XPB_NAME   backend: ops in variants"
for m in re.finditer(r"^(XPB_\w+)\s+(\w+):", listing, re.M):
    tunable[m.group(1)] = m.group(2)
try:
    d = json.load(open(path))
except ValueError as e:
    sys.exit(f"FAIL: {path}: not JSON: {e}")
bad = []
if d.get("schema") != "xpubench-tuning":
    bad.append("schema is not xpubench-tuning")
for e in d.get("entries", []):
    be, name = e.get("backend"), (e.get("device") or {}).get("name")
    if not be or not name:
        bad.append("an entry without backend or device name")
    for k in e.get("knobs", {}):
        if tunable.get(k) != be:
            bad.append(f"{be} entry sets {k}, not a tunable knob of {be}")
if not d.get("entries"):
    bad.append("no entries")
if bad:
    sys.exit(f"FAIL: {path}: " + "; ".join(bad))
print(f"ok: {path.rsplit('/', 1)[-1]}: " + ", ".join(f"{e['backend']} {e['device']['name']} {e.get('knobs') or '(defaults kept)'}" for e in d["entries"]))
PY
done
[ $n -gt 0 ] || { echo "FAIL: no tuning/*.json"; exit 1; }
exit $fail
