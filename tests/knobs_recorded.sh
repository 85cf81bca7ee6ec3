#!/usr/bin/env bash
# knobs_recorded.sh XPUBENCH WORK - the declared XPB_* knobs set in the environment are recorded in
# the results (config.knobs, docs/results-schema.md), and compare warns when the two sides were run
# with different ones: an A/B by knob compares two configurations, not one build with itself.
set -u
bin=$1 work=$2
rm -rf "$work" && mkdir -p "$work" || exit 1
fail=0
ok() { echo "ok: $1"; }
no() { echo "FAIL: $1"; fail=1; }
run() { # run NAME [VAR=VALUE...]: the conformance copies on cpu, two rounds
  local name=$1; shift
  env "$@" "$bin" run --backend cpu --workload elementwise --preset conformance --filter '^elementwise/copy/' \
      --rounds 2 --out "$work/$name.json" > "$work/$name.log" 2>&1 || { no "run $name"; tail -3 "$work/$name.log"; }
}
run plain
run knob XPB_CPU_INIT_BOUND=off
run knob2 XPB_CPU_INIT_BOUND=off
run other XPB_CPU_INIT_BOUND=on
grep -q '"knobs"' "$work/plain.json" && no "a run without knobs records config.knobs" || ok "no knobs, no config.knobs"
grep -qE '"XPB_CPU_INIT_BOUND":[[:space:]]*"off"' "$work/knob.json" && ok "config.knobs holds the knob set" \
  || no "config.knobs lacks XPB_CPU_INIT_BOUND=off"
"$bin" compare "$work/plain.json" "$work/knob.json" > "$work/cmp1.txt" 2>&1
grep -q "knobs in the environment differs: 'none' (base) vs 'XPB_CPU_INIT_BOUND=off' (new)" "$work/cmp1.txt" \
  && ok "compare warns: none against a knob" || { no "compare's warning (none vs a knob)"; cat "$work/cmp1.txt"; }
"$bin" compare "$work/knob.json" "$work/other.json" > "$work/cmp2.txt" 2>&1
grep -q "'XPB_CPU_INIT_BOUND=off' (base) vs 'XPB_CPU_INIT_BOUND=on' (new)" "$work/cmp2.txt" \
  && ok "compare warns: two values of one knob" || { no "compare's warning (two values)"; cat "$work/cmp2.txt"; }
"$bin" compare "$work/knob.json" "$work/knob2.json" > "$work/cmp3.txt" 2>&1
grep -q "knobs in the environment" "$work/cmp3.txt" && no "compare warns for the same knobs" || ok "same knobs, no warning"
exit $fail
