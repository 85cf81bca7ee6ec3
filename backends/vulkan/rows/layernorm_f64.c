/* layernorm_f64.c - variant f64stats of layernorm: the row statistics summed in fp64 in one pass
 * (shaders/rows/layernorm.glsl says why), so a row longer than one chunk is read twice instead of
 * three times. Needs shaderFloat64; launch configuration: rowop.c. */
#include "vk_ops.h"

static const uint32_t layernorm_f64_spv[] = {
#include "layernorm_f64.spv.inc"
};
static const vkb_shader shader = VKB_ROWOP_SHADER("layernorm_f64", layernorm_f64_spv, 2);

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    const vkb_ctx *c = ctx;
    if (!c->caps.float64)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED, "the device has no shaderFloat64 (this variant sums in fp64)");
    return vkb_rowop_supports(ctx, args, 2, why);
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)state;
    xpb_status st = supports(ctx, args, err);
    return st ? st : vkb_rowop_launch(ctx, &shader, 2, args, err);
}

const xpb_kernel xpb_vulkan_layernorm_f64 = {
    .op = XPB_OP_LAYERNORM,
    .variant = "f64stats",
    .precision = "fp32",
    .supports = supports,
    .launch = launch,
};
