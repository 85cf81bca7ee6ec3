#!/usr/bin/env bash
# tune.sh XPUBENCH SOURCE_DIR WORK - `xpubench tune` and tuning files (docs/tuning.md):
#   1. tune on cpu (no tunable knobs) says so, exit 0, writes nothing;
#   2. tune on vulkan (lavapipe) sweeps XPB_VULKAN_ROW_L2_CHUNK at a conformance size, every
#      candidate validated, and writes a valid tuning file into the cache ($XDG_CACHE_HOME);
#   3. a plain run finds it by the device's fingerprint and records file, SHA-256 and values in
#      the results' "tuning"; --no-tuning does not; the environment overrides a tuned value;
#   4. compare warns for a tuned vs an untuned run;
#   5. a corrupt and a foreign-device tuning file in the cache: one warning, the defaults, exit 0;
#      named with --tuning: corrupt is exit 2, foreign a warning and the defaults;
#   6. a shipped tuning (XPB_TUNING_DIR) is matched by device name; 6b. never past a corrupt cache file;
#   7. docs/tuning.md's table is `xpubench tune --list --markdown`;
#   8. --candidates: a malformed one, an unknown or untunable knob, a value the knob refuses, a knob
#      not swept: exit 2 and one line; on lavapipe, a sweep of two values from the command line
#      records them (candidates_from, each candidate's cases); 8b. a second tune of another knob
#      into the same file keeps the first one's record, tagged tuned_at;
#   9. order effects (docs/tuning.md, "Order effects"): a bad --warmup-runs is exit 2; the sweep of
#      2 runs one warm-up first, then the base first in run 1 and last in run 2; --warmup-runs 0
#      runs none; the record has warmup_runs, and base_drift only with the warning and the base kept.
# Exit 77 (skip) for 2-6 when the Vulkan backend is unavailable.
set -u
bin=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
export XDG_CACHE_HOME=$work/cache
unset XPB_TUNING_DIR XPB_VULKAN_ROW_L2_CHUNK
fail=0
no() { echo "FAIL: $*"; fail=1; }

# 7. the doc's table
want=$("$bin" tune --list --markdown)
have=$(sed -n '/^<!-- tune: begin/,/^<!-- tune: end/p' "$src/docs/tuning.md" | sed '1d;$d')
[ "$want" = "$have" ] || { no "docs/tuning.md's table differs from \`xpubench tune --list --markdown\`:"; diff <(echo "$have") <(echo "$want") | head -20; }

# 1. cpu: nothing to tune
out=$("$bin" tune --backend cpu --preset conformance 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "no tunable knobs" || no "tune on cpu: exit $rc, '$out'"
[ -z "$(ls -A "$XDG_CACHE_HOME" 2>/dev/null)" ] || no "tune on cpu wrote a file"
"$bin" tune --backend cpu --knobs XPB_VULKAN_ROW_L2_CHUNK >/dev/null 2>&1; [ $? -eq 2 ] || no "tune --knobs of another backend is not exit 2"

# 8. --candidates usage errors: exit 2, one line, nothing run or written
for bad in 'VULKAN_ROW_L2_CHUNK' '=1024' 'NO_SUCH_KNOB=1' 'VULKAN_VALIDATION=1' 'VULKAN_ROW_L2_CHUNK=abc' \
           'VULKAN_ROW_L2_CHUNK=1024||2048' 'VULKAN_ROW_L2_CHUNK=1024|1024' 'VULKAN_TILED_LANES=warp|sideways'; do
  "$bin" tune --backend vulkan --candidates "$bad" > "$work/cand.out" 2> "$work/cand.err"; rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l < "$work/cand.err")" -eq 1 ] && [ ! -s "$work/cand.out" ] \
    || { no "tune --candidates '$bad': exit $rc (want 2, one line)"; cat "$work/cand.err"; }
done
"$bin" tune --backend cpu --candidates VULKAN_ROW_L2_CHUNK=1024 2> "$work/cand.err"; rc=$?
[ $rc -eq 2 ] && grep -q "not swept" "$work/cand.err" || no "tune --candidates of another backend's knob: exit $rc"
[ -z "$(ls -A "$XDG_CACHE_HOME" 2>/dev/null)" ] || no "a refused --candidates wrote a file"
# 9. --warmup-runs: 0..8
for bad in -1 9 x ''; do
  "$bin" tune --backend vulkan --warmup-runs "$bad" > /dev/null 2> "$work/warm.err"; rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l < "$work/warm.err")" -eq 1 ] || { no "tune --warmup-runs '$bad': exit $rc (want 2, one line)"; cat "$work/warm.err"; }
done
"$bin" tune --help | grep -q -- "--warmup-runs N" || no "tune --help does not name --warmup-runs"

if ! "$bin" run --backend vulkan --preset conformance --filter 'copy/n=1/' --validate-only >/dev/null 2>&1; then
  echo "skip: the Vulkan backend is unavailable (checks 2-6)"; [ $fail -eq 0 ] && exit 77 || exit 1
fi

# 2. a sweep of one knob at one size
sel=(--preset conformance --filter 'softmax/rows=2,cols=65537/')
"$bin" tune --backend vulkan "${sel[@]}" --knobs VULKAN_ROW_L2_CHUNK > "$work/tune.txt" 2> "$work/tune.err"; rc=$?
[ $rc -eq 0 ] || { no "tune on vulkan: exit $rc"; tail -5 "$work/tune.err"; }
file=$(ls "$XDG_CACHE_HOME"/xpubench/tuning/vulkan-*.json 2>/dev/null | head -1)
[ -n "$file" ] || no "tune wrote no file under \$XDG_CACHE_HOME/xpubench/tuning"
python3 - "$file" <<'PY' || no "the tuning file is not as docs/tuning.md says"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "xpubench-tuning" and d["schema_version"] == 1
e = d["entries"][0]
assert e["backend"] == "vulkan" and {"name", "compute_units", "peak_gbps", "driver"} <= set(e["device"])
assert isinstance(e["knobs"], dict)
s = e["tuned"]["sweep"][0]
assert s["knob"] == "XPB_VULKAN_ROW_L2_CHUNK" and s["base"] == "4096" and len(s["candidates"]) == 4, s
assert s["candidates_from"] == "xpb_knobs.def", s
for c in s["candidates"]:
    assert c["outcome"] in ("faster", "not faster", "rejected"), c
PY
# 9. the warm-up, then alternating order: base first in run 1, last in run 2
python3 - "$work/tune.err" <<'PY' || { no "the sweep's warm-up and order are not as docs/tuning.md says"; cat "$work/tune.err"; }
import re, sys
lines = [l for l in open(sys.argv[1]) if re.search(r"warm-up \d|, run \d of \d", l)]
assert len(lines) == 1 + 2 * 5, lines                       # a warm-up, then 2 runs of base + 4
assert "warm-up 1 of 1: XPB_VULKAN_ROW_L2_CHUNK=4096 (base)" in lines[0], lines
run1 = [l for l in lines if "run 1 of 2" in l]; run2 = [l for l in lines if "run 2 of 2" in l]
assert lines[1:] == run1 + run2, lines
assert "(base)" in run1[0] and "(base)" in run2[-1] and sum("(base)" in l for l in run1 + run2) == 2, lines
value = lambda l: re.search(r"=(\S+)", l).group(1)
assert [value(l) for l in run2[:-1]] == [value(l) for l in run1[1:]][::-1], lines  # candidates backwards
PY
python3 - "$file" "$work/tune.err" "$work/tune.txt" <<'PY' || no "the record's warmup_runs / base_drift are not as docs/tuning.md says"
import json, sys
t = json.load(open(sys.argv[1]))["entries"][0]["tuned"]
s = t["sweep"][0]
assert t["warmup_runs"] == 1 and t["runs"] == 2, t
err, out = open(sys.argv[2]).read(), open(sys.argv[3]).read()
if "base_drift" in s:  # lavapipe on a loaded machine can drift: then nothing is chosen, and it says so
    b = s["base_drift"]
    assert b["outcome"] in ("faster", "slower") and "no candidate chosen" in b["why"], b
    assert s["chosen"] == s["base"] and "the base drifted" in err and "the base drifted" in out, s
    print("note: the base drifted on this machine (a loaded lavapipe): %s" % b["why"])
else:
    assert "the base drifted" not in err, err
PY

# 8. --candidates on lavapipe: a knob not in --knobs is refused; two values from the command line
"$bin" tune --backend vulkan "${sel[@]}" --knobs VULKAN_ROW_L2_FUSE --candidates VULKAN_ROW_L2_CHUNK=1024 \
  > /dev/null 2> "$work/cand.err"; rc=$?
[ $rc -eq 2 ] && grep -q "not in --knobs" "$work/cand.err" || no "tune --candidates of a knob not in --knobs: exit $rc"
"$bin" tune --backend vulkan "${sel[@]}" --knobs VULKAN_ROW_L2_CHUNK --candidates 'XPB_VULKAN_ROW_L2_CHUNK=2048|8192' \
  --runs 1 --tuning "$work/cand.json" > "$work/cand.txt" 2> "$work/cand.err"; rc=$?
[ $rc -eq 0 ] || { no "tune --candidates on vulkan: exit $rc"; tail -5 "$work/cand.err"; }
python3 - "$work/cand.json" <<'PY' || no "the --candidates sweep's record is not as docs/tuning.md says"
import json, sys
s = json.load(open(sys.argv[1]))["entries"][0]["tuned"]["sweep"][0]
assert s["knob"] == "XPB_VULKAN_ROW_L2_CHUNK" and s["candidates_from"] == "command line" and s["cases"] == 1, s
assert [c["value"] for c in s["candidates"]] == ["2048", "8192"], s
for c in s["candidates"]:
    assert c["cases"] == 1 and "ops" not in c and c["outcome"] in ("faster", "not faster", "rejected"), c
PY
# a text knob's value its reader refuses (here an OP:VALUE item, which VULKAN_TILED does not take):
# that candidate rejected with the reader's message, the sweep going on; the item's op recorded
"$bin" tune --backend vulkan --preset conformance --filter 'gemm/m=64,n=64,k=64,axpby=1/' --knobs VULKAN_TILED \
  --candidates 'VULKAN_TILED=gemm:bogus|64x64x16/4x4' --runs 1 --warmup-runs 0 --tuning "$work/cand-text.json" \
  > /dev/null 2> "$work/cand-text.err"; rc=$?
[ $rc -eq 0 ] || { no "tune --candidates of a text knob: exit $rc"; tail -5 "$work/cand-text.err"; }
grep -q "warm-up" "$work/cand-text.err" && no "tune --warmup-runs 0 ran a warm-up"
grep -q "run 1 of 1" "$work/cand-text.err" || no "tune --warmup-runs 0: no timed run"
python3 - "$work/cand-text.json" <<'PY' || no "the refused text value is not a rejected candidate"
import json, sys
s = json.load(open(sys.argv[1]))["entries"][0]["tuned"]["sweep"][0]
bad, good = s["candidates"]
assert bad["value"] == "gemm:bogus" and bad["outcome"] == "rejected" and "gemm:bogus" in bad["why"], bad
assert bad["ops"] == "gemm" and bad["cases"] == s["cases"] == 1, s
assert good["outcome"] in ("faster", "not faster") and "ops" not in good, good
PY

# 8b. a tune split over calls: a second tune of another knob into the same file keeps the first
#     one's record of XPB_VULKAN_ROW_L2_CHUNK, tagged with the tune it came from (tuned_at); its runs
#     with a longer warm-up a round (--warmup: recorded, passed to every run)
"$bin" tune --backend vulkan "${sel[@]}" --knobs VULKAN_ROW_L2_FUSE --runs 1 --warmup-runs 0 --warmup 0.02 \
  --tuning "$work/cand.json" --work "$work/split-work" > /dev/null 2> "$work/split.err"; rc=$?
python3 - "$work/split-work" <<'PY' || no "tune --warmup: not passed to the runs"
import glob, json, sys
ws = [json.load(open(f)).get("config", {}).get("warmup_s") for f in glob.glob(sys.argv[1] + "/**/*.json", recursive=True)
      if "xpubench-tuning" not in open(f).read(200)]
assert ws and all(w == 0.02 for w in ws), ws
PY
[ $rc -eq 0 ] || { no "tune --knobs into an existing file: exit $rc"; tail -5 "$work/split.err"; }
python3 - "$work/cand.json" <<'PY' || no "the split tune's record is not as docs/tuning.md says"
import json, sys
es = json.load(open(sys.argv[1]))["entries"]
assert len(es) == 1, es
t = es[0]["tuned"]
s = {x["knob"]: x for x in t["sweep"]}
assert set(s) == {"XPB_VULKAN_ROW_L2_FUSE", "XPB_VULKAN_ROW_L2_CHUNK"}, s
assert "tuned_at" not in s["XPB_VULKAN_ROW_L2_FUSE"], s
at = s["XPB_VULKAN_ROW_L2_CHUNK"]["tuned_at"]
assert at["runs"] == 1 and at["filter"] and at["created_utc"] and "git_commit" in at, at
assert at["threshold"] == 0.01 and at["rounds"] >= 1 and at["preset"], at  # a later tune may use others
assert t["warmup_s"] == 0.02 and "warmup_s" not in at, (t, at)
assert [c["value"] for c in s["XPB_VULKAN_ROW_L2_CHUNK"]["candidates"]] == ["2048", "8192"], s
PY

# 3. run finds it; the values are forced for a known record (the sweep on lavapipe is noise)
python3 - "$file" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["entries"][0]["knobs"] = {"XPB_VULKAN_ROW_L2_CHUNK": "2048"}
json.dump(d, open(sys.argv[1], "w"))
PY
run=(run --backend vulkan "${sel[@]}" --variant l2 --rounds 1)
"$bin" "${run[@]}" --out "$work/tuned.json" > /dev/null 2> "$work/tuned.err" || no "tuned run failed"
python3 - "$work/tuned.json" "$file" <<'PY' || no "the results do not record the tuning"
import hashlib, json, sys
t = json.load(open(sys.argv[1]))["tuning"]
d = t["devices"][0]
assert t["mode"] == "auto" and d["device"] == "vulkan:0" and d["file"] == sys.argv[2] and d["origin"] == "cache"
assert d["sha256"] == hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest()
assert d["knobs"] == {"XPB_VULKAN_ROW_L2_CHUNK": "2048"} and d["match"] == "fingerprint"
PY
"$bin" "${run[@]}" --no-tuning --out "$work/untuned.json" > /dev/null 2>&1 || no "--no-tuning run failed"
python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['tuning']; assert t['mode']=='off' and t['devices']==[]" \
  "$work/untuned.json" || no "--no-tuning recorded a tuning"
XPB_VULKAN_ROW_L2_CHUNK=1024 "$bin" "${run[@]}" --out "$work/env.json" > /dev/null 2> "$work/env.err"
grep -q "XPB_VULKAN_ROW_L2_CHUNK=1024 from the environment overrides the tuning's 2048" "$work/env.err" || no "no note of the environment override"
python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['tuning']['devices'][0]; assert d['environment']=={'XPB_VULKAN_ROW_L2_CHUNK':'1024'}" \
  "$work/env.json" || no "the environment override is not in the results"

# 4. compare: tuned vs untuned
"$bin" compare "$work/untuned.json" "$work/tuned.json" > "$work/cmp.txt" 2>&1
grep -q "tuning of vulkan:0 differs: 'untuned' (base) vs '.*XPB_VULKAN_ROW_L2_CHUNK=2048' (new)" "$work/cmp.txt" \
  || { no "compare does not warn for tuned vs untuned"; grep -i warn "$work/cmp.txt"; }
"$bin" compare "$work/tuned.json" "$work/tuned.json" 2>&1 | grep -q "tuning of" && no "compare warns for the same tuning"

# 5. corrupt and foreign files
cp "$file" "$work/good.json"
printf '{"schema": "xpubench-tuning", "entries": [' > "$file"
check_defaults() { # NAME ARGS...: one warning, the defaults, exit 0
  local name=$1; shift
  "$bin" "${run[@]}" "$@" --out "$work/$name.json" > /dev/null 2> "$work/$name.err"; local rc=$?
  [ $rc -eq 0 ] || no "$name: exit $rc"
  [ "$(grep -c 'warning' "$work/$name.err")" -eq 1 ] || { no "$name: not one warning line"; cat "$work/$name.err"; }
  python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['tuning']; assert t['devices']==[] and len(t['warnings'])==1" \
    "$work/$name.json" || no "$name: the results do not show the defaults and the warning"
}
check_defaults corrupt-cache
"$bin" "${run[@]}" --tuning "$file" > /dev/null 2> "$work/named.err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$work/named.err")" -eq 1 ] || no "--tuning CORRUPT: exit $rc (want 2, one line)"
python3 - "$work/good.json" "$file" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["entries"][0]["device"].update(name="xpubench test GPU that does not exist", compute_units=7777)  # foreign on any machine, an H100 too
json.dump(d, open(sys.argv[2], "w"))
PY
check_defaults foreign-cache
check_defaults foreign-named --tuning "$file"
python3 - "$work/good.json" "$file" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["entries"][0]["knobs"] = {"XPB_VULKAN_MAX_GROUPS": "4"}
json.dump(d, open(sys.argv[2], "w"))
PY
check_defaults untunable-knob

# 6. a shipped tuning, matched by name (another driver)
rm -f "$file"
mkdir -p "$work/shipped"
python3 - "$work/good.json" "$work/shipped/lavapipe.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["entries"][0]["device"]["driver"] = "another driver"
json.dump(d, open(sys.argv[2], "w"))
PY
XPB_TUNING_DIR=$work/shipped "$bin" "${run[@]}" --out "$work/shipped.json" > /dev/null 2>&1 || no "shipped run failed"
python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['tuning']['devices'][0]; assert d['origin']=='shipped' and d['match']=='name'" \
  "$work/shipped.json" || no "the shipped tuning was not used by name"
# 6b. a corrupt cache file beside a shipped tuning of the same device: the defaults, as the warning
#    says, not the shipped one (on a GPU with a shipped entry, an H200, section 5 checks this too)
printf '{"schema": "xpubench-tuning", "entries": [' > "$file"
XPB_TUNING_DIR=$work/shipped check_defaults corrupt-cache-beside-shipped

[ $fail -eq 0 ] && echo "ok: tune, tuning files, run and compare"
exit $fail
