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

/* c = c_in (beta != 0) before an in-place BLAS call; no-op when beta == 0. */
void xpb_cpu_gemm_copy_c(const xpb_cpu_gemm_view *v);

#endif
