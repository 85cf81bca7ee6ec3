/* coopmat_common.c - the fp16 copies of A and B shared by vulkan/coopmat and vulkan/coopmat-khr
 * (coopmat_common.h). Shader: shaders/f32_to_f16.comp (round to nearest even in integer
 * arithmetic, zero padding), one dispatch per matrix, untimed (prepare()). */
#include <stdlib.h>
#include <string.h>

#include "coopmat_common.h"

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
    const char *v = getenv("XPB_VULKAN_COOPMAT_EMULATE");
    return !has_real && v && *v && strcmp(v, "0") != 0;
}

xpb_status vkb_cm_check_copies(vkb_ctx *c, const xpb_gemm_args *a, uint32_t bm, uint32_t bn, uint32_t bk,
                               xpb_error *why)
{
    uint64_t mp = vkb_cm_round_up(a->m, bm), np = vkb_cm_round_up(a->n, bn), kp = vkb_cm_round_up(a->k, bk);
    xpb_status st = vkb_check_range(c, "the fp16 copy of A", mp * kp * 2, why);
    return st ? st : vkb_check_range(c, "the fp16 copy of B", kp * np * 2, why);
}

/* src (rows x cols fp32, view v) -> dst (rows_p x cols_p fp16). */
static xpb_status convert_matrix(vkb_ctx *c, xpb_view v, uint64_t rows, uint64_t cols, xpb_buffer *dst,
                                 uint64_t rows_p, uint64_t cols_p, xpb_error *err)
{
    vkb_binding b[2] = {
        {v.buf, v.offset, rows * cols * sizeof(float)},
        {dst, 0, rows_p * cols_p * 2},
    };
    convert_push push = {(uint32_t)rows, (uint32_t)cols, (uint32_t)cols_p, (uint32_t)(rows_p * cols_p / 2)};
    uint32_t block = vkb_block_size(c, CONVERT_BLOCK);
    vkb_spec spec = {1, {block}};
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

xpb_status vkb_cm_prepare(vkb_ctx *c, const xpb_gemm_args *a, uint32_t bm, uint32_t bn, uint32_t bk,
                          const uint32_t *cfg, vkb_cm_state **out, xpb_error *err)
{
    *out = NULL;
    vkb_cm_state *s = calloc(1, sizeof *s);
    if (!s)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory for the coopmat state");
    memcpy(s->cfg, cfg, sizeof s->cfg);
    s->m = a->m;
    s->n = a->n;
    s->k = a->k;
    s->mp = vkb_cm_round_up(a->m, bm);
    s->np = vkb_cm_round_up(a->n, bn);
    s->kp = vkb_cm_round_up(a->k, bk);
    xpb_status st;
    if (!(st = vkb_buffer_alloc(c, (size_t)(s->mp * s->kp * 2), &s->a16, err)) &&
        !(st = vkb_buffer_alloc(c, (size_t)(s->kp * s->np * 2), &s->b16, err)) &&
        !(st = convert_matrix(c, a->a, (uint64_t)a->m, (uint64_t)a->k, s->a16, s->mp, s->kp, err)) &&
        !(st = convert_matrix(c, a->b, (uint64_t)a->k, (uint64_t)a->n, s->b16, s->kp, s->np, err)))
        st = vkb_synchronize(c, err);
    if (st) {
        vkb_cm_release(c, s);
        return st;
    }
    *out = s;
    return XPB_OK;
}

bool vkb_cm_matches(const vkb_cm_state *s, const xpb_gemm_args *a, const uint32_t *cfg)
{
    return s && s->m == a->m && s->n == a->n && s->k == a->k &&
           memcmp(s->cfg, cfg, sizeof s->cfg) == 0;
}
