/* rope.c - rotary position embedding: x, out of shape [batch, heads, seq, head_dim]; the pair
 * (x[2i], x[2i+1]) at position p rotates by p * base^(-2i/head_dim).
 * Shader: shaders/elementwise/rope.comp (fp64 angle and range reduction, fp32 sin/cos polynomials).
 *
 * prepare() (untimed) computes inv_freq[i] = base^(-2i/head_dim) in fp64 on the host, the same
 * expression as the reference, and uploads the table of head_dim/2 doubles; launch binds it. */
#include <math.h>
#include <stdlib.h>

#include "vk_ops.h"

#define ROPE_BLOCK 256
#define ROPE_UNROLL 2

typedef struct rope_push {
    uint32_t units, half_dim, seq, pad;
} rope_push;

static const uint32_t rope_spv[] = {
#include "rope.spv.inc"
};
static const vkb_shader shader = VKB_SHADER("rope", rope_spv, 3, sizeof(rope_push));

/* What prepare() hands to launch(): the table and the arguments it was made for. */
typedef struct rope_state {
    xpb_buffer *table;
    int64_t head_dim;
    float base;
} rope_state;

/* batch * heads * seq * head_dim, or -1 when a size is negative or the product overflows. */
static int64_t rope_elements(const xpb_rope_args *a)
{
    int64_t d[4] = {a->batch, a->heads, a->seq, a->head_dim}, n = 1;
    for (int i = 0; i < 4; i++) {
        if (d[i] < 0 || (d[i] > 0 && n > INT64_MAX / d[i]))
            return -1;
        n *= d[i];
    }
    return n;
}

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    vkb_ctx *c = ctx;
    const xpb_rope_args *a = args;
    int64_t n = rope_elements(a);
    if (n < 0)
        return xpb_fail(why, XPB_ERR_USAGE, "bad rope size %lld x %lld x %lld x %lld", (long long)a->batch,
                        (long long)a->heads, (long long)a->seq, (long long)a->head_dim);
    if (n > 0 && a->head_dim % 2)
        return xpb_fail(why, XPB_ERR_USAGE, "rope needs an even head_dim (got %lld)", (long long)a->head_dim);
    if (!c->caps.float64)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED,
                        "the device has no shaderFloat64 (the rope kernel reduces its angles in fp64)");
    return vkb_check_range(c, "the rope tensor", (uint64_t)n * sizeof(float), why);
}

static xpb_status prepare(void *ctx, const void *args, void **state, xpb_error *err)
{
    const xpb_rope_args *a = args;
    *state = NULL;
    xpb_status st = supports(ctx, args, err);
    if (st || rope_elements(a) == 0)
        return st;
    size_t half = (size_t)(a->head_dim / 2);
    rope_state *s = calloc(1, sizeof *s);
    double *t = malloc(half * sizeof *t);
    if (!s || !t) {
        free(s);
        free(t);
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory for the rope table");
    }
    for (size_t i = 0; i < half; i++)
        t[i] = pow((double)a->base, -2.0 * (double)i / (double)a->head_dim);
    st = vkb_buffer_alloc(ctx, half * sizeof *t, &s->table, err);
    if (!st)
        st = vkb_buffer_upload(ctx, s->table, 0, t, half * sizeof *t, err);
    free(t);
    if (st) {
        vkb_buffer_free(ctx, s->table);
        free(s);
        return st;
    }
    s->head_dim = a->head_dim;
    s->base = a->base;
    *state = s;
    return XPB_OK;
}

static void release(void *ctx, void *state)
{
    rope_state *s = state;
    if (!s)
        return;
    vkb_buffer_free(ctx, s->table);
    free(s);
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    vkb_ctx *c = ctx;
    const xpb_rope_args *a = args;
    const rope_state *s = state;
    xpb_status st = supports(ctx, args, err);
    if (st)
        return st;
    int64_t n = rope_elements(a);
    if (n == 0)
        return vkb_ctx_status(c, err);
    if (!s || s->head_dim != a->head_dim || s->base != a->base)
        return xpb_fail(err, XPB_ERR_USAGE, "rope: launch without prepare() for these arguments");
    VkDeviceSize bytes = (VkDeviceSize)n * sizeof(float);
    uint32_t half = (uint32_t)(a->head_dim / 2);
    vkb_binding b[3] = {
        {a->x.buf, a->x.offset, bytes},
        {s->table, 0, (VkDeviceSize)half * sizeof(double)},
        {a->out.buf, a->out.offset, bytes},
    };
    bool vec4 = a->head_dim % 4 == 0;
    uint64_t units = (uint64_t)n / (vec4 ? 4 : 2);
    uint32_t block = vkb_block_size(c, ROPE_BLOCK);
    uint64_t per_group = (uint64_t)block * ROPE_UNROLL;
    vkb_spec spec = {3, {block, ROPE_UNROLL, vec4}};
    rope_push push = {(uint32_t)units, half, (uint32_t)a->seq, 0};
    return vkb_dispatch(c, &shader, &spec, b, &push,
                        vkb_group_count(c, (units + per_group - 1) / per_group), err);
}

const xpb_kernel xpb_vulkan_rope = {
    .op = XPB_OP_ROPE,
    .variant = "default",
    .precision = "fp32",
    .supports = supports,
    .prepare = prepare,
    .release = release,
    .launch = launch,
};
