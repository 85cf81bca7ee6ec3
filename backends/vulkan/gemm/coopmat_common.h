/* coopmat_common.h - what the cooperative-matrix GEMMs share (vulkan/coopmat, coopmat.c, on
 * VK_NV_cooperative_matrix; vulkan/coopmat-khr, coopmat_khr.c, on VK_KHR_cooperative_matrix;
 * vulkan/coopmat2, coopmat2.c, on VK_NV_cooperative_matrix2):
 * the fp16, tile-padded copies of A and B that prepare() makes with f32_to_f16.comp, and the
 * XPB_VULKAN_COOPMAT_EMULATE switch. */
#ifndef COOPMAT_COMMON_H
#define COOPMAT_COMMON_H

#include "vk_ops.h"

/* A tile configuration: a BM x BN tile of C per workgroup of (BM/WM) * (BN/WN) subgroups of 32,
 * each a WM x WN block of 16 x 16 accumulators, K in slices of BK; STAGES slices in flight
 * (coopmat-khr: two shared-memory buffers and STAGES - 1 register sets; coopmat: 2, its two
 * shared-memory stages). */
typedef struct vkb_cm_cfg {
    uint32_t bm, bn, bk, wm, wn, stages;
    uint32_t bt; /* 1: the fp16 copy of B is stored transposed, Np x Kp (K contiguous; coopmat2 only) */
} vkb_cm_cfg;

/* Invocations of a workgroup: (BM/WM) * (BN/WN) * 32. */
uint32_t vkb_cm_threads(const vkb_cm_cfg *t);

/* NULL when the device can run t (both bodies use the same shared memory: two buffers of A
 * (BM x (BK+8)) and B (BK x (BN+8)) in fp16, plus a 16 x 20 fp32 staging tile per subgroup);
 * else the rule it breaks. */
const char *vkb_cm_cfg_problem(const vkb_ctx *c, const vkb_cm_cfg *t);

/* A prepare()'s result: the fp16 copies and what they were made for. */
typedef struct vkb_cm_state {
    vkb_cm_cfg cfg; /* the caller's tile configuration, compared by launch() */
    int64_t m, n, k;
    uint64_t mp, np, kp;            /* padded sizes of the fp16 copies */
    xpb_buffer *a16, *b16;
} vkb_cm_state;

/* Push constants of both GEMM bodies (shaders/gemm/coopmat.glsl, shaders/gemm/coopmat_khr.glsl). */
typedef struct vkb_cm_push {
    uint32_t m, n, kp, np, tiles_m, tiles_n, group_m;
    float alpha, beta;
} vkb_cm_push;

/* v rounded up to a multiple of `to` (> 0). */
uint64_t vkb_cm_round_up(int64_t v, uint32_t to);

/* XPB_VULKAN_COOPMAT_EMULATE is set (not "0") and the device lacks the real thing (has_real). */
bool vkb_cm_emulate(bool has_real);

/* XPB_ERR_UNSUPPORTED unless the fp16 copies (A padded to multiples of BM x BK, B of BK x BN)
 * fit in one binding each. */
xpb_status vkb_cm_check_copies(vkb_ctx *c, const xpb_gemm_args *a, const vkb_cm_cfg *t, xpb_error *why);

/* prepare() of both variants once their configuration t is chosen: makes *out, a vkb_cm_state
 * (allocates and fills the fp16 copies of a->a and a->b, padded to multiples of BM x BK and
 * BK x BN, B transposed to Np x Kp when t->bt, waits for them, and records t); NULL for an empty C or on failure, when nothing is left
 * allocated. Free with vkb_cm_release. */
xpb_status vkb_cm_prepare(vkb_ctx *c, const xpb_gemm_args *a, const vkb_cm_cfg *t, void **out,
                          xpb_error *err);

/* true when s was prepared for a's sizes and this configuration. */
bool vkb_cm_matches(const vkb_cm_state *s, const xpb_gemm_args *a, const vkb_cm_cfg *t);

/* launch() of both variants once their configuration t (and its specialization) is chosen: for
 * an empty C only the context's status; else checks that s was prepared for a and t (an
 * XPB_ERR_USAGE naming `variant` if not), binds the fp16 copies, c_in and C, and dispatches sh
 * over the tiles (grouped GROUP_M row tiles at a time for L2 reuse). */
xpb_status vkb_cm_launch(vkb_ctx *c, const xpb_gemm_args *a, const vkb_cm_state *s, const vkb_cm_cfg *t,
                         const vkb_shader *sh, const vkb_spec *spec, const char *variant, xpb_error *err);

/* Frees s and its copies (s may be NULL). */
void vkb_cm_release(void *ctx, void *s);

/* A variant's check: XPB_OK with the tile configuration it runs a with in *t when it can run a on
 * c, else why not (XPB_ERR_UNSUPPORTED with the reason). Its supports(), prepare() and launch()
 * each begin with it. */
typedef xpb_status (*vkb_cm_check_fn)(vkb_ctx *c, const xpb_gemm_args *a, vkb_cm_cfg *t, xpb_error *why);

/* supports() of a variant: its check alone. */
xpb_status vkb_cm_supports(void *ctx, const void *args, vkb_cm_check_fn check, xpb_error *why);

/* prepare() of a variant: its check, then vkb_cm_prepare with the configuration the check chose. */
xpb_status vkb_cm_prepare_checked(void *ctx, const void *args, vkb_cm_check_fn check, void **state,
                                  xpb_error *err);

/* The check of coopmat and coopmat-khr, whose only difference is the extension they need and how
 * they choose their configuration: XPB_ERR_UNSUPPORTED with `missing` (why the real extension
 * cannot run; NULL when it can) unless XPB_VULKAN_COOPMAT_EMULATE stands in for it (has_real: the
 * device has it), then the sizes, choose()'s configuration in *t and the fp16 copies. */
typedef xpb_status (*vkb_cm_choose_fn)(const vkb_ctx *c, vkb_cm_cfg *out, xpb_error *err);
xpb_status vkb_cm_check_ext(vkb_ctx *c, const xpb_gemm_args *a, bool has_real, const char *missing,
                            vkb_cm_choose_fn choose, vkb_cm_cfg *t, xpb_error *why);

/* A variant's shader for configuration t and its specialization in *spec (launch()). */
typedef const vkb_shader *(*vkb_cm_shader_fn)(const vkb_ctx *c, const xpb_gemm_args *a, const vkb_cm_cfg *t,
                                              vkb_spec *spec);
/* launch() of a variant: its check, then vkb_cm_launch with the shader and specialization of
 * shader(). */
xpb_status vkb_cm_launch_checked(void *ctx, const void *args, void *state, vkb_cm_check_fn check,
                                 vkb_cm_shader_fn shader, const char *variant, xpb_error *err);

#endif
