/* anneal_init.c - vulkan anneal init (XPB_OP_ANNEAL_INIT, xpb_ops.h): farthest-point anchors.
 * Shader: shaders/anneal/anneal_init.glsl (its header describes a step), built twice: a point's
 * lane partials summed through shared memory (anneal_init.comp) or by subgroup shuffles
 * (anneal_init_shuffle.comp, XPB_VULKAN_INIT_SUM), the same sums in the same order.
 *
 * One launch records m dispatches, step s = 0 .. m-1, with no host round trip: dispatch s reads
 * the candidates step s - 1 left in scratch, writes chosen[s] and anchors[s], and (s < m - 1)
 * updates the running min-distance mind and leaves one candidate per workgroup. G workgroups
 * (grid-stride over the points, G = min(points / points-per-pass, 8 per SM, 1024)); the last step
 * is one workgroup. Only 32-bit integer comparisons decide a choice: deterministic, and the same
 * choice for any G. Before each step s with 1 <= s < m - 1 a small dispatch
 * (anneal_init_bounds.comp) writes every anchor's threshold, below which step s skips a point's
 * row (anneal_init.glsl, "The bound"; XPB_VULKAN_INIT_BOUND=off reads every row, for the test
 * that compares the two). Scratch: 2n + 4G + m words. */
#include <math.h>

#include "vk_ops.h"
#include "xpb_knob.h"

#define INIT_MAX_GROUPS 1024
#define INIT_CHECKS 4 /* anneal_init.glsl's K: points an invocation checks a pass, listed in shared memory */

typedef struct init_push {
    uint32_t n, d, m, step, groups, bound;
    float c, eta; /* the threshold's factor and underflow term (anneal_init.glsl, "The bound") */
} init_push;

static const uint32_t anneal_init_spv[] = {
#include "anneal_init.spv.inc"
};
static const uint32_t anneal_init_shuffle_spv[] = {
#include "anneal_init_shuffle.spv.inc"
};
static const vkb_shader shader = VKB_SHADER("anneal_init", anneal_init_spv, 4, sizeof(init_push));
static const vkb_shader shader_shuffle = VKB_SHADER("anneal_init_shuffle", anneal_init_shuffle_spv, 4, sizeof(init_push));
static const uint32_t anneal_init_bounds_spv[] = {
#include "anneal_init_bounds.spv.inc"
};
static const vkb_shader shader_bounds = VKB_SHADER("anneal_init_bounds", anneal_init_bounds_spv, 4, sizeof(init_push));

typedef struct init_cfg {
    uint32_t block, lanes, a4, groups;
} init_cfg;

/* Whether the shuffle form runs here, and why not: the device shuffles in compute shaders, and
 * every subgroup holds whole lane groups (L divides the smallest subgroup size, which divides the
 * workgroup). */
static bool shuffle_fits(const vkb_ctx *c, const init_cfg *g, xpb_error *why)
{
    if (!c->caps.subgroup_shuffle) {
        xpb_fail(why, XPB_ERR_UNSUPPORTED, "this device has no subgroup shuffle in compute shaders");
        return false;
    }
    if (c->caps.min_subgroup_size % g->lanes || g->block % c->caps.subgroup_size) {
        xpb_fail(why, XPB_ERR_UNSUPPORTED, "subgroups of %u (at least %u) do not hold whole groups of %u lanes in a "
                 "workgroup of %u", c->caps.subgroup_size, c->caps.min_subgroup_size, g->lanes, g->block);
        return false;
    }
    return true;
}

/* XPB_VULKAN_INIT_SUM: shared memory by default (the shuffles were slower on the H100 and the
 * H200: docs/performance.md); shuffle where it does not fit is the case's error with the reason. */
static xpb_status pick_shader(const vkb_ctx *c, const init_cfg *g, const vkb_shader **out, xpb_error *err)
{
    int sum = 0; /* "shared|shuffle" */
    xpb_status st = xpb_knob_get_choice(XPB_KNOB_VULKAN_INIT_SUM, &sum, err);
    if (st)
        return st;
    xpb_error why;
    if (sum == 1 && !shuffle_fits(c, g, &why))
        return xpb_fail(err, XPB_ERR_UNSUPPORTED, "XPB_VULKAN_INIT_SUM=shuffle: %s", why.msg);
    *out = sum == 1 ? &shader_shuffle : &shader;
    return XPB_OK;
}

static init_cfg choose(const vkb_ctx *c, const xpb_anneal_init_args *a)
{
    init_cfg g;
    g.block = vkb_block_size(c, VKB_ANNEAL_BLOCK);
    g.lanes = vkb_anneal_row_lanes(a->d);
    g.a4 = (uint32_t)((a->d + 3) / 4);
    uint64_t pts = VKB_ANNEAL_ROWS_PER_LANES * (g.block / g.lanes), units = c->caps.sm_count ? c->caps.sm_count : 64;
    uint64_t groups = ((uint64_t)a->n + pts - 1) / pts;
    if (groups > 8 * units)
        groups = 8 * units;
    if (groups > INIT_MAX_GROUPS)
        groups = INIT_MAX_GROUPS;
    g.groups = vkb_group_count(c, groups);
    return g;
}

static uint64_t scratch_words(const xpb_anneal_init_args *a, const init_cfg *g)
{
    return 2u * (uint64_t)a->n + 4u * (uint64_t)g->groups + (uint64_t)a->m;
}

/* The threshold's constants for d (anneal_init.glsl, "The bound"): c = (1 - g) / (4 (1 + g))
 * less 16 units of fp32 rounding, rounded down to a float; eta rounded up. */
static void bound_constants(int64_t d, float *c, float *eta)
{
    const double g = (double)(d + 8) * 0x1p-23;
    const double cd = (1.0 - g) / (4.0 * (1.0 + g)) * (1.0 - 16.0 * 0x1p-24);
    *c = nextafterf((float)cd, 0.0f);
    *eta = nextafterf((float)((double)(d + 8) * 0x1p-125), INFINITY);
}

/* The launch's configuration and shader, or why the case cannot run here. */
static xpb_status plan(const vkb_ctx *c, const xpb_anneal_init_args *a, init_cfg *g, const vkb_shader **sh,
                       xpb_error *why)
{
    xpb_status st = vkb_anneal_check_sizes("init", a->n, a->d, a->m, why);
    if (st)
        return st;
    *g = choose(c, a);
    uint64_t shared = 16ull * g->a4 + (4ull * VKB_ANNEAL_ROWS_PER_LANES + 8 + 4ull * INIT_CHECKS) * g->block + 4;
    if (shared > c->caps.props.limits.maxComputeSharedMemorySize)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED,
                        "anneal init needs %llu bytes of shared memory for d = %lld; the device has %u",
                        (unsigned long long)shared, (long long)a->d, c->caps.props.limits.maxComputeSharedMemorySize);
    if ((st = vkb_check_range(c, "the anneal points", (uint64_t)a->n * (uint64_t)a->d * sizeof(float), why)) ||
        (st = vkb_check_range(c, "the anneal anchors", (uint64_t)a->m * (uint64_t)a->d * sizeof(float), why)) ||
        (st = vkb_check_range(c, "the anneal init scratch", scratch_words(a, g) * sizeof(uint32_t), why)))
        return st;
    return pick_shader(c, g, sh, why);
}

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    init_cfg g;
    const vkb_shader *sh;
    return plan(ctx, args, &g, &sh, why);
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    vkb_ctx *c = ctx;
    const xpb_anneal_init_args *a = args;
    (void)state;
    init_cfg g;
    const vkb_shader *sh;
    xpb_status st = plan(c, a, &g, &sh, err);
    if (st)
        return st;
    vkb_binding b[4] = {
        {a->x.buf, a->x.offset, (VkDeviceSize)a->n * (VkDeviceSize)a->d * sizeof(float)},
        {a->anchors.buf, a->anchors.offset, (VkDeviceSize)a->m * (VkDeviceSize)a->d * sizeof(float)},
        {a->chosen.buf, a->chosen.offset, (VkDeviceSize)a->m * sizeof(uint32_t)},
        {a->scratch.buf, a->scratch.offset, scratch_words(a, &g) * sizeof(uint32_t)},
    };
    int off = 0; /* XPB_VULKAN_INIT_BOUND: on, off */
    if ((st = xpb_knob_get_choice(XPB_KNOB_VULKAN_INIT_BOUND, &off, err)))
        return st;
    vkb_spec spec = {4, {g.block, g.lanes, a->d % 4 == 0, g.a4}};
    init_push push = {(uint32_t)a->n, (uint32_t)a->d, (uint32_t)a->m, 0, g.groups, off == 0, 0.0f, 0.0f};
    bound_constants(a->d, &push.c, &push.eta);
    for (int64_t s = 0; s < a->m; s++) {
        push.step = (uint32_t)s;
        if (!off && s >= 1 && s + 1 < a->m &&
            (st = vkb_dispatch(c, &shader_bounds, &spec, b, &push, (uint32_t)((s + g.block - 1) / g.block), err)))
            return st;
        if ((st = vkb_dispatch(c, sh, &spec, b, &push, s + 1 < a->m ? g.groups : 1, err)))
            return st;
    }
    return XPB_OK;
}

const xpb_kernel xpb_vulkan_anneal_init = {
    .op = XPB_OP_ANNEAL_INIT,
    .variant = "default",
    .precision = "fp32",
    .supports = supports,
    .launch = launch,
};
