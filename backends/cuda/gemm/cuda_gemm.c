/* cuda_gemm.c - argument checks and view resolution shared by the GEMM/GEMV variants (see
 * cuda_gemm.h). */
#include "cuda_gemm.h"

#include <limits.h>

/* rows * cols, or -1 when it does not fit an int64 (both >= 0). */
static int64_t elements(int64_t rows, int64_t cols)
{
    return rows != 0 && cols > INT64_MAX / rows ? -1 : rows * cols;
}

xpb_status xpb_cuda_gemm_resolve(const xpb_gemm_args *args, xpb_op op, const char *what,
                                 xpb_cuda_gemm *g, xpb_error *err)
{
    g->a = g->b = g->c_in = NULL;
    g->c = NULL;
    g->m = args->m, g->n = args->n, g->k = args->k;
    g->alpha = args->alpha, g->beta = args->beta;
    if (args->m < 0 || args->n < 0 || args->k < 0)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: negative size (m=%lld, n=%lld, k=%lld)", what,
                        (long long)args->m, (long long)args->n, (long long)args->k);
    if (op == XPB_OP_GEMV && args->m != 1)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: gemv needs m = 1 (got %lld)", what, (long long)args->m);
    const int64_t mk = elements(args->m, args->k), kn = elements(args->k, args->n);
    const int64_t mn = elements(args->m, args->n);
    if (mk < 0 || kn < 0 || mn < 0)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: size too large (m=%lld, n=%lld, k=%lld)", what,
                        (long long)args->m, (long long)args->n, (long long)args->k);
    float *a = NULL, *b = NULL, *c_in = NULL;
    xpb_status st = xpb_cuda_view_f32(&args->a, mk, "a", &a, err);
    if (st == XPB_OK)
        st = xpb_cuda_view_f32(&args->b, kn, "b", &b, err);
    if (st == XPB_OK)
        st = xpb_cuda_view_f32(&args->c, mn, "c", &g->c, err);
    if (st == XPB_OK && args->beta != 0.0f)
        st = xpb_cuda_view_f32(&args->c_in, mn, "c_in (beta != 0)", &c_in, err);
    g->a = a, g->b = b, g->c_in = c_in;
    return st;
}

xpb_status xpb_cuda_gemm_copy_c_in(const xpb_cuda_ctx *ctx, const xpb_cuda_gemm *g, xpb_error *err)
{
    if (g->beta == 0.0f || g->m == 0 || g->n == 0)
        return XPB_OK;
    XPB_CUDA_CHECK(err, cudaMemcpyAsync(g->c, g->c_in, (size_t)(g->m * g->n) * sizeof(float),
                                        cudaMemcpyDeviceToDevice, ctx->stream));
    return XPB_OK;
}

xpb_status xpb_cuda_gemm_supports_int32(const void *args, const char *what, xpb_error *why)
{
    const xpb_gemm_args *a = args;
    if (a->m > INT_MAX || a->n > INT_MAX || a->k > INT_MAX)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED,
                        "%s takes int sizes: m=%lld, n=%lld, k=%lld exceeds %d", what,
                        (long long)a->m, (long long)a->n, (long long)a->k, INT_MAX);
    return XPB_OK;
}
