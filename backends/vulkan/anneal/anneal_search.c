/* anneal_search.c - vulkan anneal search (XPB_OP_ANNEAL_SEARCH, xpb_ops.h): the nq x m squared
 * distances from the queries to the anchors, GEMM form, clamped to >= +0; the query path of the
 * retrieval report. Shader: shaders/anneal/anneal_search.comp (its header describes the tiles), one
 * dispatch; it computes the norms itself, so `scratch` is not bound.
 *
 * Workgroup: 16 x 16 invocations on 64 x 64 tiles, or 8 x 8 on 32 x 32 where the device allows
 * fewer than 256 invocations. */
#include "vk_ops.h"

typedef struct search_push {
    uint32_t nq, d, m, tiles_q, tiles_m, pad;
} search_push;

static const uint32_t anneal_search_spv[] = {
#include "anneal_search.spv.inc"
};
static const vkb_shader shader = VKB_SHADER("anneal_search", anneal_search_spv, 3, sizeof(search_push));

/* Invocations per tile side (the shader's W); a tile is 4W x 4W. */
static uint32_t tile_side(const vkb_ctx *c) { return vkb_block_size(c, 256) >= 256 ? 16 : 8; }

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    const vkb_ctx *c = ctx;
    const xpb_anneal_search_args *a = args;
    if (a->nq < 1 || a->nq >= ((int64_t)1 << 31) || a->d < 1 || a->d > 4096 || a->m < 1 ||
        a->m >= ((int64_t)1 << 31) || (double)a->nq * (double)a->m >= 0x1p31)
        return xpb_fail(why, XPB_ERR_USAGE, "anneal search: sizes nq=%lld d=%lld m=%lld outside 1 <= nq, m and "
                        "nq * m < 2^31, 1 <= d <= 4096", (long long)a->nq, (long long)a->d, (long long)a->m);
    xpb_status st = vkb_check_range(c, "the anneal queries", (uint64_t)a->nq * (uint64_t)a->d * sizeof(float), why);
    if (!st)
        st = vkb_check_range(c, "the anneal search anchors", (uint64_t)a->m * (uint64_t)a->d * sizeof(float), why);
    if (!st)
        st = vkb_check_range(c, "the anneal search distances", (uint64_t)a->nq * (uint64_t)a->m * sizeof(float), why);
    return st;
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    vkb_ctx *c = ctx;
    const xpb_anneal_search_args *a = args;
    (void)state;
    xpb_status st = supports(ctx, args, err);
    if (st)
        return st;
    vkb_binding b[3] = {
        {a->queries.buf, a->queries.offset, (VkDeviceSize)a->nq * (VkDeviceSize)a->d * sizeof(float)},
        {a->anchors.buf, a->anchors.offset, (VkDeviceSize)a->m * (VkDeviceSize)a->d * sizeof(float)},
        {a->dist.buf, a->dist.offset, (VkDeviceSize)a->nq * (VkDeviceSize)a->m * sizeof(float)},
    };
    uint32_t w = tile_side(c), t = 4 * w;
    search_push push = {
        .nq = (uint32_t)a->nq, .d = (uint32_t)a->d, .m = (uint32_t)a->m,
        .tiles_q = (uint32_t)((a->nq + t - 1) / t),
        .tiles_m = (uint32_t)((a->m + t - 1) / t),
    };
    vkb_spec spec = {2, {w * w, w}};
    return vkb_dispatch(c, &shader, &spec, b, &push,
                        vkb_group_count(c, (uint64_t)push.tiles_q * (uint64_t)push.tiles_m), err);
}

const xpb_kernel xpb_vulkan_anneal_search = {
    .op = XPB_OP_ANNEAL_SEARCH,
    .variant = "default",
    .precision = "fp32",
    .supports = supports,
    .launch = launch,
};
