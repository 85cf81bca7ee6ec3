/* coopmat.c - vulkan/coopmat: GEMM with fp16 inputs and fp32 accumulation on cooperative
 * matrices (GL_NV_cooperative_matrix / VK_NV_cooperative_matrix, 16x16x16 fp16 -> fp32).
 * Shaders: shaders/gemm/coopmat.comp (body in coopmat.glsl), shaders/f32_to_f16.comp.
 *
 * supports(): XPB_ERR_UNSUPPORTED with vk_coopmat.c's reason where the device lacks the extension,
 * its features or the shape (lavapipe: "device has no VK_NV_cooperative_matrix /
 * VK_KHR_cooperative_matrix").
 * prepare() (untimed): converts A and B to fp16 copies zero-padded to whole tiles (Mp x Kp and
 * Kp x Np), with f32_to_f16.comp, and waits for them. launch(): the GEMM alone.
 * Configuration (specialization constants): a BM x BN tile per workgroup of (BM/WM) * (BN/WN)
 * subgroups of 32, each a WM x WN block of 16 x 16 accumulators, K in slices of BK.
 * Default 128 x 128 x 32 with 4 subgroups of 64 x 64 (16 accumulators each): 43 KB of shared
 * memory (two stages + the epilogue's staging tiles); BK drops to 16 where that does not fit in
 * maxComputeSharedMemorySize. XPB_VULKAN_COOPMAT=BMxBNxBK/WMxWN forces one (tuning).
 * XPB_VULKAN_COOPMAT_EMULATE=1, on a device without cooperative matrices, runs the same tiling
 * with the matrix operations emulated in shared memory (coopmat_emu.comp): a test of the
 * indexing, padding and epilogue on lavapipe; its timings mean nothing.
 * The fp16 copies and the emulation switch are shared with vulkan/coopmat-khr (coopmat_common.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coopmat_common.h"

static const uint32_t coopmat_spv[] = {
#include "coopmat.spv.inc"
};
static const uint32_t coopmat_emu_spv[] = {
#include "coopmat_emu.spv.inc"
};
static const vkb_shader shader = VKB_SHADER("coopmat", coopmat_spv, 4, sizeof(vkb_cm_push));
static const vkb_shader shader_emu = VKB_SHADER("coopmat_emu", coopmat_emu_spv, 4, sizeof(vkb_cm_push));

static bool emulate(const vkb_ctx *c) { return vkb_cm_emulate(c->coopmat.nv); }

static xpb_status choose(const vkb_ctx *c, vkb_cm_cfg *out, xpb_error *err)
{
    const char *env = xpb_knob_value(XPB_KNOB_VULKAN_COOPMAT);
    /* 64x32 per subgroup (8 subgroups): 189 TFLOP/s against 172 for 64x64 at 8192^3 on the
     * H100 (2026-11-22 sweep, docs/performance.md). */
    vkb_cm_cfg t = {128, 128, 32, 64, 32, 2, 0};
    if (env) {
        if (sscanf(env, "%ux%ux%u/%ux%u", &t.bm, &t.bn, &t.bk, &t.wm, &t.wn) != 5)
            return xpb_fail(err, XPB_ERR_USAGE, "XPB_VULKAN_COOPMAT=%s: expected BMxBNxBK/WMxWN", env);
        const char *why = vkb_cm_cfg_problem(c, &t);
        if (why)
            return xpb_fail(err, XPB_ERR_USAGE, "XPB_VULKAN_COOPMAT=%s: %s", env, why);
    } else if (vkb_cm_cfg_problem(c, &t)) {
        t.bk = 16;
    }
    const char *why = vkb_cm_cfg_problem(c, &t);
    if (why)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED,
                        "vulkan/coopmat: no tile configuration fits this device (%s)", why);
    *out = t;
    return XPB_OK;
}

static xpb_status check(vkb_ctx *c, const xpb_gemm_args *a, vkb_cm_cfg *t, xpb_error *why)
{
    return vkb_cm_check_ext(c, a, c->coopmat.nv, c->coopmat.nv ? NULL : c->coopmat.why, choose, t, why);
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
    *spec = (vkb_spec){7, {vkb_cm_threads(t), t->bm, t->bn, t->bk, t->wm, t->wn, a->n % 4 == 0}};
    return emulate(c) ? &shader_emu : &shader;
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    return vkb_cm_launch_checked(ctx, args, state, check, pick, "coopmat", err);
}

const xpb_kernel xpb_vulkan_gemm_coopmat = {
    .op = XPB_OP_GEMM,
    .variant = "coopmat",
    .precision = "fp16-fp32acc",
    .supports = supports,
    .prepare = prepare,
    .release = vkb_cm_release,
    .launch = launch,
};
