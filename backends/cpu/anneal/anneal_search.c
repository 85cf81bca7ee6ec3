/* anneal_search.c - anneal search (XPB_OP_ANNEAL_SEARCH, xpb_ops.h): the nq x m squared distances
 * from the queries to the anchors, ||q||^2 - 2 q.a + ||a||^2 (GEMM form, as in assign), clamped
 * to >= +0. The q.a products come from BLAS (cblas_sgemm) straight into the output, one block of
 * anchors (columns) at a time, then the norms are added in place while the block is in cache.
 * Blocks: m / threads columns rounded up to 16, at most 256, so that the 256 anchors of a 10K
 * case still spread over every core (100 queries x 256 anchors x 128 on the H100 host's 16
 * cores: 568 us as one block of 256, 84 us in blocks of 16).
 *
 * Threads as in anneal_assign.c: the OpenMP team takes column blocks and each thread calls a
 * single-threaded sgemm on its own block (OpenBLAS set to one thread for the call, restored
 * after), so OpenBLAS's pool and OpenMP's never spin against each other. */
#include <omp.h>

#include "cpu_blas.h"
#include "cpu_anneal.h"

#define MAX_BLOCK_COLS 256 /* anchors per block: 100 queries x 256 anchors of output stay in L2 */

static xpb_status search_sizes(const xpb_anneal_search_args *a, xpb_error *err)
{
    if (a->nq < 1 || a->nq >= ((int64_t)1 << 31) || a->d < 1 || a->d > 4096 || a->m < 1 ||
        a->m >= ((int64_t)1 << 31) || (double)a->nq * (double)a->m >= 0x1p31)
        return xpb_fail(err, XPB_ERR_USAGE, "cpu: bad anneal search sizes nq=%lld d=%lld m=%lld", (long long)a->nq,
                        (long long)a->d, (long long)a->m);
    return XPB_OK;
}

static float sqnorm(const float *v, int64_t d)
{
    float s = 0.0f;
    for (int64_t k = 0; k < d; k++)
        s += v[k] * v[k];
    return s;
}

static xpb_status search_launch(void *ctx, const void *args_, void *state, xpb_error *err)
{
    (void)ctx, (void)state;
    const xpb_anneal_search_args *a = args_;
    const int64_t nq = a->nq, d = a->d, m = a->m;
    void *pq, *pa, *pd, *ps;
    xpb_status st = search_sizes(a, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->queries, (size_t)(nq * d) * 4, "queries", &pq, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->anchors, (size_t)(m * d) * 4, "anchors", &pa, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->dist, (size_t)(nq * m) * 4, "dist", &pd, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->scratch, XPB_ANNEAL_SEARCH_SCRATCH_BYTES(nq, m), "scratch", &ps, err);
    if (st)
        return st;
    const float *q = pq, *an = pa;
    float *dist = pd, *qnorm = ps; /* scratch: ||q||^2 (nq floats) */
    for (int64_t i = 0; i < nq; i++)
        qnorm[i] = sqnorm(q + i * d, d);
    int blas_threads = xpb_blas_get_num_threads();
    xpb_blas_set_num_threads(1);
    int64_t threads = omp_get_max_threads(), cols = ((m + threads - 1) / threads + 15) / 16 * 16;
    cols = cols > MAX_BLOCK_COLS ? MAX_BLOCK_COLS : cols;
    int64_t blocks = (m + cols - 1) / cols;
#pragma omp parallel for schedule(dynamic, 1) if (blocks > 1)
    for (int64_t b = 0; b < blocks; b++) {
        int64_t c0 = b * cols, nc = m - c0 < cols ? m - c0 : cols;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (blasint)nq, (blasint)nc, (blasint)d, 1.0f, q,
                    (blasint)d, an + c0 * d, (blasint)d, 0.0f, dist + c0, (blasint)m);
        for (int64_t j = c0; j < c0 + nc; j++) {
            float anorm = sqnorm(an + j * d, d);
            for (int64_t i = 0; i < nq; i++) {
                float v = qnorm[i] - 2.0f * dist[i * m + j] + anorm;
                dist[i * m + j] = v > 0.0f ? v : 0.0f; /* +0, never -0 */
            }
        }
    }
    xpb_blas_set_num_threads(blas_threads);
    return XPB_OK;
}

const xpb_kernel xpb_cpu_anneal_search = {
    .op = XPB_OP_ANNEAL_SEARCH,
    .variant = "blas",
    .precision = "fp32",
    .launch = search_launch,
};
