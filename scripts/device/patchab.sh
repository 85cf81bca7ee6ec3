# scripts/device/patchab.sh - phase patchab of scripts/device-run.sh, which sources it (its header says what the phase does)
if has patchab; then # patches' binaries against this tree's, alternated processes (the header's patchab)
  : "${XPB_PATCHAB_PATCH:?patchab needs XPB_PATCHAB_PATCH}"
  # side A is the tree as it stands: build it first, since a binary left in the build folder by
  # an earlier step of the call (a patched build) would otherwise time as the tree
  cmake --build --preset device -j "$(nproc)" --target xpubench >> "$out/patchab-build.log" 2>&1 || status=1
  cp "$bin" /tmp/xpubench-A
  sides="A" letters=(B C D E F G) k=0 real_bin=$bin
  for patch_file in $XPB_PATCHAB_PATCH; do # one binary a patch, each against the tree alone
    v=${letters[$k]}; k=$((k + 1))
    stamp "patchab: building $patch_file beside this tree as $v"
    rm -f /tmp/xpubench-$v
    # the patched binary's results record the commit with the patch's name (git_commit
    # COMMIT+NAME), so that none of them passes for the tree's
    patched_commit="${XPB_GIT_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}+$(basename "$patch_file" .patch)"
    if patch -p1 < "$patch_file" >> "$out/patchab-build.log" 2>&1 &&
       XPB_GIT_COMMIT=$patched_commit cmake --build --preset device -j "$(nproc)" --target xpubench \
         >> "$out/patchab-build.log" 2>&1; then
      cp "$bin" /tmp/xpubench-$v && sides+=" $v"
      echo "patchab: $v = $patch_file" | tee -a "$out/bench.txt"
    else
      echo "patchab: $patch_file did not apply or build (patchab-build.log)" | tee -a "$out/bench.txt"; status=1
    fi
    # put the tree back before the next patch; the build after the last: the next call's build
    # must not keep the patched objects
    patch -R -p1 < "$patch_file" >> "$out/patchab-build.log" 2>&1
  done
  cmake --build --preset device -j "$(nproc)" --target xpubench >> "$out/patchab-build.log" 2>&1 || status=1
  if [ "$sides" != A ]; then
    rev=$(echo $sides | tr ' ' '\n' | tac | tr '\n' ' ')
    for round in $(seq 1 "${XPB_PATCHAB_ROUNDS:-2}"); do
      order=$sides; [ $((round % 2)) = 0 ] && order=$rev # A B C, then C B A
      for v in $order; do
        bin=/tmp/xpubench-$v
        # shellcheck disable=SC2086
        bench "patchab-$v-r$round" ${XPB_PATCHAB_ARGS:?patchab needs XPB_PATCHAB_ARGS}
      done
    done
    if [ -n "${XPB_PATCHAB_VALIDATE:-}" ]; then
      for v in ${sides#A }; do
        stamp "patchab: $v validated: ${XPB_PATCHAB_VALIDATE}"
        # shellcheck disable=SC2086
        /tmp/xpubench-$v run $XPB_PATCHAB_VALIDATE --validate-only --out "$out/patchab-$v-validate.json" \
            > "$out/patchab-$v-validate.txt" 2>&1 || status=1
        tail -1 "$out/patchab-$v-validate.txt" | tee -a "$out/bench.txt"
      done
    fi
    [[ " ${XPB_PATCHAB_ARGS} " == *anneal* ]] && anneal_table "patchab-*.json"
    # every process's median a case, side by side (the compare below pools them; with two
    # processes a side its band is wide, so the table shows whether every process agrees)
    python3 - "$out" $sides <<'PY' | tee -a "$out/bench.txt"
import glob, json, os, sys
out, sides = sys.argv[1], sys.argv[2:]
med = {}
for v in sides:
    for f in sorted(glob.glob(os.path.join(out, f"patchab-{v}-r*.json"))):
        for c in json.load(open(f)).get("cases", []):
            t = c.get("timing", {}).get("kernel", {})
            if "median_s" in t:
                key = f"{c['id']} {c.get('device', '')} {c.get('variant', '')}"
                med.setdefault(key, {}).setdefault(v, []).append(t["median_s"] * 1e6)
for key, by in med.items():
    print("patchab us:", key, " | ".join(f"{v} " + " ".join(f"{x:.1f}" for x in by.get(v, [])) for v in sides))
PY
    # each patch against the tree by xpubench compare, every round of every process a unit (the
    # processes' spread counts as noise): a verdict needs 5 units a side, so XPB_PATCHAB_ARGS
    # should hold --rounds 3 (2 processes x 3); XPB_PATCHAB_THRESHOLD the smallest effect (1%)
    for v in ${sides#A }; do
      reruns=()
      for round in $(seq 2 "${XPB_PATCHAB_ROUNDS:-2}"); do
        reruns+=(--rerun-base "$out/patchab-A-r$round.json" --rerun-new "$out/patchab-$v-r$round.json")
      done
      $real_bin compare "$out/patchab-A-r1.json" "$out/patchab-$v-r1.json" "${reruns[@]}" \
          --threshold "${XPB_PATCHAB_THRESHOLD:-0.01}" > "$out/patchab-compare-$v.txt" 2>&1
      echo "patchab: compare A -> $v exit $?: $(tail -1 "$out/patchab-compare-$v.txt")" | tee -a "$out/bench.txt"
      grep -E " (slower|faster|same|noisy)( |$)" "$out/patchab-compare-$v.txt" | head -8 | cut -c1-220 | tee -a "$out/bench.txt"
    done
  fi
  bin=$real_bin
fi
