/* coopmat_khr.c - vulkan/coopmat-khr: placeholder until the KHR cooperative-matrix GEMM lands. */
#include "vk_ops.h"

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    (void)ctx, (void)args;
    return xpb_fail(why, XPB_ERR_UNSUPPORTED, "vulkan/coopmat-khr: not built yet");
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)state;
    return supports(ctx, args, err);
}

const xpb_kernel xpb_vulkan_gemm_coopmat_khr = {
    .op = XPB_OP_GEMM,
    .variant = "coopmat-khr",
    .precision = "fp16-fp32acc",
    .supports = supports,
    .launch = launch,
};
