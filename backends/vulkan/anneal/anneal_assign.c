/* anneal_assign.c - vulkan anneal assign (XPB_OP_ANNEAL_ASSIGN, xpb_ops.h): nearest anchor of every
 * point, ties to the lowest anchor, and its distance, GEMM-style with the argmin fused.
 * Shaders: shaders/anneal/anneal_norms.comp (||x_i||^2 and ||a_j||^2 into scratch: n + m floats), then
 * shaders/anneal/anneal_assign.comp (its header describes the tiles and the argmin).
 *
 * Tile configuration (specialization constants, as in tiled.c): BM points x BN anchors, BK slice
 * of d, TM x TN microtile per invocation, (BM/TM) * (BN/TN) invocations.
 *   large: 128 x 128, 8 x 8 microtiles, 256 invocations, when there is at least one such point
 *          tile per compute unit (SM count from VK_NV_shader_sm_builtins, else 64) and m > 64;
 *   small: 64 x 64, 4 x 4 microtiles, 256 invocations, otherwise.
 * BK = 16 where both shared-memory stages fit in maxComputeSharedMemorySize, else 8.
 * XPB_VULKAN_ANNEAL_TILE=BMxBNxBK/TMxTN forces a configuration (tuning); one the device cannot
 * run is an error naming the rule it breaks. Every dot product sums its d products in order, so
 * all configurations give the same bits. */
#include <stdlib.h>

#include "vk_ops.h"

typedef struct assign_push {
    uint32_t n, d, m, tiles_m, tiles_n, slices;
} assign_push;

typedef struct norms_push {
    uint32_t n, d, m, pad;
} norms_push;

static const uint32_t anneal_assign_spv[] = {
#include "anneal_assign.spv.inc"
};
static const uint32_t anneal_norms_spv[] = {
#include "anneal_norms.spv.inc"
};
static const vkb_shader shader = VKB_SHADER("anneal_assign", anneal_assign_spv, 5, sizeof(assign_push));
static const vkb_shader norms_shader = VKB_SHADER("anneal_norms", anneal_norms_spv, 3, sizeof(norms_push));

typedef vkb_tile tile_cfg;

static uint64_t cfg_shared_bytes(const tile_cfg *t)
{
    return 2ull * t->bk * ((t->bm + 4) + (t->bn + 4)) * sizeof(float) + 2ull * t->bm * sizeof(uint32_t);
}

/* NULL when the device can run t; else the rule it breaks. */
static const char *cfg_problem(const vkb_ctx *c, const tile_cfg *t)
{
    return vkb_tile_problem(c, t, true, cfg_shared_bytes(t));
}

static xpb_status choose(const vkb_ctx *c, const xpb_anneal_assign_args *a, tile_cfg *out, xpb_error *err)
{
    const char *env = xpb_knob_value(XPB_KNOB_VULKAN_ANNEAL_TILE);
    if (env) {
        tile_cfg t;
        xpb_status st = vkb_tile_parse("XPB_VULKAN_ANNEAL_TILE", env, &t, err);
        if (st)
            return st;
        const char *why = cfg_problem(c, &t);
        if (why)
            return xpb_fail(err, XPB_ERR_USAGE, "XPB_VULKAN_ANNEAL_TILE=%s: %s", env, why);
        *out = t;
        return XPB_OK;
    }
    uint64_t units = c->caps.sm_count ? c->caps.sm_count : 64;
    uint64_t big_tiles = (uint64_t)((a->n + 127) / 128);
    tile_cfg t = big_tiles >= units && a->m > 64 ? (tile_cfg){128, 128, 16, 8, 8, 0} : (tile_cfg){64, 64, 16, 4, 4, 0};
    if (cfg_problem(c, &t))
        t.bk = 8;
    if (cfg_problem(c, &t)) /* a small device: the small tile */
        t = (tile_cfg){64, 64, 16, 4, 4, 0};
    const char *why = cfg_problem(c, &t);
    if (why)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED, "vulkan anneal assign: no tile configuration fits this device (%s)",
                        why);
    *out = t;
    return XPB_OK;
}

static xpb_status check(vkb_ctx *c, const xpb_anneal_assign_args *a, tile_cfg *t, xpb_error *why)
{
    xpb_status st = vkb_anneal_check_sizes("assign", a->n, a->d, a->m, why);
    if (st || (st = choose(c, a, t, why)))
        return st;
    if ((st = vkb_check_range(c, "the anneal points", (uint64_t)a->n * (uint64_t)a->d * sizeof(float), why)) ||
        (st = vkb_check_range(c, "the anneal anchors", (uint64_t)a->m * (uint64_t)a->d * sizeof(float), why)))
        return st;
    return vkb_check_range(c, "the anneal norms", ((uint64_t)a->n + (uint64_t)a->m) * sizeof(float), why);
}

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    tile_cfg t = {0, 0, 0, 0, 0, 0};
    return check(ctx, args, &t, why);
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    vkb_ctx *c = ctx;
    const xpb_anneal_assign_args *a = args;
    (void)state;
    tile_cfg t = {0, 0, 0, 0, 0, 0};
    xpb_status st = check(c, a, &t, err);
    if (st)
        return st;
    VkDeviceSize nb = (VkDeviceSize)a->n * sizeof(uint32_t);
    vkb_binding b[5] = {
        {a->x.buf, a->x.offset, (VkDeviceSize)a->n * (VkDeviceSize)a->d * sizeof(float)},
        {a->anchors.buf, a->anchors.offset, (VkDeviceSize)a->m * (VkDeviceSize)a->d * sizeof(float)},
        {a->assign.buf, a->assign.offset, nb},
        {a->dist.buf, a->dist.offset, nb},
        {a->scratch.buf, a->scratch.offset, ((VkDeviceSize)a->n + (VkDeviceSize)a->m) * sizeof(float)},
    };
    bool vec = a->d % 4 == 0;

    /* norms: L lanes per row, n + m rows */
    uint32_t block = vkb_block_size(c, VKB_ANNEAL_BLOCK), lanes = vkb_anneal_row_lanes(a->d);
    uint64_t rows_per_group = VKB_ANNEAL_ROWS_PER_LANES * (block / lanes), rows = (uint64_t)a->n + (uint64_t)a->m;
    vkb_binding nbind[3] = {b[0], b[1], b[4]};
    vkb_spec nspec = {3, {block, lanes, vec}};
    norms_push np = {(uint32_t)a->n, (uint32_t)a->d, (uint32_t)a->m, 0};
    if ((st = vkb_dispatch(c, &norms_shader, &nspec, nbind, &np,
                           vkb_group_count(c, (rows + rows_per_group - 1) / rows_per_group), err)))
        return st;

    assign_push push = {
        .n = (uint32_t)a->n, .d = (uint32_t)a->d, .m = (uint32_t)a->m,
        .tiles_m = (uint32_t)((a->n + t.bm - 1) / t.bm),
        .tiles_n = (uint32_t)((a->m + t.bn - 1) / t.bn),
        .slices = (uint32_t)((a->d + t.bk - 1) / t.bk),
    };
    vkb_spec spec = {7, {vkb_tile_threads(&t), t.bm, t.bn, t.bk, t.tm, t.tn, vec}};
    return vkb_dispatch(c, &shader, &spec, b, &push, vkb_group_count(c, push.tiles_m), err);
}

const xpb_kernel xpb_vulkan_anneal_assign = {
    .op = XPB_OP_ANNEAL_ASSIGN,
    .variant = "default",
    .precision = "fp32",
    .supports = supports,
    .launch = launch,
};
