/* softmax.c - per row: y = exp(x - max(x)) / sum(exp(x - max(x))).
 * Shader: shaders/rows/softmax.comp; launch configuration: rowop.c. */
#include "vk_ops.h"

static const uint32_t softmax_spv[] = {
#include "softmax.spv.inc"
};
static const vkb_shader shader = VKB_ROWOP_SHADER("softmax", softmax_spv, 0);

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    return vkb_rowop_supports(ctx, args, 0, why);
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)state;
    return vkb_rowop_launch(ctx, &shader, 0, args, err);
}

const xpb_kernel xpb_vulkan_softmax = {
    .op = XPB_OP_SOFTMAX,
    .variant = "default",
    .precision = "fp32",
    .supports = supports,
    .launch = launch,
};
