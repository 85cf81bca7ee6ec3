/* gemv.c - vulkan/gemv: y(1xN) = alpha * x(1xK) * B(KxN) + beta * y_in, fp32, bandwidth-bound.
 * Shader: shaders/gemm/gemv.comp (PASS 0: partial sums per strip of columns and chunk of rows;
 * PASS 1: the chunks' partials added in a fixed order). Deterministic: no atomics.
 *
 * Configuration: 256 invocations = 64 lanes (4 columns each: a strip of 256 columns) x 4 row
 * groups, 8 rows in flight per invocation; chunks of 128 rows of K, so K = N = 8192 gives 32
 * strips x 64 chunks = 2048 workgroups (32 KB of loads in flight each: a few hundred workgroups
 * already saturate HBM, so the tail of the last wave costs little), and the partials cost
 * 2 * 4 / 128 = 1.6% of B's traffic. Small cases halve the chunk (down to 32 rows) until there are
 * 4 workgroups per SM (SM count from VK_NV_shader_sm_builtins, else 64 assumed).
 * XPB_VULKAN_GEMV_ROWS=R forces the chunk, for tuning.
 * prepare() (untimed) allocates the partials buffer (chunks x N floats) when K is more than one
 * chunk; then launch records both passes, else only PASS 0, which writes y. */
#include <stdlib.h>

#include "vk_ops.h"
#include "xpb_knob.h"

#define GEMV_BLOCK 256
#define GEMV_LANES 64
#define GEMV_UNROLL 8
#define GEMV_ROWS 128
#define GEMV_MIN_ROWS 32

typedef struct gemv_push {
    uint32_t n, k, chunk, splits, strips;
    float alpha, beta;
    uint32_t pad;
} gemv_push;

static const uint32_t gemv_spv[] = {
#include "gemv.spv.inc"
};
static const vkb_shader shader = VKB_SHADER("gemv", gemv_spv, 5, sizeof(gemv_push));

typedef struct gemv_cfg {
    uint32_t block, lanes, chunk, splits, strips;
} gemv_cfg;

typedef struct gemv_state {
    gemv_cfg cfg;
    int64_t n, k;
    xpb_buffer *part; /* splits x n floats; NULL when splits == 1 */
} gemv_state;

/* XPB_VULKAN_GEMV_ROWS (docs/knobs.md): rows of K per workgroup, or 0 when unset (then chosen
 * below); a value it does not accept is the case's usage error naming the knob (xpb_knob.h). */
static xpb_status chunk_rows_knob(uint32_t *rows, xpb_error *err)
{
    long r = 0;
    xpb_status st = xpb_knob_get_long_or(XPB_KNOB_VULKAN_GEMV_ROWS, 0, &r, err);
    *rows = (uint32_t)r;
    return st;
}

static uint32_t ceil_div(int64_t a, uint32_t b) { return (uint32_t)((a + b - 1) / b); }

static gemv_cfg choose(const vkb_ctx *c, const xpb_gemm_args *a, uint32_t chunk_rows)
{
    gemv_cfg g;
    g.block = vkb_block_size(c, GEMV_BLOCK);
    g.lanes = g.block < GEMV_LANES ? g.block : GEMV_LANES;
    g.strips = ceil_div(a->n, 4 * g.lanes);
    g.chunk = chunk_rows;
    if (!g.chunk) { /* 128 rows; down to 32 while there are fewer than 4 workgroups per SM */
        uint64_t units = c->caps.sm_count ? c->caps.sm_count : 64;
        g.chunk = GEMV_ROWS;
        while (g.chunk > GEMV_MIN_ROWS && (uint64_t)g.strips * ceil_div(a->k, g.chunk) < 4 * units)
            g.chunk /= 2;
    }
    g.splits = ceil_div(a->k, g.chunk);
    return g;
}

static xpb_status check(vkb_ctx *c, const xpb_gemm_args *a, xpb_error *why)
{
    if (a->m != 1)
        return xpb_fail(why, XPB_ERR_USAGE, "gemv needs m = 1 (got %lld)", (long long)a->m);
    uint32_t rows = 0;
    xpb_status st = vkb_gemm_check(c, a, why);
    if (!st)
        st = chunk_rows_knob(&rows, why);
    if (st || a->n == 0)
        return st;
    gemv_cfg g = choose(c, a, rows);
    if ((uint64_t)g.strips * g.splits > UINT32_MAX)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED, "gemv: %u strips x %u chunks is too many", g.strips,
                        g.splits);
    if (g.splits == 1)
        return XPB_OK;
    uint64_t part_bytes = (uint64_t)g.splits * (uint64_t)a->n * sizeof(float);
    return vkb_check_range(c, "the gemv partial sums", part_bytes, why);
}

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    return check(ctx, args, why);
}

static xpb_status prepare(void *ctx, const void *args, void **state, xpb_error *err)
{
    const xpb_gemm_args *a = args;
    *state = NULL;
    xpb_status st = check(ctx, args, err);
    if (st)
        return st;
    uint32_t rows = 0;
    if ((st = chunk_rows_knob(&rows, err)))
        return st;
    gemv_state *s = calloc(1, sizeof *s);
    if (!s)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory for the gemv state");
    s->cfg = choose(ctx, a, rows);
    s->n = a->n;
    s->k = a->k;
    if (a->n > 0 && s->cfg.splits > 1 &&
        (st = vkb_buffer_alloc(ctx, (size_t)s->cfg.splits * (size_t)a->n * sizeof(float), &s->part, err))) {
        free(s);
        return st;
    }
    *state = s;
    return XPB_OK;
}

static void release(void *ctx, void *state)
{
    gemv_state *s = state;
    if (!s)
        return;
    if (s->part)
        vkb_buffer_free(ctx, s->part);
    free(s);
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    vkb_ctx *c = ctx;
    const xpb_gemm_args *a = args;
    const gemv_state *s = state;
    vkb_binding b[5];
    xpb_status st = check(c, a, err);
    if (st)
        return st;
    if (a->n == 0)
        return vkb_ctx_status(c, err);
    if (!s || s->n != a->n || s->k != a->k)
        return xpb_fail(err, XPB_ERR_USAGE, "gemv: launch without prepare() for these arguments");
    if ((st = vkb_gemm_bindings(a, b, err)))
        return st;
    const gemv_cfg *g = &s->cfg;
    VkDeviceSize part_bytes = (VkDeviceSize)g->splits * (VkDeviceSize)a->n * sizeof(float);
    b[4] = s->part ? (vkb_binding){s->part, 0, part_bytes} : b[3]; /* b[3] (y): unused placeholder */
    gemv_push push = {(uint32_t)a->n, (uint32_t)a->k, g->chunk, g->splits, g->strips, a->alpha, a->beta, 0};
    bool vec4 = a->n % 4 == 0;
    vkb_spec spec = {5, {g->block, g->lanes, GEMV_UNROLL, vec4, 0}};
    uint32_t groups = vkb_group_count(c, (uint64_t)g->strips * g->splits);
    if ((st = vkb_dispatch(c, &shader, &spec, b, &push, groups, err)))
        return st;
    if (g->splits == 1)
        return XPB_OK;
    uint64_t units = vec4 ? (uint64_t)a->n / 4 : (uint64_t)a->n;
    spec.v[4] = 1;
    groups = vkb_group_count(c, (units + g->block - 1) / g->block);
    return vkb_dispatch(c, &shader, &spec, b, &push, groups, err);
}

const xpb_kernel xpb_vulkan_gemv = {
    .op = XPB_OP_GEMV,
    .variant = "gemv",
    .precision = "fp32",
    .supports = supports,
    .prepare = prepare,
    .release = release,
    .launch = launch,
};
