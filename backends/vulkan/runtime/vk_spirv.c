/* vk_spirv.c - a user's SPIR-V kernel (run --kernels FILE.spv, docs/plugins.md "Vulkan: SPIR-V
 * kernels"), launched through the same pipeline cache, descriptors and dispatch as the built-in
 * kernels. The plugin loader has checked the module's interface against the op's layout; here
 * the device's limits are checked, the bindings and push constants filled and the grid sized.
 * The pipeline is created from the module at the first launch (the validation launch, untimed)
 * and cached for the context's lifetime like any other. */
#include "vk_ops.h"

/* Row op, gemm or elementwise, and the per-column inputs of a row op (w, b). */
static bool is_rowop(xpb_op op) { return op == XPB_OP_SOFTMAX || op == XPB_OP_RMSNORM || op == XPB_OP_LAYERNORM; }
static bool is_gemm(xpb_op op) { return op == XPB_OP_GEMM || op == XPB_OP_GEMV; }
static int row_params(xpb_op op) { return op == XPB_OP_LAYERNORM ? 2 : op == XPB_OP_RMSNORM ? 1 : 0; }

static xpb_status check_workgroup(const vkb_ctx *c, const xpb_spirv_kernel *k, xpb_error *why)
{
    const VkPhysicalDeviceLimits *lim = &c->caps.props.limits;
    const uint32_t *l = k->local_size;
    uint64_t inv = (uint64_t)l[0] * l[1] * l[2];
    if (l[0] > lim->maxComputeWorkGroupSize[0] || l[1] > lim->maxComputeWorkGroupSize[1] ||
        l[2] > lim->maxComputeWorkGroupSize[2] || inv > lim->maxComputeWorkGroupInvocations)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED,
                        "workgroup %ux%ux%u is over the device's maxComputeWorkGroupSize %ux%ux%u or "
                        "maxComputeWorkGroupInvocations %u", l[0], l[1], l[2], lim->maxComputeWorkGroupSize[0],
                        lim->maxComputeWorkGroupSize[1], lim->maxComputeWorkGroupSize[2],
                        lim->maxComputeWorkGroupInvocations);
    return XPB_OK;
}

xpb_status vkb_spirv_supports(void *ctx, const xpb_spirv_kernel *k, const void *args, xpb_error *why)
{
    vkb_ctx *c = ctx;
    xpb_status st = check_workgroup(c, k, why);
    if (st)
        return st;
    if (is_gemm(k->op)) /* the built-in kernels' checks: 32-bit sizes, each matrix one binding, k > 0 */
        return vkb_gemm_check(c, args, why);
    if (is_rowop(k->op)) {
        const xpb_rowop_args *a = args;
        if (a->rows < 0 || a->cols < 0)
            return xpb_fail(why, XPB_ERR_USAGE, "bad row-op size %lld x %lld", (long long)a->rows,
                            (long long)a->cols);
        if (a->rows > UINT32_MAX || a->cols > UINT32_MAX)
            return xpb_fail(why, XPB_ERR_UNSUPPORTED, "%lld x %lld: rows and cols are 32-bit push constants",
                            (long long)a->rows, (long long)a->cols);
        return vkb_check_range(c, "the rows of this case", (uint64_t)a->rows * (uint64_t)a->cols * sizeof(float),
                               why);
    }
    const xpb_eltwise_args *a = args;
    if ((st = vkb_eltwise_supports(c, a, why)))
        return st;
    if (a->n > UINT32_MAX)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED, "n = %lld: n is a 32-bit push constant", (long long)a->n);
    return XPB_OK;
}

xpb_status vkb_spirv_launch(void *ctx, const xpb_spirv_kernel *k, const void *args, xpb_error *err)
{
    vkb_ctx *c = ctx;
    xpb_status st = vkb_spirv_supports(c, k, args, err);
    if (st)
        return st;
    vkb_binding b[4];
    uint64_t items;
    union {
        xpb_spirv_rowop_push r;
        xpb_spirv_eltwise_push e;
        xpb_spirv_gemm_push g;
    } push = {{0}};
    vkb_shader sh = {.name = k->variant, .code = k->code, .code_bytes = k->code_bytes, .n_bindings = k->n_bindings,
                     .entry = k->entry};
    if (is_gemm(k->op)) {
        const xpb_gemm_args *a = args;
        if (a->m == 0 || a->n == 0)
            return vkb_ctx_status(c, err);
        if ((st = vkb_gemm_bindings(a, b, err))) /* a, b, c_in (c when beta is 0: never read), c */
            return st;
        push.g = (xpb_spirv_gemm_push){(uint32_t)a->m, (uint32_t)a->n, (uint32_t)a->k, a->alpha, a->beta};
        sh.push_bytes = sizeof push.g;
        /* tiles of per_group x per_group_cols, row-major over C: the shader maps its workgroup to one */
        const uint64_t tiles_n = ((uint64_t)a->n + k->per_group_cols - 1) / k->per_group_cols;
        const uint64_t tiles = ((uint64_t)a->m + k->per_group - 1) / k->per_group * tiles_n;
        vkb_spec none = {0};
        return vkb_dispatch(c, &sh, &none, b, &push, vkb_group_count(c, tiles), err);
    }
    if (is_rowop(k->op)) {
        const xpb_rowop_args *a = args;
        if (a->rows == 0 || a->cols == 0)
            return vkb_ctx_status(c, err);
        vkb_rowop_bindings(a, row_params(k->op), b);
        push.r = (xpb_spirv_rowop_push){(uint32_t)a->rows, (uint32_t)a->cols, (uint32_t)a->cols, a->eps};
        sh.push_bytes = sizeof push.r;
        items = (uint64_t)a->rows;
    } else {
        const xpb_eltwise_args *a = args;
        if (a->n == 0)
            return vkb_ctx_status(c, err);
        VkDeviceSize bytes = (VkDeviceSize)a->n * sizeof(float);
        int nb = 0;
        b[nb++] = (vkb_binding){a->x.buf, a->x.offset, bytes};
        if (k->n_bindings == 3)
            b[nb++] = (vkb_binding){a->y.buf, a->y.offset, bytes};
        b[nb++] = (vkb_binding){a->out.buf, a->out.offset, bytes};
        push.e = (xpb_spirv_eltwise_push){(uint32_t)a->n, a->a};
        sh.push_bytes = sizeof push.e;
        items = (uint64_t)a->n;
    }
    vkb_spec none = {0};
    uint64_t groups = (items + k->per_group - 1) / k->per_group;
    return vkb_dispatch(c, &sh, &none, b, &push, vkb_group_count(c, groups), err);
}
