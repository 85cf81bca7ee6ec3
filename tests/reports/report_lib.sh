# report_lib.sh - sourced by the report tests that need the Python environment: sets here
# (tests/), root, py (the Python with matplotlib, exported as XPB_PYTHON with XPB_REPORT_SCRIPT),
# enters a fresh WORKDIR, and defines the counters ok, bad and finish. Skips the test (exit 77)
# when matplotlib is missing (scripts/report-env.sh creates .venv).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
py=${XPB_PYTHON:-$root/.venv/bin/python}
if ! "$py" -c "import matplotlib" 2>/dev/null; then
  echo "SKIP: no Python with matplotlib at $py (run scripts/report-env.sh to create .venv)"
  exit 77
fi
export XPB_PYTHON=$py XPB_REPORT_SCRIPT=$root/reports/report.py
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; }
