/* coopmat.c - vulkan/coopmat: GEMM with fp16 inputs and fp32 accumulation on cooperative
 * matrices (GL_NV_cooperative_matrix / VK_NV_cooperative_matrix, 16x16x16 fp16 -> fp32).
 * Shaders: shaders/coopmat.comp (body in coopmat.glsl), shaders/f32_to_f16.comp.
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

#define GROUP_M 8

typedef struct cm_push {
    uint32_t m, n, kp, np, tiles_m, tiles_n, group_m;
    float alpha, beta;
} cm_push;

static const uint32_t coopmat_spv[] = {
#include "coopmat.spv.inc"
};
static const uint32_t coopmat_emu_spv[] = {
#include "coopmat_emu.spv.inc"
};
static const vkb_shader shader = VKB_SHADER("coopmat", coopmat_spv, 4, sizeof(cm_push));
static const vkb_shader shader_emu = VKB_SHADER("coopmat_emu", coopmat_emu_spv, 4, sizeof(cm_push));

typedef struct cm_cfg {
    uint32_t bm, bn, bk, wm, wn;
} cm_cfg;

static bool emulate(const vkb_ctx *c) { return vkb_cm_emulate(c->coopmat.nv); }

/* The configuration as vkb_cm_state records it. */
static void cfg_words(const cm_cfg *t, uint32_t w[VKB_CM_CFG_WORDS])
{
    memset(w, 0, VKB_CM_CFG_WORDS * sizeof *w);
    w[0] = t->bm, w[1] = t->bn, w[2] = t->bk, w[3] = t->wm, w[4] = t->wn;
}

static uint32_t cfg_threads(const cm_cfg *t) { return (t->bm / t->wm) * (t->bn / t->wn) * 32; }

/* Two stages of A (BM x (BK+8)) and B (BK x (BN+8)) in fp16, plus a 16 x 20 fp32 tile per subgroup. */
static uint64_t cfg_shared_bytes(const cm_cfg *t)
{
    return 2ull * 2 * ((uint64_t)t->bm * (t->bk + 8) + (uint64_t)t->bk * (t->bn + 8)) +
           (uint64_t)(cfg_threads(t) / 32) * 16 * 20 * 4;
}

static const char *cfg_problem(const vkb_ctx *c, const cm_cfg *t)
{
    const VkPhysicalDeviceLimits *lim = &c->caps.props.limits;
    if (!t->bm || !t->bn || !t->bk || !t->wm || !t->wn || t->wm % 16 || t->wn % 16 || t->bk % 16 ||
        t->bm % t->wm || t->bn % t->wn)
        return "WM, WN, BK must be multiples of 16 and WM, WN divide BM, BN";
    uint32_t threads = cfg_threads(t);
    if (threads > lim->maxComputeWorkGroupInvocations || threads > lim->maxComputeWorkGroupSize[0])
        return "too many invocations per workgroup";
    if ((t->bm * t->bk / 8) % threads || (t->bk * t->bn / 8) % threads)
        return "BM*BK/8 and BK*BN/8 must be multiples of the invocations (whole uvec4 loads each)";
    if (cfg_shared_bytes(t) > lim->maxComputeSharedMemorySize)
        return "the shared memory it needs exceeds maxComputeSharedMemorySize";
    return NULL;
}

static xpb_status choose(const vkb_ctx *c, cm_cfg *out, xpb_error *err)
{
    const char *env = getenv("XPB_VULKAN_COOPMAT");
    /* 64x32 per subgroup (8 subgroups): 189 TFLOP/s against 172 for 64x64 at 8192^3 on the
     * H100 (2026-11-22 sweep, docs/performance.md). */
    cm_cfg t = {128, 128, 32, 64, 32};
    if (env && *env) {
        if (sscanf(env, "%ux%ux%u/%ux%u", &t.bm, &t.bn, &t.bk, &t.wm, &t.wn) != 5)
            return xpb_fail(err, XPB_ERR_USAGE, "XPB_VULKAN_COOPMAT=%s: expected BMxBNxBK/WMxWN", env);
        const char *why = cfg_problem(c, &t);
        if (why)
            return xpb_fail(err, XPB_ERR_USAGE, "XPB_VULKAN_COOPMAT=%s: %s", env, why);
    } else if (cfg_problem(c, &t)) {
        t.bk = 16;
    }
    const char *why = cfg_problem(c, &t);
    if (why)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED,
                        "vulkan/coopmat: no tile configuration fits this device (%s)", why);
    *out = t;
    return XPB_OK;
}

static xpb_status check(vkb_ctx *c, const xpb_gemm_args *a, cm_cfg *t, xpb_error *why)
{
    if (!c->coopmat.nv && !emulate(c))
        return xpb_fail(why, XPB_ERR_UNSUPPORTED, "%s", c->coopmat.why);
    xpb_status st = vkb_gemm_check(c, a, why);
    if (st || (st = choose(c, t, why)))
        return st;
    return vkb_cm_check_copies(c, a, t->bm, t->bn, t->bk, why);
}

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    cm_cfg t = {0, 0, 0, 0, 0};
    return check(ctx, args, &t, why);
}

static xpb_status prepare(void *ctx, const void *args, void **state, xpb_error *err)
{
    vkb_ctx *c = ctx;
    const xpb_gemm_args *a = args;
    *state = NULL;
    cm_cfg t = {0, 0, 0, 0, 0};
    xpb_status st = check(c, a, &t, err);
    if (st || a->m == 0 || a->n == 0)
        return st;
    uint32_t w[VKB_CM_CFG_WORDS];
    cfg_words(&t, w);
    vkb_cm_state *s = NULL;
    st = vkb_cm_prepare(c, a, t.bm, t.bn, t.bk, w, &s, err);
    *state = s;
    return st;
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    vkb_ctx *c = ctx;
    const xpb_gemm_args *a = args;
    const vkb_cm_state *s = state;
    cm_cfg t = {0, 0, 0, 0, 0};
    vkb_binding b[4];
    xpb_status st = check(c, a, &t, err);
    if (st)
        return st;
    if (a->m == 0 || a->n == 0)
        return vkb_ctx_status(c, err);
    uint32_t w[VKB_CM_CFG_WORDS];
    cfg_words(&t, w);
    if (!vkb_cm_matches(s, a, w))
        return xpb_fail(err, XPB_ERR_USAGE, "coopmat: launch without prepare() for these arguments");
    if ((st = vkb_gemm_bindings(a, b, err)))
        return st;
    b[0] = (vkb_binding){s->a16, 0, s->mp * s->kp * 2};
    b[1] = (vkb_binding){s->b16, 0, s->kp * s->np * 2};
    cm_push push = {
        .m = (uint32_t)a->m, .n = (uint32_t)a->n, .kp = (uint32_t)s->kp, .np = (uint32_t)s->np,
        .tiles_m = (uint32_t)(s->mp / t.bm), .tiles_n = (uint32_t)(s->np / t.bn), .group_m = GROUP_M,
        .alpha = a->alpha, .beta = a->beta,
    };
    vkb_spec spec = {7, {cfg_threads(&t), t.bm, t.bn, t.bk, t.wm, t.wn, a->n % 4 == 0}};
    uint64_t tiles = (uint64_t)push.tiles_m * push.tiles_n;
    const vkb_shader *sh = emulate(c) ? &shader_emu : &shader;
    return vkb_dispatch(c, sh, &spec, b, &push, vkb_group_count(c, tiles), err);
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
