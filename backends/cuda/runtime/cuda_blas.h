/* cuda_blas.h - the context's cuBLAS handle and cuBLAS errors as xpb_status (cuda_blas.c).
 *
 * One handle per context, created on first use (the first launch of a cuBLAS variant, which is
 * the harness's untimed validation launch), bound to the context's stream, destroyed by close().
 * The variants share it and set the math mode they need on every launch. Valid C11 and C++17. */
#ifndef XPB_CUDA_BLAS_H
#define XPB_CUDA_BLAS_H

#include <cublas_v2.h>

#include "cuda_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The xpb_status a cuBLAS status means: CUBLAS_STATUS_ALLOC_FAILED -> XPB_ERR_OUT_OF_MEMORY;
 * NOT_SUPPORTED and ARCH_MISMATCH -> XPB_ERR_UNSUPPORTED; NOT_INITIALIZED (no usable driver or
 * device) -> XPB_ERR_UNAVAILABLE; anything else -> XPB_ERR_RUNTIME. */
xpb_status xpb_cuda_blas_status(cublasStatus_t s);

/* Writes "<what> failed: <status string> (<status name>, status N) at <file>:<line>" into err and
 * returns the status. When cuBLAS reports a failed execution and the CUDA runtime holds an error,
 * that error decides the status (an illegal address -> XPB_ERR_DEVICE_LOST) and is named too. */
xpb_status xpb_cuda_blas_fail(xpb_error *err, cublasStatus_t s, const char *what, const char *file,
                              int line);

/* Evaluates a cuBLAS call; on failure returns its status from the enclosing function, with the
 * expression, file and line in err. Never exits. */
#define XPB_CUBLAS_CHECK(err, expr)                                                             \
    do {                                                                                        \
        cublasStatus_t xpb_cublas_s_ = (expr);                                                  \
        if (xpb_cublas_s_ != CUBLAS_STATUS_SUCCESS)                                             \
            return xpb_cuda_blas_fail((err), xpb_cublas_s_, #expr, __FILE__, __LINE__);         \
    } while (0)

/* Makes ctx's device current and returns its cuBLAS handle in *out (created and bound to
 * ctx->stream on first use), with math mode `mode` set. The handle stays owned by ctx. */
xpb_status xpb_cuda_blas_handle(xpb_cuda_ctx *ctx, cublasMath_t mode, cublasHandle_t *out,
                                xpb_error *err);

#ifdef __cplusplus
}
#endif
#endif
