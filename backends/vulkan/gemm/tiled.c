/* tiled.c - vulkan/tiled: fp32 GEMM with shared-memory tiles and register blocking, any M, N, K.
 * Shader: shaders/gemm/tiled.comp (its header describes the algorithm).
 *
 * Configuration (specialization constants): BM x BN block tile, BK slice of K, TM x TN microtile
 * per invocation, (BM/TM) * (BN/TN) invocations.
 *   large: 128 x 128, 8 x 8 microtiles, 256 invocations, when there is at least one such tile per
 *          compute unit (SM count from VK_NV_shader_sm_builtins, else 64 assumed), BK 8 where 16
 *          does not fit;
 *   small: 64 x 64, 4 x 4 microtiles, 256 invocations, otherwise (more workgroups for small C).
 * With the next slice stored halfway through the current one (MID_STORE, the default since
 * session 11) 128 x 128 x 16 measured 79-81% of cuBLAS on the H100 at 4096 and 8192, the 256 x 128
 * x 16 tile (512 invocations, A unpadded to fit 48 KB; session 10's default) 77-78%, and both 70%
 * with the store after the slice (docs/performance.md, session 11). 256x128x16/8x8 stays
 * reachable through XPB_VULKAN_TILED.
 * BK is 16 when both shared-memory stages fit in maxComputeSharedMemorySize (NVIDIA: 48 KB, the
 * large tile needs 33 KB), else 8 (lavapipe's 32 KB); 2 * BK * ((BM + PAD) + BN) * 4 bytes in all,
 * PAD 4 (0 where only that fits: cfg_pad).
 * XPB_VULKAN_TILED=BMxBNxBK/TMxTN (e.g. 128x64x16/8x4) forces a configuration, for tuning on a new
 * device; one the device cannot run is an error naming the rule it breaks.
 * Invocations map to microtiles in warp-shaped 4 x 8 blocks where the grid allows (WARP_LANES in
 * the shader); XPB_VULKAN_TILED_LANES=rows keeps the row-by-row order instead. */
#include <stdlib.h>
#include <string.h>

#include "vk_ops.h"
#include "xpb_knob.h"

/* The tuning knobs, read for each case (docs/knobs.md): XPB_VULKAN_TILED_GROUP_M,
 * XPB_VULKAN_TILED_LANES and XPB_VULKAN_TILED_STORE (shaders/gemm/tiled.comp MID_STORE). A value they
 * do not accept is the case's usage error naming the knob (xpb_knob.h). */
typedef struct tiled_knobs {
    uint32_t group_m;
    bool lanes_rows, store_end;
} tiled_knobs;

static xpb_status read_knobs(tiled_knobs *k, xpb_error *err)
{
    long g = 0;
    int l = 0, e = 0; /* indices among "warp|rows" and "mid|end" */
    xpb_status st = xpb_knob_get_long(XPB_KNOB_VULKAN_TILED_GROUP_M, &g, err);
    if (!st)
        st = xpb_knob_get_choice(XPB_KNOB_VULKAN_TILED_LANES, &l, err);
    if (!st)
        st = xpb_knob_get_choice(XPB_KNOB_VULKAN_TILED_STORE, &e, err);
    k->group_m = (uint32_t)g;
    k->lanes_rows = l == 1;
    k->store_end = e == 1;
    return st;
}

typedef struct tiled_push {
    uint32_t m, n, k;
    uint32_t tiles_m, tiles_n, group_m;
    float alpha, beta;
} tiled_push;

static const uint32_t tiled_spv[] = {
#include "tiled.spv.inc"
};
static const vkb_shader shader = VKB_SHADER("tiled", tiled_spv, 4, sizeof(tiled_push));

typedef vkb_tile tiled_cfg;

/* Warp-shaped lanes (shaders/gemm/tiled.comp, WARP_LANES) where the microtile grid allows it, unless
 * the knob asks for the row-by-row order. */
static uint32_t warp_lanes(const tiled_cfg *t, const tiled_knobs *k)
{
    if (k->lanes_rows)
        return 0;
    return (t->bn / t->tn) % 8 == 0 && (t->bm / t->tm) % 4 == 0 && vkb_tile_threads(t) % 32 == 0;
}

static uint64_t cfg_shared_bytes(const tiled_cfg *t)
{
    return 2ull * t->bk * ((t->bm + t->pad) + t->bn) * sizeof(float);
}

/* The padding of A's rows (shaders/gemm/tiled.comp): 4 floats keep the transposing stores at most 2-way
 * bank conflicted; a tile that fits only without them (256 x 128 x 16 in exactly 48 KB on NVIDIA)
 * takes 4-way conflicted stores, once per slice, rather than not running. */
static void cfg_pad(const vkb_ctx *c, tiled_cfg *t)
{
    t->pad = 4;
    if (cfg_shared_bytes(t) > c->caps.props.limits.maxComputeSharedMemorySize)
        t->pad = 0;
}

/* NULL when the device can run t; else the rule it breaks. */
static const char *cfg_problem(const vkb_ctx *c, const tiled_cfg *t)
{
    return vkb_tile_problem(c, t, false, cfg_shared_bytes(t));
}

static xpb_status choose(const vkb_ctx *c, const xpb_gemm_args *a, tiled_cfg *out, xpb_error *err)
{
    const char *env = xpb_knob_value(XPB_KNOB_VULKAN_TILED);
    if (env) {
        tiled_cfg t;
        xpb_status st = vkb_tile_parse("XPB_VULKAN_TILED", env, &t, err);
        if (st)
            return st;
        cfg_pad(c, &t);
        const char *why = cfg_problem(c, &t);
        if (why)
            return xpb_fail(err, XPB_ERR_USAGE, "XPB_VULKAN_TILED=%s: %s", env, why);
        *out = t;
        return XPB_OK;
    }
    /* The first candidate the device can run, among those whose tile count fills the device. */
    static const tiled_cfg large = {128, 128, 16, 8, 8, 4}, large_bk8 = {128, 128, 8, 8, 8, 4},
                           small = {64, 64, 16, 4, 4, 4};
    const tiled_cfg *candidates[] = {&large, &large_bk8, &small};
    uint64_t units = c->caps.sm_count ? c->caps.sm_count : 64;
    tiled_cfg t = small;
    for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++) {
        tiled_cfg k = *candidates[i];
        uint64_t tiles = (uint64_t)((a->m + k.bm - 1) / k.bm) * (uint64_t)((a->n + k.bn - 1) / k.bn);
        cfg_pad(c, &k);
        if ((tiles >= units || i + 1 == sizeof candidates / sizeof *candidates) && !cfg_problem(c, &k)) {
            t = k;
            break;
        }
    }
    cfg_pad(c, &t);
    const char *why = cfg_problem(c, &t);
    if (why)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED,
                        "vulkan/tiled: no tile configuration fits this device (%s)", why);
    *out = t;
    return XPB_OK;
}

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    vkb_ctx *c = ctx;
    const xpb_gemm_args *a = args;
    xpb_status st = vkb_gemm_check(c, a, why);
    tiled_cfg t = {0, 0, 0, 0, 0, 0};
    tiled_knobs k;
    if (!st)
        st = read_knobs(&k, why);
    return st ? st : choose(c, a, &t, why);
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    vkb_ctx *c = ctx;
    const xpb_gemm_args *a = args;
    (void)state;
    tiled_cfg t = {0, 0, 0, 0, 0, 0};
    tiled_knobs k;
    vkb_binding b[4];
    xpb_status st;
    if ((st = vkb_gemm_check(c, a, err)) || (st = read_knobs(&k, err)) || (st = choose(c, a, &t, err)))
        return st;
    if (a->m == 0 || a->n == 0)
        return vkb_ctx_status(c, err);
    if ((st = vkb_gemm_bindings(a, b, err)))
        return st;
    tiled_push push = {
        .m = (uint32_t)a->m, .n = (uint32_t)a->n, .k = (uint32_t)a->k,
        .tiles_m = (uint32_t)((a->m + t.bm - 1) / t.bm),
        .tiles_n = (uint32_t)((a->n + t.bn - 1) / t.bn),
        .group_m = k.group_m,
        .alpha = a->alpha, .beta = a->beta,
    };
    /* Whole tiles everywhere: the shader's EDGES constant drops its bounds checks. */
    const uint32_t edges = !(a->m % t.bm == 0 && a->n % t.bn == 0 && a->k % t.bk == 0 &&
                             a->k % 4 == 0 && a->n % 4 == 0);
    vkb_spec spec = {12, {vkb_tile_threads(&t), t.bm, t.bn, t.bk, t.tm, t.tn, a->k % 4 == 0, a->n % 4 == 0,
                          warp_lanes(&t, &k), t.pad, edges, !k.store_end}};
    uint64_t tiles = (uint64_t)push.tiles_m * push.tiles_n;
    return vkb_dispatch(c, &shader, &spec, b, &push, vkb_group_count(c, tiles), err);
}

const xpb_kernel xpb_vulkan_gemm_tiled = {
    .op = XPB_OP_GEMM,
    .variant = "tiled",
    .precision = "fp32",
    .supports = supports,
    .launch = launch,
};
