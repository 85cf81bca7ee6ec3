/* silu.c - out = x * sigmoid(x).
 * Shader: shaders/elementwise/silu.comp; launch shape: eltwise.c. */
#include "vk_ops.h"

static const uint32_t silu_spv[] = {
#include "silu.spv.inc"
};
static const vkb_shader shader = VKB_ELTWISE_SHADER("silu", silu_spv, 0);

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)state;
    return vkb_eltwise_launch(ctx, &shader, args, err);
}

const xpb_kernel xpb_vulkan_silu = {
    .op = XPB_OP_SILU,
    .variant = "default",
    .precision = "fp32",
    .supports = vkb_eltwise_supports,
    .launch = launch,
};
