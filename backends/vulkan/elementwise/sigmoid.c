/* sigmoid.c - out = 1 / (1 + exp(-x)), stable for large |x|.
 * Shader: shaders/elementwise/sigmoid.comp; launch shape: eltwise.c. */
#include "vk_ops.h"

static const uint32_t sigmoid_spv[] = {
#include "sigmoid.spv.inc"
};
static const vkb_shader shader = VKB_ELTWISE_SHADER("sigmoid", sigmoid_spv, 0);

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)state;
    return vkb_eltwise_launch(ctx, &shader, args, err);
}

const xpb_kernel xpb_vulkan_sigmoid = {
    .op = XPB_OP_SIGMOID,
    .variant = "default",
    .precision = "fp32",
    .supports = vkb_eltwise_supports,
    .launch = launch,
};
