#!/usr/bin/env bash
# scripts_tree.sh SOURCE_DIR - the scripts that only a GPU machine runs, kept from rotting where CI
# can see them: every diagnostic patch in scripts/patches/ still applies to the tree (refresh it
# from a `git diff` of the same edit when this fails), scripts/rows-timeline.py reads a timeline
# laid out as rows-regs-timeline.patch writes one, rows-ab-summary.py reads a recorded A/B, and
# device-run.sh's phase loop names exactly the files in scripts/device/.
set -u
src=$1 fail=0
for p in "$src"/scripts/patches/*.patch; do
  if ! out=$(cd "$src" && git apply --check "$p" 2>&1); then
    echo "FAIL: $(basename "$p") no longer applies to the tree: $out"; fail=1
  fi
done

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# rows-ab-summary.py over a recorded A/B (4 processes a side): cuda/regs softmax with
# XPB_CUDA_ROW_EXP=once 0.979x of the base, every process beyond every base process
mkdir "$tmp/ab" && python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
    "$src/results/h200/2026-11-29-s26-exp-once-ab-json.tar.xz" "$tmp/ab" &&
  out=$(python3 "$src/scripts/rows-ab-summary.py" "$tmp/ab" 2>&1)
if ! grep -qE "^softmax +cuda +regs +XPB_CUDA_ROW_EXP_once\S* +4 +632\.34 .* 0\.9792 +yes" <<< "${out:-}"; then
  echo "FAIL: rows-ab-summary.py does not give the recorded A/B:"; echo "${out:-}"; fail=1
fi
# two rows of 4 chunks: chunk c's loads land at 1000 + 100 c ns, the row's last at 1300; owners see
# it 200 ns later; 1.5 SM cycles a ns
python3 - "$tmp/t.bin" <<'PY'
import struct, sys
words, rows, cols, chunks = 16, 2, 1024, 4
data = []
for r in range(rows):
    base = 10_000 * (r + 1)
    for c in range(chunks):
        g1 = base + 1000 + 100 * c
        last = base + 1000 + 100 * (chunks - 1)
        role = 2 if c == chunks - 1 else 1
        g = [base, g1, last + 200 if role == 1 else g1 + 50, last + 400, last + 500]
        data += g + [7 | role << 8] + [int(x * 1.5) for x in g] + [0] * 5
head = [words, rows, cols, chunks, 256, 1, 1, rows * chunks]
open(sys.argv[1], "wb").write(struct.pack("<8q", *head) + struct.pack(f"<{len(data)}Q", *data))
PY
if ! out=$(python3 "$src/scripts/rows-timeline.py" "$tmp/t.bin" 2>&1); then
  echo "FAIL: rows-timeline.py: $out"; fail=1
else
  for want in "2 completers, 6 owners, 0 handed over" "SM clock from clock64 / globaltimer: 1\.50 GHz" \
              "owners: for the row's other chunks +median +200 ns" "owners: signal after the last +median +200 ns"; do
    grep -qE "$want" <<< "$out" || { echo "FAIL: rows-timeline.py does not say '$want':"; echo "$out"; fail=1; }
  done
fi

listed=$(sed -n '/^for xpb_phase in/,/; do$/p' "$src/scripts/device-run.sh" | tr -d '\\' | sed 's/for xpb_phase in//; s/; do//' | tr -s ' \n' '\n' | sed '/^$/d' | sort)
present=$(cd "$src/scripts/device" && ls -- *.sh | sed 's/\.sh$//' | sort)
if [ "$listed" != "$present" ]; then
  echo "FAIL: device-run.sh's phase loop and scripts/device/ differ:"; diff <(echo "$listed") <(echo "$present"); fail=1
fi
[ "$fail" = 0 ] && echo "scripts_tree: $(ls "$src"/scripts/patches/*.patch | wc -l) patches apply, rows-timeline.py reads a timeline, rows-ab-summary.py an A/B, $(echo "$present" | wc -l) device phases listed"
exit $fail
