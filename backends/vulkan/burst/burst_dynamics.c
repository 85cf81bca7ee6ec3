/* burst_dynamics.c - vulkan burst dynamics (XPB_OP_BURST_DYNAMICS, xpb_ops.h): stimulus and the
 * neuron update of burst b, bit for bit as the reference (burst_dynamics_neuron); writes v,
 * countdown, count, fired_flag and zeroes input. One dispatch, a workgroup per block of compact's
 * tiling and an invocation per neuron of a tile (shaders/burst/burst_dynamics.comp; burst.glsl keeps the
 * fp32 steps exact), which also leaves the blocks' fired counts and degree sums in scratch for a
 * batch's compact. */
#include "burst_common.h"

static const uint32_t burst_dynamics_spv[] = {
#include "burst_dynamics.spv.inc"
};
static const vkb_shader shader = VKB_SHADER("burst_dynamics", burst_dynamics_spv, 14, sizeof(vkb_burst_push));

xpb_status vkb_burst_dynamics_prepare(vkb_ctx *c, const xpb_burst_args *a, const vkb_burst_plan *plan,
                                      vkb_prepared *p, xpb_error *err)
{
    uint64_t nb = (uint64_t)a->n * 4;
    const xpb_view *v[12] = {
        &a->threshold, &a->threshold_limit, &a->leak, &a->excitability, &a->refractory, &a->fire_limit,
        &a->snooze,    &a->v,               &a->countdown, &a->count, &a->input, &a->fired_flag,
    };
    vkb_binding b[14];
    for (int i = 0; i < 12; i++)
        b[i] = vkb_burst_bind(*v[i], nb);
    b[12] = vkb_burst_bind(a->offsets, nb + 4);
    b[13] = vkb_burst_bind(a->scratch, (uint64_t)plan->push.blocks * 8);
    /* a workgroup per tile of compact's tiling, an invocation per neuron where the device allows */
    uint32_t tile = 4 * plan->block;
    vkb_spec spec = {2, {vkb_block_size(c, tile), tile}};
    return vkb_prepare(c, &shader, &spec, b, p, err);
}

xpb_status vkb_burst_dynamics_record(vkb_ctx *c, const vkb_burst_plan *plan, const vkb_prepared *p, uint32_t b,
                                     xpb_error *err)
{
    vkb_burst_push push = plan->push;
    push.burst = b;
    return vkb_record(c, p, &push, plan->groups, err);
}

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    const xpb_burst_args *a = args;
    return vkb_burst_supports(ctx, a, 0, "dynamics", why);
}

static xpb_status one(vkb_ctx *c, const xpb_burst_args *a, const vkb_burst_plan *plan, xpb_error *err)
{
    vkb_prepared p;
    xpb_status st = vkb_burst_dynamics_prepare(c, a, plan, &p, err);
    return st ? st : vkb_burst_dynamics_record(c, plan, &p, a->burst, err);
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    const xpb_burst_args *a = args;
    (void)state;
    return vkb_burst_launch(ctx, a, 0, "dynamics", one, err);
}

const xpb_kernel xpb_vulkan_burst_dynamics = {
    .op = XPB_OP_BURST_DYNAMICS,
    .variant = "default",
    .precision = "exact",
    .supports = supports,
    .launch = launch,
};
