/* mul.c - out = x * y.
 * Shader: shaders/elementwise/mul.comp; launch shape: eltwise.c. */
#include "vk_ops.h"

static const uint32_t mul_spv[] = {
#include "mul.spv.inc"
};
static const vkb_shader shader = VKB_ELTWISE_SHADER("mul", mul_spv, 1);

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)state;
    return vkb_eltwise_launch(ctx, &shader, args, err);
}

const xpb_kernel xpb_vulkan_mul = {
    .op = XPB_OP_MUL,
    .variant = "default",
    .precision = "fp32",
    .supports = vkb_eltwise_supports,
    .launch = launch,
};
