/* layernorm.c - per row: y = (x - mean) / sqrt(var + eps) * w + b (population variance).
 * Shader: shaders/rows/layernorm.comp; launch configuration: rowop.c (rows longer than one chunk:
 * variant onchip's dispatch, rowop_onchip.c). */
#include "vk_ops.h"

static const uint32_t layernorm_spv[] = {
#include "layernorm.spv.inc"
};
static const vkb_shader shader = VKB_ROWOP_SHADER("layernorm", layernorm_spv, 2);

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    return vkb_rowop_default_supports(ctx, XPB_OP_LAYERNORM, 2, args, why);
}

static xpb_status prepare(void *ctx, const void *args, void **state, xpb_error *err)
{
    return vkb_rowop_default_prepare(ctx, XPB_OP_LAYERNORM, 2, args, state, err);
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    return vkb_rowop_default_launch(ctx, XPB_OP_LAYERNORM, &shader, 2, args, state, err);
}

static void describe(void *ctx, const void *args, void *state, char *buf, size_t n)
{
    (void)state;
    vkb_rowop_default_describe(ctx, XPB_OP_LAYERNORM, 2, args, buf, n);
}

const xpb_kernel xpb_vulkan_layernorm = {
    .op = XPB_OP_LAYERNORM,
    .variant = "default",
    .precision = "fp32",
    .supports = supports,
    .prepare = prepare,
    .release = vkb_rowop_default_release,
    .launch = launch,
    .describe = describe,
};
