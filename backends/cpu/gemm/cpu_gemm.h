/* cpu_gemm.h - what the CPU GEMM/GEMV variants share: resolving xpb_gemm_args into host pointers. */
#ifndef XPB_CPU_GEMM_H
#define XPB_CPU_GEMM_H

#include "cpu_internal.h"

typedef struct xpb_cpu_gemm_view {
    const float *a, *b, *c_in; /* c_in is NULL when beta == 0 */
    float *c;
    int64_t m, n, k;
    float alpha, beta;
} xpb_cpu_gemm_view;

/* Checks sizes (1..2^31 per matrix) and that every view lies inside its buffer. */
xpb_status xpb_cpu_gemm_resolve(const xpb_gemm_args *a, xpb_cpu_gemm_view *v, xpb_error *err);

/* For in-place BLAS calls (c = alpha A B + beta c): resolves the views, then copies c_in to c
 * when beta != 0. */
xpb_status xpb_cpu_gemm_begin_inplace(const void *args, xpb_cpu_gemm_view *v, xpb_error *err);

#endif
