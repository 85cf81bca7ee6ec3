#!/usr/bin/env bash
# recipes.sh SOURCE_DIR OUTDIR [CMAKE ARGS...] - README.md's recipes are true: in a scratch copy of
# the tree (OUTDIR/src) it follows them step by step, as a contributor would,
#   "Adding a kernel variant" (CPU): a toy second add variant, tests/recipes/add_toy.c;
#   "Adding a workload" (stateful): a toy accumulator workload, tests/recipes/toy.c;
# then configures a CPU-only xpubench (CMAKE ARGS added: the BLAS, compilers and flags of the build
# that runs the test, so ccache can reuse its objects), builds that target alone, and checks that
# `list` shows both, that the workload runs, validates and reports its metric and timing in the
# results file, that its check catches a broken result, and that the variant passes the
# conformance cases of its op. Each step below names the README section and step it follows: a
# change to one must change the other. Exit 0: all true; 1: a step failed (what and where said).
set -euo pipefail
src=$1 out=$2
shift 2
recipes=$src/tests/recipes
scratch=$out/src build=$out/build
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

# ---- a scratch copy of the tree: the files git knows (untracked ones too, not ignored ones) ----
rm -rf "$out" && mkdir -p "$scratch"
if git -C "$src" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  git -C "$src" ls-files -z --cached --others --exclude-standard \
    | while IFS= read -r -d '' f; do [ -e "$src/$f" ] && printf '%s\0' "$f"; done \
    | tar -C "$src" --null -T - -cf - | tar -C "$scratch" -xf -
else # a source tree without git (an unpacked archive): everything but build folders
  tar -C "$src" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$scratch" -xf -
fi

# ---- README.md, "Adding a kernel variant": the cpu row of its table, the example's steps ----------
# 1. backends/cpu/elementwise/add_toy.c: the kernel and its xpb_kernel, in its op family's folder
#    (the backend's glob finds the file)
step "variant: backends/cpu/elementwise/add_toy.c and X(xpb_cpu_add_toy) in XPB_CPU_KERNELS"
cp "$recipes/add_toy.c" "$scratch/backends/cpu/elementwise/add_toy.c"
# 2. one line in the XPB_CPU_KERNELS list of backends/cpu/cpu_backend.c, after the op's default
#    (the first kernel of an op is its default)
sed -i '/^ *X(xpb_cpu_add) *\\$/a\    X(xpb_cpu_add_toy) \\' "$scratch/backends/cpu/cpu_backend.c"
grep -q 'X(xpb_cpu_add_toy)' "$scratch/backends/cpu/cpu_backend.c" \
  || fail "no X(xpb_cpu_add) line in backends/cpu/cpu_backend.c's XPB_CPU_KERNELS: README's recipe and the code disagree"

# ---- README.md, "Adding a workload": its first paragraph; the file is a "Stateful" one ------------
# one folder, workloads/toy/, defining xpb_workload_toy (CMake globs workloads/*.c, recursively) ...
step "workload: workloads/toy/toy.c and X(xpb_workload_toy) in XPB_WORKLOADS"
mkdir -p "$scratch/workloads/toy"
cp "$recipes/toy.c" "$scratch/workloads/toy/toy.c"
# ... and one line in the XPB_WORKLOADS list of workloads/registry.c
sed -i '/^#define XPB_WORKLOADS(X)/a\    X(xpb_workload_toy) \\' "$scratch/workloads/registry.c"
grep -q 'X(xpb_workload_toy)' "$scratch/workloads/registry.c" \
  || fail "workloads/registry.c has no XPB_WORKLOADS list: README's recipe and the code disagree"

# ---- build: CPU only, xpubench alone ---------------------------------------------------------------
step "configure and build (CPU only, target xpubench)"
t0=$(date +%s)
cmake -S "$scratch" -B "$build" -DCMAKE_BUILD_TYPE=Release -DXPB_CUDA=OFF -DXPB_VULKAN=OFF -DXPB_MPI=OFF \
      -DBUILD_TESTING=OFF -DXPB_WERROR=ON "$@" > "$out/configure.log" 2>&1 \
  || { tail -30 "$out/configure.log"; fail "configure failed ($out/configure.log)"; }
cmake --build "$build" --target xpubench -j2 > "$out/build.log" 2>&1 \
  || { grep -m20 -B2 -A6 'error' "$out/build.log" || tail -30 "$out/build.log"; fail "build failed ($out/build.log)"; }
echo "built in $(($(date +%s) - t0)) s"
bin=$build/xpubench

# ---- what the recipes promise -------------------------------------------------------------------
# README: "xpubench list then shows add ... cpu/default cpu/toy"; a workload is listed with its
# description
step "list"
"$bin" list > "$out/list.txt"
grep -Eq '^    add +.*cpu/default cpu/toy( |$)' "$out/list.txt" || { cat "$out/list.txt"; fail "list: no cpu/toy for add"; }
grep -q '^  toy: a toy accumulator' "$out/list.txt" || { cat "$out/list.txt"; fail "list: no workload toy"; }

# README, "Stateful": one result per variant of variant_op (add: default and toy), validated and
# timed; the report's metric and timing reach the results file
step "run --workload toy --preset conformance"
"$bin" run --backend cpu --workload toy --preset conformance --min-time 0.002 --out "$out/toy.json" \
  > "$out/toy.log" 2>&1 || { cat "$out/toy.log"; fail "run --workload toy exited $?"; }
python3 - "$out/toy.json" << 'EOF' || fail "$out/toy.json: see above"
import json, sys
results = json.load(open(sys.argv[1]))["cases"]
cases = {r["id"] for r in results}
assert len(cases) == 3, f"3 conformance cases expected, got {sorted(cases)}"
assert {r["variant"] for r in results} == {"default", "toy"}, "a result per add variant expected"
for r in results:
    assert r["status"] == "ok", f"{r['id']} {r['variant']}: {r['status']} {r.get('message', '')}"
    run = r["run"]
    metrics = {m["name"]: m for m in run["metrics"]}
    assert isinstance(metrics.get("total", {}).get("value"), (int, float)), f"{r['id']}: no metric total"
    timings = {t["name"]: t for t in run["timings"]}
    assert timings.get("per_step", {}).get("count", 0) > 0, f"{r['id']}: per_step not timed"
totals = {}
for r in results:  # both variants reached the same exact state
    totals.setdefault(r["id"], set()).add(r["run"]["metrics"][0]["value"])
assert all(len(t) == 1 for t in totals.values()), f"the variants' totals differ: {totals}"
print(f"OK: {len(results)} results, each with total and per_step")
EOF

# README, "Stateful", step 2: with inject set the run damages what it read back; the case must fail
step "run --workload toy --inject-fault value (must fail validation)"
rc=0
"$bin" run --backend cpu --workload toy --preset conformance --validate-only --inject-fault value \
  > "$out/toy_fault.log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q "ops: add FAILS at step 1; run: x differs" "$out/toy_fault.log" \
  || { cat "$out/toy_fault.log"; fail "a damaged run was not caught (exit $rc)"; }

# README, "Adding a kernel variant": "Its conformance cases: xpubench run ... --variant toy ..."
step "run --variant toy: add's conformance cases"
"$bin" run --backend cpu --workload elementwise --filter '^elementwise/add/' --variant toy --preset conformance \
  --validate-only --out "$out/variant.json" > "$out/variant.log" 2>&1 \
  || { cat "$out/variant.log"; fail "the toy variant's conformance cases exited $?"; }
python3 - "$out/variant.json" << 'EOF' || fail "$out/variant.json: see above"
import json, sys
results = json.load(open(sys.argv[1]))["cases"]
assert results and all(r["variant"] == "toy" and r["status"] == "ok" for r in results), \
    [(r["id"], r["variant"], r["status"]) for r in results if r["status"] != "ok"] or "no results"
print(f"OK: {len(results)} conformance cases of add, variant toy")
EOF
echo "OK: README's recipes for a CPU variant and a stateful workload, followed in $scratch"
