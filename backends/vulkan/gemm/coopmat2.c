/* coopmat2.c - vulkan/coopmat2: GEMM with fp16 inputs and fp32 accumulation on workgroup-scope
 * cooperative matrices through VK_NV_cooperative_matrix2 (GLSL GL_NV_cooperative_matrix2; shader
 * shaders/gemm/coopmat2.nv2.comp, compiled at build time by the glslang inside PyPI's slangpy wheel:
 * scripts/glslang-slang.py, backends/vulkan/find_glslang.cmake).
 *
 * Where vulkan/coopmat and coopmat-khr tile a workgroup's block over subgroups of 16 x 16 matrices
 * and stage every slice through shared memory themselves, here the workgroup holds its whole
 * BM x BN block of C as one matrix and loads BM x BK / BK x BN matrices straight from the fp16
 * buffers through tensor layouts: the split over subgroups, the staging and the instructions are
 * the driver's choice (on Hopper it may use the warpgroup MMA and bulk copies that subgroup-scope
 * matrices cannot reach).
 * supports(): XPB_ERR_UNSUPPORTED with the reason where this build has no NV2 shader, or the device
 * lacks the extension, its features or a workgroup-scope fp16 -> fp32 shape (vk_coopmat.c;
 * lavapipe: "device has no VK_NV_cooperative_matrix2"), or under a validation layer older than the
 * KHR extension it builds on. No fallback. prepare() (untimed): the fp16 copies of A and B padded to
 * whole tiles (coopmat_common.c, as for the other two). launch(): the GEMM alone. Validation bound:
 * the same as vulkan/coopmat's (precision "fp16-fp32acc").
 * Configuration (specialization constants): the workgroup's invocations, which pick one of the
 * device's flexible shapes; the BM x BN x BK tile, multiples of that shape's granularities; UNROLL,
 * the K slices a step of the unrolled K loop holds. Default 128 x 256 x 32, 32 slices a step,
 * 256 invocations (the best of the H100 sweeps, docs/performance.md, sessions 12-13);
 * XPB_VULKAN_COOPMAT2=BMxBNxBK[xUNROLL[xINVOCATIONS[xBT]]] forces one (tuning; one that no shape
 * allows is an error); BT 1 has prepare() store B's fp16 copy transposed (K contiguous, as
 * llama.cpp's mul_mm_cm2 reads B) and the shader read it through a transposing tensor view. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coopmat_common.h"

#ifndef XPB_VK_NO_NV2_SHADERS
static const uint32_t coopmat2_spv[] = {
#include "coopmat2.spv.inc"
};
static const vkb_shader shader = VKB_SHADER("coopmat2", coopmat2_spv, 4, sizeof(vkb_cm_push));

/* The tile, the unrolled K slices a step (coopmat_common.c's `stages` field carries UNROLL: this
 * body stages nothing itself) and the workgroup's invocations, which pick one of the device's
 * flexible shapes; NULL when that shape exists and divides the tile, else the rule it breaks. */
static const char *cfg_problem(const vkb_ctx *c, const vkb_cm_cfg *t, uint32_t invocations)
{
    const vkb_coopmat *m = &c->coopmat;
    for (uint32_t i = 0; i < m->nv2_n; i++) {
        if (m->nv2_shape[i].invocations != invocations)
            continue;
        if (!t->bm || !t->bn || !t->bk || t->bm % m->nv2_shape[i].gm || t->bn % m->nv2_shape[i].gn ||
            t->bk % m->nv2_shape[i].gk)
            return "BM, BN, BK must be multiples of the granularities of the shape with these invocations";
        if (m->nv2_max_workgroup && invocations > m->nv2_max_workgroup)
            return "the invocations exceed cooperativeMatrixWorkgroupScopeMaxWorkgroupSize";
        return NULL;
    }
    return "no workgroup-scope shape has this many invocations";
}

/* The configuration (*out) and its invocations (*invocations, when not NULL). */
static xpb_status choose(const vkb_ctx *c, vkb_cm_cfg *out, uint32_t *invocations, xpb_error *err)
{
    /* wm, wn = bm, bn: one "subgroup block" a workgroup in coopmat_common.c's terms (unused here) */
    vkb_cm_cfg t = {128, 256, 32, 128, 256, 32, 0};
    uint32_t inv = 256;
    const char *env = xpb_knob_value(XPB_KNOB_VULKAN_COOPMAT2);
    if (env) {
        int got = sscanf(env, "%ux%ux%ux%ux%ux%u", &t.bm, &t.bn, &t.bk, &t.stages, &inv, &t.bt);
        if (got < 3 || t.stages < 1 || t.stages > 64 || t.bt > 1)
            return xpb_fail(err, XPB_ERR_USAGE,
                            "XPB_VULKAN_COOPMAT2=%s: expected BMxBNxBK[xUNROLL[xINVOCATIONS[xBT]]], UNROLL 1..64, "
                            "BT 0 or 1",
                            env);
        t.wm = t.bm, t.wn = t.bn;
    }
    const char *why = cfg_problem(c, &t, inv);
    if (why)
        return xpb_fail(err, env ? XPB_ERR_USAGE : XPB_ERR_UNSUPPORTED,
                        "vulkan/coopmat2: %ux%ux%u, %u invocations: %s (shapes MgxNgxKg/invocations: %s)",
                        t.bm, t.bn, t.bk, inv, why, c->coopmat.nv2_shapes);
    *out = t;
    if (invocations)
        *invocations = inv;
    return XPB_OK;
}
#endif

/* The variant's check (coopmat_common.h), also giving the invocations its configuration picked
 * (when not NULL), so launch() parses the configuration once. */
static xpb_status check_cfg(vkb_ctx *c, const xpb_gemm_args *a, vkb_cm_cfg *t, uint32_t *invocations,
                            xpb_error *why)
{
#ifdef XPB_VK_NO_NV2_SHADERS
    (void)c, (void)a, (void)t, (void)invocations;
    return xpb_fail(why, XPB_ERR_UNSUPPORTED,
                    "vulkan/coopmat2: built without the slangpy wheel's glslang (GL_NV_cooperative_matrix2); "
                    "scripts/install-deps.sh fetches it into .deps");
#else
    if (!c->coopmat.nv2)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED, "%s", c->coopmat.nv2_why);
    xpb_status st = vkb_gemm_check(c, a, why);
    if (st || (st = choose(c, t, invocations, why)))
        return st;
    return vkb_cm_check_copies(c, a, t, why);
#endif
}

static xpb_status check(vkb_ctx *c, const xpb_gemm_args *a, vkb_cm_cfg *t, xpb_error *why)
{
    return check_cfg(c, a, t, NULL, why);
}

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    return vkb_cm_supports(ctx, args, check, why);
}

static xpb_status prepare(void *ctx, const void *args, void **state, xpb_error *err)
{
    return vkb_cm_prepare_checked(ctx, args, check, state, err);
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    vkb_ctx *c = ctx;
    const xpb_gemm_args *a = args;
    vkb_cm_cfg t = {0, 0, 0, 0, 0, 0, 0};
    uint32_t invocations = 0;
    xpb_status st = check_cfg(c, a, &t, &invocations, err);
    if (st)
        return st;
#ifdef XPB_VK_NO_NV2_SHADERS
    (void)state;
    return XPB_ERR_UNSUPPORTED; /* check_cfg() failed above */
#else
    vkb_spec spec = {6, {invocations, t.bm, t.bn, t.bk, t.stages, t.bt}};
    return vkb_cm_launch(c, a, state, &t, &shader, &spec, "coopmat2", err);
#endif
}

const xpb_kernel xpb_vulkan_gemm_coopmat2 = {
    .op = XPB_OP_GEMM,
    .variant = "coopmat2",
    .precision = "fp16-fp32acc",
    .supports = supports,
    .prepare = prepare,
    .release = vkb_cm_release,
    .launch = launch,
};
