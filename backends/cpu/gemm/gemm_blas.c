/* gemm_blas.c - cpu/blas: cblas_sgemm of the BLAS that XPB_BLAS chose (cpu_blas.h) on all cores (GEMM)
 * and cblas_sgemv (GEMV). */
#include "cpu_blas.h"
#include "cpu_gemm.h"

static xpb_status gemm_blas_launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)ctx;
    (void)state;
    xpb_cpu_gemm_view v;
    xpb_status st = xpb_cpu_gemm_begin_inplace(args, &v, err);
    if (st)
        return st;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)v.m, (blasint)v.n, (blasint)v.k, v.alpha,
                v.a, (blasint)v.k, v.b, (blasint)v.n, v.beta, v.c, (blasint)v.n);
    return XPB_OK;
}

/* y(1xN) = alpha x(1xK) B(KxN) + beta y: B^T x with B stored K rows of N. */
static xpb_status gemv_blas_launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)ctx;
    (void)state;
    xpb_cpu_gemm_view v;
    xpb_status st = xpb_cpu_gemm_begin_inplace(args, &v, err);
    if (st)
        return st;
    cblas_sgemv(CblasRowMajor, CblasTrans, (blasint)v.k, (blasint)v.n, v.alpha, v.b, (blasint)v.n, v.a, 1,
                v.beta, v.c, 1);
    return XPB_OK;
}

const xpb_kernel xpb_cpu_gemm_blas = {
    .op = XPB_OP_GEMM,
    .variant = "blas",
    .precision = "fp32",
    .launch = gemm_blas_launch,
};

const xpb_kernel xpb_cpu_gemv_blas = {
    .op = XPB_OP_GEMV,
    .variant = "blas",
    .precision = "fp32",
    .launch = gemv_blas_launch,
};
