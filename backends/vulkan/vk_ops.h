/* vk_ops.h - the Vulkan backend's kernels and the launch code their families share.
 *
 * A kernel is <op>.c (its xpb_kernel and its embedded shader) + shaders/<op>.comp, registered by
 * one line in vk_backend.c. Elementwise kernels launch through eltwise.c, row kernels through
 * rowop.c; rope.c stands alone. */
#ifndef XPB_VK_OPS_H
#define XPB_VK_OPS_H

#include "vk_internal.h"

extern const xpb_kernel xpb_vulkan_copy;
extern const xpb_kernel xpb_vulkan_add;
extern const xpb_kernel xpb_vulkan_mul;
extern const xpb_kernel xpb_vulkan_scale;
extern const xpb_kernel xpb_vulkan_relu;
extern const xpb_kernel xpb_vulkan_sigmoid;
extern const xpb_kernel xpb_vulkan_silu;
extern const xpb_kernel xpb_vulkan_softmax;
extern const xpb_kernel xpb_vulkan_rmsnorm;
extern const xpb_kernel xpb_vulkan_layernorm;
extern const xpb_kernel xpb_vulkan_layernorm_f64;
extern const xpb_kernel xpb_vulkan_rope;
extern const xpb_kernel xpb_vulkan_gemm_tiled;
extern const xpb_kernel xpb_vulkan_gemm_coopmat;
extern const xpb_kernel xpb_vulkan_gemv;

/* ---- elementwise (eltwise.c, shaders/eltwise.glsl) -------------------------------------------- */

/* Push constants of every elementwise shader. */
typedef struct vkb_eltwise_push {
    uint32_t n, n4;
    float a;
    uint32_t pad;
} vkb_eltwise_push;

/* Shader of an elementwise op: bindings x, out (unary) or x, y, out (binary). */
#define VKB_ELTWISE_SHADER(name, words, binary)                                                 \
    VKB_SHADER(name, words, (binary) ? 3 : 2, sizeof(vkb_eltwise_push))

/* supports() of the elementwise kernels: n >= 0 and each array within maxStorageBufferRange. */
xpb_status vkb_eltwise_supports(void *ctx, const void *args, xpb_error *why);
/* Records the dispatch of sh over args (xpb_eltwise_args); n = 0 records nothing. */
xpb_status vkb_eltwise_launch(void *ctx, const vkb_shader *sh, const void *args, xpb_error *err);

/* ---- row ops (rowop.c, shaders/rowop.glsl) ------------------------------------------------------- */

typedef struct vkb_rowop_push {
    uint32_t rows, cols;
    float eps;
    uint32_t pad;
} vkb_rowop_push;

/* Shader of a row op with n_params per-column inputs (0 softmax, 1 rmsnorm w, 2 layernorm w, b). */
#define VKB_ROWOP_SHADER(name, words, n_params)                                                 \
    VKB_SHADER(name, words, 2 + (n_params), sizeof(vkb_rowop_push))

xpb_status vkb_rowop_supports(void *ctx, const void *args, int n_params, xpb_error *why);
/* Records the dispatch of sh over args (xpb_rowop_args); rows = 0 records nothing. */
xpb_status vkb_rowop_launch(void *ctx, const vkb_shader *sh, int n_params, const void *args,
                            xpb_error *err);

/* ---- gemm / gemv (gemm_args.c; kernels tiled.c, coopmat.c, gemv.c) ------------------------------ */

/* Sizes and bindings of a gemm or gemv case: XPB_ERR_USAGE for negative sizes, XPB_ERR_UNSUPPORTED
 * for k = 0 or a matrix larger than maxStorageBufferRange. Reads no buffer (supports() calls it). */
xpb_status vkb_gemm_check(vkb_ctx *c, const xpb_gemm_args *a, xpb_error *why);
/* Bindings 0..3: A (m x k), B (k x n), c_in (c itself when beta == 0: never read), c (m x n).
 * XPB_ERR_USAGE when beta != 0 and c_in has no buffer. */
xpb_status vkb_gemm_bindings(const xpb_gemm_args *a, vkb_binding out[4], xpb_error *err);

#endif
