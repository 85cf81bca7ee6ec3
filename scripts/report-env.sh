#!/usr/bin/env bash
# report-env.sh - creates .venv (at the repository root) with the Python packages of
# reports/requirements.txt, which `xpubench report` and the report tests use. Installs only
# what is missing: a second run with everything in place does nothing but check.
#   PYTHON=python3.12 scripts/report-env.sh   # choose the interpreter (default: python3)
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-python3}
req=reports/requirements.txt
if ! command -v "$py" >/dev/null; then
  echo "report-env: $py not found (Debian/Ubuntu: scripts/install-deps.sh installs python3-venv)" >&2
  exit 1
fi
if [ ! -x .venv/bin/python ]; then
  echo "report-env: creating .venv with $("$py" --version 2>&1)"
  "$py" -m venv .venv || {
    echo "report-env: '$py -m venv' failed (Debian/Ubuntu: apt-get install python3-venv)" >&2
    exit 1
  }
fi
# Every pinned requirement already satisfied? Then there is nothing to do.
if .venv/bin/python - "$req" <<'PY' 2>/dev/null; then
import sys
from importlib.metadata import version
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if line:
        name, want = line.split("==")
        if version(name) != want:
            sys.exit(1)
PY
  echo "report-env: .venv is up to date ($req)"
  exit 0
fi
echo "report-env: installing $req into .venv"
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r "$req"
.venv/bin/python -c "import matplotlib, numpy; print('report-env: matplotlib', matplotlib.__version__, 'numpy', numpy.__version__)"
