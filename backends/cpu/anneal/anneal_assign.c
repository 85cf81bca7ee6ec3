/* anneal_assign.c - anneal assign: each point's nearest anchor (ties to the lowest index) and its
 * distance. Distances GEMM-style, ||x||^2 - 2 x.a + ||a||^2, with the x.a tile from BLAS
 * (cblas_sgemm) for a block of points at a time, so the n x m matrix is never stored whole.
 *
 * Threads: the OpenMP team takes blocks of points and each thread calls a single-threaded sgemm
 * on its own block, then takes the argmin of it while it is in cache. Letting OpenBLAS's own
 * pthreads run a multi-threaded sgemm between OpenMP regions made both pools spin against each
 * other (measured on the H100 host's 16 cores: 0.6 GFLOP/s); so OpenBLAS is set to one thread for
 * the call and restored after (kernels run synchronously, nothing else calls BLAS meanwhile). */
#include <omp.h>

#include "cpu_blas.h"
#include "cpu_anneal.h"

#define BLOCK_ROWS 256

static xpb_status assign_launch(void *ctx, const void *args_, void *state, xpb_error *err)
{
    (void)ctx, (void)state;
    const xpb_anneal_assign_args *a = args_;
    const int64_t n = a->n, d = a->d, m = a->m;
    void *px, *pa, *pg, *pd, *ps;
    size_t scratch = XPB_ANNEAL_SCRATCH_BYTES(n, m);
    xpb_status st = xpb_cpu_anneal_sizes(n, d, m, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->x, (size_t)(n * d) * 4, "x", &px, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->anchors, (size_t)(m * d) * 4, "anchors", &pa, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->assign, (size_t)n * 4, "assign", &pg, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->dist, (size_t)n * 4, "dist", &pd, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->scratch, scratch, "scratch", &ps, err);
    if (st)
        return st;
    const float *x = px, *an = pa;
    uint32_t *asg = pg;
    float *dist = pd;
    /* scratch: ||a||^2 (m floats, rounded up to 64), then one block of x.a products per thread */
    float *anorm = ps, *tiles = anorm + (m + 63) / 64 * 64;
    int threads = omp_get_max_threads();
    size_t per_thread = (scratch / 4 - (size_t)(tiles - anorm)) / (size_t)threads;
    int64_t rows = (int64_t)(per_thread / (size_t)m);
    rows = rows > BLOCK_ROWS ? BLOCK_ROWS : rows;
    if (rows < 1)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED, "cpu: assign: m = %lld anchors need more scratch than "
                        "XPB_ANNEAL_SCRATCH_BYTES gives %d threads", (long long)m, threads);
    for (int64_t j = 0; j < m; j++) {
        float s = 0.0f;
        for (int64_t k = 0; k < d; k++)
            s += an[j * d + k] * an[j * d + k];
        anorm[j] = s;
    }
    int blas_threads = xpb_blas_get_num_threads();
    xpb_blas_set_num_threads(1);
    int64_t blocks = (n + rows - 1) / rows;
#pragma omp parallel for schedule(dynamic, 1) if (blocks > 1)
    for (int64_t b = 0; b < blocks; b++) {
        float *tile = tiles + (size_t)omp_get_thread_num() * (size_t)rows * (size_t)m;
        int64_t r0 = b * rows, nr = n - r0 < rows ? n - r0 : rows;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (blasint)nr, (blasint)m, (blasint)d, 1.0f, x + r0 * d,
                    (blasint)d, an, (blasint)d, 0.0f, tile, (blasint)m);
        for (int64_t r = 0; r < nr; r++) {
            const float *xi = x + (r0 + r) * d;
            float xn = 0.0f;
            for (int64_t k = 0; k < d; k++)
                xn += xi[k] * xi[k];
            float best = xn - 2.0f * tile[r * m] + anorm[0];
            uint32_t bj = 0;
            for (int64_t j = 1; j < m; j++) {
                float v = xn - 2.0f * tile[r * m + j] + anorm[j];
                if (v < best)
                    best = v, bj = (uint32_t)j;
            }
            asg[r0 + r] = bj;
            dist[r0 + r] = best > 0.0f ? best : 0.0f; /* +0, never -0 */
        }
    }
    xpb_blas_set_num_threads(blas_threads);
    return XPB_OK;
}

const xpb_kernel xpb_cpu_anneal_assign = {
    .op = XPB_OP_ANNEAL_ASSIGN,
    .variant = "blas",
    .precision = "fp32",
    .launch = assign_launch,
};
