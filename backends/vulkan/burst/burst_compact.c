/* burst_compact.c - vulkan burst compact (XPB_OP_BURST_COMPACT, xpb_ops.h): fired_flag -> the
 * fired ids ascending, their degree scan and counters[b + 1]. Two dispatches (layout in
 * shaders/burst/burst_compact.glsl): burst_compact_sums.comp leaves each block's fired count and degree
 * sum in scratch; burst_compact_write.comp adds up the blocks before its own, scans its tiles and
 * writes the ids and scan, and its last block the totals and counters. No atomic append: the
 * list comes out in id order, the same on every run. A batch records only the second pass: its
 * dynamics has just left the same sums (burst_dynamics.comp). */
#include "burst_common.h"

static const uint32_t burst_compact_sums_spv[] = {
#include "burst_compact_sums.spv.inc"
};
static const uint32_t burst_compact_write_spv[] = {
#include "burst_compact_write.spv.inc"
};
static const vkb_shader sums = VKB_SHADER("burst_compact_sums", burst_compact_sums_spv, 3, sizeof(vkb_burst_push));
static const vkb_shader write = VKB_SHADER("burst_compact_write", burst_compact_write_spv, 6, sizeof(vkb_burst_push));

xpb_status vkb_burst_compact_prepare(vkb_ctx *c, const xpb_burst_args *a, const vkb_burst_plan *plan,
                                     uint64_t last, vkb_prepared p[2], xpb_error *err)
{
    uint64_t n = (uint64_t)a->n;
    vkb_binding b[6] = {
        vkb_burst_bind(a->fired_flag, n * 4),
        vkb_burst_bind(a->offsets, (n + 1) * 4),
        vkb_burst_bind(a->scratch, (uint64_t)plan->push.blocks * 8),
        vkb_burst_bind(a->fired, n * 4),
        vkb_burst_bind(a->degree_scan, (n + 1) * 4),
        vkb_burst_bind(a->counters, vkb_burst_counters_bytes(last + 2)),
    };
    vkb_spec spec = {1, {plan->block}};
    xpb_status st = vkb_prepare(c, &sums, &spec, b, &p[0], err);
    return st ? st : vkb_prepare(c, &write, &spec, b, &p[1], err);
}

xpb_status vkb_burst_compact_record(vkb_ctx *c, const vkb_burst_plan *plan, const vkb_prepared p[2], uint32_t b,
                                    bool sums, xpb_error *err)
{
    vkb_burst_push push = plan->push;
    push.burst = b;
    xpb_status st = sums ? vkb_record(c, &p[0], &push, plan->groups, err) : XPB_OK;
    return st ? st : vkb_record(c, &p[1], &push, plan->groups, err);
}

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    const xpb_burst_args *a = args;
    return vkb_burst_supports(ctx, a, a->burst, "compact", why);
}

static xpb_status one(vkb_ctx *c, const xpb_burst_args *a, const vkb_burst_plan *plan, xpb_error *err)
{
    vkb_prepared p[2];
    xpb_status st = vkb_burst_compact_prepare(c, a, plan, a->burst, p, err);
    return st ? st : vkb_burst_compact_record(c, plan, p, a->burst, true, err);
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    const xpb_burst_args *a = args;
    (void)state;
    return vkb_burst_launch(ctx, a, a->burst, "compact", one, err);
}

const xpb_kernel xpb_vulkan_burst_compact = {
    .op = XPB_OP_BURST_COMPACT,
    .variant = "default",
    .precision = "exact",
    .supports = supports,
    .launch = launch,
};
