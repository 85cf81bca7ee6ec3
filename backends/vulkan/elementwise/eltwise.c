/* eltwise.c - launch code shared by the elementwise kernels (vk_ops.h, shaders/elementwise/eltwise.glsl).
 *
 * 256 invocations per workgroup, 4 vec4 per invocation per step: a step of a workgroup covers
 * 4096 floats, and the grid covers the array once (capped at maxComputeWorkGroupCount[0]; the
 * shader loops over what is left). Each binding is exactly n floats of its view. */
#include "vk_ops.h"

#define ELT_BLOCK 256
#define ELT_UNROLL 4

static xpb_status check(vkb_ctx *c, const xpb_eltwise_args *a, xpb_error *why)
{
    if (a->n < 0)
        return xpb_fail(why, XPB_ERR_USAGE, "n = %lld is negative", (long long)a->n);
    return vkb_check_range(c, "an array of this case", (uint64_t)a->n * sizeof(float), why);
}

xpb_status vkb_eltwise_supports(void *ctx, const void *args, xpb_error *why)
{
    return check(ctx, args, why);
}

xpb_status vkb_eltwise_launch(void *ctx, const vkb_shader *sh, const void *args, xpb_error *err)
{
    vkb_ctx *c = ctx;
    const xpb_eltwise_args *a = args;
    xpb_status st = check(c, a, err);
    if (st)
        return st;
    if (a->n == 0)
        return vkb_ctx_status(c, err);
    VkDeviceSize bytes = (VkDeviceSize)a->n * sizeof(float);
    bool binary = sh->n_bindings == 3;
    vkb_binding b[3];
    int nb = 0;
    b[nb++] = (vkb_binding){a->x.buf, a->x.offset, bytes};
    if (binary)
        b[nb++] = (vkb_binding){a->y.buf, a->y.offset, bytes};
    b[nb++] = (vkb_binding){a->out.buf, a->out.offset, bytes};

    uint32_t block = vkb_block_size(c, ELT_BLOCK);
    uint64_t n4 = (uint64_t)a->n / 4;
    uint64_t per_group = (uint64_t)block * ELT_UNROLL;
    vkb_spec spec = {2, {block, ELT_UNROLL}};
    vkb_eltwise_push push = {(uint32_t)a->n, (uint32_t)n4, a->a, 0};
    return vkb_dispatch(c, sh, &spec, b, &push, vkb_group_count(c, (n4 + per_group - 1) / per_group),
                        err);
}
