#!/usr/bin/env bash
# dump_replay_command.sh XPUBENCH DIR - the "replay" command that a dump's sidecar prints works as
# printed, run by a shell from where xpubench ran (not the repository root), with xpubench not on
# PATH, as on a fresh machine after the quick start:
#  1. burst: scripts/replay by absolute path; it picks a Python that has numpy (the project's
#     .venv, else python3) and replays the dump bit for bit;
#  2. burst, where no Python has numpy: scripts/replay says what to run (scripts/report-env.sh),
#     exit 2, instead of python's "No module named 'numpy'";
#  3. anneal: this xpubench by absolute path, on the dumped points.
# Part 1 is skipped (exit 77 at the end, after the others passed) when no Python here has numpy.
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") dir=$2
root=$(cd "$(dirname "$0")/.." && pwd)
fail=0 skip=""
rm -rf "$dir" && mkdir -p "$dir" || exit 1
cd "$dir" || exit 1
no_xpubench_path=/usr/local/bin:/usr/bin:/bin # PATH without the build directory

# The sidecar's run entries' "replay" commands, one a line (python3 reads JSON without numpy).
replays() {
  python3 -c 'import json, sys
for run in json.load(open(sys.argv[1]))["runs"].values():
    print(run["replay"])' "$1"
}

"$bin" run --backend cpu --workload burst --size neurons=257,fanout=9,bursts=5 --validate-only --dump dump \
  > burst.log 2>&1 || { echo "FAIL: the burst dump: $(tail -3 burst.log)"; exit 1; }
sidecar=$(ls dump/*.json | head -1)
cmd=$(replays "$sidecar" | head -1)
case $cmd in
  /*scripts/replay\ *) ;;
  *) echo "FAIL: burst replay command not scripts/replay by absolute path: $cmd"; fail=1 ;;
esac

# 1. as printed
out=$(PATH=$no_xpubench_path bash -c "$cmd" 2>&1)
rc=$?
if [ "$rc" -eq 2 ] && grep -q "numpy is not installed" <<<"$out"; then
  skip="no Python here has numpy: $out"
elif [ "$rc" -ne 0 ] || ! grep -q "bit-exact" <<<"$out"; then
  echo "FAIL: '$cmd' -> exit $rc: $out"; fail=1
fi

# 2. a fresh machine: no .venv beside the scripts, and a python3 without numpy
mkdir -p fresh/scripts shim
cp "$root/scripts/replay" "$root/scripts/burst-replay.py" fresh/scripts/
printf '#!/bin/sh\nexit 1 # a python3 without numpy: "import numpy" fails\n' > shim/python3
chmod +x shim/python3
out=$(PATH=$PWD/shim:$no_xpubench_path fresh/scripts/replay "$sidecar" 2>&1)
rc=$?
want="replay: numpy is not installed for python3: run $PWD/fresh/scripts/report-env.sh, which puts it into $PWD/fresh/.venv, then this command again"
if [ "$rc" -ne 2 ] || [ "$out" != "$want" ]; then
  echo "FAIL: scripts/replay without numpy -> exit $rc (want 2): '$out', want '$want'"; fail=1
fi

# 3. anneal: the replay runs this binary on the dumped points
"$bin" run --backend cpu --workload anneal --size n=300,d=8,m=4 --validate-only --dump adump \
  > anneal.log 2>&1 || { echo "FAIL: the anneal dump: $(tail -3 anneal.log)"; exit 1; }
cmd=$(replays adump/*.json | head -1)
case $cmd in
  "$bin run "*) ;;
  *) echo "FAIL: anneal replay command does not start with '$bin run': $cmd"; fail=1 ;;
esac
out=$(PATH=$no_xpubench_path bash -c "$cmd --validate-only" 2>&1)
rc=$?
if [ "$rc" -ne 0 ] || ! grep -qE "compress +n=300,d=8,m=4,file=1 .* ok" <<<"$out"; then
  echo "FAIL: '$cmd --validate-only' -> exit $rc: $out"; fail=1
fi

[ "$fail" -eq 0 ] || exit 1
if [ -n "$skip" ]; then
  echo "SKIP: part 1 (the replay itself): $skip"
  exit 77
fi
echo "OK: the printed replay commands run as printed"
