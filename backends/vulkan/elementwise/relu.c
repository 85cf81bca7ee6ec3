/* relu.c - out = max(0, x).
 * Shader: shaders/elementwise/relu.comp; launch shape: eltwise.c. */
#include "vk_ops.h"

static const uint32_t relu_spv[] = {
#include "relu.spv.inc"
};
static const vkb_shader shader = VKB_ELTWISE_SHADER("relu", relu_spv, 0);

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)state;
    return vkb_eltwise_launch(ctx, &shader, args, err);
}

const xpb_kernel xpb_vulkan_relu = {
    .op = XPB_OP_RELU,
    .variant = "default",
    .precision = "fp32",
    .supports = vkb_eltwise_supports,
    .launch = launch,
};
