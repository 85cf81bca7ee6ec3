/* add.c - out = x + y.
 * Shader: shaders/elementwise/add.comp; launch shape: eltwise.c. */
#include "vk_ops.h"

static const uint32_t add_spv[] = {
#include "add.spv.inc"
};
static const vkb_shader shader = VKB_ELTWISE_SHADER("add", add_spv, 1);

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)state;
    return vkb_eltwise_launch(ctx, &shader, args, err);
}

const xpb_kernel xpb_vulkan_add = {
    .op = XPB_OP_ADD,
    .variant = "default",
    .precision = "fp32",
    .supports = vkb_eltwise_supports,
    .launch = launch,
};
