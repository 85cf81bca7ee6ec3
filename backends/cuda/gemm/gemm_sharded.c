/* gemm_sharded.c - the `sharded` workload's GEMM on a device group (cuda_group.c): C = A B in
 * strict fp32 cuBLAS (as gemm `cublas`), split by columns of B. Group rank r of P computes the
 * columns [r N / P, (r+1) N / P) of C from all of A and those columns of B (every rank holds the
 * whole inputs: the harness uploads them to each).
 *
 * Row-major to cuBLAS's column-major as in gemm_cublas.cu: C^T = B^T A^T, so a block of columns
 * of B and C is a block of rows of cuBLAS's "A" and "C": the same pointers moved by n0, the same
 * leading dimension N.
 *
 *   cublas         each rank writes its columns into its own C, in place: the compute alone;
 *                  a download reads each rank's columns from it.
 *   cublas-gather  each rank computes its block into a staging buffer of P blocks of
 *                  ceil(N / P) columns (contiguous, so that NCCL can gather them), all_gather in
 *                  place, then every block is copied into its columns of C (cudaMemcpy2DAsync):
 *                  every rank ends with the whole C. A download reads each block from a rank that
 *                  did not compute it (the next one), which checks the gather. */
#include "cuda_blas.h"
#include "cuda_gemm.h"
#include "cuda_nccl.h"
#include "xpb_mpi.h"

#include <stdlib.h>

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    if (xpb_cuda_group_size(ctx) == 0)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED, "a sharded GEMM needs a device group (--devices)");
    return xpb_cuda_gemm_supports_int32(args, "gemm_sharded", why);
}

/* One rank's block: C[:, n0:n1] (ldc) = A B[:, n0:n1], into c (which starts at column n0). */
static xpb_status block(xpb_cuda_ctx *rank, const float *a, const float *b, float *c, int64_t ldc, int64_t m,
                        int64_t n, int64_t k, int64_t n0, int64_t n1, xpb_error *err)
{
    if (n1 <= n0 || m == 0)
        return XPB_OK;
    cublasHandle_t h = NULL;
    xpb_status st = xpb_cuda_blas_handle(rank, CUBLAS_PEDANTIC_MATH, &h, err);
    if (st)
        return st;
    const float one = 1.0f, zero = 0.0f;
    XPB_CUBLAS_CHECK(err, cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)(n1 - n0), (int)m, (int)k, &one, b + n0,
                                      (int)n, a, (int)(k > 1 ? k : 1), &zero, c, (int)ldc));
    return XPB_OK;
}

static const float *rank_ptr(const xpb_view *v, int l) { return (const float *)((const char *)v->buf->rank_ptr[l] + v->offset); }

static xpb_status sharded_launch(void *vctx, const void *vargs, void *state, xpb_error *err)
{
    (void)state;
    xpb_cuda_ctx *ctx = vctx;
    const xpb_gemm_args *a = vargs;
    int p = xpb_cuda_group_size(ctx), first = xpb_cuda_group_first(ctx);
    xpb_cuda_group_set_column_parts(a->c.buf, a->c.offset, a->m, a->n, 0);
    xpb_status st = XPB_OK;
    for (int l = 0; l < xpb_cuda_group_local(ctx) && !st; l++) {
        int r = first + l;
        int64_t n0 = xpb_cuda_shard_first(r, p, a->n), n1 = xpb_cuda_shard_first(r + 1, p, a->n);
        float *c = (float *)rank_ptr(&a->c, l) + n0;
        st = block(xpb_cuda_group_rank_ctx(ctx, l), rank_ptr(&a->a, l), rank_ptr(&a->b, l), c, a->n, a->m, a->n,
                   a->k, n0, n1, err);
    }
    return st;
}

/* ---- cublas-gather: a staging buffer per rank this process drives ------------------------------- */

typedef struct gather_state {
    int local;
    int64_t chunk; /* columns per block: ceil(N / P) */
    float *staging[XPB_MAX_GROUP];
} gather_state;

static void gather_release(void *vctx, void *vstate)
{
    xpb_cuda_ctx *ctx = vctx;
    gather_state *s = vstate;
    for (int l = 0; s && l < s->local; l++)
        if (s->staging[l] && xpb_cuda_activate(xpb_cuda_group_rank_ctx(ctx, l), NULL) == XPB_OK)
            (void)cudaFree(s->staging[l]);
    (void)cudaGetLastError();
    free(s);
}

static xpb_status gather_prepare(void *vctx, const void *vargs, void **out, xpb_error *err)
{
    xpb_cuda_ctx *ctx = vctx;
    const xpb_gemm_args *a = vargs;
    int p = xpb_cuda_group_size(ctx);
    gather_state *s = calloc(1, sizeof *s);
    xpb_status st = s ? XPB_OK : xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "gemm_sharded: out of host memory");
    if (s) {
        s->local = xpb_cuda_group_local(ctx);
        s->chunk = (a->n + p - 1) / p;
    }
    size_t bytes = s ? (size_t)p * (size_t)a->m * (size_t)s->chunk * sizeof(float) : 0;
    for (int l = 0; s && l < s->local && !st; l++) {
        if (!(st = xpb_cuda_activate(xpb_cuda_group_rank_ctx(ctx, l), err))) {
            cudaError_t e = cudaMalloc((void **)&s->staging[l], bytes ? bytes : 4);
            if (e != cudaSuccess)
                st = xpb_fail(err, xpb_cuda_status(e), "gemm_sharded: cudaMalloc of %zu bytes of staging: %s", bytes,
                              cudaGetErrorString(e));
        }
    }
    st = xpb_mpi_agree(st, err); /* under MPI: every process has its staging, or none goes on */
    if (st) {
        gather_release(ctx, s);
        return st;
    }
    *out = s;
    return XPB_OK;
}

/* Every block, gathered in the staging buffer, into its columns of c. */
static xpb_status place_blocks(xpb_cuda_ctx *rank, const float *staging, float *c, const xpb_gemm_args *a, int p,
                               int64_t chunk, xpb_error *err)
{
    for (int q = 0; q < p; q++) {
        int64_t n0 = xpb_cuda_shard_first(q, p, a->n), n1 = xpb_cuda_shard_first(q + 1, p, a->n);
        if (n1 <= n0 || a->m == 0)
            continue;
        XPB_CUDA_CHECK(err, cudaMemcpy2DAsync(c + n0, (size_t)a->n * 4, staging + (size_t)q * (size_t)a->m * (size_t)chunk,
                                        (size_t)chunk * 4, (size_t)(n1 - n0) * 4, (size_t)a->m,
                                        cudaMemcpyDeviceToDevice, rank->stream));
    }
    return XPB_OK;
}

static xpb_status gather_launch(void *vctx, const void *vargs, void *vstate, xpb_error *err)
{
    xpb_cuda_ctx *ctx = vctx;
    const xpb_gemm_args *a = vargs;
    gather_state *s = vstate;
    int p = xpb_cuda_group_size(ctx), first = xpb_cuda_group_first(ctx);
    size_t block_floats = (size_t)a->m * (size_t)s->chunk;
    xpb_cuda_group_set_column_parts(a->c.buf, a->c.offset, a->m, a->n, 1);
    xpb_status st = XPB_OK;
    for (int l = 0; l < s->local && !st; l++) { /* each block, row-major with leading dimension chunk */
        int r = first + l;
        int64_t n0 = xpb_cuda_shard_first(r, p, a->n), n1 = xpb_cuda_shard_first(r + 1, p, a->n);
        st = block(xpb_cuda_group_rank_ctx(ctx, l), rank_ptr(&a->a, l), rank_ptr(&a->b, l),
                   s->staging[l] + (size_t)r * block_floats, s->chunk, a->m, a->n, a->k, n0, n1, err);
    }
    if (st)
        return st;
    XPB_NCCL_CHECK(err, ncclGroupStart());
    for (int l = 0; l < s->local && !st; l++) { /* in place: rank r's block is already at slot r */
        ncclResult_t nr = ncclAllGather(s->staging[l] + (size_t)(first + l) * block_floats, s->staging[l], block_floats,
                                        ncclFloat, xpb_cuda_group_comm(ctx, l), xpb_cuda_group_stream(ctx, l));
        if (nr != ncclSuccess)
            st = xpb_nccl_fail(err, nr, "ncclAllGather", __FILE__, __LINE__);
    }
    ncclResult_t end = ncclGroupEnd(); /* always closes the group, even after a failed call */
    if (!st && end != ncclSuccess)
        st = xpb_nccl_fail(err, end, "ncclGroupEnd", __FILE__, __LINE__);
    for (int l = 0; l < s->local && !st; l++) {
        xpb_cuda_ctx *rank = xpb_cuda_group_rank_ctx(ctx, l);
        if (!(st = xpb_cuda_activate(rank, err)))
            st = place_blocks(rank, s->staging[l], (float *)rank_ptr(&a->c, l), a, p, s->chunk, err);
    }
    return st;
}

const xpb_kernel xpb_cuda_gemm_sharded = {
    .op = XPB_OP_GEMM_SHARDED,
    .variant = "cublas",
    .precision = "fp32",
    .supports = supports,
    .launch = sharded_launch,
};

const xpb_kernel xpb_cuda_gemm_sharded_gather = {
    .op = XPB_OP_GEMM_SHARDED,
    .variant = "cublas-gather",
    .precision = "fp32",
    .supports = supports,
    .prepare = gather_prepare,
    .release = gather_release,
    .launch = gather_launch,
};
