#!/usr/bin/env bash
# aa-rate.sh XPUBENCH K DRAWS RESULTS.json... - how often compare calls the same build different:
# DRAWS times, 2K of the given results files (runs of ONE build, each its own process) are drawn
# at random, split into a base side and a new side of K runs each, and compared pooled
# (compare A1 B1 --rerun-base A2 ... --rerun-new B2 ...). Prints each draw that came out with a
# `slower` or `faster` case or op, then the count and the verdicts' totals. docs/reports.md
# ("Why the noise holds the spread of the runs' medians") has the figures this measured.
# Example: for i in $(seq 24); do xpubench run --backend cpu --preset quick --out pool/r$i.json; done
#          scripts/aa-rate.sh build/xpubench 3 300 pool/*.json
set -euo pipefail
bin=$1 k=$2 draws=$3
shift 3
[ "$#" -ge $((2 * k)) ] || { echo "aa-rate.sh: need at least $((2 * k)) results files, got $#" >&2; exit 2; }
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
python3 - "$k" "$draws" "$@" > "$work/picks" <<'PY'
import random, sys
k, draws, files = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
rng = random.Random(5)
for _ in range(draws):
    print("\t".join(rng.sample(files, 2 * k)))
PY
bad=0
while IFS=$'\t' read -r -a pick; do
  args=("${pick[0]}" "${pick[$k]}")
  for ((i = 1; i < k; i++)); do args+=(--rerun-base "${pick[$i]}" --rerun-new "${pick[$((k + i))]}"); done
  "$bin" compare "${args[@]}" > "$work/out" 2>&1 || true
  grep "^summary" "$work/out" >> "$work/summaries" || true
  if ! grep -qE "^summary: 0 slower, 0 faster, .*ops of stateful cases: 0 slower, 0 faster" "$work/out"; then
    bad=$((bad + 1))
    echo "draw: ${pick[*]}"
    grep -E " (slower|faster) \(" "$work/out" | head -3
  fi
done < "$work/picks"
echo "false verdicts: $bad of $draws draws ($k runs a side)"
python3 - "$work/summaries" <<'PY'
import re, sys
tot = {}
for line in open(sys.argv[1]):
    head = line.split(";")[0]
    for n, v in re.findall(r"(\d+) (slower|faster|same|noisy)", head):
        tot[v] = tot.get(v, 0) + int(n)
print("case verdicts over all draws: " + ", ".join(f"{v} {tot.get(v, 0)}" for v in ("same", "noisy", "slower", "faster")))
PY
