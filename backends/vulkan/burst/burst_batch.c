/* burst_batch.c - vulkan burst batch (XPB_OP_BURST_BATCH, xpb_ops.h): bursts b = burst .. burst +
 * bursts - 1, each propagate, dynamics and compact's second pass (3 dispatches: the dynamics
 * leaves compact's block sums), recorded into the context's one open command buffer and
 * submitted as one batch by whatever waits next (synchronize, timer_end, a download), as every
 * launch of this backend: no host wait and no host read between bursts. The dispatches are
 * prepared once (pipelines and descriptors; one descriptor set per shader for the whole batch
 * where there are no push descriptors) and recorded per burst with b in the push constants. Each
 * propagate's grid comes from counters[b], written by the compact before it; every dispatch is
 * preceded by a barrier, the propagate's one also covering the indirect-command read. No cap on
 * bursts per command buffer: Vulkan sets none. */
#include "burst_common.h"

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    const xpb_burst_args *a = args;
    if (a->bursts < 1)
        return xpb_fail(why, XPB_ERR_USAGE, "burst batch: %u bursts: needs at least 1", a->bursts);
    return vkb_burst_supports(ctx, a, (uint64_t)a->burst + a->bursts - 1, "batch", why);
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    vkb_ctx *c = ctx;
    const xpb_burst_args *a = args;
    (void)state;
    xpb_status st = supports(ctx, args, err);
    if (st)
        return st;
    uint64_t last = (uint64_t)a->burst + a->bursts - 1;
    vkb_burst_plan plan = vkb_burst_plan_for(c, a);
    vkb_prepared prop, dyn, compact[2];
    if ((st = vkb_burst_propagate_prepare(c, a, &plan, last, &prop, err)) ||
        (st = vkb_burst_dynamics_prepare(c, a, &plan, &dyn, err)) ||
        (st = vkb_burst_compact_prepare(c, a, &plan, last, compact, err)))
        return st;
    for (uint64_t b = a->burst; b <= last; b++)
        if ((st = vkb_burst_propagate_record(c, a, &plan, &prop, (uint32_t)b, err)) ||
            (st = vkb_burst_dynamics_record(c, &plan, &dyn, (uint32_t)b, err)) ||
            (st = vkb_burst_compact_record(c, &plan, compact, (uint32_t)b, false, err)))
            return st;
    return XPB_OK;
}

const xpb_kernel xpb_vulkan_burst_batch = {
    .op = XPB_OP_BURST_BATCH,
    .variant = "default",
    .precision = "exact",
    .supports = supports,
    .launch = launch,
};
