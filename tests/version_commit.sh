#!/usr/bin/env bash
# version_commit.sh XPUBENCH SOURCE_DIR - the commit the binary records (results' git_commit) is the
# tree's HEAD at build time, not at configure time (cmake/xpb_git_commit.cmake). Skips (77) where
# the tree is no git checkout or the environment named the commit (XPB_GIT_COMMIT).
set -u
bin=$1 src=$2
[ -n "${XPB_GIT_COMMIT:-}" ] && { echo "skip: XPB_GIT_COMMIT names the commit"; exit 77; }
head=$(git -C "$src" rev-parse --short=12 HEAD 2>/dev/null) || { echo "skip: $src is no git checkout"; exit 77; }
got=$("$bin" version)
case "$got" in
  *"($head)"* | *"($head-dirty)"*) echo "ok: $got"; exit 0 ;;
  *) echo "FAIL: xpubench version says '$got', HEAD is $head (a stale configure-time commit?)"; exit 1 ;;
esac
