# venv.sh - sourced by install-deps.sh and report-env.sh: xpb_venv makes .venv, the project's
# Python environment (the CPU BLAS wheel, glslang, the report packages), when it is missing.
#
# Every clone of the project would otherwise download and install the same pinned packages
# again (a minute or more). So the environment lives in the user's cache, one per interpreter
# version and set of pins, and .venv is a link to it: a second clone with the same pins links
# the environment the first one filled. XPB_VENV_CACHE chooses the folder; XPB_VENV_CACHE=off
# keeps .venv inside the clone.
#   PYTHON=python3.12   the interpreter (default python3)
xpb_venv() {
  local root=$1 py=${PYTHON:-python3} cache key dir
  [ -x "$root/.venv/bin/python" ] && return 0
  if ! command -v "$py" >/dev/null; then
    echo "venv: $py not found (Debian/Ubuntu: scripts/install-deps.sh installs python3-venv)" >&2
    return 1
  fi
  cache=${XPB_VENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/xpubench}
  if [ "$cache" = off ]; then
    dir=$root/.venv
  else
    # the pins that decide what is installed: the report packages and install-deps.sh's own
    key=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')-$(cat "$root"/reports/requirements*.txt \
        "$root"/scripts/install-deps.sh | sha256sum | cut -c1-12)
    dir=$cache/venv-py$key
  fi
  if [ ! -x "$dir/bin/python" ]; then
    echo "venv: creating $dir with $("$py" --version 2>&1)"
    mkdir -p "$(dirname "$dir")"
    "$py" -m venv "$dir" || {
      echo "venv: '$py -m venv' failed (Debian/Ubuntu: apt-get install python3-venv)" >&2
      return 1
    }
  else
    echo "venv: reusing $dir (same interpreter and pins)"
  fi
  if [ "$dir" != "$root/.venv" ]; then
    rm -f "$root/.venv"
    ln -s "$dir" "$root/.venv"
  fi
}
