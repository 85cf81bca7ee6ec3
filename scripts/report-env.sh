#!/usr/bin/env bash
# report-env.sh - makes .venv (at the repository root; a link into the user's cache shared by
# clones with the same pins, scripts/venv.sh) with the Python packages of
# reports/requirements.txt, which `xpubench report` and the report tests use. Installs only
# what is missing: a second run with everything in place does nothing but check.
#   PYTHON=python3.12 scripts/report-env.sh   # choose the interpreter (default: python3)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/venv.sh
. scripts/venv.sh
xpb_venv "$PWD" || exit 1
req=reports/requirements.txt
# Every pinned requirement already satisfied? Then there is nothing to do.
hist=reports/requirements-history.txt
if .venv/bin/python - "$req" "$hist" <<'PY' 2>/dev/null; then
import sys
from importlib.metadata import version
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if line:
        name, want = line.split("==")
        if version(name) != want:
            sys.exit(1)
if sys.version_info >= (3, 11):  # the history extras (requirements-history.txt)
    for line in open(sys.argv[2]):
        line = line.split("#")[0].strip()
        if line and version(line.split("==")[0]) != line.split("==")[1]:
            sys.exit(1)
    if version("apache-otava") != "0.8.0":
        sys.exit(1)
PY
  echo "report-env: .venv is up to date ($req)"
  exit 0
fi
echo "report-env: installing $req into .venv"
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r "$req"
# Change-point detection (reports/changepoints.py): scipy, and Apache Otava without the
# dependencies of its command-line tool (its analysis module needs only numpy and scipy).
if .venv/bin/python -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r "$hist"
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps apache-otava==0.8.0
else
  echo "report-env: Python < 3.11: no change-point detection in the nightly history (Otava needs scipy 1.16)" >&2
fi
.venv/bin/python -c "import matplotlib, numpy; print('report-env: matplotlib', matplotlib.__version__, 'numpy', numpy.__version__)"
