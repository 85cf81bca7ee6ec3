/* anneal_sharded.cu - the annealing run across a device group (the anneal workload's group op,
 * xpb_anneal_sharded_args; docs/multi-gpu.md, "Sharded annealing run"): the points split by rank,
 * everything per anchor the same on every rank.
 *
 * Group rank r of P owns the points [r n / P, (r+1) n / P) (xpb_cuda_shard_first). A STEP:
 *  1. assign on the rank's points with the one-GPU kernels (xpb_cuda_anneal_assign_enqueue: the
 *     same bits per point as one GPU);
 *  2. each owner broadcasts its slice of assign and dist (ncclBroadcast in place, one per rank
 *     in one NCCL group: an all_gather of unequal parts), so every rank holds every point's key
 *     (8 bytes a point; the points themselves never move: every rank holds all of x);
 *  3. on every rank over all points, stats' grouping and selection (anneal_stats.cu,
 *     xpb_cuda_anneal_stats_select_enqueue): the counts and each anchor's kept key range, exact
 *     integer work on the same keys, so the same on every rank;
 *  4. the moments, split: each rank sums, per anchor and dimension in fp64, its own kept points
 *     (a rank's points of an anchor are a contiguous run of the group's index-ordered members),
 *     ncclAllReduce (fp64 sum) of the m x d sums, mean = (float)(sum / kept) as the one-GPU op;
 *     then the same for var around that mean over all the anchor's points. Only the order of the
 *     fp64 additions differs from one GPU (per rank, then across ranks): the fp64 sum of up to n
 *     floats moves by a few fp64 ulps, so a mean rounds to another float only when it lies within
 *     ~1e-16 relative of a rounding boundary;
 *  5. update (the one-GPU kernel) on group rank 0, its anchors ncclBroadcast to every rank: the
 *     anchors are rank 0's bits everywhere even if an all_reduce's result were to differ by rank.
 * INIT (farthest point, m sequential steps) split by points too: step s on each rank is the
 * one-GPU step kernel (anneal_init.cu, xpb_cuda_anneal_init_step_enqueue) over the rank's points
 * only, its largest (bits(mind) << 32 | ~global index) key into slot[s]; then one ncclAllReduce
 * (uint64 max, 1 element) of slot[s], so that step s + 1 on every rank reads the same winner and
 * copies its row (every rank holds all of x) into anchors[s + 1]. A point's key is the same on
 * whichever rank computes it and a max is order-independent, so slot[s] is the one-GPU op's:
 * anchors and chosen are its bits on every rank. Every step is queued with no host round trip
 * (each rank's kernel, then the ranks' all_reduces in one NCCL group). XPB_CUDA_SHARDED_ANNEAL_INIT=
 * replicated keeps the one-GPU init on every rank over all points (A/B runs).
 * CHANGES runs the one-GPU kernel on every rank over all points (deterministic: the same energy
 * and changes on each). Not split, because it could not stay bit-identical simply: its energy
 * is an fp64 sum in the order of the one-GPU grid's partials (every partial strides over all the
 * points), and per-rank sums all_reduced would add in another order; the count alone would be
 * exact. It is one read of x an iteration (3.2 ms of a 10-iteration run at 1M x 128, m = 1024,
 * on one H200), where init is m reads of x (139.5 ms).
 * The run reads INIT's and CHANGES' results from rank 0. Between STEP and CHANGES the host's
 * maintenance (workloads/anneal/run.c) uploads the same anchors and assignments to every rank.
 *
 * Built with NCCL only (XPB_HAVE_NCCL), like the other group kernels. */
#ifdef XPB_HAVE_NCCL
#include <string.h>

#include "cuda_anneal.cuh"
#include "cuda_nccl.h"
#include "xpb_knob.h"

#define XPB_SHARDED_THREADS 256

extern "C" const xpb_kernel xpb_cuda_anneal_init, xpb_cuda_anneal_update, xpb_cuda_anneal_changes;

/* The first index p in group[0..c) with group[p] >= v (group ascending). */
__device__ __forceinline__ uint32_t xpb_sharded_lower_bound(const uint32_t *group, uint32_t c, uint32_t v)
{
    uint32_t lo = 0, hi = c;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (group[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* sums[a][k] over this rank's points [n0, n1) of anchor a: the kept x (VAR false) or, around the
 * fp32 mean, (x - mean)^2 of every point (VAR true), in fp64 in index order, as the one-GPU
 * moments kernel does over all points. One block per anchor, a thread per dimension. */
template <bool VAR>
__global__ void __launch_bounds__(XPB_SHARDED_THREADS)
xpb_sharded_moment_sums(const float *__restrict__ x, const float *__restrict__ dist,
                        const uint32_t *__restrict__ members, const uint32_t *__restrict__ counts,
                        const uint32_t *__restrict__ start, const unsigned long long *__restrict__ cut,
                        const float *__restrict__ mean, double *__restrict__ sums, int d, uint32_t n0, uint32_t n1)
{
    __shared__ uint32_t tile_i[XPB_SHARDED_THREADS];
    __shared__ unsigned char tile_kept[XPB_SHARDED_THREADS];
    const int a = blockIdx.x;
    const int bs = blockDim.x;
    const uint32_t c = counts[a];
    const uint32_t *group = members + start[a];
    const uint32_t p_lo = xpb_sharded_lower_bound(group, c, n0), p_hi = xpb_sharded_lower_bound(group, c, n1);
    const unsigned long long lo = cut[2 * a], hi = cut[2 * a + 1];
    for (int k0 = 0; k0 < d; k0 += bs) {
        const int k = k0 + threadIdx.x;
        const bool mine = k < d;
        const double mud = VAR && mine ? (double)mean[(int64_t)a * d + k] : 0.0;
        double s = 0.0;
        for (uint32_t p0 = p_lo; p0 < p_hi; p0 += bs) {
            __syncthreads(); /* the previous tile's readers are done */
            const uint32_t p = p0 + threadIdx.x;
            if (p < p_hi) {
                const uint32_t i = group[p];
                const unsigned long long key = xpb_stats_key(dist, i);
                tile_i[threadIdx.x] = i;
                tile_kept[threadIdx.x] = VAR || (lo <= key && key <= hi);
            }
            __syncthreads();
            const uint32_t cnt = p_hi - p0 < (uint32_t)bs ? p_hi - p0 : (uint32_t)bs;
            if (mine) {
                for (uint32_t q = 0; q < cnt; q++) {
                    if (!tile_kept[q])
                        continue;
                    const float v = x[(int64_t)tile_i[q] * d + k];
                    if constexpr (VAR) {
                        const double t = (double)v - mud;
                        s = fma(t, t, s);
                    } else {
                        s += (double)v;
                    }
                }
            }
        }
        if (mine)
            sums[(int64_t)a * d + k] = s;
    }
}

/* The group's sums into the fp32 result: mean = sum / kept (0 when c = 0), var = sum / (c - 1)
 * (0 when c < 2), as the one-GPU moments kernel. */
__global__ void __launch_bounds__(XPB_SHARDED_THREADS)
xpb_sharded_moment_finish(const double *__restrict__ sums, const uint32_t *__restrict__ counts,
                          float *__restrict__ out, int64_t m, int d, double trim, bool var)
{
    const int64_t total = m * d;
    for (int64_t e = (int64_t)blockIdx.x * XPB_SHARDED_THREADS + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * XPB_SHARDED_THREADS) {
        const uint32_t c = counts[e / d];
        uint32_t rlo, rhi;
        xpb_stats_trim_ranks(c, trim, &rlo, &rhi);
        const uint32_t kept = rhi - rlo + 1;
        out[e] = var ? (c >= 2 ? (float)(sums[e] / (double)(c - 1)) : 0.0f)
                     : (c > 0 ? (float)(sums[e] / (double)kept) : 0.0f);
    }
}

static xpb_status sharded_check(const xpb_anneal_sharded_args *a, xpb_error *err)
{
    xpb_status st = xpb_anneal_check_sizes("anneal/sharded", a->n, a->d, a->m, err);
    if (st == XPB_OK && !(a->trim >= 0.0 && a->trim <= 1.0))
        st = xpb_fail(err, XPB_ERR_USAGE, "anneal/sharded: trim = %g outside [0, 1]", a->trim);
    if (st == XPB_OK && a->m > (int64_t)INT32_MAX - 129)
        st = xpb_fail(err, XPB_ERR_UNSUPPORTED, "anneal/sharded: m = %lld above 2^31 - 129", (long long)a->m);
    if (st == XPB_OK && a->phase != XPB_ANNEAL_SHARDED_INIT && a->phase != XPB_ANNEAL_SHARDED_STEP &&
        a->phase != XPB_ANNEAL_SHARDED_CHANGES)
        st = xpb_fail(err, XPB_ERR_USAGE, "anneal/sharded: unknown phase %d", a->phase);
    return st;
}

static xpb_status sharded_supports(void *vctx, const void *vargs, xpb_error *why)
{
    if (xpb_cuda_group_size(static_cast<const xpb_cuda_ctx *>(vctx)) == 0)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED, "anneal/sharded needs a device group (--devices)");
    return sharded_check(static_cast<const xpb_anneal_sharded_args *>(vargs), why);
}

/* The one-GPU views of local rank l: each group buffer as that rank's own allocation. */
typedef struct rank_views {
    xpb_buffer buf[12];
    xpb_anneal_sharded_args a;
} rank_views;

static void rank_local(const xpb_anneal_sharded_args *a, int l, rank_views *rv)
{
    memset(rv, 0, sizeof *rv);
    rv->a = *a;
    xpb_view *v[] = {&rv->a.x, &rv->a.anchors, &rv->a.chosen, &rv->a.assign, &rv->a.prev, &rv->a.dist,
                     &rv->a.counts, &rv->a.mean, &rv->a.var, &rv->a.result, &rv->a.sums, &rv->a.scratch};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        if (!v[i]->buf || !v[i]->buf->rank_ptr)
            continue; /* unused by this phase (or not a group buffer: the view check says so) */
        rv->buf[i].ptr = v[i]->buf->rank_ptr[l];
        rv->buf[i].bytes = v[i]->buf->bytes;
        v[i]->buf = &rv->buf[i];
    }
}

static char *ptr(const xpb_view *v) { return static_cast<char *>(v->buf->ptr) + v->offset; }

/* One NCCL group over every local rank: call(l) issues rank l's collectives. */
template <typename F>
static xpb_status nccl_group(const xpb_cuda_ctx *ctx, const char *what, F call, xpb_error *err)
{
    xpb_status st = XPB_OK;
    XPB_NCCL_CHECK(err, ncclGroupStart());
    for (int l = 0; l < xpb_cuda_group_local(ctx) && st == XPB_OK; l++) {
        const ncclResult_t nr = call(l, xpb_cuda_group_comm(ctx, l), xpb_cuda_group_stream(ctx, l));
        if (nr != ncclSuccess)
            st = xpb_nccl_fail(err, nr, what, __FILE__, __LINE__);
    }
    const ncclResult_t end = ncclGroupEnd(); /* always closes the group, even after a failed call */
    if (st == XPB_OK && end != ncclSuccess)
        st = xpb_nccl_fail(err, end, "ncclGroupEnd", __FILE__, __LINE__);
    return st;
}

/* For each local rank l (group rank r): its context activated, its one-GPU views. */
template <typename F>
static xpb_status each_rank(const xpb_cuda_ctx *ctx, const xpb_anneal_sharded_args *a, F body, xpb_error *err)
{
    xpb_status st = XPB_OK;
    for (int l = 0; l < xpb_cuda_group_local(ctx) && st == XPB_OK; l++) {
        const xpb_cuda_ctx *rank = xpb_cuda_group_rank_ctx(ctx, l);
        rank_views rv;
        rank_local(a, l, &rv);
        if ((st = xpb_cuda_activate(rank, err)) == XPB_OK)
            st = body(rank, &rv.a, xpb_cuda_group_first(ctx) + l);
    }
    return st;
}

static xpb_status moments(const xpb_cuda_ctx *ctx, const xpb_anneal_sharded_args *a, bool var,
                          const xpb_anneal_stats_groups *g, xpb_error *err)
{
    const int p = xpb_cuda_group_size(ctx);
    const int threads = a->d >= XPB_SHARDED_THREADS ? XPB_SHARDED_THREADS : (int)((a->d + 31) / 32 * 32);
    xpb_status st = each_rank(ctx, a, [&](const xpb_cuda_ctx *rank, const xpb_anneal_sharded_args *la, int r) -> xpb_status {
        const int l = r - xpb_cuda_group_first(ctx);
        const uint32_t n0 = (uint32_t)xpb_cuda_shard_first(r, p, a->n), n1 = (uint32_t)xpb_cuda_shard_first(r + 1, p, a->n);
        const float *x = reinterpret_cast<const float *>(ptr(&la->x));
        const float *dist = reinterpret_cast<const float *>(ptr(&la->dist));
        const float *mean = reinterpret_cast<const float *>(ptr(&la->mean));
        double *sums = reinterpret_cast<double *>(ptr(&la->sums));
        if (var)
            xpb_sharded_moment_sums<true><<<(unsigned)a->m, threads, 0, rank->stream>>>(
                x, dist, g[l].members, reinterpret_cast<const uint32_t *>(ptr(&la->counts)), g[l].start, g[l].cut, mean,
                sums, (int)a->d, n0, n1);
        else
            xpb_sharded_moment_sums<false><<<(unsigned)a->m, threads, 0, rank->stream>>>(
                x, dist, g[l].members, reinterpret_cast<const uint32_t *>(ptr(&la->counts)), g[l].start, g[l].cut, mean,
                sums, (int)a->d, n0, n1);
        XPB_CUDA_CHECK_LAUNCH(err, "anneal/sharded (moment sums)");
        return XPB_OK;
    }, err);
    const size_t md = (size_t)a->m * (size_t)a->d;
    if (st == XPB_OK)
        st = nccl_group(ctx, "ncclAllReduce (moment sums)", [&](int l, ncclComm_t comm, cudaStream_t s) -> ncclResult_t {
            double *sums = reinterpret_cast<double *>(static_cast<char *>(a->sums.buf->rank_ptr[l]) + a->sums.offset);
            return ncclAllReduce(sums, sums, md, ncclFloat64, ncclSum, comm, s);
        }, err);
    if (st == XPB_OK)
        st = each_rank(ctx, a, [&](const xpb_cuda_ctx *rank, const xpb_anneal_sharded_args *la, int) -> xpb_status {
            const unsigned grid = xpb_cuda_grid(rank, ((int64_t)md + XPB_SHARDED_THREADS - 1) / XPB_SHARDED_THREADS,
                                                XPB_SHARDED_THREADS, 2);
            xpb_sharded_moment_finish<<<grid, XPB_SHARDED_THREADS, 0, rank->stream>>>(
                reinterpret_cast<const double *>(ptr(&la->sums)), reinterpret_cast<const uint32_t *>(ptr(&la->counts)),
                reinterpret_cast<float *>(ptr(var ? &la->var : &la->mean)), a->m, (int)a->d, a->trim, var);
            XPB_CUDA_CHECK_LAUNCH(err, "anneal/sharded (moments)");
            return XPB_OK;
        }, err);
    return st;
}

static xpb_status step(const xpb_cuda_ctx *ctx, const xpb_anneal_sharded_args *a, xpb_error *err)
{
    const int p = xpb_cuda_group_size(ctx);
    const size_t n = (size_t)a->n, d = (size_t)a->d, m = (size_t)a->m;
    void *chk = NULL;
    xpb_status st = XPB_OK;
    if ((st = xpb_anneal_view(&a->x, n * d * 4, "anneal/sharded: x", &chk, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->anchors, m * d * 4, "anneal/sharded: anchors", &chk, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->assign, n * 4, "anneal/sharded: assign", &chk, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->dist, n * 4, "anneal/sharded: dist", &chk, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->counts, m * 4, "anneal/sharded: counts", &chk, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->mean, m * d * 4, "anneal/sharded: mean", &chk, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->var, m * d * 4, "anneal/sharded: var", &chk, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->sums, m * d * 8, "anneal/sharded: sums", &chk, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->scratch, XPB_ANNEAL_SCRATCH_BYTES(n, m), "anneal/sharded: scratch", &chk, err)) !=
            XPB_OK)
        return st;
    /* 1. assign on the rank's points (anorm at the start of scratch; stats reuses it after) */
    st = each_rank(ctx, a, [&](const xpb_cuda_ctx *rank, const xpb_anneal_sharded_args *la, int r) -> xpb_status {
        const int64_t n0 = xpb_cuda_shard_first(r, p, a->n), cnt = xpb_cuda_shard_first(r + 1, p, a->n) - n0;
        return xpb_cuda_anneal_assign_enqueue(rank, reinterpret_cast<const float *>(ptr(&la->x)) + n0 * a->d,
                                              reinterpret_cast<const float *>(ptr(&la->anchors)),
                                              reinterpret_cast<float *>(ptr(&la->scratch)),
                                              reinterpret_cast<uint32_t *>(ptr(&la->assign)) + n0,
                                              reinterpret_cast<float *>(ptr(&la->dist)) + n0, cnt, a->d, a->m, err);
    }, err);
    /* 2. every owner's keys to every rank */
    if (st == XPB_OK)
        st = nccl_group(ctx, "ncclBroadcast (assign, dist)", [&](int l, ncclComm_t comm, cudaStream_t s) -> ncclResult_t {
            char *asg = static_cast<char *>(a->assign.buf->rank_ptr[l]) + a->assign.offset;
            char *dist = static_cast<char *>(a->dist.buf->rank_ptr[l]) + a->dist.offset;
            ncclResult_t nr = ncclSuccess;
            for (int q = 0; q < p && nr == ncclSuccess; q++) {
                const int64_t n0 = xpb_cuda_shard_first(q, p, a->n), cnt = xpb_cuda_shard_first(q + 1, p, a->n) - n0;
                if (cnt == 0) /* every rank skips the same root */
                    continue;
                nr = ncclBroadcast(asg + n0 * 4, asg + n0 * 4, (size_t)cnt, ncclUint32, q, comm, s);
                if (nr == ncclSuccess)
                    nr = ncclBroadcast(dist + n0 * 4, dist + n0 * 4, (size_t)cnt, ncclFloat32, q, comm, s);
            }
            return nr;
        }, err);
    /* 3. counts and kept key ranges on every rank over all points */
    xpb_anneal_stats_groups g[XPB_MAX_GROUP];
    if (st == XPB_OK)
        st = each_rank(ctx, a, [&](const xpb_cuda_ctx *rank, const xpb_anneal_sharded_args *la, int r) -> xpb_status {
            return xpb_cuda_anneal_stats_select_enqueue(
                rank, reinterpret_cast<const uint32_t *>(ptr(&la->assign)), reinterpret_cast<const float *>(ptr(&la->dist)),
                reinterpret_cast<uint32_t *>(ptr(&la->counts)), ptr(&la->scratch), a->n, a->m, a->trim,
                &g[r - xpb_cuda_group_first(ctx)], err);
        }, err);
    /* 4. the moments: each rank's own points, summed over the group */
    if (st == XPB_OK)
        st = moments(ctx, a, false, g, err);
    if (st == XPB_OK)
        st = moments(ctx, a, true, g, err);
    /* 5. update on rank 0, its anchors to every rank */
    if (st == XPB_OK)
        st = each_rank(ctx, a, [&](const xpb_cuda_ctx *rank, const xpb_anneal_sharded_args *la, int r) -> xpb_status {
            if (r != 0)
                return XPB_OK;
            const xpb_anneal_update_args ua = {la->anchors, la->counts, la->mean, a->m, a->d, a->lr_t};
            return xpb_cuda_anneal_update.launch(const_cast<xpb_cuda_ctx *>(rank), &ua, NULL, err);
        }, err);
    if (st == XPB_OK)
        st = nccl_group(ctx, "ncclBroadcast (anchors)", [&](int l, ncclComm_t comm, cudaStream_t s) -> ncclResult_t {
            char *anchors = static_cast<char *>(a->anchors.buf->rank_ptr[l]) + a->anchors.offset;
            return ncclBroadcast(anchors, anchors, m * d, ncclFloat32, 0, comm, s);
        }, err);
    return st;
}

/* INIT split by points (the header): each rank's plan over its points, then per step every local
 * rank's kernel and the all_reduce of slot[s] over the group (none after the last step: nothing
 * reads its slot). One process driving every rank and one process a rank (mpirun) run the same
 * loop; NCCL orders each all_reduce after the kernel before it on the rank's stream. */
static xpb_status init_sharded(const xpb_cuda_ctx *ctx, const xpb_anneal_sharded_args *a, xpb_error *err)
{
    const int p = xpb_cuda_group_size(ctx), local = xpb_cuda_group_local(ctx);
    xpb_anneal_init_plan plan[XPB_MAX_GROUP];
    xpb_status st = each_rank(ctx, a, [&](const xpb_cuda_ctx *rank, const xpb_anneal_sharded_args *la, int r) -> xpb_status {
        const xpb_anneal_init_args ia = {la->x, la->anchors, la->chosen, la->scratch, a->n, a->d, a->m};
        return xpb_cuda_anneal_init_plan_make(rank, &ia, xpb_cuda_shard_first(r, p, a->n),
                                              xpb_cuda_shard_first(r + 1, p, a->n), &plan[r - xpb_cuda_group_first(ctx)],
                                              err);
    }, err);
    for (int s = 0; st == XPB_OK && s < (int)a->m; s++) {
        for (int l = 0; l < local && st == XPB_OK; l++) {
            const xpb_cuda_ctx *rank = xpb_cuda_group_rank_ctx(ctx, l);
            if ((st = xpb_cuda_activate(rank, err)) == XPB_OK)
                st = xpb_cuda_anneal_init_step_enqueue(rank, &plan[l], s, err);
        }
        if (st == XPB_OK && s < (int)a->m - 1)
            st = nccl_group(ctx, "ncclAllReduce (init's winner)", [&](int l, ncclComm_t comm, cudaStream_t cs) -> ncclResult_t {
                return ncclAllReduce(plan[l].slot + s, plan[l].slot + s, 1, ncclUint64, ncclMax, comm, cs);
            }, err);
    }
    return st;
}

static xpb_status sharded_launch(void *vctx, const void *vargs, void *state, xpb_error *err)
{
    (void)state;
    const xpb_cuda_ctx *ctx = static_cast<const xpb_cuda_ctx *>(vctx);
    const xpb_anneal_sharded_args *a = static_cast<const xpb_anneal_sharded_args *>(vargs);
    xpb_status st = sharded_supports(vctx, vargs, err);
    if (st != XPB_OK)
        return st;
    if (a->phase == XPB_ANNEAL_SHARDED_STEP)
        return step(ctx, a, err);
    if (a->phase == XPB_ANNEAL_SHARDED_INIT) {
        int replicated = 0; /* XPB_CUDA_SHARDED_ANNEAL_INIT: "sharded|replicated" */
        if ((st = xpb_knob_get_choice(XPB_KNOB_CUDA_SHARDED_ANNEAL_INIT, &replicated, err)) != XPB_OK)
            return st;
        if (!replicated)
            return init_sharded(ctx, a, err);
    }
    /* CHANGES, and INIT replicated: the one-GPU kernel on every rank over all points */
    return each_rank(ctx, a, [&](const xpb_cuda_ctx *rank, const xpb_anneal_sharded_args *la, int) -> xpb_status {
        void *rc = const_cast<xpb_cuda_ctx *>(rank);
        if (a->phase == XPB_ANNEAL_SHARDED_INIT) {
            const xpb_anneal_init_args ia = {la->x, la->anchors, la->chosen, la->scratch, a->n, a->d, a->m};
            return xpb_cuda_anneal_init.launch(rc, &ia, NULL, err);
        }
        const xpb_anneal_changes_args ca = {la->x, la->anchors, la->assign, la->prev, la->result, la->scratch,
                                            a->n, a->d, a->m};
        return xpb_cuda_anneal_changes.launch(rc, &ca, NULL, err);
    }, err);
}

extern "C" const xpb_kernel xpb_cuda_anneal_sharded = {
    /* .op        = */ XPB_OP_ANNEAL_SHARDED,
    /* .variant   = */ "default",
    /* .precision = */ "fp32",
    /* .supports  = */ sharded_supports,
    /* .prepare   = */ NULL,
    /* .release   = */ NULL,
    /* .launch    = */ sharded_launch,
};
#endif
