/* scale.c - out = a * x.
 * Shader: shaders/elementwise/scale.comp; launch shape: eltwise.c. */
#include "vk_ops.h"

static const uint32_t scale_spv[] = {
#include "scale.spv.inc"
};
static const vkb_shader shader = VKB_ELTWISE_SHADER("scale", scale_spv, 0);

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)state;
    return vkb_eltwise_launch(ctx, &shader, args, err);
}

const xpb_kernel xpb_vulkan_scale = {
    .op = XPB_OP_SCALE,
    .variant = "default",
    .precision = "fp32",
    .supports = vkb_eltwise_supports,
    .launch = launch,
};
