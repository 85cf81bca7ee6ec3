#!/usr/bin/env bash
# quickstart.sh [xpubench run options] - installs what is missing, builds, runs the suite on every
# backend found, and writes results/<host>-<time>.{json,md} (and the HTML report when the report
# tools are installed). The suite is run's default, --preset auto: the default preset on a
# hardware GPU, the quick one on a software device (lavapipe) and on a machine without a GPU,
# said in one line. Extra arguments go to `xpubench run` (e.g. --preset default).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/report-env.sh
scripts/build.sh release
mkdir -p results
stem=results/$(hostname -s)-$(date -u +%Y%m%dT%H%M%SZ)
build/xpubench info
set +e
build/xpubench run --backend all --out "$stem.json" --markdown "$stem.md" "$@"
rc=$?
set -e
if [ -f "$stem.json" ]; then
  build/xpubench report "$stem.json" -o "$stem-report" || echo "quickstart: the HTML report failed (see above)"
fi
echo "quickstart: results in $stem.json and $stem.md, report in $stem-report/index.html (xpubench exit code $rc)"
exit $rc
