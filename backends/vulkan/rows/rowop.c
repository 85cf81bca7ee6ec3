/* rowop.c - launch code shared by the row kernels softmax, rmsnorm, layernorm (vk_ops.h,
 * shaders/rows/rowop.glsl).
 *
 * Configuration, from the row length (cols):
 *   cols < 64: MODE 1, an invocation per row, 256 per workgroup.
 *   else: MODE 0, a workgroup per row. BLOCK (32..1024) is the smallest power of two that gives
 *   each invocation at most V = 16 values; VPT (vec4 registers, 1..max(8, V/4)) the smallest
 *   power of two with BLOCK * VPT * 4 >= cols. A longer row (> 32768 values by default) is done
 *   in chunks of BLOCK * VPT * 4 with a second read (statistics pass, then write pass).
 *   XPB_VULKAN_ROW_VALUES=V (4..64, a power of two) changes V, for tuning on a new device.
 *   The default variant (vkb_rowop_default_*) sends such longer rows to variant onchip's dispatch
 *   instead (rowop_onchip.c: each row read once; H100 1024 x 262144, docs/performance.md session
 *   15: onchip 84/93/84% of the copy roof where these chunks read a row twice, layernorm three
 *   times); they stay here only for layernorm on a device without shaderFloat64, which onchip's
 *   layernorm needs.
 * The grid is capped at maxComputeWorkGroupCount[0] and the shader loops over the rest of the
 * rows. Each pipeline (shader, BLOCK, VPT, VEC4, MODE, NSG, EXP_BUILTIN) is created once per
 * context. */
#include "vk_ops.h"
#include "xpb_knob.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROW_SERIAL_COLS 64 /* shorter rows: an invocation per row */
#define ROW_MAX_BLOCK 1024

/* XPB_VULKAN_ROW_VALUES: values per invocation to aim for (docs/knobs.md). */
static xpb_status row_values(uint32_t *values, xpb_error *err)
{
    long n;
    xpb_status st = xpb_knob_get_long(XPB_KNOB_VULKAN_ROW_VALUES, &n, err);
    *values = (uint32_t)n;
    return st;
}

typedef struct row_config {
    uint32_t block, vpt, vec4, mode, nsg;
    uint64_t groups;
} row_config;

static xpb_status choose(const vkb_ctx *c, uint64_t rows, uint64_t cols, row_config *out, xpb_error *err)
{
    row_config r = {.vec4 = cols % 4 == 0, .vpt = 1};
    uint32_t values;
    xpb_status st = row_values(&values, err);
    if (st)
        return st;
    if (cols < ROW_SERIAL_COLS) {
        r.mode = 1;
        r.block = vkb_block_size(c, 256);
        r.groups = (rows + r.block - 1) / r.block;
    } else {
        r.mode = 0;
        uint32_t max_vpt = values / 4 > 8 ? values / 4 : 8;
        uint32_t want = 32;
        while (want < ROW_MAX_BLOCK && (uint64_t)want * values < cols)
            want *= 2;
        r.block = vkb_block_size(c, want);
        while (r.vpt < max_vpt && (uint64_t)r.block * r.vpt * 4 < cols)
            r.vpt *= 2;
        r.groups = rows;
    }
    /* One shared slot per subgroup; subgroups are at least min_subgroup_size wide. */
    uint32_t sg = c->caps.min_subgroup_size ? c->caps.min_subgroup_size : 1;
    r.nsg = (r.block + sg - 1) / sg;
    *out = r;
    return XPB_OK;
}

xpb_status vkb_rowop_supports(void *ctx, const void *args, int n_params, xpb_error *why)
{
    vkb_ctx *c = ctx;
    const xpb_rowop_args *a = args;
    (void)n_params;
    if (a->rows < 0 || a->cols < 0 || (a->rows > 0 && a->cols > INT64_MAX / a->rows))
        return xpb_fail(why, XPB_ERR_USAGE, "bad row-op size %lld x %lld", (long long)a->rows,
                        (long long)a->cols);
    if (!c->caps.subgroup_arithmetic)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED,
                        "the device has no subgroup arithmetic in compute shaders (row kernels reduce with it)");
    return vkb_check_range(c, "the rows of this case", (uint64_t)a->rows * (uint64_t)a->cols * sizeof(float),
                           why);
}

xpb_status vkb_rowop_launch(void *ctx, const vkb_shader *sh, int n_params, const void *args,
                            xpb_error *err)
{
    vkb_ctx *c = ctx;
    const xpb_rowop_args *a = args;
    xpb_status st = vkb_rowop_supports(c, args, n_params, err);
    if (st)
        return st;
    if (a->rows == 0 || a->cols == 0)
        return vkb_ctx_status(c, err);
    vkb_binding b[4];
    vkb_rowop_bindings(a, n_params, b);

    row_config r;
    uint32_t exp_builtin;
    if ((st = choose(c, (uint64_t)a->rows, (uint64_t)a->cols, &r, err)) || (st = vkb_row_exp(&exp_builtin, err)))
        return st;
    vkb_spec spec = {6, {r.block, r.vpt, r.vec4, r.mode, r.nsg, exp_builtin}};
    vkb_rowop_push push = {(uint32_t)a->rows, (uint32_t)a->cols, a->eps, 0};
    return vkb_dispatch(c, sh, &spec, b, &push, vkb_group_count(c, r.groups), err);
}

/* The default variant: whether these rows go to onchip's dispatch (*onchip), from the shape
 * rowop.c would choose: a row longer than one chunk of it, where onchip runs on the device. */
static xpb_status default_long(vkb_ctx *c, xpb_op op, int n_params, const void *args, bool *onchip, xpb_error *err)
{
    const xpb_rowop_args *a = args;
    *onchip = false;
    xpb_status st = vkb_rowop_supports(c, args, n_params, err);
    if (st || a->rows == 0 || a->cols == 0)
        return st;
    row_config r;
    if ((st = choose(c, (uint64_t)a->rows, (uint64_t)a->cols, &r, err)))
        return st;
    *onchip = r.mode == 0 && (uint64_t)r.block * r.vpt * 4 < (uint64_t)a->cols && vkb_rowop_onchip_runs(c, op);
    return XPB_OK;
}

void vkb_rowop_default_describe(void *ctx, xpb_op op, int n_params, const void *args, char *buf, size_t n)
{
    const xpb_rowop_args *a = args;
    xpb_error err = {{0}};
    bool onchip;
    row_config r;
    buf[0] = '\0';
    if (default_long(ctx, op, n_params, args, &onchip, &err) || a->rows == 0 || a->cols == 0)
        return;
    if (onchip) { /* "path=onchip " and onchip's own */
        int k = snprintf(buf, n, "path=onchip ");
        if (k > 0 && (size_t)k < n)
            vkb_rowop_onchip_describe(ctx, op, args, buf + k, n - (size_t)k);
    } else if (!choose(ctx, (uint64_t)a->rows, (uint64_t)a->cols, &r, &err)) {
        snprintf(buf, n, "path=%s invocations=%u values=%u", r.mode ? "invocation-per-row" : "workgroup-per-row",
                 r.block, 4 * r.vpt);
    }
}

xpb_status vkb_rowop_default_supports(void *ctx, xpb_op op, int n_params, const void *args, xpb_error *why)
{
    bool onchip;
    return default_long(ctx, op, n_params, args, &onchip, why);
}

xpb_status vkb_rowop_default_prepare(void *ctx, xpb_op op, int n_params, const void *args, void **state,
                                     xpb_error *err)
{
    bool onchip;
    *state = NULL;
    xpb_status st = default_long(ctx, op, n_params, args, &onchip, err);
    return st || !onchip ? st : vkb_rowop_onchip_prepare(ctx, op, args, state, err);
}

void vkb_rowop_default_release(void *ctx, void *state)
{
    vkb_rowop_onchip_release(ctx, state);
}

xpb_status vkb_rowop_default_launch(void *ctx, xpb_op op, const vkb_shader *sh, int n_params, const void *args,
                                    void *state, xpb_error *err)
{
    bool onchip;
    xpb_status st = default_long(ctx, op, n_params, args, &onchip, err);
    if (st)
        return st;
    return onchip ? vkb_rowop_onchip_launch(ctx, op, args, state, err) : vkb_rowop_launch(ctx, sh, n_params, args, err);
}

int vkb_rowop_bindings(const xpb_rowop_args *a, int n_params, vkb_binding *b)
{
    VkDeviceSize all = (VkDeviceSize)a->rows * (VkDeviceSize)a->cols * sizeof(float);
    VkDeviceSize row = (VkDeviceSize)a->cols * sizeof(float);
    int nb = 0;
    b[nb++] = (vkb_binding){a->x.buf, a->x.offset, all};
    if (n_params >= 1)
        b[nb++] = (vkb_binding){a->w.buf, a->w.offset, row};
    if (n_params >= 2)
        b[nb++] = (vkb_binding){a->b.buf, a->b.offset, row};
    b[nb++] = (vkb_binding){a->out.buf, a->out.offset, all};
    return nb;
}

vkb_row_chunks vkb_row_chunking(const vkb_ctx *c, uint64_t cols, uint32_t cap, uint32_t values)
{
    vkb_row_chunks r = {0};
    r.chunk = VKB_ROW_MIN_CHUNK;
    while (r.chunk < cap && r.chunk < cols)
        r.chunk *= 2;
    uint32_t want = r.chunk / values;
    r.block = vkb_block_size(c, want < 32 ? 32 : want);
    r.vpt = r.chunk / (4 * r.block);
    if (r.vpt == 0) { /* a device below 32 invocations: keep one vec4 each */
        r.vpt = 1;
        r.chunk = 4 * r.block;
    }
    r.chunks = (cols + r.chunk - 1) / r.chunk;
    uint32_t sg = c->caps.min_subgroup_size ? c->caps.min_subgroup_size : 1;
    r.nsg = (r.block + sg - 1) / sg;
    return r;
}

xpb_status vkb_row_chunking_env(const vkb_ctx *c, uint64_t cols, xpb_knob_id chunk_knob, uint32_t chunk,
                                xpb_knob_id values_knob, const char *op, vkb_row_chunks *out, xpb_error *err)
{
    long cap, v;
    xpb_status st =
        chunk ? xpb_knob_get_long_or(chunk_knob, chunk, &cap, err) : xpb_knob_get_long(chunk_knob, &cap, err);
    if (!st)
        st = op ? xpb_knob_get_long_for_op(values_knob, "softmax|rmsnorm|layernorm", op, true,
                                           strtol(xpb_knob_decl_of(values_knob)->def, NULL, 10), &v, err)
                : xpb_knob_get_long(values_knob, &v, err);
    if (st)
        return st;
    *out = vkb_row_chunking(c, cols, (uint32_t)cap, (uint32_t)v);
    return XPB_OK;
}

xpb_status vkb_row_exp(uint32_t *builtin, xpb_error *err)
{
    int form; /* the index among "poly|builtin" is EXP_BUILTIN */
    xpb_status st = xpb_knob_get_choice(XPB_KNOB_VULKAN_ROW_EXP, &form, err);
    *builtin = (uint32_t)form;
    return st;
}
