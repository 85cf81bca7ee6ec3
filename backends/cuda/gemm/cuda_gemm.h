/* cuda_gemm.h - what every GEMM and GEMV variant of this backend does before its kernel: check
 * the sizes, resolve the views, and (for in-place kernels such as cuBLAS) bring C's old value
 * into the output (cuda_gemm.c). Valid C11 and C++17. */
#ifndef XPB_CUDA_GEMM_H
#define XPB_CUDA_GEMM_H

#include "cuda_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* c = alpha * a(m x k) * b(k x n) + beta * c_in(m x n), row-major, as device pointers. */
typedef struct xpb_cuda_gemm {
    const float *a, *b;
    const float *c_in; /* NULL when beta == 0 */
    float *c;
    int64_t m, n, k;
    float alpha, beta;
} xpb_cuda_gemm;

/* Checks args (sizes >= 0, m == 1 for XPB_OP_GEMV, element counts that fit) and resolves the
 * views into *g: a of m*k floats, b of k*n, c of m*n, and c_in of m*n when beta != 0 (a missing
 * c_in is then an error). what names the variant in messages ("gemm/tiled"). Fails with
 * XPB_ERR_USAGE. */
xpb_status xpb_cuda_gemm_resolve(const xpb_gemm_args *args, xpb_op op, const char *what,
                                 xpb_cuda_gemm *g, xpb_error *err);

/* For kernels that update c in place: when beta != 0, enqueues the copy c <- c_in on ctx's
 * stream (part of the launch, so it is timed with it). No-op when beta == 0. */
xpb_status xpb_cuda_gemm_copy_c_in(const xpb_cuda_ctx *ctx, const xpb_cuda_gemm *g, xpb_error *err);

/* supports() for variants that pass m, n, k (and leading dimensions) as int, e.g. cuBLAS:
 * XPB_ERR_UNSUPPORTED with the reason when one is above INT_MAX. */
xpb_status xpb_cuda_gemm_supports_int32(const void *args, const char *what, xpb_error *why);

#ifdef __cplusplus
}
#endif
#endif
