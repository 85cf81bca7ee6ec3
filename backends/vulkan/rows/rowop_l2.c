/* rowop_l2.c - variant l2 of the row ops softmax, rmsnorm, layernorm (shaders/rows/rowop_l2.glsl).
 *
 * Why: the default variant (rowop.c) gives a long row to one workgroup, which reads it twice
 * (statistics, then output; layernorm three times). With a workgroup per SM in flight and rows of
 * 1 MiB, the rows in flight do not fit L2 and every re-read comes from DRAM. Here the rows go in
 * waves of W rows, W * cols * 4 bytes about XPB_VULKAN_ROW_WAVE_MB (default 16 MiB, well inside
 * a 50 MB L2; Vulkan cannot query the L2 size), each row in chunks of CHUNK values with one
 * workgroup per chunk. Per wave a statistics dispatch writes each chunk's partials to a small
 * buffer, and after a barrier a write dispatch merges the row's partials (fixed order) and
 * re-reads its chunk from L2. Layernorm has one more phase (sum, then sum of (x - mean)^2: the
 * default's two-pass fp32 statistics, so docs/validation.md's bound holds unchanged).
 *
 * Recording (all into the one timed command buffer): dispatch d runs phase p of wave d - p for
 * every phase whose wave exists, so the write of wave w and the statistics of wave w + 1 share a
 * dispatch: waves + NP - 1 dispatches, each after vkb_record's barrier.
 * XPB_VULKAN_ROW_L2_FUSE=0 records each (wave, phase) as its own dispatch instead (tuning).
 *
 * Sizes: CHUNK is a power of two from 128 to XPB_VULKAN_ROW_L2_CHUNK (default 4096), the
 * smallest that covers a short row; 16 values per invocation (XPB_VULKAN_ROW_L2_VALUES: BLOCK =
 * CHUNK / values, 32..1024 invocations, VPT vec4 each, at most 16). W is capped so a wave has at most 65536 chunks, which bounds the partials buffer
 * (NP waves x W x chunks x 8 bytes <= 1.5 MiB); prepare() allocates it, untimed. Every size runs,
 * rows of one value included; the grid is capped at maxComputeWorkGroupCount[0] and the shader
 * loops over the rest of the tasks. */
#include "vk_ops.h"
#include "xpb_knob.h"

#include <stdio.h>
#include <stdlib.h>

/* the defaults of the wave (16 MiB), the chunk (4096) and the values an invocation (16): docs/knobs.md */
#define L2_MAX_WAVE_TASKS 65536

static const uint32_t softmax_l2_spv[] = {
#include "softmax_l2.spv.inc"
};
static const uint32_t rmsnorm_l2_spv[] = {
#include "rmsnorm_l2.spv.inc"
};
static const uint32_t layernorm_l2_spv[] = {
#include "layernorm_l2.spv.inc"
};

/* Push constants of rowop_l2.glsl: rowop.glsl's three, then ROW_PUSH_EXTRA's. */
typedef struct l2_push {
    uint32_t rows, cols;
    float eps;
    uint32_t disp, pmin, pmax, wave_rows, chunks;
} l2_push;

/* One op: its shader (bindings x, its n_params per-column inputs, out, partials) and phases. */
typedef struct l2_op {
    vkb_shader sh;
    int n_params;
    uint32_t phases;
} l2_op;

static const l2_op op_softmax = {VKB_SHADER("softmax_l2", softmax_l2_spv, 3, sizeof(l2_push)), 0, 2};
static const l2_op op_rmsnorm = {VKB_SHADER("rmsnorm_l2", rmsnorm_l2_spv, 4, sizeof(l2_push)), 1, 2};
static const l2_op op_layernorm = {VKB_SHADER("layernorm_l2", layernorm_l2_spv, 5, sizeof(l2_push)),
                                   2, 3};

typedef struct l2_config {
    uint32_t block, vpt, chunk, nsg;
    uint64_t chunks, wave_rows, waves;
    uint64_t part_bytes; /* the partials buffer: phases x wave_rows x chunks x vec2 */
} l2_config;


/* XPB_VULKAN_ROW_L2_FUSE=0: a dispatch per (wave, phase); 1 (the default): fused. */
static xpb_status fused(bool *on, xpb_error *err)
{
    int i; /* the index among "0|1" */
    xpb_status st = xpb_knob_get_choice(XPB_KNOB_VULKAN_ROW_L2_FUSE, &i, err);
    *on = i == 1;
    return st;
}

/* The configuration for these rows, from the knobs XPB_VULKAN_ROW_L2_CHUNK, _L2_VALUES and
 * XPB_VULKAN_ROW_WAVE_MB (input MiB per wave, > 0, fractions allowed: tests use small waves); a
 * knob set to an invalid value is XPB_ERR_USAGE. */
static xpb_status choose(const vkb_ctx *c, const l2_op *op, uint64_t rows, uint64_t cols, l2_config *out,
                         xpb_error *err)
{
    l2_config r = {0};
    vkb_row_chunks k;
    double mb;
    xpb_status st = vkb_row_chunking_env(c, cols, XPB_KNOB_VULKAN_ROW_L2_CHUNK, 0,
                                         XPB_KNOB_VULKAN_ROW_L2_VALUES, NULL, &k, err);
    if (st || (st = xpb_knob_get_double(XPB_KNOB_VULKAN_ROW_WAVE_MB, &mb, err)))
        return st;
    r.chunk = k.chunk, r.block = k.block, r.vpt = k.vpt, r.nsg = k.nsg, r.chunks = k.chunks;
    double w = mb * 1048576.0 / ((double)cols * sizeof(float));
    r.wave_rows = w < 1.0 ? 1 : (uint64_t)w;
    if (r.wave_rows > rows)
        r.wave_rows = rows;
    if (r.wave_rows * r.chunks > L2_MAX_WAVE_TASKS)
        r.wave_rows = r.chunks >= L2_MAX_WAVE_TASKS ? 1 : L2_MAX_WAVE_TASKS / r.chunks;
    r.waves = r.wave_rows ? (rows + r.wave_rows - 1) / r.wave_rows : 0;
    r.part_bytes = (uint64_t)op->phases * r.wave_rows * r.chunks * 2 * sizeof(float);
    *out = r;
    return XPB_OK;
}

static xpb_status l2_supports(void *ctx, const l2_op *op, const void *args, xpb_error *why)
{
    vkb_ctx *c = ctx;
    const xpb_rowop_args *a = args;
    xpb_status st = vkb_rowop_supports(ctx, args, op->n_params, why);
    if (st || a->rows == 0 || a->cols == 0)
        return st;
    l2_config r;
    if ((st = choose(c, op, (uint64_t)a->rows, (uint64_t)a->cols, &r, why)))
        return st;
    return vkb_check_range(c, "the l2 partials buffer", r.part_bytes, why);
}

/* State of prepare(): the partials buffer for these args (NULL when there is nothing to do). */
typedef struct l2_state {
    xpb_buffer *part;
    uint64_t part_bytes;
} l2_state;

/* What these rows run as (xpb_kernel.describe): the chunking and the waves, from the sizes. */
static void l2_describe(void *ctx, const l2_op *op, const void *args, void *state, char *buf, size_t n)
{
    (void)state;
    const xpb_rowop_args *a = args;
    l2_config r;
    xpb_error err = {{0}};
    buf[0] = '\0';
    if (a->rows > 0 && a->cols > 0 && !choose(ctx, op, (uint64_t)a->rows, (uint64_t)a->cols, &r, &err))
        snprintf(buf, n, "chunk=%u chunks=%llu invocations=%u values=%u wave_rows=%llu waves=%llu", r.chunk,
                 (unsigned long long)r.chunks, r.block, 4 * r.vpt, (unsigned long long)r.wave_rows,
                 (unsigned long long)r.waves);
}

static void l2_release(void *ctx, void *state)
{
    l2_state *s = state;
    if (!s)
        return;
    if (s->part)
        vkb_buffer_free(ctx, s->part);
    free(s);
}

static xpb_status l2_prepare(void *ctx, const l2_op *op, const void *args, void **state,
                             xpb_error *err)
{
    const xpb_rowop_args *a = args;
    *state = NULL;
    xpb_status st = l2_supports(ctx, op, args, err);
    if (st)
        return st;
    l2_state *s = calloc(1, sizeof *s);
    if (!s)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory for the l2 row-op state");
    if (a->rows > 0 && a->cols > 0) {
        l2_config r = {0};
        st = choose(ctx, op, (uint64_t)a->rows, (uint64_t)a->cols, &r, err);
        s->part_bytes = r.part_bytes;
        if (st || (st = vkb_buffer_alloc(ctx, (size_t)s->part_bytes, &s->part, err))) {
            l2_release(ctx, s);
            return st;
        }
    }
    *state = s;
    return XPB_OK;
}

/* Tasks (workgroups' worth of work) of dispatch d: phases pmin..pmax, phase p on wave d - p. */
static uint64_t l2_tasks(const l2_config *r, uint64_t rows, uint64_t d, uint32_t pmin, uint32_t pmax)
{
    uint64_t n = 0;
    for (uint32_t p = pmin; p <= pmax; p++) {
        uint64_t w = d - p, left = rows - w * r->wave_rows;
        n += (left < r->wave_rows ? left : r->wave_rows) * r->chunks;
    }
    return n;
}

static xpb_status l2_record(vkb_ctx *c, const vkb_prepared *p, const l2_config *r,
                            const xpb_rowop_args *a, uint64_t d, uint32_t pmin, uint32_t pmax,
                            xpb_error *err)
{
    l2_push push = {(uint32_t)a->rows, (uint32_t)a->cols, a->eps, (uint32_t)d, pmin, pmax,
                    (uint32_t)r->wave_rows, (uint32_t)r->chunks};
    uint32_t groups = vkb_group_count(c, l2_tasks(r, (uint64_t)a->rows, d, pmin, pmax));
    return vkb_record(c, p, &push, groups, err);
}

static xpb_status l2_launch(void *ctx, const l2_op *op, const void *args, void *state,
                            xpb_error *err)
{
    vkb_ctx *c = ctx;
    const xpb_rowop_args *a = args;
    const l2_state *s = state;
    xpb_status st = l2_supports(ctx, op, args, err);
    if (st)
        return st;
    if (a->rows == 0 || a->cols == 0)
        return vkb_ctx_status(c, err);
    l2_config r;
    if ((st = choose(c, op, (uint64_t)a->rows, (uint64_t)a->cols, &r, err)))
        return st;
    if (!s || !s->part || s->part_bytes < r.part_bytes)
        return xpb_fail(err, XPB_ERR_USAGE, "vulkan/l2: launch without prepare() for these arguments");

    vkb_binding b[5];
    int nb = vkb_rowop_bindings(a, op->n_params, b);
    b[nb++] = (vkb_binding){s->part, 0, r.part_bytes};

    uint32_t exp_builtin;
    bool fuse;
    if ((st = vkb_row_exp(&exp_builtin, err)) || (st = fused(&fuse, err)))
        return st;
    vkb_spec spec = {6, {r.block, r.vpt, a->cols % 4 == 0, 0, r.nsg, exp_builtin}};
    vkb_prepared p;
    if ((st = vkb_prepare(c, &op->sh, &spec, b, &p, err)))
        return st;
    uint32_t np = op->phases;
    if (fuse) {
        for (uint64_t d = 0; d < r.waves + np - 1 && !st; d++) {
            uint32_t pmin = d >= r.waves ? (uint32_t)(d - (r.waves - 1)) : 0;
            uint32_t pmax = d < np - 1 ? (uint32_t)d : np - 1;
            st = l2_record(c, &p, &r, a, d, pmin, pmax, err);
        }
    } else {
        for (uint64_t w = 0; w < r.waves && !st; w++)
            for (uint32_t ph = 0; ph < np && !st; ph++)
                st = l2_record(c, &p, &r, a, w + ph, ph, ph, err);
    }
    return st ? st : vkb_ctx_status(c, err);
}

/* ---- the three kernels ------------------------------------------------------------------------ */

VKB_ROW_VARIANT_KERNEL(softmax, l2, XPB_OP_SOFTMAX, op_softmax, l2);
VKB_ROW_VARIANT_KERNEL(rmsnorm, l2, XPB_OP_RMSNORM, op_rmsnorm, l2);
VKB_ROW_VARIANT_KERNEL(layernorm, l2, XPB_OP_LAYERNORM, op_layernorm, l2);
