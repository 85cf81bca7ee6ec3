#!/usr/bin/env bash
# knobs_doc.sh XPUBENCH SOURCE_DIR - the knobs are declared once (harness/core/xpb_knobs.def) and
# documented from that declaration: docs/knobs.md's table is what `xpubench list --knobs
# --markdown` prints, so a knob missing from the doc (or one the doc has that the code does not)
# fails here; the backends and the harness read XPB_* variables only through declared ids
# (xpb_knob_get_*, xpb_knob_value), never by a name the table does not hold; and every declared
# tuning knob is read somewhere; `list --knobs` and `info` show a value that would be rejected.
# Regenerate the table with the command the doc names.
set -u
bin=$1 src=$2
doc=$src/docs/knobs.md def=$src/harness/core/xpb_knobs.def
fail=0
# 1. the doc's table (between its two markers) is the binary's
want=$("$bin" list --knobs --markdown) || { echo "FAIL: xpubench list --knobs --markdown"; exit 1; }
have=$(sed -n '/^<!-- knobs: begin/,/^<!-- knobs: end/p' "$doc" | sed '1d;$d')
if [ "$want" != "$have" ]; then
  echo "FAIL: docs/knobs.md's table differs from \`xpubench list --knobs --markdown\` (< doc, > code):"
  diff <(echo "$have") <(echo "$want") | head -40
  fail=1
fi
declared=$(sed -n 's/^XPB_KNOB(\([A-Z0-9_]*\),.*/XPB_\1/p' "$def" | sort)
[ -n "$declared" ] || { echo "FAIL: no XPB_KNOB rows in $def"; exit 1; }
# 2. every XPB_* name the code quotes as a variable ("XPB_X", "XPB_X=...", "XPB_X: ...": getenv,
#    messages about a value) is declared
code_files=$(find "$src/backends" "$src/harness" -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.cc')
quoted=$(grep -ho '"XPB_[A-Z0-9_]\+["=:]' $code_files | tr -d '"=:' | sort -u)
for n in $quoted; do
  echo "$declared" | grep -qx "$n" || { echo "FAIL: $n is quoted in the code but not declared in harness/core/xpb_knobs.def:"; \
    grep -n "\"$n" $code_files | head -3; fail=1; }
done
# 3. no knob read by a raw name outside harness/core/xpb_knob.c: getenv("XPB_...) only for the ENV rows
raw=$(grep -n 'xpb_knob_\(long\|double\|choice\)("' $code_files | grep -v '/harness/core/xpb_knob\.c:')
[ -z "$raw" ] || { echo "FAIL: a knob read by name, not through its declared id:"; echo "$raw"; fail=1; }
env_rows=$(sed -n 's/^XPB_KNOB(\([A-Z0-9_]*\), ENV,.*/XPB_\1/p' "$def")
for n in $(grep -ho 'getenv("XPB_[A-Z0-9_]*' $code_files | sed 's/getenv("//' | sort -u); do
  echo "$env_rows" | grep -qx "$n" || { echo "FAIL: getenv(\"$n\") reads a tuning knob raw: use its id (xpb_knob.h)"; fail=1; }
done
# 4. every declared tuning knob is read by its id somewhere, every ENV row by its name
for n in $declared; do
  if echo "$env_rows" | grep -qx "$n"; then
    grep -q "getenv(\"$n\")" $code_files || { echo "FAIL: $n is declared (ENV) but nothing reads it"; fail=1; }
  else
    id=XPB_KNOB_${n#XPB_}
    grep -qw "$id" $(echo "$code_files" | grep -v '/harness/core/xpb_knob') || \
      { echo "FAIL: $n is declared but no code reads $id"; fail=1; }
  fi
done
# 5. list --knobs and info show a value the run would reject, with the run's message (the CUDA
#    knob here: CUDA tests skip on a machine without a GPU, the table is the same code)
out=$(XPB_CUDA_TILED_BK=64 XPB_VULKAN_ROW_EXP=poly "$bin" list --knobs)
echo "$out" | grep -q "NOT ACCEPTED: XPB_CUDA_TILED_BK='64': expected 32 or 16" && echo "$out" | grep -q "XPB_VULKAN_ROW_EXP *= poly" \
  || { echo "FAIL: list --knobs does not show XPB_CUDA_TILED_BK=64 as not accepted, or XPB_VULKAN_ROW_EXP=poly as set"; fail=1; }
XPB_CUDA_TILED_BK=64 "$bin" info | grep -q "^knobs .*XPB_CUDA_TILED_BK=64 (NOT ACCEPTED)" \
  || { echo "FAIL: info does not name XPB_CUDA_TILED_BK=64 as set and not accepted"; fail=1; }
"$bin" list --markdown >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL: list --markdown without --knobs is not a usage error"; fail=1; }
[ $fail -eq 0 ] && echo "ok: $(echo "$declared" | wc -l) knobs declared, documented and read through the table"
exit $fail
