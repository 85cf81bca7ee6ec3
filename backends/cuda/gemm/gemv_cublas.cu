/* gemv_cublas.cu - gemv `cublas`: y(1 x n) = alpha x(1 x k) B(k x n) + beta c_in with
 * cublasSgemv in strict fp32 (CUBLAS_PEDANTIC_MATH).
 *
 * Row-major B (k x n) is, in memory, the column-major n x k matrix B^T (leading dimension n), and
 * y^T = B^T x^T. So y = Sgemv(op N, rows n, columns k, B, lda n, x): cuBLAS walks the columns of
 * B^T, i.e. the contiguous rows of B, so it reads B once and coalesced. y is updated in place:
 * when beta != 0 the launch first copies c_in to c on the stream. */
#include "cuda_blas.h"
#include "cuda_gemm.h"

static xpb_status cublas_gemv_supports(void *ctx, const void *args, xpb_error *why)
{
    (void)ctx;
    return xpb_cuda_gemm_supports_int32(args, "gemv/cublas", why);
}

static xpb_status cublas_gemv_launch(void *vctx, const void *vargs, void *state, xpb_error *err)
{
    (void)state;
    xpb_cuda_ctx *ctx = static_cast<xpb_cuda_ctx *>(vctx);
    xpb_cuda_gemm g;
    xpb_status st = xpb_cuda_gemm_resolve(static_cast<const xpb_gemm_args *>(vargs), XPB_OP_GEMV,
                                          "gemv/cublas", &g, err);
    if (st != XPB_OK || g.n == 0)
        return st;
    cublasHandle_t h = NULL;
    if ((st = xpb_cuda_blas_handle(ctx, CUBLAS_PEDANTIC_MATH, &h, err)) != XPB_OK ||
        (st = xpb_cuda_gemm_copy_c_in(ctx, &g, err)) != XPB_OK)
        return st;
    const int n = (int)g.n, k = (int)g.k;
    XPB_CUBLAS_CHECK(err, cublasSgemv(h, CUBLAS_OP_N, n, k, &g.alpha, g.b, n, g.a, 1, &g.beta, g.c, 1));
    return XPB_OK;
}

extern "C" const xpb_kernel xpb_cuda_gemv_cublas = {
    /* .op        = */ XPB_OP_GEMV,
    /* .variant   = */ "cublas",
    /* .precision = */ "fp32",
    /* .supports  = */ cublas_gemv_supports,
    /* .prepare   = */ NULL,
    /* .release   = */ NULL,
    /* .launch    = */ cublas_gemv_launch,
};
