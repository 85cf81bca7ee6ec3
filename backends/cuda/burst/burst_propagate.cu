/* burst_propagate.cu - burst propagate (workloads/ops/xpb_ops.h, xpb_burst_args): for each synaptic
 * event j < counters[b].events, the source k with degree_scan[k] <= j < degree_scan[k + 1],
 * s = fired[k], synapse e = offsets[s] + j - degree_scan[k]:
 *   input[targets[e]] += (inhibitory[s] ? -1 : 1) * weight[e] * psp[e]   (int32 atomic add).
 *
 * One launch of a fixed grid (one wave of 256-thread blocks), whatever the event count: the
 * count is read on the device, so the same launch serves a single burst and batch's graph. The
 * events are cut into tiles of 1024 (XPB_BURST_EVENTS_PER_GROUP); block t takes tiles t,
 * t + grid, ... For a tile, warps 0 and 1 find the sources of its first and last events by a
 * warp-wide 32-way search of degree_scan (about log32(fired) dependent loads), then each thread
 * finds the sources of its 4 events (stride 256 in the tile, so a warp's loads of targets, weight
 * and psp are contiguous within a row) by a branchless binary search inside that window, all 4
 * searches interleaved. A hub row is spread over as many threads as it has synapses. Integer
 * sums, so the result does not depend on the order of the atomics. */
#include "cuda_burst.cuh"

#include <atomic>

#define XPB_PROP_THREADS 256
#define XPB_PROP_ITEMS 4
#define XPB_PROP_TILE (XPB_PROP_THREADS * XPB_PROP_ITEMS)

static_assert(XPB_PROP_TILE == XPB_BURST_EVENTS_PER_GROUP, "a tile is one dispatch group's events");

/* The largest k in [lo, hi) with ds[k] <= j, given ds[lo] <= j and ds non-decreasing, by the
 * whole warp (every lane calls it and gets the answer): 32 probes a round, a ballot picks the
 * last probe <= j. */
__device__ __forceinline__ uint32_t xpb_burst_warp_find(const uint32_t *__restrict__ ds, uint32_t lo, uint32_t hi,
                                                        uint32_t j)
{
    const uint32_t lane = threadIdx.x & 31;
    while (hi - lo > 1) {
        const uint32_t span = hi - lo;
        const uint32_t step = span / 32 + (span % 32 != 0);
        const uint64_t p = (uint64_t)lo + (uint64_t)lane * step;
        const bool ok = p < hi && __ldg(ds + p) <= j;
        const unsigned m = __ballot_sync(XPB_FULL_MASK, ok); /* lane 0 always: ds[lo] <= j */
        lo += (uint32_t)(31 - __clz(m)) * step;
        hi = (uint64_t)lo + step < hi ? lo + step : hi;
    }
    return lo;
}

__global__ void __launch_bounds__(XPB_PROP_THREADS)
xpb_burst_propagate_kernel(const uint32_t *__restrict__ offsets, const uint32_t *__restrict__ targets,
                           const uint8_t *__restrict__ weight, const uint8_t *__restrict__ psp,
                           const uint8_t *__restrict__ inhibitory, const uint32_t *__restrict__ fired,
                           const uint32_t *__restrict__ ds, const uint32_t *__restrict__ counters,
                           const uint32_t *__restrict__ bdev, uint32_t boff, uint32_t events_word,
                           int32_t *__restrict__ input, uint32_t *__restrict__ clear, uint32_t clear_words)
{
    __shared__ uint32_t window[2][2]; /* [tile parity][first, last source] */
    if (blockIdx.x == 0) /* a group's rank: its compact's look-back state (xpb_burst_dev.clear) */
        for (uint32_t w = threadIdx.x; w < clear_words; w += XPB_PROP_THREADS)
            clear[w] = 0;
    const uint32_t b = xpb_burst_index(bdev, boff);
    const uint32_t *c = counters + (size_t)b * XPB_BURST_COUNTER_WORDS;
    const uint32_t nfired = c[0], events = c[events_word]; /* a rank of a group: its own events */
    if (nfired == 0 || events == 0)
        return;
    const uint32_t tiles = events / XPB_PROP_TILE + (events % XPB_PROP_TILE != 0);
    const uint32_t warp = threadIdx.x >> 5;
    int slot = 0;
    for (uint32_t t = blockIdx.x; t < tiles; t += gridDim.x, slot ^= 1) {
        const uint32_t j0 = t * XPB_PROP_TILE;
        const uint32_t rem = events - j0;
        const uint32_t lim = rem < XPB_PROP_TILE ? rem : XPB_PROP_TILE; /* events in this tile */
        /* Two slots by tile parity: a warp writing the next tile's window cannot overtake a warp
         * still reading this one, since both pass the __syncthreads below first. */
        if (warp < 2) {
            const uint32_t k = xpb_burst_warp_find(ds, 0, nfired, warp == 0 ? j0 : j0 + lim - 1);
            if ((threadIdx.x & 31) == 0)
                window[slot][warp] = k;
        }
        __syncthreads();
        const uint32_t klo = window[slot][0], khi = window[slot][1];

        uint32_t j[XPB_PROP_ITEMS], k[XPB_PROP_ITEMS];
#pragma unroll
        for (int i = 0; i < XPB_PROP_ITEMS; i++) {
            const uint32_t o = i * XPB_PROP_THREADS + threadIdx.x;
            j[i] = j0 + (o < lim ? o : lim - 1); /* past the end: search for the last, skip below */
            k[i] = klo;
        }
        for (uint32_t len = khi - klo + 1; len > 1;) { /* the same trip count for the whole block */
            const uint32_t half = len >> 1;
#pragma unroll
            for (int i = 0; i < XPB_PROP_ITEMS; i++)
                k[i] += __ldg(ds + k[i] + half) <= j[i] ? half : 0u;
            len -= half;
        }
        uint32_t tgt[XPB_PROP_ITEMS];
        int32_t val[XPB_PROP_ITEMS];
#pragma unroll
        for (int i = 0; i < XPB_PROP_ITEMS; i++) {
            const uint32_t s = __ldg(fired + k[i]);
            const uint32_t e = __ldg(offsets + s) + (j[i] - __ldg(ds + k[i]));
            tgt[i] = __ldg(targets + e);
            const int32_t x = (int32_t)__ldg(weight + e) * (int32_t)__ldg(psp + e);
            val[i] = __ldg(inhibitory + s) ? -x : x;
        }
#pragma unroll
        for (int i = 0; i < XPB_PROP_ITEMS; i++)
            if ((uint32_t)(i * XPB_PROP_THREADS + threadIdx.x) < lim)
                atomicAdd(input + tgt[i], val[i]);
    }
}

/* *per_sm = resident 256-thread blocks per SM for the kernel, asked once per device. */
static xpb_status propagate_blocks_per_sm(const xpb_cuda_ctx *ctx, int *per_sm, xpb_error *err)
{
    static std::atomic<int> cached[64]; /* 0: not asked yet */
    const bool cacheable = ctx->device >= 0 && ctx->device < 64;
    *per_sm = cacheable ? cached[ctx->device].load(std::memory_order_relaxed) : 0;
    if (*per_sm > 0)
        return XPB_OK;
    XPB_CUDA_CHECK(err, cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, xpb_burst_propagate_kernel,
                                                                      XPB_PROP_THREADS, 0));
    if (*per_sm < 1)
        *per_sm = 1;
    if (cacheable)
        cached[ctx->device].store(*per_sm, std::memory_order_relaxed);
    return XPB_OK;
}

xpb_status xpb_burst_propagate_enqueue(const xpb_cuda_ctx *ctx, const xpb_burst_dev *d, const uint32_t *bdev,
                                       uint32_t boff, xpb_error *err)
{
    int per_sm = 0;
    const xpb_status st = propagate_blocks_per_sm(ctx, &per_sm, err);
    if (st != XPB_OK)
        return st;
    int64_t grid = (int64_t)ctx->sm_count * per_sm;
    if (grid > ctx->max_grid_x)
        grid = ctx->max_grid_x;
    xpb_burst_propagate_kernel<<<(unsigned)grid, XPB_PROP_THREADS, 0, ctx->stream>>>(
        d->offsets, d->targets, d->weight, d->psp, d->inhibitory, d->fired, d->degree_scan, d->counters, bdev, boff,
        d->events_word, d->input, d->clear, d->clear_words);
    XPB_CUDA_CHECK_LAUNCH(err, "burst/propagate");
    return XPB_OK;
}

static xpb_status propagate_supports(void *ctx, const void *vargs, xpb_error *why)
{
    (void)ctx;
    return xpb_burst_check(static_cast<const xpb_burst_args *>(vargs), "burst/propagate", 0, why);
}

static xpb_status propagate_launch(void *vctx, const void *vargs, void *state, xpb_error *err)
{
    (void)state;
    return xpb_burst_launch(vctx, vargs, "burst/propagate", 0, XPB_BURST_NEED_PROPAGATE, 1,
                            xpb_burst_propagate_enqueue, err);
}

extern "C" const xpb_kernel xpb_cuda_burst_propagate = {
    /* .op        = */ XPB_OP_BURST_PROPAGATE,
    /* .variant   = */ "default",
    /* .precision = */ "exact",
    /* .supports  = */ propagate_supports,
    /* .prepare   = */ NULL,
    /* .release   = */ NULL,
    /* .launch    = */ propagate_launch,
};
