# kernel_config_lib.sh - sourced by kernel_config.sh and kernel_config_cuda.sh (after `bin=$1
# work=$2`): a fresh $work, the checks' ok / no (no sets fail=1), and kc.
here=$(dirname "$0")
rm -rf "$work" && mkdir -p "$work" || exit 1
fail=0
ok() { echo "ok: $1"; }
no() { echo "FAIL: $1"; fail=1; }
# kc FILE OP VARIANT: the kernel_config of the random-input case of OP and VARIANT in FILE
kc() {
  python3 - "$@" <<'PY'
import json, sys
f, op, variant = sys.argv[1:4]
for c in json.load(open(f))["cases"]:
    if c["op"] == op and c["variant"] == variant and "input" not in c["params"]:
        print(c.get("kernel_config", "")); break
PY
}
