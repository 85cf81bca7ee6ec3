/* anneal_search.cu - anneal search: the nq x m squared distances from the queries to the anchors
 * (workloads/ops/xpb_ops.h, xpb_anneal_search_args), ||q||^2 - 2 q.a + ||a||^2 clamped to >= +0, the
 * query path of the retrieval report (workloads/anneal/retrieval.c).
 *
 * Three steps on the context's stream:
 *   1. norms: ||q_i||^2 and ||a_j||^2 into scratch (nq + m floats), one warp per row;
 *   2. the dot products q_i . a_j by cublasSgemm in strict fp32 (CUBLAS_PEDANTIC_MATH: no TF32),
 *      straight into dist. Row-major dist (nq x m) is column-major m x nq = A^T-free: cuBLAS's
 *      "A" is the anchors read as a column-major d x m matrix, transposed (m x d), its "B" the
 *      queries as a column-major d x nq matrix, so C(j, i) = a_j . q_i lands at dist[i * m + j];
 *   3. in place: dist = fma(-2, dot, ||q||^2 + ||a||^2), clamped to >= +0.0f (also turns -0.0f
 *      and NaN into +0.0f), grid-stride over the nq x m elements.
 * The search is small next to a run (100 queries x 1024 anchors x 384 is 39 M multiply-adds), so
 * the library GEMM and an elementwise epilogue are enough; no fused kernel. */
#include "cuda_anneal.cuh"
#include "cuda_blas.h"

#define XPB_SEARCH_THREADS 256

/* norm[r] = ||row r||^2 for the nq rows of q, then the m rows of a; one warp per row. */
__global__ void __launch_bounds__(XPB_SEARCH_THREADS)
xpb_anneal_search_norms(const float *__restrict__ q, const float *__restrict__ a, float *__restrict__ norm,
                        int nq, int m, int d)
{
    const int warps = XPB_SEARCH_THREADS / 32;
    const int64_t rows = (int64_t)nq + m;
    for (int64_t r = (int64_t)blockIdx.x * warps + (threadIdx.x >> 5); r < rows; r += (int64_t)gridDim.x * warps) {
        const float *row = r < nq ? q + r * d : a + (r - nq) * d;
        float s = 0.0f;
        for (int k = threadIdx.x & 31; k < d; k += 32)
            s = fmaf(row[k], row[k], s);
        s = xpb_warp_allreduce<32>(s, xpb_sum_op());
        if ((threadIdx.x & 31) == 0)
            norm[r] = s;
    }
}

/* dist[i * m + j] = max(fma(-2, dot, ||q_i||^2 + ||a_j||^2), +0), in place over the dot products. */
__global__ void __launch_bounds__(XPB_SEARCH_THREADS)
xpb_anneal_search_epilogue(float *__restrict__ dist, const float *__restrict__ norm, int nq, int m)
{
    const int64_t total = (int64_t)nq * m, stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
        const int64_t i = e / m, j = e - i * m;
        const float v = fmaf(-2.0f, dist[e], norm[i] + norm[nq + j]);
        dist[e] = v > 0.0f ? v : 0.0f;
    }
}

static xpb_status search_check(const xpb_anneal_search_args *a, xpb_error *err)
{
    if (a->nq < 1 || a->nq > INT32_MAX || a->m < 1 || a->m > INT32_MAX || a->nq * a->m > INT32_MAX)
        return xpb_fail(err, XPB_ERR_USAGE, "anneal/search: nq = %lld, m = %lld outside 1 .. 2^31 - 1 (each and "
                        "their product)", (long long)a->nq, (long long)a->m);
    if (a->d < 1 || a->d > XPB_ANNEAL_MAX_D)
        return xpb_fail(err, XPB_ERR_USAGE, "anneal/search: d = %lld outside 1 .. %d", (long long)a->d,
                        XPB_ANNEAL_MAX_D);
    return XPB_OK;
}

static xpb_status search_supports(void *ctx, const void *vargs, xpb_error *why)
{
    (void)ctx;
    return search_check(static_cast<const xpb_anneal_search_args *>(vargs), why);
}

static xpb_status search_launch(void *vctx, const void *vargs, void *state, xpb_error *err)
{
    (void)state;
    xpb_cuda_ctx *ctx = static_cast<xpb_cuda_ctx *>(vctx);
    const xpb_anneal_search_args *a = static_cast<const xpb_anneal_search_args *>(vargs);
    xpb_status st = search_check(a, err);
    if (st != XPB_OK)
        return st;
    const size_t nq = (size_t)a->nq, d = (size_t)a->d, m = (size_t)a->m;
    void *q = NULL, *anchors = NULL, *dist = NULL, *scratch = NULL;
    if ((st = xpb_anneal_view(&a->queries, nq * d * 4, "anneal/search: queries", &q, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->anchors, m * d * 4, "anneal/search: anchors", &anchors, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->dist, nq * m * 4, "anneal/search: dist", &dist, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->scratch, XPB_ANNEAL_SEARCH_SCRATCH_BYTES(nq, m), "anneal/search: scratch",
                              &scratch, err)) != XPB_OK)
        return st;
    cublasHandle_t h = NULL;
    if ((st = xpb_cuda_blas_handle(ctx, CUBLAS_PEDANTIC_MATH, &h, err)) != XPB_OK)
        return st;
    const float *qf = static_cast<const float *>(q), *af = static_cast<const float *>(anchors);
    float *df = static_cast<float *>(dist), *norm = static_cast<float *>(scratch);
    const int inq = (int)nq, im = (int)m, id = (int)d;

    const int warps = XPB_SEARCH_THREADS / 32;
    const unsigned ngrid = xpb_cuda_grid(ctx, ((int64_t)nq + (int64_t)m + warps - 1) / warps, XPB_SEARCH_THREADS, 4);
    xpb_anneal_search_norms<<<ngrid, XPB_SEARCH_THREADS, 0, ctx->stream>>>(qf, af, norm, inq, im, id);
    XPB_CUDA_CHECK_LAUNCH(err, "anneal/search (norms)");
    const float one = 1.0f, zero = 0.0f;
    XPB_CUBLAS_CHECK(err, cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, im, inq, id, &one, af, id, qf, id, &zero, df, im));
    const int64_t total = (int64_t)nq * (int64_t)m;
    const unsigned egrid = xpb_cuda_grid(ctx, (total + XPB_SEARCH_THREADS - 1) / XPB_SEARCH_THREADS,
                                         XPB_SEARCH_THREADS, 4);
    xpb_anneal_search_epilogue<<<egrid, XPB_SEARCH_THREADS, 0, ctx->stream>>>(df, norm, inq, im);
    XPB_CUDA_CHECK_LAUNCH(err, "anneal/search (epilogue)");
    return XPB_OK;
}

extern "C" const xpb_kernel xpb_cuda_anneal_search = {
    /* .op        = */ XPB_OP_ANNEAL_SEARCH,
    /* .variant   = */ "default",
    /* .precision = */ "fp32",
    /* .supports  = */ search_supports,
    /* .prepare   = */ NULL,
    /* .release   = */ NULL,
    /* .launch    = */ search_launch,
};
