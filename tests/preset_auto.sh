#!/usr/bin/env bash
# preset_auto.sh XPUBENCH WORKDIR - `run` without --preset is `--preset auto`: every device
# runs `default` unless it is a software device (lavapipe) or the CPU of a machine without a
# hardware GPU, which run `quick`; the results record each device's preset, and whatever was
# shortened is said in one line (stderr and "preset_note") naming the command for the full suite.
set -u
bin=$1 dir=$2
mkdir -p "$dir"
out=$dir/auto.json
"$bin" run --backend all --workload elementwise --filter '/copy/' --validate-only --out "$out" \
  >"$dir/auto.stdout" 2>"$dir/auto.log" || { echo "FAIL: run exited $?"; cat "$dir/auto.log"; exit 1; }
python3 - "$out" "$dir/auto.log" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
log = open(sys.argv[2]).read()
devs = d["system"]["devices"]
hardware_gpu = any(b["available"] for b in d["system"]["backends"] if b["name"] == "cuda") or any(
    x["is_gpu"] and not x["software_device"] for x in devs)
fail = 0
for x in devs:
    want = "quick" if x["software_device"] or (x["backend"] == "cpu" and not hardware_gpu) else "default"
    ok = x.get("preset") == want
    fail += not ok
    print("%s %s (%s): preset %s, want %s" % ("ok:" if ok else "FAIL:", x["id"], x["name"], x.get("preset"), want))
    ran = {c["params"].get("n") for c in d["cases"] if c["device"] == x["id"]}
    sizes = {"quick": {4097, 1 << 20}, "default": {1 << 20, 1 << 24, 1 << 28}}[want]  # elementwise.c's presets
    if not ran or not ran <= sizes:
        fail += 1
        print("FAIL: %s ran copy at n=%s, not the %s preset's %s" % (x["id"], sorted(ran), want, sorted(sizes)))
shortened = any(x.get("preset") == "quick" for x in devs)
note = d.get("preset_note", "")
if shortened != bool(note) or (note and ("xpubench run --preset default" not in note or note not in log)):
    fail += 1
    print("FAIL: preset_note %r (shortened: %s) not said as it should be" % (note, shortened))
else:
    print("ok: note %r" % note)
sys.exit(1 if fail else 0)
PY
