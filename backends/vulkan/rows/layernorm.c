/* layernorm.c - per row: y = (x - mean) / sqrt(var + eps) * w + b (population variance).
 * Shader: shaders/rows/layernorm.comp; launch configuration: rowop.c. */
#include "vk_ops.h"

static const uint32_t layernorm_spv[] = {
#include "layernorm.spv.inc"
};
static const vkb_shader shader = VKB_ROWOP_SHADER("layernorm", layernorm_spv, 2);

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    return vkb_rowop_supports(ctx, args, 2, why);
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)state;
    return vkb_rowop_launch(ctx, &shader, 2, args, err);
}

const xpb_kernel xpb_vulkan_layernorm = {
    .op = XPB_OP_LAYERNORM,
    .variant = "default",
    .precision = "fp32",
    .supports = supports,
    .launch = launch,
};
