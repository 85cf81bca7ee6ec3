/* copy.c - out = x.
 * Shader: shaders/elementwise/copy.comp; launch shape: eltwise.c. */
#include "vk_ops.h"

static const uint32_t copy_spv[] = {
#include "copy.spv.inc"
};
static const vkb_shader shader = VKB_ELTWISE_SHADER("copy", copy_spv, 0);

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)state;
    return vkb_eltwise_launch(ctx, &shader, args, err);
}

const xpb_kernel xpb_vulkan_copy = {
    .op = XPB_OP_COPY,
    .variant = "default",
    .precision = "fp32",
    .supports = vkb_eltwise_supports,
    .launch = launch,
};
