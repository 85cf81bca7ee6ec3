#!/usr/bin/env bash
# cli_exit_codes.sh XPUBENCH - every documented exit code, and a one-line message for bad input.
set -u
bin=$1
pass=0 fail=0
expect() { # expect CODE PATTERN ARGS... : exit code and a stderr line matching PATTERN
  local code=$1 pattern=$2; shift 2
  local err rc
  err=$("$bin" "$@" 2>&1 >/dev/null); rc=$?
  if [ "$rc" -eq "$code" ] && grep -qE -- "$pattern" <<<"$err"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL: xpubench $* -> exit $rc (want $code), stderr: $err"
  fi
}
expect_line() { # expect_line CODE LINE ARGS... : exit code, and stderr exactly that one line
  local code=$1 want=$2; shift 2
  local err rc
  err=$("$bin" "$@" 2>&1 >/dev/null); rc=$?
  if [ "$rc" -eq "$code" ] && [ "$err" = "$want" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL: xpubench $* -> exit $rc (want $code), stderr: '$err', want '$want'"
  fi
}
expect 2 "unknown backend 'nosuch'" run --backend nosuch
expect 2 "unknown workload 'nosuch'" run --workload nosuch
expect 2 "unknown variant 'nosuch'" run --variant nosuch --size n=10
expect 2 "unknown --size key 'bogus'" run --size bogus=3
expect 2 "bad --size value" run --size n=-5
expect 2 "bad --size value" run --size n=abc
expect 2 "names key 'k' twice" run --backend cpu --workload gemm --size m=1,n=1,k=1,k=2
expect 2 "names key 'n' twice" run --backend cpu --workload elementwise --size n=3 --size n=5
expect 2 "an empty item" run --backend cpu --workload gemm --size m=1,,n=1,k=1
expect 2 "an empty item" run --backend cpu --workload gemm --size m=1,n=1,k=1,
expect 2 "every key the workload needs" run --backend cpu --workload gemm --size m=1,n=1
expect 2 "bad size rows\*cols" run --backend cpu --size rows=2^20,cols=2^20
expect 2 "head_dim" run --backend cpu --size batch=1,heads=1,seq=1,head_dim=3
expect 2 "bad --size input=bogus" run --backend cpu --size rows=3,cols=7,input=bogus
expect 2 "unknown or incomplete option" run --frobnicate
expect_line 2 "xpubench: info: unknown option '--frobnicate' (xpubench info [--json])" info --frobnicate
expect 2 "unknown preset" run --backend cpu --preset nosuch
expect 2 "bad --filter regex" run --backend cpu --filter '('
expect 2 "no case matches" run --backend cpu --preset quick --filter nothing-matches-this
expect 2 "bad --repetitions" run --repetitions 0
expect 2 "bad --sample-min" run --sample-min 0
expect 2 "bad --sample-min" run --sample-min fast
expect 2 "bad --preset|unknown preset" run --backend cpu --preset nosuch
expect 2 "unknown command" frobnicate
expect 3 "device cpu:5 does not exist" run --backend cpu:5 --preset quick
expect 2 "cannot write --out" run --backend cpu --size n=10 --validate-only --out /nonexistent-dir/r.json
# a backend that is not usable here must be an error naming the reason, never a fallback
for b in cuda vulkan; do
  if "$bin" list | grep -qE "^  $b +unavailable"; then
    expect 3 "backend $b is unavailable: .+" run --backend $b --preset quick
  fi
done
expect 0 "" run --backend cpu --size n=1000 --validate-only
# device groups (--devices): cuda with NCCL only; the others say why (docs/multi-gpu.md)
expect 3 "the cpu backend has no device groups: multi-device cases run on cuda with NCCL" run --backend cpu --devices 0,1
expect 3 "the vulkan backend has no device groups|backend vulkan is unavailable" run --backend vulkan --devices all
expect 2 "--devices needs one backend by name" run --backend cpu,vulkan --devices 0
expect 2 "--devices names device 1 twice" run --backend cuda --devices 0,1,1
expect 2 "bad --devices '0,x'" run --backend cuda --devices 0,x
expect 2 "bad --devices" run --backend cuda --devices ,
# a GPU the machine lacks: exit 3 (here: no CUDA at all, or fewer than 1000 GPUs)
expect 3 "cuda:999 does not exist|backend cuda is unavailable" run --backend cuda --devices 0,999
expect 0 "" run --backend cpu --workload collectives --size bytes=64 --validate-only
out=$("$bin" run --backend cpu --workload collectives --size bytes=64 --validate-only 2>/dev/null)
if grep -qE "^all_reduce .*unsupported: the cpu backend has no kernel for all_reduce: multi-device ops run on cuda device groups" <<<"$out" \
   && ! "$bin" run --backend cpu --preset quick --validate-only 2>/dev/null | grep -q "^all_reduce"; then
  pass=$((pass + 1))
else
  fail=$((fail + 1)); echo "FAIL: collectives on the cpu: unsupported with the reason, and not in the default workloads"
fi
# the sharded workloads likewise (docs/multi-gpu.md)
out=$("$bin" run --backend cpu --workload sharded --preset conformance --validate-only 2>/dev/null)
if grep -qE "^gemm_sharded .*unsupported: the cpu backend has no kernel for gemm_sharded: multi-device ops" <<<"$out"; then
  pass=$((pass + 1))
else
  fail=$((fail + 1)); echo "FAIL: sharded on the cpu: unsupported with the reason"
fi
expect 2 "bad size m=0" run --backend cpu --workload sharded --size m=0,n=4,k=4
# anneal --input: real files run; a missing, malformed, wrong-dtype, wrong-rank or truncated one is exit 2
data=$(dirname "$0")/data
expect 0 "" run --backend cpu --input "$data/blobs500x16.npy" --size m=8 --validate-only
expect 0 "" run --backend cpu --input "$data/blobs500x16.fvecs" --size m=8 --validate-only
expect 2 "2-D|rank|shape" run --backend cpu --input "$data/bad_rank3.npy"
expect 2 "truncated|trailing|bytes" run --backend cpu --input "$data/bad_truncated.fvecs"
expect 2 "does not read input files" run --backend cpu --workload gemm --input "$data/blobs500x16.npy"
expect_line 2 "xpubench: --input $data/blobs500x16.npy: 500 rows, fewer than m=501 anchors (use --size m=500 or fewer)" \
  run --backend cpu --input "$data/blobs500x16.npy" --size m=501
# queries=Q holds out the file's last Q rows for the retrieval report; at least one point must stay
expect 0 "" run --backend cpu --input "$data/blobs500x16.npy" --size m=8,queries=50 --validate-only
expect_line 2 "xpubench: --input $data/blobs500x16.npy: 500 rows, so queries=500 leaves no points (use --size queries=499 or fewer)" \
  run --backend cpu --input "$data/blobs500x16.npy" --size m=8,queries=500
expect_line 2 "xpubench: --input $data/blobs500x16.npy: 500 rows less queries=50 leave 450 points, fewer than m=451 anchors (use --size m=450 or fewer)" \
  run --backend cpu --input "$data/blobs500x16.npy" --size m=451,queries=50
# every other file error: one line, naming the file and the one thing wrong with it, exit 2
in=$(mktemp -d)
mkdir "$in/dir" "$in/dir.npy"
: > "$in/empty.npy"
: > "$in/empty.fvecs"
head -c 1000 "$data/blobs500x16.npy" > "$in/trunc.npy" # its header is 128 bytes
npy_header() { # npy_header SHAPE: the .npy 1.0 header of a float32 array of that shape
  local h="{'descr': '<f4', 'fortran_order': False, 'shape': $1, }"
  while (( (10 + ${#h} + 1) % 64 )); do h+=" "; done
  printf '\x93NUMPY\x01\x00'"\\x$(printf %02x $((${#h} + 1)))"'\x00%s\n' "$h"
}
{ npy_header "(8,)"; head -c 32 /dev/zero; } > "$in/rank1.npy"
{ head -c 68 "$data/blobs500x16.fvecs"; printf '\x02\x00\x00\x00'; head -c 8 /dev/zero; } > "$in/mixed.fvecs"
echo "1,2,3" > "$in/points.csv"
for f in "$in/dir/" "$in/dir" "$in/dir.npy"; do
  expect_line 2 "xpubench: --input $f: is a directory, not a .npy or .fvecs file" run --backend cpu --input "$f"
done
expect_line 2 "xpubench: --input $data/no-such-file.npy: cannot read: No such file or directory" \
  run --backend cpu --input "$data/no-such-file.npy"
expect_line 2 "xpubench: --input $in/empty.npy: empty file (0 bytes)" run --backend cpu --input "$in/empty.npy"
expect_line 2 "xpubench: --input $in/empty.fvecs: empty file (0 bytes)" run --backend cpu --input "$in/empty.fvecs"
expect_line 2 "xpubench: --input $in/trunc.npy: truncated .npy: shape (500, 16) needs 32000 data bytes, the file has 872" \
  run --backend cpu --input "$in/trunc.npy"
expect_line 2 "xpubench: --input $data/bad_float64.npy: dtype '<f8'; xpubench reads float32 ('<f4')" \
  run --backend cpu --input "$data/bad_float64.npy"
expect_line 2 "xpubench: --input $in/rank1.npy: a 1-D array; xpubench reads 2-D (n vectors x d)" \
  run --backend cpu --input "$in/rank1.npy"
expect_line 2 "xpubench: --input $in/mixed.fvecs: vector 1 has dimension 2, vector 0 has 16" \
  run --backend cpu --input "$in/mixed.fvecs"
expect_line 2 "xpubench: --input $in/points.csv: not a .npy or .fvecs file (the name's extension picks the format)" \
  run --backend cpu --input "$in/points.csv"
rm -rf "$in"
# real embeddings (300 rows of scripts/embed-docs.py's all-MiniLM-L6-v2 store): one of their 384
# dimensions is ~1e-35 everywhere, so its variance underflows fp32 (the stats bound's FLT_MIN floor)
expect 0 "" run --backend cpu --input "$data/docs300x384.npy" --size m=8,queries=30 --validate-only
# --size gives every input class of a row op; input=NAME keeps one (ids carry it by name)
ids=$("$bin" run --backend cpu --size rows=3,cols=7 --validate-only --filter softmax 2>/dev/null | grep -c "input=")
ids_one=$("$bin" run --backend cpu --size rows=3,cols=7,input=peak --validate-only 2>/dev/null | grep -cE "^softmax +rows=3,cols=7,input=peak ")
if [ "$ids" -ge 3 ] && [ "$ids_one" -eq 1 ]; then
  pass=$((pass + 1))
else
  fail=$((fail + 1)); echo "FAIL: --size input classes: $ids softmax class rows (want >= 3), $ids_one input=peak rows (want 1)"
fi
# a case that cannot fit in host memory is a clear per-case error (exit 3), never the OOM killer
avail_kib=$(awk '/MemAvailable/ {print $2}' /proc/meminfo)
if [ "${avail_kib:-0}" -lt $((30 * 1024 * 1024)) ]; then
  expect 3 "needs 32.00 GiB of host memory" run --backend cpu --size n=2^31 --filter elementwise/add
fi
# --power on a backend without a sensor: the run succeeds and each case says why it has no reading
tmp=$(mktemp -d)
expect 0 "" run --backend cpu --size n=1000 --filter add --power --min-time 0.001 --out "$tmp/p.json"
if grep -q '"unavailable":[[:space:]]*"the cpu backend has no power sensor"' "$tmp/p.json"; then
  pass=$((pass + 1))
else
  fail=$((fail + 1)); echo "FAIL: --power on cpu did not record why there is no reading"
fi
rm -rf "$tmp"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
