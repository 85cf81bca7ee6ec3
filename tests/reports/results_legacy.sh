#!/usr/bin/env bash
# results_legacy.sh XPUBENCH SRCDIR WORKDIR - results files of schema 2 (committed under results/)
# still read: compare maps their stateful objects (run.burst, run.retrieval, run.energy and the
# reference figures of run.check) into the named metrics and timings of schema 3
# (docs/results-schema.md, "Files of earlier versions"), the same names a new run writes; a new
# run's file compares against itself with those names too, and a corrupt metrics list is one
# line and exit 2.
set -u
bin=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
has() { grep -Eq "\"name\":[[:space:]]*\"$2\"" "$1" || bad "$1 has no metric $2"; }

burst=$src/results/h100/2026-11-23-s5-burst-default.json
anneal=$src/results/h100/2026-11-23-anneal-default.json
for f in "$burst" "$anneal"; do
  grep -Eq '"schema_version":[[:space:]]*2' "$f" || bad "$f is no longer a schema 2 file: pick another"
done
"$bin" compare "$burst" "$burst" --json burst.json >burst.txt 2>&1 || bad "compare of a schema 2 burst file: $(tail -3 burst.txt)"
for m in events_per_s; do has burst.json $m; done
grep -q "events_per_s" burst.txt || bad "compare's text names no events_per_s: $(grep -m1 iterations burst.txt)"
"$bin" compare "$anneal" "$anneal" --json anneal.json >anneal.txt 2>&1 || bad "compare of a schema 2 anneal file"
for m in energy compression_ratio anchors reference_energy "recall@k1" "anchor_recall@k2" exact_over_compressed; do
  has anneal.json "$m"
done

# a new run: the same names, written by the workloads (schema 3)
"$bin" run --backend cpu --workload burst,anneal --preset conformance --filter 'neurons=255,|n=255,' --rounds 1 \
  --min-time 0.002 --out new.json >new.txt 2>&1 || bad "run: $(tail -3 new.txt)"
grep -Eq '"schema_version":[[:space:]]*3' new.json || bad "new.json is not schema 3"
grep -q "^run burst/.*events_per_s .*per_burst" new.txt || bad "no burst line on the console: $(grep '^run ' new.txt)"
grep -q "^run anneal/.*recall@k1" new.txt || bad "no anneal line on the console"
"$bin" compare new.json new.json --json new-cmp.json >new-cmp.txt 2>&1 || bad "compare of the new run with itself"
for m in events_per_s energy compression_ratio "recall@k1"; do has new-cmp.json "$m"; done

# a metrics entry of the wrong type: one line naming it, exit 2
sed 's/"better":[[:space:]]*"lower"/"better": 7/' new.json >broken.json
"$bin" compare broken.json new.json >broken.txt 2>&1; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <broken.txt)" -eq 1 ] && grep -q "metrics" broken.txt ||
  bad "a corrupt metrics entry: exit $rc, $(cat broken.txt)"

[ $fails -eq 0 ] && echo "results_legacy: ok" && exit 0
exit 1
