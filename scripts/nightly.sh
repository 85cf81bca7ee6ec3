#!/usr/bin/env bash
# nightly.sh [xpubench run options] - the nightly regression run of this machine:
#   1. runs the default preset on every backend found (extra arguments go to `xpubench run`,
#      e.g. --backend cuda:0, and may override the preset);
#   2. stores the results as results/history/<host>/<UTC timestamp>.json;
#   3. compares them with results/baseline/<host>.json, which the first run creates, writing
#      <timestamp>.compare.{md,json,xml} beside them (Markdown for a CI summary, JUnit XML); the
#      last XPB_NOISE_HISTORY (10) earlier runs go along as --history, so each case's band is at
#      least the night-to-night spread of its medians (docs/reports.md, "Verdicts");
#   4. writes the HTML report of the last 30 runs to results/reports/<host>/ (needs the Python
#      environment of scripts/report-env.sh; without it, a gnuplot chart and a warning);
#   5. runs change-point detection over those runs (reports/changepoints.py): for each case, the
#      run where a step change began, into <timestamp>.changepoints.{md,json} (informational).
# Exit code: 1 when a case failed validation, 4 when compare found a regression or a new
# validation failure, 2/3 when xpubench could not run; 0 otherwise.
# Environment: XPB_BIN (default build/xpubench), XPB_RESULTS_DIR (default results),
# XPB_NIGHTLY_RUNS (default 2: runs of the build, each its own process, pooled into the new side
# with compare --rerun-new, so one stray process cannot make a verdict; the baseline keeps its
# night's reruns too, pooled with --rerun-base. One run a side failed the H100 A/A, two passed:
# docs/reports.md. 3 on a shared or noisy machine), XPB_HOST (default `hostname -s`), XPB_UPDATE_BASELINE=1 (replace the baseline after a run that
# passed), XPB_HISTORY_IN_REPORT (default 30 runs).
#   cron:  30 2 * * *  cd /path/to/xpubench && scripts/nightly.sh >>results/nightly.log 2>&1
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${XPB_BIN:-build/xpubench}
results=${XPB_RESULTS_DIR:-results}
host=${XPB_HOST:-$(hostname -s)}
keep=${XPB_HISTORY_IN_REPORT:-30}
if [ ! -x "$bin" ]; then
  echo "nightly: $bin not found: build first (scripts/build.sh release) or set XPB_BIN" >&2
  exit 2
fi
stamp=$(date -u +%Y%m%dT%H%M%SZ)
hist_dir=$results/history/$host
base=$results/baseline/$host.json
out=$hist_dir/$stamp.json
mkdir -p "$hist_dir" "$results/baseline" || exit 2

echo "nightly: running xpubench on $host -> $out"
"$bin" run --backend all --preset default --out "$out" "$@"
run_rc=$?
if [ ! -s "$out" ]; then
  echo "nightly: xpubench run failed (exit $run_rc) and wrote no results" >&2
  exit $((run_rc == 0 ? 3 : run_rc))
fi

# More runs of the same build (XPB_NIGHTLY_RUNS): kept beside the night's file, never in the history
rerun_args=() reruns=()
for ((i = 2; i <= ${XPB_NIGHTLY_RUNS:-2}; i++)); do
  extra=$hist_dir/$stamp.rerun$i.json
  if "$bin" run --backend all --preset default --out "$extra" "$@" && [ -s "$extra" ]; then
    rerun_args+=(--rerun-new "$extra")
    reruns+=("$extra")
  else
    echo "nightly: warning: rerun $i failed; comparing with the runs that worked" >&2
  fi
done

cmp_rc=0
hist_args=() # earlier nights: their spread widens a case's band (compare --history)
mapfile -t earlier < <(ls "$hist_dir"/*Z.json 2>/dev/null | sort | grep -vxF "$out" | tail -n "${XPB_NOISE_HISTORY:-10}")
for f in "${earlier[@]}"; do hist_args+=(--history "$f"); done
# The baseline is the night's file plus its reruns, base/<host>.rerunN.json (pooled: --rerun-base).
set_baseline() {
  rm -f "$results/baseline/$host".rerun*.json
  cp "$out" "$base" || return 1
  local f
  for f in "${reruns[@]}"; do cp "$f" "$results/baseline/$host.rerun${f##*.rerun}" || return 1; done
}
if [ ! -f "$base" ]; then
  set_baseline || exit 2
  echo "nightly: no baseline for $host yet: $base created from this run (and ${#reruns[@]} reruns)"
else
  for f in "$results/baseline/$host".rerun*.json; do [ -f "$f" ] && rerun_args+=(--rerun-base "$f"); done
  "$bin" compare "$base" "$out" --markdown "$hist_dir/$stamp.compare.md" --json "$hist_dir/$stamp.compare.json" \
    --junit "$hist_dir/$stamp.compare.xml" "${hist_args[@]}" "${rerun_args[@]}"
  cmp_rc=$?
  echo "nightly: compare with $base: exit $cmp_rc ($hist_dir/$stamp.compare.md)"
fi

report=$results/reports/$host
mapfile -t runs < <(ls "$hist_dir"/*Z.json 2>/dev/null | sort | tail -n "$keep")
if "$bin" report "${runs[@]}" -o "$report" --title "xpubench nightly: $host"; then
  echo "nightly: report in $report/index.html"
else
  echo "nightly: warning: no HTML report (run scripts/report-env.sh); a gnuplot chart instead" >&2
  mkdir -p "$report"
  "$bin" plot "$out" --term svg -o "$report/latest.svg" || true
fi

# Where a step change began over the history (not day-to-day flapping against one baseline):
# change-point detection over each case's series (reports/changepoints.py, Apache Otava).
py=.venv/bin/python
[ -x "$py" ] || py=python3
"$py" reports/changepoints.py "${runs[@]}" --json "$hist_dir/$stamp.changepoints.json" \
  --markdown "$hist_dir/$stamp.changepoints.md" \
  || echo "nightly: warning: no change-point detection (scripts/report-env.sh installs Apache Otava)" >&2

if [ "$run_rc" -eq 0 ] && [ "$cmp_rc" -eq 0 ] && [ "${XPB_UPDATE_BASELINE:-0}" = 1 ]; then
  set_baseline || exit 2
  echo "nightly: baseline $base replaced by this run (XPB_UPDATE_BASELINE=1)"
fi
if [ "$run_rc" -ne 0 ]; then
  echo "nightly: FAILED: xpubench run exited $run_rc (1 = a case failed validation)" >&2
  exit "$run_rc"
fi
if [ "$cmp_rc" -ne 0 ]; then
  echo "nightly: FAILED: compare exited $cmp_rc (4 = regression or new validation failure)" >&2
  exit "$cmp_rc"
fi
echo "nightly: ok"
