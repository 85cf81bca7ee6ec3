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
 * indexing, padding and epilogue on lavapipe; its timings mean nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_ops.h"

#define GROUP_M 8
#define CONVERT_BLOCK 256

typedef struct cm_push {
    uint32_t m, n, kp, np, tiles_m, tiles_n, group_m;
    float alpha, beta;
} cm_push;

typedef struct convert_push {
    uint32_t rows, cols, cols_p, units;
} convert_push;

static const uint32_t coopmat_spv[] = {
#include "coopmat.spv.inc"
};
static const uint32_t coopmat_emu_spv[] = {
#include "coopmat_emu.spv.inc"
};
static const uint32_t f32_to_f16_spv[] = {
#include "f32_to_f16.spv.inc"
};
static const vkb_shader shader = VKB_SHADER("coopmat", coopmat_spv, 4, sizeof(cm_push));
static const vkb_shader shader_emu = VKB_SHADER("coopmat_emu", coopmat_emu_spv, 4, sizeof(cm_push));
static const vkb_shader convert = VKB_SHADER("f32_to_f16", f32_to_f16_spv, 2, sizeof(convert_push));

typedef struct cm_cfg {
    uint32_t bm, bn, bk, wm, wn;
} cm_cfg;

typedef struct cm_state {
    cm_cfg cfg;
    int64_t m, n, k;
    uint64_t mp, np, kp;     /* padded sizes of the fp16 copies */
    xpb_buffer *a16, *b16;
} cm_state;

static bool emulate(const vkb_ctx *c)
{
    const char *v = getenv("XPB_VULKAN_COOPMAT_EMULATE");
    return !c->coopmat.nv && v && *v && strcmp(v, "0") != 0;
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

static uint64_t round_up(int64_t v, uint32_t to) { return ((uint64_t)v + to - 1) / to * to; }

static xpb_status check(vkb_ctx *c, const xpb_gemm_args *a, cm_cfg *t, xpb_error *why)
{
    if (!c->coopmat.nv && !emulate(c))
        return xpb_fail(why, XPB_ERR_UNSUPPORTED, "%s", c->coopmat.why);
    xpb_status st = vkb_gemm_check(c, a, why);
    if (st || (st = choose(c, t, why)))
        return st;
    uint64_t mp = round_up(a->m, t->bm), np = round_up(a->n, t->bn), kp = round_up(a->k, t->bk);
    if ((st = vkb_check_range(c, "the fp16 copy of A", mp * kp * 2, why)) ||
        (st = vkb_check_range(c, "the fp16 copy of B", kp * np * 2, why)))
        return st;
    return XPB_OK;
}

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    cm_cfg t = {0, 0, 0, 0, 0};
    return check(ctx, args, &t, why);
}

/* src (rows x cols fp32, view v) -> dst (rows_p x cols_p fp16). */
static xpb_status convert_matrix(vkb_ctx *c, xpb_view v, uint64_t rows, uint64_t cols, xpb_buffer *dst,
                                 uint64_t rows_p, uint64_t cols_p, xpb_error *err)
{
    vkb_binding b[2] = {
        {v.buf, v.offset, rows * cols * sizeof(float)},
        {dst, 0, rows_p * cols_p * 2},
    };
    convert_push push = {(uint32_t)rows, (uint32_t)cols, (uint32_t)cols_p, (uint32_t)(rows_p * cols_p / 2)};
    uint32_t block = vkb_block_size(c, CONVERT_BLOCK);
    vkb_spec spec = {1, {block}};
    uint32_t groups = vkb_group_count(c, (push.units + block - 1) / block);
    return vkb_dispatch(c, &convert, &spec, b, &push, groups, err);
}

static void release(void *ctx, void *state)
{
    cm_state *s = state;
    if (!s)
        return;
    vkb_buffer_free(ctx, s->a16);
    vkb_buffer_free(ctx, s->b16);
    free(s);
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
    cm_state *s = calloc(1, sizeof *s);
    if (!s)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory for the coopmat state");
    s->cfg = t;
    s->m = a->m;
    s->n = a->n;
    s->k = a->k;
    s->mp = round_up(a->m, t.bm);
    s->np = round_up(a->n, t.bn);
    s->kp = round_up(a->k, t.bk);
    if (!(st = vkb_buffer_alloc(c, (size_t)(s->mp * s->kp * 2), &s->a16, err)) &&
        !(st = vkb_buffer_alloc(c, (size_t)(s->kp * s->np * 2), &s->b16, err)) &&
        !(st = convert_matrix(c, a->a, (uint64_t)a->m, (uint64_t)a->k, s->a16, s->mp, s->kp, err)) &&
        !(st = convert_matrix(c, a->b, (uint64_t)a->k, (uint64_t)a->n, s->b16, s->kp, s->np, err)))
        st = vkb_synchronize(c, err);
    if (st) {
        release(c, s);
        return st;
    }
    *state = s;
    return XPB_OK;
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    vkb_ctx *c = ctx;
    const xpb_gemm_args *a = args;
    const cm_state *s = state;
    cm_cfg t = {0, 0, 0, 0, 0};
    vkb_binding b[4];
    xpb_status st = check(c, a, &t, err);
    if (st)
        return st;
    if (a->m == 0 || a->n == 0)
        return vkb_ctx_status(c, err);
    if (!s || s->m != a->m || s->n != a->n || s->k != a->k || memcmp(&s->cfg, &t, sizeof t) != 0)
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
    .release = release,
    .launch = launch,
};
