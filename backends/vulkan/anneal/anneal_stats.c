/* anneal_stats.c - vulkan anneal stats (XPB_OP_ANNEAL_STATS, xpb_ops.h): per anchor, its point
 * count, trimmed mean and variance. Needs shaderFloat64 (the sums are in double).
 *
 * One launch records: vkCmdFillBuffer zeroing the per-anchor counters in scratch; then the
 * passes of shaders/anneal/anneal_stats.comp: count (32-bit atomicAdd), scan (one workgroup), scatter
 * (each point's (dist bits, index) key into its anchor's group); then
 * shaders/anneal/anneal_stats_anchor.comp, a workgroup per anchor: it sorts its group by the key (in
 * shared memory up to S keys, else in place in scratch), takes the kept range of the sorted
 * order, and sums in double over dimensions. The sort makes every sum's order canonical, so the
 * result is the same bits whatever order the scatter's atomics produced.
 * S: the largest power of two <= 4096 whose keys (8 S bytes) fit in shared memory beside the
 * reduction arrays (2048 on lavapipe's 32 KB, 4096 on NVIDIA's 48 KB).
 * Scratch: 2n + 3m words (members, then cnt, start, cursor). */
#include "vk_ops.h"

#define STATS_MAX_SORT 4096

typedef struct group_push {
    uint32_t n, m;
} group_push;

typedef struct anchor_push { /* std430 push block: double at offset 16 */
    uint32_t n, d, m, pad;
    double trim;
} anchor_push;

static const uint32_t anneal_stats_spv[] = {
#include "anneal_stats.spv.inc"
};
static const uint32_t anneal_stats_anchor_spv[] = {
#include "anneal_stats_anchor.spv.inc"
};
static const vkb_shader group_shader = VKB_SHADER("anneal_stats", anneal_stats_spv, 4, sizeof(group_push));
static const vkb_shader anchor_shader =
    VKB_SHADER("anneal_stats_anchor", anneal_stats_anchor_spv, 4, sizeof(anchor_push));

typedef struct stats_cfg {
    uint32_t block, sort, dims; /* B, S, DP */
} stats_cfg;

static uint64_t anchor_shared_bytes(uint32_t block, uint32_t sort, uint32_t dims)
{
    return 8ull * sort + 8ull * block + 4ull * dims;
}

static stats_cfg choose(const vkb_ctx *c, const xpb_anneal_stats_args *a)
{
    stats_cfg g;
    g.block = vkb_block_size(c, VKB_ANNEAL_BLOCK);
    g.dims = 1;
    while (g.dims < g.block && (int64_t)g.dims < a->d)
        g.dims *= 2;
    g.sort = STATS_MAX_SORT;
    while (g.sort > g.block &&
           anchor_shared_bytes(g.block, g.sort, g.dims) > c->caps.props.limits.maxComputeSharedMemorySize)
        g.sort /= 2;
    return g;
}

static uint64_t scratch_bytes(const xpb_anneal_stats_args *a)
{
    return (2u * (uint64_t)a->n + 3u * (uint64_t)a->m) * sizeof(uint32_t);
}

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    const vkb_ctx *c = ctx;
    const xpb_anneal_stats_args *a = args;
    xpb_status st = vkb_anneal_check_sizes("stats", a->n, a->d, a->m, why);
    if (st)
        return st;
    if (!c->caps.float64)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED, "the device has no shaderFloat64 (anneal stats sums in fp64)");
    stats_cfg g = choose(c, a);
    uint64_t shared = anchor_shared_bytes(g.block, g.sort, g.dims);
    if (shared > c->caps.props.limits.maxComputeSharedMemorySize)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED, "anneal stats needs %llu bytes of shared memory; the device has %u",
                        (unsigned long long)shared, c->caps.props.limits.maxComputeSharedMemorySize);
    if ((st = vkb_check_range(c, "the anneal points", (uint64_t)a->n * (uint64_t)a->d * sizeof(float), why)) ||
        (st = vkb_check_range(c, "the anneal means", (uint64_t)a->m * (uint64_t)a->d * sizeof(float), why)))
        return st;
    return vkb_check_range(c, "the anneal stats scratch", scratch_bytes(a), why);
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    vkb_ctx *c = ctx;
    const xpb_anneal_stats_args *a = args;
    (void)state;
    xpb_status st = supports(ctx, args, err);
    if (st)
        return st;
    stats_cfg g = choose(c, a);
    VkDeviceSize md = (VkDeviceSize)a->m * (VkDeviceSize)a->d * sizeof(float);
    vkb_binding scratch = {a->scratch.buf, a->scratch.offset, scratch_bytes(a)};
    if (!scratch.buf || scratch.offset > scratch.buf->size || scratch.range > scratch.buf->size - scratch.offset)
        return xpb_fail(err, XPB_ERR_USAGE, "anneal stats: the scratch view is smaller than %llu bytes",
                        (unsigned long long)scratch.range);

    /* zero cnt[m] (words 2n ..) */
    if ((st = vkb_cmd_before(c, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, err)))
        return st;
    vkCmdFillBuffer(c->cmd, scratch.buf->buf, scratch.offset + 2u * (VkDeviceSize)a->n * sizeof(uint32_t),
                    (VkDeviceSize)a->m * sizeof(uint32_t), 0);

    /* count, scan, scatter */
    vkb_binding gb[4] = {
        {a->assign.buf, a->assign.offset, (VkDeviceSize)a->n * sizeof(uint32_t)},
        {a->dist.buf, a->dist.offset, (VkDeviceSize)a->n * sizeof(float)},
        {a->counts.buf, a->counts.offset, (VkDeviceSize)a->m * sizeof(uint32_t)},
        scratch,
    };
    group_push gp = {(uint32_t)a->n, (uint32_t)a->m};
    uint32_t point_groups = vkb_group_count(c, ((uint64_t)a->n + g.block - 1) / g.block);
    for (uint32_t pass = 0; pass < 3; pass++) {
        vkb_spec spec = {2, {g.block, pass}};
        if ((st = vkb_dispatch(c, &group_shader, &spec, gb, &gp, pass == 1 ? 1 : point_groups, err)))
            return st;
    }

    /* per anchor: sort, trimmed mean, variance */
    vkb_binding ab[4] = {
        {a->x.buf, a->x.offset, (VkDeviceSize)a->n * (VkDeviceSize)a->d * sizeof(float)},
        {a->mean.buf, a->mean.offset, md},
        {a->var.buf, a->var.offset, md},
        scratch,
    };
    anchor_push ap = {(uint32_t)a->n, (uint32_t)a->d, (uint32_t)a->m, 0, a->trim};
    vkb_spec spec = {3, {g.block, g.sort, g.dims}};
    return vkb_dispatch(c, &anchor_shader, &spec, ab, &ap, vkb_group_count(c, (uint64_t)a->m), err);
}

const xpb_kernel xpb_vulkan_anneal_stats = {
    .op = XPB_OP_ANNEAL_STATS,
    .variant = "default",
    .precision = "fp32",
    .supports = supports,
    .launch = launch,
};
