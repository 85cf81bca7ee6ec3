/* burst_propagate.c - vulkan burst propagate (XPB_OP_BURST_PROPAGATE, xpb_ops.h): the fired list
 * of burst b - 1 adds its synapses' signed weight * psp to input, as int32 atomics. A fixed grid
 * (XPB_VULKAN_BURST_PROPAGATE_GROUPS; 32 workgroups a compute unit by default where the device
 * reports its units), as CUDA's one wave: the shader (shaders/burst/burst_propagate.comp) reads
 * the event count itself, strides over the chunks and balances the work by events through
 * degree_scan. With the knob at 0 (the default where the units are unknown), one indirect
 * dispatch from counters[b].dispatch (written by the compact before it, or by the host) instead,
 * whose barrier also waits for the indirect-command read (slower on the H100 and H200). */
#include "burst_common.h"

static const uint32_t burst_propagate_spv[] = {
#include "burst_propagate.spv.inc"
};
static const vkb_shader shader = VKB_SHADER("burst_propagate", burst_propagate_spv, 9, sizeof(vkb_burst_push));

xpb_status vkb_burst_propagate_prepare(vkb_ctx *c, const xpb_burst_args *a, const vkb_burst_plan *plan,
                                       uint64_t last, vkb_prepared *p, xpb_error *err)
{
    uint64_t n = (uint64_t)a->n, s = a->synapses;
    vkb_binding b[9] = {
        vkb_burst_bind(a->counters, vkb_burst_counters_bytes(last + 1)),
        vkb_burst_bind(a->degree_scan, (n + 1) * 4),
        vkb_burst_bind(a->fired, n * 4),
        vkb_burst_bind(a->offsets, (n + 1) * 4),
        vkb_burst_bind(a->targets, s * 4),
        vkb_burst_bind(a->weight, (s + 3) & ~(uint64_t)3),
        vkb_burst_bind(a->psp, (s + 3) & ~(uint64_t)3),
        vkb_burst_bind(a->inhibitory, (n + 3) & ~(uint64_t)3),
        vkb_burst_bind(a->input, n * 4),
    };
    vkb_spec spec = {1, {plan->block}};
    return vkb_prepare(c, &shader, &spec, b, p, err);
}

xpb_status vkb_burst_propagate_record(vkb_ctx *c, const xpb_burst_args *a, const vkb_burst_plan *plan,
                                      const vkb_prepared *p, uint32_t b, xpb_error *err)
{
    vkb_burst_push push = plan->push;
    push.burst = b;
    if (plan->prop_groups)
        return vkb_record(c, p, &push, plan->prop_groups, err);
    VkDeviceSize at = a->counters.offset + vkb_burst_counters_bytes(b) + offsetof(xpb_burst_counters, dispatch);
    return vkb_record_indirect(c, p, &push, a->counters.buf, at, err);
}

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    const xpb_burst_args *a = args;
    return vkb_burst_supports(ctx, a, a->burst, "propagate", why);
}

static xpb_status one(vkb_ctx *c, const xpb_burst_args *a, const vkb_burst_plan *plan, xpb_error *err)
{
    vkb_prepared p;
    xpb_status st = vkb_burst_propagate_prepare(c, a, plan, a->burst, &p, err);
    return st ? st : vkb_burst_propagate_record(c, a, plan, &p, a->burst, err);
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    const xpb_burst_args *a = args;
    (void)state;
    return vkb_burst_launch(ctx, a, a->burst, "propagate", one, err);
}

const xpb_kernel xpb_vulkan_burst_propagate = {
    .op = XPB_OP_BURST_PROPAGATE,
    .variant = "default",
    .precision = "exact",
    .supports = supports,
    .launch = launch,
};
