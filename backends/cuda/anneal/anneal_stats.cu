/* anneal_stats.cu - anneal stats: per anchor, its point count, trimmed mean and variance
 * (workloads/ops/xpb_ops.h, xpb_anneal_stats_args).
 *
 * 1. Group the points by anchor, stably (a counting sort): the points are cut into nb chunks
 *    of L consecutive indices, one warp per chunk. Pass 1 (count): the warp walks its chunk 32
 *    points at a time; lanes with the same anchor find each other with __match_any_sync and
 *    their lowest lane adds the group's size to T[a][b] (anchor a, chunk b). Pass 2 (offsets):
 *    one warp per anchor turns T[a][0..nb) into an exclusive prefix (a warp scan) and writes
 *    counts[a], its total. Pass 3 (scan): one block turns counts into group starts. Pass 4
 *    (scatter): the chunk warps walk again; a point's slot is start[a] + T[a][b] + its rank
 *    among the earlier lanes of the same anchor, and the leader bumps T[a][b]. Every group thus
 *    lists its points by increasing index: the sums below run in a fixed order, so the results
 *    are deterministic bit for bit (an atomic-slot scatter would order each group by timing,
 *    and a double sum in another order can round differently). Only integer atomics, each
 *    T[a][b] touched by one warp only.
 * 2. Select (one block per anchor): with t = floor(c * trim) in double, the kept points are
 *    those whose key bits(dist) << 32 | i lies between the t-th smallest and the t-th largest
 *    key (inclusive). Both keys are found exactly by bisection on the 64 key bits: at each bit,
 *    count the keys below the two candidates (one block-wide count of both, packed in one
 *    64-bit sum) and keep the bit where the count stays <= the rank. Keys are unique (they
 *    contain the index), so exactly c - 2t points are kept. t = 0 or c - 2t < 1 keeps all.
 *    The first 4 keys of each thread stay in registers for the 64 passes (groups up to 1024
 *    points); further ones are re-read.
 * 3. Moments (one block per anchor, a thread per dimension): the group's points go through
 *    shared memory in tiles (index, kept flag); each thread sums its dimension over the kept
 *    points in double, mean = (float)(sum / kept); then a second sweep sums
 *    ((double)x - mean)^2 over all c points, var = (float)(s / (c - 1)), 0 when c < 2. Every
 *    anchor's mean and var are written (0 where c = 0); reading x row by row is coalesced
 *    across the threads.
 *
 * Scratch: members (n uint32: the grouped point indices), start (m), cut (2m uint64: the kept
 * key range per anchor), and T (m x nb uint32, zeroed by cudaMemsetAsync) in the rest; nb is
 * as many chunks of at least 128 points as that rest holds. assign values >= m (outside the
 * contract) are not counted and never indexed with. */
#include <math.h>

#include "cuda_anneal.cuh"

#define XPB_STATS_THREADS 256
#define XPB_STATS_WARPS (XPB_STATS_THREADS / 32)
#define XPB_STATS_SCAN_THREADS 1024
#define XPB_STATS_CHUNK_MIN 128 /* points per chunk warp, at least */
#define XPB_STATS_KPT 4         /* keys per thread kept in registers by the select kernel */
#define XPB_STATS_NONE 0xFFFFFFFFu

/* Anchor of point i for the chunk walks: XPB_STATS_NONE past the chunk or outside 0..m-1. */
__device__ __forceinline__ uint32_t xpb_stats_anchor(const uint32_t *assign, int64_t i, int64_t end, int m)
{
    const uint32_t a = i < end ? assign[i] : XPB_STATS_NONE;
    return a < (uint32_t)m ? a : XPB_STATS_NONE;
}

/* Pass 1: T[a][b] = number of points of chunk b assigned to a. One warp per chunk. */
__global__ void __launch_bounds__(XPB_STATS_THREADS)
xpb_stats_chunk_count(const uint32_t *__restrict__ assign, uint32_t *__restrict__ T, int n, int m,
                      int nb, int L)
{
    const int b = blockIdx.x * XPB_STATS_WARPS + (threadIdx.x >> 5);
    if (b >= nb)
        return; /* the whole warp */
    const int lane = threadIdx.x & 31;
    const int64_t begin = (int64_t)b * L, end = begin + L < n ? begin + L : n;
    for (int64_t p = begin; p < end; p += 32) {
        const uint32_t a = xpb_stats_anchor(assign, p + lane, end, m);
        const unsigned peers = __match_any_sync(XPB_FULL_MASK, a);
        if (a != XPB_STATS_NONE && lane == __ffs(peers) - 1)
            atomicAdd(&T[(int64_t)a * nb + b], (unsigned)__popc(peers));
    }
}

/* Pass 2: T[a][.] -> its exclusive prefix over chunks; counts[a] = the total. One warp per anchor. */
__global__ void __launch_bounds__(XPB_STATS_THREADS)
xpb_stats_chunk_offsets(uint32_t *__restrict__ T, uint32_t *__restrict__ counts, int m, int nb)
{
    const int a = blockIdx.x * XPB_STATS_WARPS + (threadIdx.x >> 5);
    if (a >= m)
        return; /* the whole warp */
    const int lane = threadIdx.x & 31;
    uint32_t *row = T + (int64_t)a * nb;
    uint32_t run = 0;
    for (int b0 = 0; b0 < nb; b0 += 32) {
        const int b = b0 + lane;
        const uint32_t v = b < nb ? row[b] : 0;
        uint32_t incl = v;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const uint32_t y = __shfl_up_sync(XPB_FULL_MASK, incl, o);
            if (lane >= o)
                incl += y;
        }
        if (b < nb)
            row[b] = run + incl - v;
        run += __shfl_sync(XPB_FULL_MASK, incl, 31);
    }
    if (lane == 0)
        counts[a] = run;
}

/* Pass 3: start = exclusive prefix of counts, by one block in tiles of its size. */
__global__ void __launch_bounds__(XPB_STATS_SCAN_THREADS)
xpb_stats_scan(const uint32_t *__restrict__ counts, uint32_t *__restrict__ start, int m)
{
    __shared__ uint32_t warp_sum[XPB_STATS_SCAN_THREADS / 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    uint32_t carry = 0;
    for (int64_t base = 0; base < m; base += XPB_STATS_SCAN_THREADS) {
        const int64_t j = base + threadIdx.x;
        const uint32_t v = j < m ? counts[j] : 0;
        uint32_t incl = v;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const uint32_t y = __shfl_up_sync(XPB_FULL_MASK, incl, o);
            if (lane >= o)
                incl += y;
        }
        if (lane == 31)
            warp_sum[warp] = incl;
        __syncthreads();
        uint32_t before = carry, tile = 0; /* sums of the earlier warps, of all warps */
        for (int w = 0; w < XPB_STATS_SCAN_THREADS / 32; w++) {
            before += w < warp ? warp_sum[w] : 0;
            tile += warp_sum[w];
        }
        if (j < m)
            start[j] = before + incl - v;
        carry += tile;
        __syncthreads(); /* warp_sum is rewritten by the next tile */
    }
}

/* Pass 4: members[start[a] + T[a][b] + rank] = i, in index order within each group. */
__global__ void __launch_bounds__(XPB_STATS_THREADS)
xpb_stats_scatter(const uint32_t *__restrict__ assign, const uint32_t *__restrict__ start,
                  uint32_t *__restrict__ T, uint32_t *__restrict__ members, int n, int m, int nb, int L)
{
    const int b = blockIdx.x * XPB_STATS_WARPS + (threadIdx.x >> 5);
    if (b >= nb)
        return; /* the whole warp */
    const int lane = threadIdx.x & 31;
    const unsigned lanes_below = (1u << lane) - 1u;
    const int64_t begin = (int64_t)b * L, end = begin + L < n ? begin + L : n;
    for (int64_t p = begin; p < end; p += 32) {
        const uint32_t a = xpb_stats_anchor(assign, p + lane, end, m);
        const unsigned peers = __match_any_sync(XPB_FULL_MASK, a);
        const int leader = __ffs(peers) - 1;
        uint32_t base = 0;
        if (a != XPB_STATS_NONE && lane == leader)
            base = atomicAdd(&T[(int64_t)a * nb + b], (unsigned)__popc(peers));
        base = __shfl_sync(XPB_FULL_MASK, base, leader);
        if (a != XPB_STATS_NONE)
            members[start[a] + base + (uint32_t)__popc(peers & lanes_below)] = (uint32_t)(p + lane);
        __syncwarp(); /* this step's bumps of T are seen by the next step's leaders */
    }
}

/* Select: cut[2a], cut[2a+1] = the smallest and largest kept key of anchor a. One block each. */
__global__ void __launch_bounds__(XPB_STATS_THREADS)
xpb_stats_select(const float *__restrict__ dist, const uint32_t *__restrict__ members,
                 const uint32_t *__restrict__ counts, const uint32_t *__restrict__ start,
                 unsigned long long *__restrict__ cut, double trim)
{
    __shared__ unsigned long long red[2][XPB_STATS_WARPS];
    const int a = blockIdx.x;
    const uint32_t c = counts[a];
    uint32_t rlo, rhi;
    if (!xpb_stats_trim_ranks(c, trim, &rlo, &rhi)) {
        if (threadIdx.x == 0)
            cut[2 * a] = 0, cut[2 * a + 1] = ~0ull;
        return; /* the whole block */
    }
    const uint32_t *group = members + start[a];
    unsigned long long key[XPB_STATS_KPT]; /* ~0 (above every real key: i < 2^31) past c */
#pragma unroll
    for (int r = 0; r < XPB_STATS_KPT; r++) {
        const uint32_t p = threadIdx.x + r * XPB_STATS_THREADS;
        key[r] = p < c ? xpb_stats_key(dist, group[p]) : ~0ull;
    }
    unsigned long long lo = 0, hi = 0;
    for (int bit = 63; bit >= 0; bit--) {
        const unsigned long long clo = lo | 1ull << bit, chi = hi | 1ull << bit;
        uint32_t nlo = 0, nhi = 0; /* keys below each candidate */
#pragma unroll
        for (int r = 0; r < XPB_STATS_KPT; r++)
            nlo += key[r] < clo, nhi += key[r] < chi;
        for (uint32_t p = threadIdx.x + XPB_STATS_KPT * XPB_STATS_THREADS; p < c; p += XPB_STATS_THREADS) {
            const unsigned long long k = xpb_stats_key(dist, group[p]);
            nlo += k < clo, nhi += k < chi;
        }
        const unsigned long long both = xpb_anneal_warp_sum((unsigned long long)nhi << 32 | nlo);
        if ((threadIdx.x & 31) == 0)
            red[bit & 1][threadIdx.x >> 5] = both;
        __syncthreads(); /* red[bit & 1] is rewritten two bits later, after another barrier */
        unsigned long long total = 0;
        for (int w = 0; w < XPB_STATS_WARPS; w++)
            total += red[bit & 1][w];
        if ((uint32_t)total <= rlo)
            lo = clo;
        if ((uint32_t)(total >> 32) <= rhi)
            hi = chi;
    }
    if (threadIdx.x == 0)
        cut[2 * a] = lo, cut[2 * a + 1] = hi;
}

/* Moments: mean (kept points) and var (all points) of anchor a, a thread per dimension. */
__global__ void __launch_bounds__(XPB_STATS_THREADS)
xpb_stats_moments(const float *__restrict__ x, const float *__restrict__ dist,
                  const uint32_t *__restrict__ members, const uint32_t *__restrict__ counts,
                  const uint32_t *__restrict__ start, const unsigned long long *__restrict__ cut,
                  float *__restrict__ mean, float *__restrict__ var, int d, double trim)
{
    __shared__ uint32_t tile_i[XPB_STATS_THREADS];
    __shared__ unsigned char tile_kept[XPB_STATS_THREADS];
    const int a = blockIdx.x;
    const int bs = blockDim.x;
    const uint32_t c = counts[a];
    uint32_t rlo, rhi;
    xpb_stats_trim_ranks(c, trim, &rlo, &rhi);
    const uint32_t kept = rhi - rlo + 1; /* c when all are kept (and unused when c = 0) */
    const unsigned long long lo = cut[2 * a], hi = cut[2 * a + 1];
    const uint32_t *group = members + start[a];

    for (int k0 = 0; k0 < d; k0 += bs) {
        const int k = k0 + threadIdx.x;
        const bool mine = k < d;
        double s = 0.0;
        for (uint32_t p0 = 0; p0 < c; p0 += bs) {
            __syncthreads(); /* the previous tile's readers are done */
            const uint32_t p = p0 + threadIdx.x;
            if (p < c) {
                const uint32_t i = group[p];
                const unsigned long long key = xpb_stats_key(dist, i);
                tile_i[threadIdx.x] = i;
                tile_kept[threadIdx.x] = lo <= key && key <= hi;
            }
            __syncthreads();
            const uint32_t cnt = c - p0 < (uint32_t)bs ? c - p0 : (uint32_t)bs;
            if (mine) {
#pragma unroll 4
                for (uint32_t q = 0; q < cnt; q++)
                    if (tile_kept[q])
                        s += (double)x[(int64_t)tile_i[q] * d + k];
            }
        }
        const float mu = c > 0 ? (float)(s / (double)kept) : 0.0f;
        const double mud = mu;
        double v = 0.0;
        for (uint32_t p0 = 0; p0 < c; p0 += bs) {
            __syncthreads();
            const uint32_t p = p0 + threadIdx.x;
            if (p < c)
                tile_i[threadIdx.x] = group[p];
            __syncthreads();
            const uint32_t cnt = c - p0 < (uint32_t)bs ? c - p0 : (uint32_t)bs;
            if (mine) {
#pragma unroll 4
                for (uint32_t q = 0; q < cnt; q++) {
                    const double t = (double)x[(int64_t)tile_i[q] * d + k] - mud;
                    v = fma(t, t, v);
                }
            }
        }
        if (mine) {
            mean[(int64_t)a * d + k] = mu;
            var[(int64_t)a * d + k] = c >= 2 ? (float)(v / (double)(c - 1)) : 0.0f;
        }
    }
}

static xpb_status stats_check(const xpb_anneal_stats_args *a, xpb_error *err)
{
    xpb_status st = xpb_anneal_check_sizes("anneal/stats", a->n, a->d, a->m, err);
    if (st == XPB_OK && !(a->trim >= 0.0 && a->trim <= 1.0))
        st = xpb_fail(err, XPB_ERR_USAGE, "anneal/stats: trim = %g outside [0, 1]", a->trim);
    return st;
}

static xpb_status stats_supports(void *ctx, const void *vargs, xpb_error *why)
{
    (void)ctx;
    return stats_check(static_cast<const xpb_anneal_stats_args *>(vargs), why);
}

/* Passes 1-4 and select (the header's 1 and 2) on ctx's stream; the caller has checked the sizes
 * and activated ctx. */
xpb_status xpb_cuda_anneal_stats_select_enqueue(const xpb_cuda_ctx *ctx, const uint32_t *asg, const float *df,
                                                uint32_t *cnt, void *scratch, int64_t n64, int64_t m64, double trim,
                                                xpb_anneal_stats_groups *out, xpb_error *err)
{
    const size_t n = (size_t)n64, m = (size_t)m64;
    xpb_anneal_carver sc = {static_cast<char *>(scratch), 0};
    uint32_t *members = static_cast<uint32_t *>(xpb_anneal_carve(&sc, n * 4));
    uint32_t *start = static_cast<uint32_t *>(xpb_anneal_carve(&sc, m * 4));
    unsigned long long *cut = static_cast<unsigned long long *>(xpb_anneal_carve(&sc, m * 16));
    /* T takes the rest: as many chunks as fit, each at least XPB_STATS_CHUNK_MIN points. */
    const size_t rest = XPB_ANNEAL_SCRATCH_BYTES(n, m) - sc.used; /* >= 4n + 44m + 64 KiB - 768 */
    const size_t nb_fit = (rest - XPB_ANNEAL_ALIGN) / (m * 4);      /* >= n / m >= 1 */
    size_t L = (n + nb_fit - 1) / nb_fit;
    L = L < XPB_STATS_CHUNK_MIN ? XPB_STATS_CHUNK_MIN : L;
    const size_t nb = (n + L - 1) / L;
    uint32_t *T = static_cast<uint32_t *>(xpb_anneal_carve(&sc, m * nb * 4));
    if (sc.used > XPB_ANNEAL_SCRATCH_BYTES(n, m))
        return xpb_fail(err, XPB_ERR_USAGE, "anneal/stats: scratch layout needs %zu bytes", sc.used);
    const unsigned chunk_blocks = (unsigned)((nb + XPB_STATS_WARPS - 1) / XPB_STATS_WARPS);
    const unsigned anchor_blocks = (unsigned)((m + XPB_STATS_WARPS - 1) / XPB_STATS_WARPS);
    const unsigned grid_m = (unsigned)m;

    XPB_CUDA_CHECK(err, cudaMemsetAsync(T, 0, m * nb * 4, ctx->stream));
    xpb_stats_chunk_count<<<chunk_blocks, XPB_STATS_THREADS, 0, ctx->stream>>>(asg, T, (int)n, (int)m, (int)nb, (int)L);
    XPB_CUDA_CHECK_LAUNCH(err, "anneal/stats (chunk count)");
    xpb_stats_chunk_offsets<<<anchor_blocks, XPB_STATS_THREADS, 0, ctx->stream>>>(T, cnt, (int)m, (int)nb);
    XPB_CUDA_CHECK_LAUNCH(err, "anneal/stats (chunk offsets)");
    xpb_stats_scan<<<1, XPB_STATS_SCAN_THREADS, 0, ctx->stream>>>(cnt, start, (int)m);
    XPB_CUDA_CHECK_LAUNCH(err, "anneal/stats (scan)");
    xpb_stats_scatter<<<chunk_blocks, XPB_STATS_THREADS, 0, ctx->stream>>>(asg, start, T, members, (int)n, (int)m, (int)nb, (int)L);
    XPB_CUDA_CHECK_LAUNCH(err, "anneal/stats (scatter)");
    xpb_stats_select<<<grid_m, XPB_STATS_THREADS, 0, ctx->stream>>>(df, members, cnt, start, cut, trim);
    XPB_CUDA_CHECK_LAUNCH(err, "anneal/stats (select)");
    out->members = members, out->start = start, out->cut = cut;
    return XPB_OK;
}

static xpb_status stats_launch(void *vctx, const void *vargs, void *state, xpb_error *err)
{
    (void)state;
    const xpb_cuda_ctx *ctx = static_cast<const xpb_cuda_ctx *>(vctx);
    const xpb_anneal_stats_args *a = static_cast<const xpb_anneal_stats_args *>(vargs);
    xpb_status st = stats_check(a, err);
    if (st != XPB_OK)
        return st;
    const size_t n = (size_t)a->n, d = (size_t)a->d, m = (size_t)a->m;
    void *x = NULL, *assign = NULL, *dist = NULL, *counts = NULL, *mean = NULL, *var = NULL;
    xpb_anneal_carver sc;
    if ((st = xpb_anneal_view(&a->x, n * d * 4, "anneal/stats: x", &x, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->assign, n * 4, "anneal/stats: assign", &assign, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->dist, n * 4, "anneal/stats: dist", &dist, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->counts, m * 4, "anneal/stats: counts", &counts, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->mean, m * d * 4, "anneal/stats: mean", &mean, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->var, m * d * 4, "anneal/stats: var", &var, err)) != XPB_OK ||
        (st = xpb_anneal_scratch(&a->scratch, a->n, a->m, "anneal/stats: scratch", &sc, err)) != XPB_OK)
        return st;
    if ((st = xpb_cuda_activate(ctx, err)) != XPB_OK)
        return st;
    const float *df = static_cast<const float *>(dist);
    uint32_t *cnt = static_cast<uint32_t *>(counts);
    xpb_anneal_stats_groups g;
    if ((st = xpb_cuda_anneal_stats_select_enqueue(ctx, static_cast<const uint32_t *>(assign), df, cnt, sc.base, a->n,
                                                   a->m, a->trim, &g, err)) != XPB_OK)
        return st;
    const unsigned grid_m = (unsigned)m;
    const int moments_threads = d >= XPB_STATS_THREADS ? XPB_STATS_THREADS : (int)((d + 31) / 32 * 32);
    xpb_stats_moments<<<grid_m, moments_threads, 0, ctx->stream>>>(static_cast<const float *>(x), df, g.members, cnt, g.start, g.cut, static_cast<float *>(mean), static_cast<float *>(var), (int)d, a->trim);
    XPB_CUDA_CHECK_LAUNCH(err, "anneal/stats (moments)");
    return XPB_OK;
}

extern "C" const xpb_kernel xpb_cuda_anneal_stats = {
    /* .op        = */ XPB_OP_ANNEAL_STATS,
    /* .variant   = */ "default",
    /* .precision = */ "fp32",
    /* .supports  = */ stats_supports,
    /* .prepare   = */ NULL,
    /* .release   = */ NULL,
    /* .launch    = */ stats_launch,
};
