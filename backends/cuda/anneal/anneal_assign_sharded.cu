/* anneal_assign_sharded.cu - the `sharded` workload's annealing assign on a device group
 * (cuda_group.c; docs/multi-gpu.md, "Sharded annealing assign"): the points split by rank, the
 * anchors replicated, the per-anchor counts summed over the group with NCCL.
 *
 * Group rank r of P assigns the points [r n / P, (r+1) n / P) (xpb_cuda_shard_first) with the
 * one-GPU assign kernels (anneal_assign.cu, through xpb_cuda_anneal_assign_enqueue: the same bits
 * as one GPU on every point), counts its points per anchor (uint32 atomics: an integer sum is the
 * same in any order), and an in-place ncclAllReduce (uint32 sum) gives every rank the group's
 * counts: what a sharded stateful run needs before its stats. Every rank holds the whole x and
 * anchors (the harness uploads them to each); a rank with no point still takes part in the
 * all_reduce, with zeros.
 *
 * xpb_anneal_assign_args as the one-GPU op, except that `dist` holds 2n + m floats, so that the
 * one array the harness validates (the case's output 0) shows all three results:
 *   dist[i]          i < n   the distance, as the one-GPU op's dist
 *   dist[n + i]      i < n   assign[i] as fp32 (exact: m <= n <= 2^24)
 *   dist[2n + j]     j < m   the group's count of anchor j as fp32 (exact: n <= 2^24), every rank
 * and `scratch` holds XPB_ANNEAL_SCRATCH_BYTES(n, m) bytes (the anchors' norms, this rank's counts).
 * A download reads dist[i] and dist[n + i] from the rank that assigned point i (column parts of a
 * 2 x n matrix) and the counts from the last rank. n above 2^24 is unsupported, with the reason.
 *
 * Built with NCCL only (XPB_HAVE_NCCL), like the other group kernels; without it this file is
 * empty and cuda_backend.c does not list the kernel. */
#ifdef XPB_HAVE_NCCL
#include "cuda_anneal.cuh"
#include "cuda_nccl.h"

#define XPB_SHARD_THREADS 256
#define XPB_SHARD_EXACT_F32 (INT64_C(1) << 24) /* integers up to this are exact in fp32 */

/* This rank's points: counts[assign[i]] += 1, and assign[i] as fp32 into the validated row. */
__global__ void __launch_bounds__(XPB_SHARD_THREADS)
xpb_anneal_shard_count(const uint32_t *__restrict__ assign, float *__restrict__ assign_f,
                       uint32_t *__restrict__ counts, int n, uint32_t m)
{
    for (int i = blockIdx.x * XPB_SHARD_THREADS + threadIdx.x; i < n; i += gridDim.x * XPB_SHARD_THREADS) {
        const uint32_t j = assign[i];
        if (j < m) /* always, from the assign kernel; never an atomic out of bounds */
            atomicAdd(&counts[j], 1u);
        assign_f[i] = (float)j;
    }
}

/* The group's counts (after the all_reduce) as fp32 into the validated tail. */
__global__ void __launch_bounds__(XPB_SHARD_THREADS)
xpb_anneal_shard_counts_f32(const uint32_t *__restrict__ counts, float *__restrict__ out, int m)
{
    for (int j = blockIdx.x * XPB_SHARD_THREADS + threadIdx.x; j < m; j += gridDim.x * XPB_SHARD_THREADS)
        out[j] = (float)counts[j];
}

static xpb_status sharded_check(const xpb_anneal_assign_args *a, xpb_error *err)
{
    const xpb_status st = xpb_anneal_check_sizes("anneal_assign_sharded", a->n, a->d, a->m, err);
    if (st == XPB_OK && a->n > XPB_SHARD_EXACT_F32)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED,
                        "anneal_assign_sharded: n = %lld above 2^24 (counts and indices are returned as exact fp32)",
                        (long long)a->n);
    return st;
}

static xpb_status sharded_supports(void *vctx, const void *vargs, xpb_error *why)
{
    if (xpb_cuda_group_size(static_cast<const xpb_cuda_ctx *>(vctx)) == 0)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED, "anneal_assign_sharded needs a device group (--devices)");
    return sharded_check(static_cast<const xpb_anneal_assign_args *>(vargs), why);
}

/* A view's address on this process's l-th rank (its bounds were checked on rank 0's copy: every
 * rank's copy has the same size). */
static char *rank_at(const xpb_view *v, int l) { return static_cast<char *>(v->buf->rank_ptr[l]) + v->offset; }

/* Rank l (group rank r of p): assign its slice, zero and fill its counts. */
static xpb_status rank_assign(const xpb_cuda_ctx *rank, const xpb_anneal_assign_args *a, int l, int r, int p,
                              uint32_t *counts, float *anorm, xpb_error *err)
{
    const int64_t n0 = xpb_cuda_shard_first(r, p, a->n), cnt = xpb_cuda_shard_first(r + 1, p, a->n) - n0;
    const float *x = reinterpret_cast<const float *>(rank_at(&a->x, l)) + n0 * a->d;
    const float *anchors = reinterpret_cast<const float *>(rank_at(&a->anchors, l));
    uint32_t *assign = reinterpret_cast<uint32_t *>(rank_at(&a->assign, l)) + n0;
    float *dist = reinterpret_cast<float *>(rank_at(&a->dist, l));
    xpb_status st = xpb_cuda_activate(rank, err);
    if (st == XPB_OK)
        st = xpb_cuda_anneal_assign_enqueue(rank, x, anchors, anorm, assign, dist + n0, cnt, a->d, a->m, err);
    if (st != XPB_OK)
        return st;
    XPB_CUDA_CHECK(err, cudaMemsetAsync(counts, 0, (size_t)a->m * sizeof *counts, rank->stream));
    if (cnt > 0) {
        const unsigned grid = xpb_cuda_grid(rank, (cnt + XPB_SHARD_THREADS - 1) / XPB_SHARD_THREADS, XPB_SHARD_THREADS, 2);
        xpb_anneal_shard_count<<<grid, XPB_SHARD_THREADS, 0, rank->stream>>>(assign, dist + a->n + n0, counts, (int)cnt,
                                                                           (uint32_t)a->m);
        XPB_CUDA_CHECK_LAUNCH(err, "anneal_assign_sharded (counts)");
    }
    return XPB_OK;
}

static xpb_status sharded_launch(void *vctx, const void *vargs, void *state, xpb_error *err)
{
    (void)state;
    const xpb_cuda_ctx *ctx = static_cast<const xpb_cuda_ctx *>(vctx);
    const xpb_anneal_assign_args *a = static_cast<const xpb_anneal_assign_args *>(vargs);
    xpb_status st = sharded_check(a, err);
    const size_t n = (size_t)a->n, d = (size_t)a->d, m = (size_t)a->m;
    void *p0 = NULL;
    xpb_anneal_carver sc;
    if (st != XPB_OK ||
        (st = xpb_anneal_view(&a->x, n * d * 4, "anneal_assign_sharded: x", &p0, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->anchors, m * d * 4, "anneal_assign_sharded: anchors", &p0, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->assign, n * 4, "anneal_assign_sharded: assign", &p0, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->dist, (2 * n + m) * 4, "anneal_assign_sharded: dist (2n + m)", &p0, err)) != XPB_OK ||
        (st = xpb_anneal_scratch(&a->scratch, a->n, a->m, "anneal_assign_sharded: scratch", &sc, err)) != XPB_OK)
        return st;
    /* the same carving on every rank: offsets into each rank's scratch */
    const size_t anorm_at = (size_t)(static_cast<char *>(xpb_anneal_carve(&sc, m * 4)) - sc.base);
    const size_t counts_at = (size_t)(static_cast<char *>(xpb_anneal_carve(&sc, m * 4)) - sc.base);
    const int p = xpb_cuda_group_size(ctx), first = xpb_cuda_group_first(ctx), local = xpb_cuda_group_local(ctx);
    /* dist and its fp32 assign row: rank r's columns of a 2 x n matrix come from rank r; the
     * counts after it from the last rank */
    xpb_cuda_group_set_column_parts(a->dist.buf, a->dist.offset, 2, a->n, 0);
    for (int l = 0; l < local && st == XPB_OK; l++) {
        char *scratch = rank_at(&a->scratch, l);
        st = rank_assign(xpb_cuda_group_rank_ctx(ctx, l), a, l, first + l, p,
                         reinterpret_cast<uint32_t *>(scratch + counts_at), reinterpret_cast<float *>(scratch + anorm_at),
                         err);
    }
    if (st != XPB_OK)
        return st;
    XPB_NCCL_CHECK(err, ncclGroupStart());
    for (int l = 0; l < local && st == XPB_OK; l++) {
        uint32_t *counts = reinterpret_cast<uint32_t *>(rank_at(&a->scratch, l) + counts_at);
        const ncclResult_t nr = ncclAllReduce(counts, counts, m, ncclUint32, ncclSum, xpb_cuda_group_comm(ctx, l),
                                              xpb_cuda_group_stream(ctx, l));
        if (nr != ncclSuccess)
            st = xpb_nccl_fail(err, nr, "ncclAllReduce", __FILE__, __LINE__);
    }
    const ncclResult_t end = ncclGroupEnd(); /* always closes the group, even after a failed call */
    if (st == XPB_OK && end != ncclSuccess)
        st = xpb_nccl_fail(err, end, "ncclGroupEnd", __FILE__, __LINE__);
    for (int l = 0; l < local && st == XPB_OK; l++) {
        const xpb_cuda_ctx *rank = xpb_cuda_group_rank_ctx(ctx, l);
        if ((st = xpb_cuda_activate(rank, err)) != XPB_OK)
            break;
        const unsigned grid = xpb_cuda_grid(rank, ((int64_t)m + XPB_SHARD_THREADS - 1) / XPB_SHARD_THREADS,
                                            XPB_SHARD_THREADS, 1);
        xpb_anneal_shard_counts_f32<<<grid, XPB_SHARD_THREADS, 0, rank->stream>>>(
            reinterpret_cast<const uint32_t *>(rank_at(&a->scratch, l) + counts_at),
            reinterpret_cast<float *>(rank_at(&a->dist, l)) + 2 * n, (int)m);
        XPB_CUDA_CHECK_LAUNCH(err, "anneal_assign_sharded (counts to fp32)");
    }
    return st;
}

extern "C" const xpb_kernel xpb_cuda_anneal_assign_sharded = {
    /* .op        = */ XPB_OP_ANNEAL_ASSIGN_SHARDED,
    /* .variant   = */ "default",
    /* .precision = */ "fp32",
    /* .supports  = */ sharded_supports,
    /* .prepare   = */ NULL,
    /* .release   = */ NULL,
    /* .launch    = */ sharded_launch,
};
#endif
