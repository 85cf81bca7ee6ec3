#!/usr/bin/env bash
# check-layers.sh - the harness's layering holds: each folder of harness/ has a README.md whose
# "May include:" line names the other folders its files may include ("nothing": none), and
#   - every `#include "..."` of a harness file names a file of its own folder, of an allowed
#     folder, or one outside harness/ (system, cJSON, workloads, the build's generated headers);
#   - the allowed folders form no loop, and neither do the includes between harness files.
# Prints each violation with the file and the include; exit 0 when there is none, 1 otherwise.
# Registered as the test check_layers (tests/CMakeLists.txt). Needs bash, grep, sed, tsort.
set -euo pipefail
cd "$(dirname "$0")/../harness"

bad=0
fail() { echo "check-layers: $*" >&2; bad=1; }

folders=()
for d in */; do
  d=${d%/}
  if [ -f "$d/README.md" ]; then folders+=("$d"); else fail "harness/$d has no README.md"; fi
done
for f in *; do
  [ -d "$f" ] || [ "$f" = README.md ] || fail "harness/$f: a file outside the folders (harness/README.md)"
done

# which folder holds each header (a configured .h.in counts as the header it becomes)
declare -A home allowed
for d in "${folders[@]}"; do
  for h in "$d"/*.h "$d"/*.h.in; do
    [ -e "$h" ] || continue
    h=${h##*/}
    home[${h%.in}]=$d
  done
done

folder_edges=() file_edges=()
for d in "${folders[@]}"; do
  line=$(grep -m1 '^May include:' "$d/README.md" || true)
  [ -n "$line" ] || { fail "harness/$d/README.md has no 'May include:' line"; continue; }
  list=" "
  for w in $(echo "${line#May include:}" | tr ',' ' '); do
    [ "$w" = nothing ] && continue
    [ -f "$w/README.md" ] || { fail "harness/$d/README.md allows '$w', which is no harness folder"; continue; }
    list+="$w "
    folder_edges+=("$d $w")
  done
  [ "$list" = " " ] && list=" nothing "
  allowed[$d]=$list
done

for d in "${folders[@]}"; do
  for f in "$d"/*.c "$d"/*.cc "$d"/*.h; do
    [ -e "$f" ] || continue
    while IFS= read -r inc; do
      to=${home[$inc]:-}
      [ -n "$to" ] || continue # not a harness header
      file_edges+=("$f $to/$inc")
      [ "$to" = "$d" ] && continue
      case "${allowed[$d]:-}" in
        *" $to "*) ;;
        *) fail "harness/$f includes \"$inc\" (harness/$to); harness/$d/README.md allows:${allowed[$d]:- nothing}" ;;
      esac
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
  done
done

# tsort names a loop on stderr and exits non-zero
if ! out=$(printf '%s\n' "${folder_edges[@]}" | tsort 2>&1 >/dev/null); then
  fail "the folders' May include lines form a loop:$(echo "$out" | sed -n 's/^tsort: //p' | grep -v loop | tr '\n' ' ' | sed 's/^/ /')"
fi
if ! out=$(printf '%s\n' "${file_edges[@]}" | tsort 2>&1 >/dev/null); then
  fail "harness files include each other in a loop:$(echo "$out" | sed -n 's/^tsort: //p' | grep -v loop | tr '\n' ' ' | sed 's/^/ /')"
fi

[ $bad = 0 ] && echo "check-layers: ${#folders[@]} folders, ${#file_edges[@]} includes between harness files: the layering holds"
exit $bad
