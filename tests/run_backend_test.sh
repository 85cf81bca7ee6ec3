#!/usr/bin/env bash
# run_backend_test.sh XPUBENCH BACKEND [--expect CODE] ARGS...
# Runs `XPUBENCH ARGS...` and checks its exit code (default 0). When BACKEND has no usable device
# on this machine, prints the reason and exits 77, which ctest reports as skipped.
set -u
bin=$1 backend=$2
shift 2
expect=0
if [ "${1:-}" = "--expect" ]; then expect=$2; shift 2; fi
reason=$("$bin" list 2>&1 | sed -n "s/^  $backend *unavailable: //p")
if [ -n "$reason" ]; then
  echo "SKIP: $backend backend unavailable here: $reason"
  exit 77
fi
"$bin" "$@"
rc=$?
if [ "$rc" -ne "$expect" ]; then
  echo "FAIL: '$*' exited $rc, expected $expect"
  exit 1
fi
echo "OK: exit $rc as expected"
