/* coopmat_common.h - what the two cooperative-matrix GEMMs share (vulkan/coopmat, coopmat.c, on
 * VK_NV_cooperative_matrix; vulkan/coopmat-khr, coopmat_khr.c, on VK_KHR_cooperative_matrix):
 * the fp16, tile-padded copies of A and B that prepare() makes with f32_to_f16.comp, and the
 * XPB_VULKAN_COOPMAT_EMULATE switch. */
#ifndef COOPMAT_COMMON_H
#define COOPMAT_COMMON_H

#include "vk_ops.h"

#define VKB_CM_CFG_WORDS 8

/* A prepare()'s result: the fp16 copies and what they were made for. */
typedef struct vkb_cm_state {
    uint32_t cfg[VKB_CM_CFG_WORDS]; /* the caller's tile configuration, compared by launch() */
    int64_t m, n, k;
    uint64_t mp, np, kp;            /* padded sizes of the fp16 copies */
    xpb_buffer *a16, *b16;
} vkb_cm_state;

/* v rounded up to a multiple of `to` (> 0). */
uint64_t vkb_cm_round_up(int64_t v, uint32_t to);

/* XPB_VULKAN_COOPMAT_EMULATE is set (not "0") and the device lacks the real thing (has_real). */
bool vkb_cm_emulate(bool has_real);

/* XPB_ERR_UNSUPPORTED unless the fp16 copies (A padded to multiples of bm x bk, B of bk x bn)
 * fit in one binding each. */
xpb_status vkb_cm_check_copies(vkb_ctx *c, const xpb_gemm_args *a, uint32_t bm, uint32_t bn, uint32_t bk,
                               xpb_error *why);

/* Makes *out: allocates and fills the fp16 copies of a->a and a->b, padded to multiples of
 * bm x bk and bk x bn, waits for them, and records cfg (VKB_CM_CFG_WORDS words). m, n > 0.
 * On failure *out is NULL and nothing is left allocated. Free with vkb_cm_release. */
xpb_status vkb_cm_prepare(vkb_ctx *c, const xpb_gemm_args *a, uint32_t bm, uint32_t bn, uint32_t bk,
                          const uint32_t *cfg, vkb_cm_state **out, xpb_error *err);

/* true when s was prepared for a's sizes and this cfg. */
bool vkb_cm_matches(const vkb_cm_state *s, const xpb_gemm_args *a, const uint32_t *cfg);

/* Frees s and its copies (s may be NULL). */
void vkb_cm_release(void *ctx, void *s);

#endif
