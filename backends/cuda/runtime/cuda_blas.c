/* cuda_blas.c - the context's cuBLAS handle and cuBLAS status -> xpb_status (see cuda_blas.h). */
#include "cuda_blas.h"

#include <string.h>

xpb_status xpb_cuda_blas_status(cublasStatus_t s)
{
    switch (s) {
    case CUBLAS_STATUS_SUCCESS:
        return XPB_OK;
    case CUBLAS_STATUS_ALLOC_FAILED:
        return XPB_ERR_OUT_OF_MEMORY;
    case CUBLAS_STATUS_NOT_SUPPORTED:
    case CUBLAS_STATUS_ARCH_MISMATCH:
        return XPB_ERR_UNSUPPORTED;
    case CUBLAS_STATUS_NOT_INITIALIZED:
        return XPB_ERR_UNAVAILABLE;
    default:
        return XPB_ERR_RUNTIME;
    }
}

xpb_status xpb_cuda_blas_fail(xpb_error *err, cublasStatus_t s, const char *what, const char *file,
                              int line)
{
    const char *slash = strrchr(file, '/');
    const char *base = slash ? slash + 1 : file;
    xpb_status st = xpb_cuda_blas_status(s);
    if (s == CUBLAS_STATUS_EXECUTION_FAILED || s == CUBLAS_STATUS_INTERNAL_ERROR) {
        cudaError_t e = cudaPeekAtLastError();
        if (e != cudaSuccess) {
            st = xpb_cuda_status(e);
            if (st != XPB_ERR_DEVICE_LOST)
                (void)cudaGetLastError(); /* not sticky: do not blame it on the next launch */
            return xpb_fail(err, st, "%s failed: %s (%s, status %d; CUDA: %s, %s) at %s:%d", what,
                            cublasGetStatusString(s), cublasGetStatusName(s), (int)s,
                            cudaGetErrorString(e), cudaGetErrorName(e), base, line);
        }
    }
    return xpb_fail(err, st, "%s failed: %s (%s, status %d) at %s:%d", what, cublasGetStatusString(s),
                    cublasGetStatusName(s), (int)s, base, line);
}

xpb_status xpb_cuda_blas_handle(xpb_cuda_ctx *ctx, cublasMath_t mode, cublasHandle_t *out,
                                xpb_error *err)
{
    *out = NULL;
    xpb_status st = xpb_cuda_activate(ctx, err);
    if (st != XPB_OK)
        return st;
    if (!ctx->cublas) {
        cublasHandle_t h = NULL;
        XPB_CUBLAS_CHECK(err, cublasCreate(&h));
        cublasStatus_t s = cublasSetStream(h, ctx->stream);
        if (s != CUBLAS_STATUS_SUCCESS) {
            (void)cublasDestroy(h);
            return xpb_cuda_blas_fail(err, s, "cublasSetStream(h, ctx->stream)", __FILE__, __LINE__);
        }
        ctx->cublas = h;
    }
    XPB_CUBLAS_CHECK(err, cublasSetMathMode(ctx->cublas, mode));
    *out = ctx->cublas;
    return XPB_OK;
}

void xpb_cuda_blas_destroy(xpb_cuda_ctx *ctx)
{
    if (!ctx->cublas)
        return;
    /* Best effort, like close(): a failure here has no one to report to. */
    if (xpb_cuda_activate(ctx, NULL) == XPB_OK)
        (void)cublasDestroy(ctx->cublas);
    ctx->cublas = NULL;
}
