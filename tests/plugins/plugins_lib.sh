# plugins_lib.sh - sourced by the plugin tests (plugins.sh, plugins_isolate.sh, plugins_honest.sh, plugins_vulkan.sh) after
# they set bin (xpubench) and out (a folder): starts out afresh and defines fail and the checks below.
rm -rf "$out" && mkdir -p "$out"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# expect CODE NAME ARGS...: runs xpubench, checks the exit code; stdout in $out/NAME.out, stderr in .err
expect() {
  local code=$1 name=$2
  shift 2
  "$bin" "$@" > "$out/$name.out" 2> "$out/$name.err"
  local rc=$?
  [ "$rc" -eq "$code" ] || { bad "$name: '$*' exited $rc, expected $code"; tail -5 "$out/$name.err"; }
}
# one_line NAME PATTERN: stderr of NAME is exactly one line and matches PATTERN (grep -E)
one_line() {
  local n
  n=$(wc -l < "$out/$1.err")
  [ "$n" -eq 1 ] || bad "$1: stderr has $n lines, expected one: $(cat "$out/$1.err")"
  grep -Eq -- "$2" "$out/$1.err" || bad "$1: stderr does not match '$2': $(cat "$out/$1.err")"
}
