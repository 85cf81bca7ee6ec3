/* rmsnorm.c - per row: y = x / sqrt(mean(x^2) + eps) * w.
 * Shader: shaders/rows/rmsnorm.comp; launch configuration: rowop.c. */
#include "vk_ops.h"

static const uint32_t rmsnorm_spv[] = {
#include "rmsnorm.spv.inc"
};
static const vkb_shader shader = VKB_ROWOP_SHADER("rmsnorm", rmsnorm_spv, 1);

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    return vkb_rowop_supports(ctx, args, 1, why);
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)state;
    return vkb_rowop_launch(ctx, &shader, 1, args, err);
}

const xpb_kernel xpb_vulkan_rmsnorm = {
    .op = XPB_OP_RMSNORM,
    .variant = "default",
    .precision = "fp32",
    .supports = supports,
    .launch = launch,
};
