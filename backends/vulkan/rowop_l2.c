/* rowop_l2.c - vulkan/l2 row ops (softmax, rmsnorm, layernorm): placeholder until the variant lands. */
#include "vk_ops.h"

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    (void)ctx, (void)args;
    return xpb_fail(why, XPB_ERR_UNSUPPORTED, "vulkan/l2: not built yet");
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)state;
    return supports(ctx, args, err);
}

const xpb_kernel xpb_vulkan_softmax_l2 = {
    .op = XPB_OP_SOFTMAX, .variant = "l2", .precision = "fp32", .supports = supports, .launch = launch,
};
const xpb_kernel xpb_vulkan_rmsnorm_l2 = {
    .op = XPB_OP_RMSNORM, .variant = "l2", .precision = "fp32", .supports = supports, .launch = launch,
};
const xpb_kernel xpb_vulkan_layernorm_l2 = {
    .op = XPB_OP_LAYERNORM, .variant = "l2", .precision = "fp32", .supports = supports, .launch = launch,
};
