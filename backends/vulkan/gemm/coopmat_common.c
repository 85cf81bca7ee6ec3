/* coopmat_common.c - the fp16 copies of A and B shared by vulkan/coopmat, coopmat-khr and coopmat2
 * (coopmat_common.h). Shader: shaders/gemm/f32_to_f16.comp (round to nearest even in integer
 * arithmetic, zero padding, B optionally transposed), one dispatch per matrix, untimed (prepare()). */
#include <stdlib.h>
#include <string.h>

#include "coopmat_common.h"
#include "xpb_knob.h"

#define CONVERT_BLOCK 256

typedef struct convert_push {
    uint32_t rows, cols, cols_p, units;
} convert_push;

static const uint32_t f32_to_f16_spv[] = {
#include "f32_to_f16.spv.inc"
};
static const vkb_shader convert = VKB_SHADER("f32_to_f16", f32_to_f16_spv, 2, sizeof(convert_push));

uint64_t vkb_cm_round_up(int64_t v, uint32_t to) { return ((uint64_t)v + to - 1) / to * to; }

bool vkb_cm_emulate(bool has_real)
{
    /* checked when the device opened (vk_device.c) */
    return !has_real && xpb_knob_choice_or_default(XPB_KNOB_VULKAN_COOPMAT_EMULATE) == 1;
}

uint32_t vkb_cm_threads(const vkb_cm_cfg *t) { return (t->bm / t->wm) * (t->bn / t->wn) * 32; }

static uint64_t shared_bytes(const vkb_cm_cfg *t)
{
    return 2ull * 2 * ((uint64_t)t->bm * (t->bk + 8) + (uint64_t)t->bk * (t->bn + 8)) +
           (uint64_t)(vkb_cm_threads(t) / 32) * 16 * 20 * 4;
}

const char *vkb_cm_cfg_problem(const vkb_ctx *c, const vkb_cm_cfg *t)
{
    const VkPhysicalDeviceLimits *lim = &c->caps.props.limits;
    if (!t->bm || !t->bn || !t->bk || !t->wm || !t->wn || t->wm % 16 || t->wn % 16 || t->bk % 16 ||
        t->bm % t->wm || t->bn % t->wn)
        return "WM, WN, BK must be multiples of 16 and WM, WN divide BM, BN";
    if (t->stages < 2 || t->stages > 8)
        return "STAGES must be 2..8";
    uint32_t threads = vkb_cm_threads(t);
    if (threads > lim->maxComputeWorkGroupInvocations || threads > lim->maxComputeWorkGroupSize[0])
        return "too many invocations per workgroup ((BM/WM)*(BN/WN)*32)";
    if ((t->bm * t->bk / 8) % threads || (t->bk * t->bn / 8) % threads)
        return "BM*BK/8 and BK*BN/8 must be multiples of the invocations (whole uvec4 loads each)";
    if (shared_bytes(t) > lim->maxComputeSharedMemorySize)
        return "4*(BM*(BK+8)+BK*(BN+8)) + 1280*subgroups bytes of shared memory exceed "
               "maxComputeSharedMemorySize";
    return NULL;
}

xpb_status vkb_cm_check_copies(vkb_ctx *c, const xpb_gemm_args *a, const vkb_cm_cfg *t, xpb_error *why)
{
    uint64_t mp = vkb_cm_round_up(a->m, t->bm), np = vkb_cm_round_up(a->n, t->bn),
             kp = vkb_cm_round_up(a->k, t->bk);
    xpb_status st = vkb_check_range(c, "the fp16 copy of A", mp * kp * 2, why);
    return st ? st : vkb_check_range(c, "the fp16 copy of B", kp * np * 2, why);
}

/* src (rows x cols fp32, view v) -> dst (rows_p x cols_p fp16), or with `transpose` its
 * transpose (cols_p x rows_p). */
static xpb_status convert_matrix(vkb_ctx *c, xpb_view v, uint64_t rows, uint64_t cols, xpb_buffer *dst,
                                 uint64_t rows_p, uint64_t cols_p, bool transpose, xpb_error *err)
{
    vkb_binding b[2] = {
        {v.buf, v.offset, rows * cols * sizeof(float)},
        {dst, 0, rows_p * cols_p * 2},
    };
    convert_push push = {(uint32_t)rows, (uint32_t)cols, (uint32_t)(transpose ? rows_p : cols_p),
                         (uint32_t)(rows_p * cols_p / 2)};
    uint32_t block = vkb_block_size(c, CONVERT_BLOCK);
    vkb_spec spec = {2, {block, transpose}};
    uint32_t groups = vkb_group_count(c, (push.units + block - 1) / block);
    return vkb_dispatch(c, &convert, &spec, b, &push, groups, err);
}

void vkb_cm_release(void *ctx, void *state)
{
    vkb_cm_state *s = state;
    if (!s)
        return;
    vkb_buffer_free(ctx, s->a16);
    vkb_buffer_free(ctx, s->b16);
    free(s);
}

xpb_status vkb_cm_prepare(vkb_ctx *c, const xpb_gemm_args *a, const vkb_cm_cfg *t, void **out,
                          xpb_error *err)
{
    *out = NULL;
    if (a->m == 0 || a->n == 0)
        return XPB_OK;
    vkb_cm_state *s = calloc(1, sizeof *s);
    if (!s)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory for the coopmat state");
    s->cfg = *t;
    s->m = a->m;
    s->n = a->n;
    s->k = a->k;
    s->mp = vkb_cm_round_up(a->m, t->bm);
    s->np = vkb_cm_round_up(a->n, t->bn);
    s->kp = vkb_cm_round_up(a->k, t->bk);
    xpb_status st;
    if (!(st = vkb_buffer_alloc(c, (size_t)(s->mp * s->kp * 2), &s->a16, err)) &&
        !(st = vkb_buffer_alloc(c, (size_t)(s->kp * s->np * 2), &s->b16, err)) &&
        !(st = convert_matrix(c, a->a, (uint64_t)a->m, (uint64_t)a->k, s->a16, s->mp, s->kp, false, err)) &&
        !(st = convert_matrix(c, a->b, (uint64_t)a->k, (uint64_t)a->n, s->b16, s->kp, s->np, t->bt, err)))
        st = vkb_synchronize(c, err);
    if (st) {
        vkb_cm_release(c, s);
        return st;
    }
    *out = s;
    return XPB_OK;
}

bool vkb_cm_matches(const vkb_cm_state *s, const xpb_gemm_args *a, const vkb_cm_cfg *t)
{
    return s && s->m == a->m && s->n == a->n && s->k == a->k && s->cfg.bm == t->bm &&
           s->cfg.bn == t->bn && s->cfg.bk == t->bk && s->cfg.wm == t->wm && s->cfg.wn == t->wn &&
           s->cfg.stages == t->stages && s->cfg.bt == t->bt;
}

/* Row tiles that sweep the columns together (L2 reuse of B): XPB_VULKAN_COOPMAT_GROUP_M, default
 * 8 (a tuning knob for the tensor-core variants, docs/knobs.md). */
xpb_status vkb_cm_launch(vkb_ctx *c, const xpb_gemm_args *a, const vkb_cm_state *s, const vkb_cm_cfg *t,
                         const vkb_shader *sh, const vkb_spec *spec, const char *variant, xpb_error *err)
{
    if (a->m == 0 || a->n == 0)
        return vkb_ctx_status(c, err);
    if (!vkb_cm_matches(s, a, t))
        return xpb_fail(err, XPB_ERR_USAGE, "%s: launch without prepare() for these arguments", variant);
    vkb_binding b[4];
    long group_m;
    xpb_status st = xpb_knob_get_long(XPB_KNOB_VULKAN_COOPMAT_GROUP_M, &group_m, err);
    if (st || (st = vkb_gemm_bindings(a, b, err)))
        return st;
    b[0] = (vkb_binding){s->a16, 0, s->mp * s->kp * 2};
    b[1] = (vkb_binding){s->b16, 0, s->kp * s->np * 2};
    vkb_cm_push push = {
        .m = (uint32_t)a->m, .n = (uint32_t)a->n, .kp = (uint32_t)s->kp, .np = (uint32_t)s->np,
        .tiles_m = (uint32_t)(s->mp / t->bm), .tiles_n = (uint32_t)(s->np / t->bn), .group_m = (uint32_t)group_m,
        .alpha = a->alpha, .beta = a->beta,
    };
    uint64_t tiles = (uint64_t)push.tiles_m * push.tiles_n;
    return vkb_dispatch(c, sh, spec, b, &push, vkb_group_count(c, tiles), err);
}

xpb_status vkb_cm_supports(void *ctx, const void *args, vkb_cm_check_fn check, xpb_error *why)
{
    vkb_cm_cfg t = {0, 0, 0, 0, 0, 0, 0};
    return check(ctx, args, &t, why);
}

xpb_status vkb_cm_prepare_checked(void *ctx, const void *args, vkb_cm_check_fn check, void **state,
                                  xpb_error *err)
{
    *state = NULL;
    vkb_cm_cfg t = {0, 0, 0, 0, 0, 0, 0};
    xpb_status st = check(ctx, args, &t, err);
    return st ? st : vkb_cm_prepare(ctx, args, &t, state, err);
}

xpb_status vkb_cm_check_ext(vkb_ctx *c, const xpb_gemm_args *a, bool has_real, const char *missing,
                            vkb_cm_choose_fn choose, vkb_cm_cfg *t, xpb_error *why)
{
    if (missing && !vkb_cm_emulate(has_real))
        return xpb_fail(why, XPB_ERR_UNSUPPORTED, "%s", missing);
    xpb_status st = vkb_gemm_check(c, a, why);
    if (st || (st = choose(c, t, why)))
        return st;
    return vkb_cm_check_copies(c, a, t, why);
}

xpb_status vkb_cm_launch_checked(void *ctx, const void *args, void *state, vkb_cm_check_fn check,
                                 vkb_cm_shader_fn shader, const char *variant, xpb_error *err)
{
    vkb_ctx *c = ctx;
    const xpb_gemm_args *a = args;
    vkb_cm_cfg t = {0, 0, 0, 0, 0, 0, 0};
    xpb_status st = check(c, a, &t, err);
    if (st)
        return st;
    vkb_spec spec;
    const vkb_shader *sh = shader(c, a, &t, &spec);
    return vkb_cm_launch(c, a, state, &t, sh, &spec, variant, err);
}
