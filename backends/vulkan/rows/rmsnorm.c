/* rmsnorm.c - per row: y = x / sqrt(mean(x^2) + eps) * w.
 * Shader: shaders/rows/rmsnorm.comp; launch configuration: rowop.c (rows longer than one chunk:
 * variant onchip's dispatch, rowop_onchip.c). */
#include "vk_ops.h"

static const uint32_t rmsnorm_spv[] = {
#include "rmsnorm.spv.inc"
};
static const vkb_shader shader = VKB_ROWOP_SHADER("rmsnorm", rmsnorm_spv, 1);

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    return vkb_rowop_default_supports(ctx, XPB_OP_RMSNORM, 1, args, why);
}

static xpb_status prepare(void *ctx, const void *args, void **state, xpb_error *err)
{
    return vkb_rowop_default_prepare(ctx, XPB_OP_RMSNORM, 1, args, state, err);
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    return vkb_rowop_default_launch(ctx, XPB_OP_RMSNORM, &shader, 1, args, state, err);
}

static void describe(void *ctx, const void *args, void *state, char *buf, size_t n)
{
    (void)state;
    vkb_rowop_default_describe(ctx, XPB_OP_RMSNORM, 1, args, buf, n);
}

const xpb_kernel xpb_vulkan_rmsnorm = {
    .op = XPB_OP_RMSNORM,
    .variant = "default",
    .precision = "fp32",
    .supports = supports,
    .prepare = prepare,
    .release = vkb_rowop_default_release,
    .launch = launch,
    .describe = describe,
};
