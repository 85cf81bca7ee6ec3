/* gemm_cublas.cu - gemm `cublas`: cublasSgemm in strict fp32 (CUBLAS_PEDANTIC_MATH: no TF32 or
 * other down-conversion), the fp32 roof the hand-written `tiled` kernel is measured against.
 *
 * Row-major to column-major: a row-major m x n matrix is, in memory, the column-major n x m
 * matrix of its transpose. So C = A B (row-major) is computed as C^T = B^T A^T (column-major):
 * cuBLAS's "A" is our B (n x k, leading dimension n), its "B" is our A (k x m, leading dimension
 * k), and its C is our C (n x m, leading dimension n), with no transposes. cuBLAS updates C in
 * place, so when beta != 0 the launch first copies c_in to c on the stream. */
#include "cuda_blas.h"
#include "cuda_gemm.h"

static xpb_status cublas_supports(void *ctx, const void *args, xpb_error *why)
{
    (void)ctx;
    return xpb_cuda_gemm_supports_int32(args, "gemm/cublas", why);
}

static xpb_status cublas_launch(void *vctx, const void *vargs, void *state, xpb_error *err)
{
    (void)state;
    xpb_cuda_ctx *ctx = static_cast<xpb_cuda_ctx *>(vctx);
    xpb_cuda_gemm g;
    xpb_status st = xpb_cuda_gemm_resolve(static_cast<const xpb_gemm_args *>(vargs), XPB_OP_GEMM,
                                          "gemm/cublas", &g, err);
    if (st != XPB_OK || g.m == 0 || g.n == 0)
        return st;
    cublasHandle_t h = NULL;
    if ((st = xpb_cuda_blas_handle(ctx, CUBLAS_PEDANTIC_MATH, &h, err)) != XPB_OK ||
        (st = xpb_cuda_gemm_copy_c_in(ctx, &g, err)) != XPB_OK)
        return st;
    const int m = (int)g.m, n = (int)g.n, k = (int)g.k, ldk = k > 1 ? k : 1;
    XPB_CUBLAS_CHECK(err, cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &g.alpha, g.b, n, g.a,
                                      ldk, &g.beta, g.c, n));
    return XPB_OK;
}

extern "C" const xpb_kernel xpb_cuda_gemm_cublas = {
    /* .op        = */ XPB_OP_GEMM,
    /* .variant   = */ "cublas",
    /* .precision = */ "fp32",
    /* .supports  = */ cublas_supports,
    /* .prepare   = */ NULL,
    /* .release   = */ NULL,
    /* .launch    = */ cublas_launch,
};
