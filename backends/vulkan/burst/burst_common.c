/* burst_common.c - size checks, tiling and bindings shared by the Vulkan burst kernels
 * (burst_common.h). */
#include <math.h>

#include "burst_common.h"

#define ROUND4(x) (((uint64_t)(x) + 3u) & ~(uint64_t)3u)

xpb_status vkb_burst_supports(const vkb_ctx *c, const xpb_burst_args *a, uint64_t last, const char *op,
                              xpb_error *why)
{
    if (a->n < 1)
        return xpb_fail(why, XPB_ERR_USAGE, "burst %s: %lld neurons: needs at least 1", op, (long long)a->n);
    if ((uint64_t)a->n >= UINT32_MAX)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED, "burst %s: %lld neurons: the ops take fewer than 2^32 - 1", op,
                        (long long)a->n);
    if (a->synapses > UINT32_MAX)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED, "burst %s: %llu synapses: the ops take fewer than 2^32", op,
                        (unsigned long long)a->synapses);
    /* burst.glsl: a nonzero input's f = in * scale must dwarf any subnormal v */
    if (!(a->scale >= 0x1p-100f) || isinf(a->scale))
        return xpb_fail(why, XPB_ERR_UNSUPPORTED, "burst %s: scale %g: the exact fp32 path needs 2^-100 <= scale < inf",
                        op, (double)a->scale);
    uint32_t stages = c->caps.props.limits.maxPerStageDescriptorStorageBuffers;
    if (stages < VKB_BURST_MAX_BUFFERS)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED, "burst %s binds %d storage buffers; the device allows %u per stage",
                        op, VKB_BURST_MAX_BUFFERS, stages);
    uint64_t n = (uint64_t)a->n, s = a->synapses;
    struct {
        const char *what;
        uint64_t bytes;
    } r[] = {
        {"the burst offsets and degree scan", (n + 1) * 4},
        {"the burst targets", s * 4},
        {"the burst weights", ROUND4(s)},
        {"a burst per-neuron array", n * 4},
        {"the burst counters", vkb_burst_counters_bytes(last + 2)},
    };
    xpb_status st = XPB_OK;
    for (size_t i = 0; i < sizeof r / sizeof r[0] && !st; i++)
        st = vkb_check_range(c, r[i].what, r[i].bytes, why);
    return st;
}

xpb_status vkb_burst_plan_for(const vkb_ctx *c, const xpb_burst_args *a, vkb_burst_plan *out, xpb_error *err)
{
    vkb_burst_plan p;
    uint64_t n = (uint64_t)a->n;
    /* propagate's grid: where the device reports its compute units (NVIDIA's SM builtins), fixed
     * by default at 32 workgroups a unit; it reads its event count on the device and its
     * workgroups stride over the chunks, so any grid gives the same sums. 0 sizes each dispatch
     * indirectly from the compact's count, whose barrier also waits for the command read: 18.3 us
     * of device time a burst against 16.1 at 100K x 100 batched on an H200. A grid of 4 a unit
     * matched 32 there but strode too far at 5M x 100 (1002 us against 887; indirect 893):
     * docs/performance.md. Where the unit count is unknown, indirect: on lavapipe every idle
     * workgroup of a fixed grid costs CPU time (20 ms a burst at 10K x 100 against 2.1). */
    const long units = (long)c->caps.sm_count;
    long prop = 0;
    xpb_status st = xpb_knob_get_long_or(XPB_KNOB_VULKAN_BURST_PROPAGATE_GROUPS, 32 * units, &prop, err);
    if (st)
        return st;
    p.prop_groups = prop > 0 ? vkb_group_count(c, (uint64_t)prop) : 0;
    p.block = vkb_block_size(c, VKB_BURST_BLOCK);
    uint64_t tile = 4u * (uint64_t)p.block, tiles = (n + tile - 1) / tile;
    uint64_t per_block = (tiles + VKB_BURST_MAX_BLOCKS - 1) / VKB_BURST_MAX_BLOCKS;
    uint64_t blocks = (tiles + per_block - 1) / per_block;
    p.groups = vkb_group_count(c, blocks);
    p.push = (vkb_burst_push){
        .n = (uint32_t)n,
        .burst = a->burst,
        .stim_floor = a->stim_floor,
        .stim = a->stim,
        .scale = a->scale,
        .tiles = (uint32_t)tiles,
        .per_block = (uint32_t)per_block,
        .blocks = (uint32_t)blocks,
    };
    *out = p;
    return XPB_OK;
}

vkb_binding vkb_burst_bind(xpb_view v, uint64_t bytes)
{
    return (vkb_binding){v.buf, v.offset, bytes ? bytes : 4};
}

xpb_status vkb_burst_launch(void *ctx, const xpb_burst_args *a, uint64_t last, const char *op, vkb_burst_one_fn one,
                            xpb_error *err)
{
    vkb_ctx *c = ctx;
    xpb_status st = vkb_burst_supports(c, a, last, op, err);
    if (st)
        return st;
    vkb_burst_plan plan;
    if ((st = vkb_burst_plan_for(c, a, &plan, err)))
        return st;
    return one(c, a, &plan, err);
}
