/* anneal_changes.c - vulkan anneal changes (XPB_OP_ANNEAL_CHANGES, xpb_ops.h): the energy (mean
 * direct-form distance of each point to its anchor) and the count of changed assignments, into
 * the 8-byte result {float, uint32}. Needs shaderFloat64 (the energy is summed in double).
 * Shader: shaders/anneal/anneal_changes.comp, two passes: G per-workgroup partials into scratch (points
 * grid-stride, G = min(points / points-per-pass, 8 per SM, 4096)), then one workgroup adds them
 * in a fixed order. No atomics. Scratch: 3G words. */
#include "vk_ops.h"

#define CHANGES_MAX_GROUPS 4096 /* 3G words fit in the 64 KiB that scratch always has */

typedef struct changes_push {
    uint32_t n, d, m, groups;
} changes_push;

static const uint32_t anneal_changes_spv[] = {
#include "anneal_changes.spv.inc"
};
static const vkb_shader shader = VKB_SHADER("anneal_changes", anneal_changes_spv, 6, sizeof(changes_push));

typedef struct changes_cfg {
    uint32_t block, lanes, groups;
} changes_cfg;

static changes_cfg choose(const vkb_ctx *c, const xpb_anneal_changes_args *a)
{
    changes_cfg g;
    g.block = vkb_block_size(c, VKB_ANNEAL_BLOCK);
    g.lanes = vkb_anneal_row_lanes(a->d);
    uint64_t pts = VKB_ANNEAL_ROWS_PER_LANES * (g.block / g.lanes), units = c->caps.sm_count ? c->caps.sm_count : 64;
    uint64_t groups = ((uint64_t)a->n + pts - 1) / pts;
    if (groups > 8 * units)
        groups = 8 * units;
    if (groups > CHANGES_MAX_GROUPS)
        groups = CHANGES_MAX_GROUPS;
    g.groups = vkb_group_count(c, groups);
    return g;
}

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    const vkb_ctx *c = ctx;
    const xpb_anneal_changes_args *a = args;
    xpb_status st = vkb_anneal_check_sizes("changes", a->n, a->d, a->m, why);
    if (st)
        return st;
    if (!c->caps.float64)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED, "the device has no shaderFloat64 (anneal changes sums the energy in fp64)");
    if ((st = vkb_check_range(c, "the anneal points", (uint64_t)a->n * (uint64_t)a->d * sizeof(float), why)))
        return st;
    return vkb_check_range(c, "the anneal anchors", (uint64_t)a->m * (uint64_t)a->d * sizeof(float), why);
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    vkb_ctx *c = ctx;
    const xpb_anneal_changes_args *a = args;
    (void)state;
    xpb_status st = supports(ctx, args, err);
    if (st)
        return st;
    changes_cfg g = choose(c, a);
    VkDeviceSize nb = (VkDeviceSize)a->n * sizeof(uint32_t);
    vkb_binding b[6] = {
        {a->x.buf, a->x.offset, (VkDeviceSize)a->n * (VkDeviceSize)a->d * sizeof(float)},
        {a->anchors.buf, a->anchors.offset, (VkDeviceSize)a->m * (VkDeviceSize)a->d * sizeof(float)},
        {a->assign.buf, a->assign.offset, nb},
        {a->prev.buf, a->prev.offset, nb},
        {a->result.buf, a->result.offset, 8},
        {a->scratch.buf, a->scratch.offset, 3u * (VkDeviceSize)g.groups * sizeof(uint32_t)},
    };
    changes_push push = {(uint32_t)a->n, (uint32_t)a->d, (uint32_t)a->m, g.groups};
    vkb_spec spec = {4, {g.block, g.lanes, a->d % 4 == 0, 0}};
    if ((st = vkb_dispatch(c, &shader, &spec, b, &push, g.groups, err)))
        return st;
    spec.v[3] = 1;
    return vkb_dispatch(c, &shader, &spec, b, &push, 1, err);
}

const xpb_kernel xpb_vulkan_anneal_changes = {
    .op = XPB_OP_ANNEAL_CHANGES,
    .variant = "default",
    .precision = "fp32",
    .supports = supports,
    .launch = launch,
};
