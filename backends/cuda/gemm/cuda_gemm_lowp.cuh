/* cuda_gemm_lowp.cuh - prepare/release for the GEMM variants that consume A and B in a lower
 * precision than the fp32 they are stored in (cublas-tf32, cublas-fp16): prepare makes device
 * copies of A and B converted element by element (untimed, as xpb_ops.h asks), launch hands the
 * copies to cublasGemmEx (the variants differ only in the converter, the input type, the math
 * mode and the compute type), release frees them.
 *
 * Conv is a functor float -> T applied on the device; one grid-stride kernel per matrix. */
#ifndef XPB_CUDA_GEMM_LOWP_CUH
#define XPB_CUDA_GEMM_LOWP_CUH

#include <stdlib.h>

#include "cuda_blas.h"
#include "cuda_common.cuh"
#include "cuda_gemm.h"

#define XPB_LOWP_THREADS 256
#define XPB_LOWP_WAVES 8

template <typename T, typename Conv>
__global__ void __launch_bounds__(XPB_LOWP_THREADS)
xpb_lowp_convert_kernel(const float *__restrict__ x, T *__restrict__ y, int64_t n, Conv conv)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = conv(x[i]);
}

/* What prepare leaves for launch: A (m x k) and B (k x n) converted; NULL where empty. */
typedef struct xpb_lowp_state {
    void *a, *b;
    int64_t m, n, k;
} xpb_lowp_state;

static inline void xpb_lowp_release(void *vctx, void *vstate)
{
    xpb_lowp_state *s = static_cast<xpb_lowp_state *>(vstate);
    if (!s)
        return;
    const xpb_cuda_ctx *ctx = static_cast<const xpb_cuda_ctx *>(vctx);
    /* Nothing to report to: a failure here is a dead context, which fails every later call. */
    if (xpb_cuda_activate(ctx, NULL) == XPB_OK) {
        (void)cudaStreamSynchronize(ctx->stream); /* no launch may still read the copies */
        if (s->a)
            (void)cudaFree(s->a);
        if (s->b)
            (void)cudaFree(s->b);
    }
    (void)cudaGetLastError();
    free(s);
}

/* Allocates n elements of T in *out and enqueues their conversion from x. */
template <typename T, typename Conv>
static inline xpb_status xpb_lowp_convert(xpb_cuda_ctx *ctx, const float *x, int64_t n, void **out,
                                          const char *what, xpb_error *err)
{
    *out = NULL;
    if (n == 0)
        return XPB_OK;
    XPB_CUDA_CHECK(err, cudaMalloc(out, (size_t)n * sizeof(T)));
    const unsigned grid = xpb_cuda_grid(ctx, (n + XPB_LOWP_THREADS - 1) / XPB_LOWP_THREADS,
                                        XPB_LOWP_THREADS, XPB_LOWP_WAVES);
    xpb_lowp_convert_kernel<T, Conv><<<grid, XPB_LOWP_THREADS, 0, ctx->stream>>>(x, static_cast<T *>(*out), n, Conv());
    XPB_CUDA_CHECK_LAUNCH(err, what);
    return XPB_OK;
}

/* The kernel's prepare: converts args' A and B with Conv into a new xpb_lowp_state. */
template <typename T, typename Conv>
static inline xpb_status xpb_lowp_prepare(void *vctx, const void *vargs, void **state,
                                          const char *what, xpb_error *err)
{
    *state = NULL;
    xpb_cuda_ctx *ctx = static_cast<xpb_cuda_ctx *>(vctx);
    xpb_cuda_gemm g;
    xpb_status st = xpb_cuda_gemm_resolve(static_cast<const xpb_gemm_args *>(vargs), XPB_OP_GEMM,
                                          what, &g, err);
    if (st != XPB_OK || (st = xpb_cuda_activate(ctx, err)) != XPB_OK)
        return st;
    xpb_lowp_state *s = static_cast<xpb_lowp_state *>(calloc(1, sizeof *s));
    if (!s)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "%s: out of host memory", what);
    s->m = g.m, s->n = g.n, s->k = g.k;
    st = xpb_lowp_convert<T, Conv>(ctx, g.a, g.m * g.k, &s->a, what, err);
    if (st == XPB_OK)
        st = xpb_lowp_convert<T, Conv>(ctx, g.b, g.k * g.n, &s->b, what, err);
    if (st != XPB_OK) {
        xpb_lowp_release(ctx, s);
        return st;
    }
    *state = s;
    return XPB_OK;
}

/* The kernel's launch: checks that prepare ran for these sizes, then C = alpha * A * B + beta * c_in
 * with cublasGemmEx on the converted copies (in_type) in `math` mode, computing in `compute`. Layout:
 * gemm_cublas.cu (C^T = B^T A^T in column-major); c_in is copied to c first when beta != 0. */
static inline xpb_status xpb_lowp_launch(void *vctx, const void *vargs, void *state, const char *what,
                                         cublasMath_t math, cudaDataType in_type,
                                         cublasComputeType_t compute, xpb_error *err)
{
    xpb_cuda_ctx *ctx = static_cast<xpb_cuda_ctx *>(vctx);
    xpb_cuda_gemm g;
    xpb_status st = xpb_cuda_gemm_resolve(static_cast<const xpb_gemm_args *>(vargs), XPB_OP_GEMM,
                                          what, &g, err);
    if (st != XPB_OK)
        return st;
    const xpb_lowp_state *s = static_cast<const xpb_lowp_state *>(state);
    if (!s || s->m != g.m || s->n != g.n || s->k != g.k)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: launch without a prepare for these sizes", what);
    if (g.m == 0 || g.n == 0)
        return XPB_OK;
    cublasHandle_t h = NULL;
    if ((st = xpb_cuda_blas_handle(ctx, math, &h, err)) != XPB_OK ||
        (st = xpb_cuda_gemm_copy_c_in(ctx, &g, err)) != XPB_OK)
        return st;
    const int m = (int)g.m, n = (int)g.n, k = (int)g.k, ldk = k > 1 ? k : 1;
    XPB_CUBLAS_CHECK(err, cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &g.alpha, s->b, in_type, n,
                                       s->a, in_type, ldk, &g.beta, g.c, CUDA_R_32F, n, compute,
                                       CUBLAS_GEMM_DEFAULT));
    return XPB_OK;
}

#endif
