/* burst_compact.cu - burst compact (harness/xpb_ops.h, xpb_burst_args): from fired_flag, the
 * fired ids ascending, degree_scan[k] = the out-degrees of fired[0..k) summed (k <= count) and
 * counters[b + 1] = {count, dispatch, events, 0}.
 *
 * A stable scan, no atomics (so the list is in ascending order by construction). The neurons fall
 * into chunks of 4096, one 512-thread block a chunk, 8 consecutive neurons a thread (two 16-byte
 * loads of flags where the view is aligned). Each neuron contributes the pair (flag != 0, its
 * out-degree if flagged), packed into one 64-bit word as count << 32 | degree: degree sums never
 * pass the synapse count (< 2^32), so the low half never carries into the high one and a single
 * 64-bit sum scans both.
 *   1. count: each block sums its chunk's pairs into scratch (after the 256-byte base word);
 *   2. write: each block adds up the sums of the chunks before its own (at most 2048 of them:
 *      n <= 8M neurons), scans its chunk from there and writes fired[] and degree_scan[] for its
 *      flagged neurons; the last block writes counters[b + 1] and degree_scan[count] = events.
 * Two launches. Above 2048 chunks the quadratic prefix reads would cost more than a launch, so a
 * scan launch goes between the two: one 1024-thread block turns the chunk sums into exclusive
 * prefixes in place, 4096 a round, and writes the counters; the write launch reads its prefix. */
#include "cuda_burst.cuh"

#define XPB_COMPACT_THREADS 512
#define XPB_COMPACT_PER_THREAD 8
#define XPB_COMPACT_CHUNK (XPB_COMPACT_THREADS * XPB_COMPACT_PER_THREAD)
#define XPB_COMPACT_FUSED_CHUNKS 2048 /* up to this many chunks, no scan launch */
#define XPB_SCAN_THREADS 1024
#define XPB_SCAN_PER_THREAD 4

/* The thread's neurons i0 .. i0 + 7 (those < n): their flags as bits of the result's `mask` and,
 * for the flagged ones, their out-degrees in deg[]; returns the packed pair sum. */
template <bool VEC>
__device__ __forceinline__ unsigned long long xpb_burst_chunk_pairs(const uint32_t *__restrict__ flags,
                                                                     const uint32_t *__restrict__ offsets,
                                                                     uint64_t i0, uint32_t n, uint32_t *mask,
                                                                     uint32_t deg[XPB_COMPACT_PER_THREAD])
{
    uint32_t m = 0;
    if (VEC && i0 + XPB_COMPACT_PER_THREAD <= n) {
        const uint4 *q = reinterpret_cast<const uint4 *>(flags + i0);
#pragma unroll
        for (int h = 0; h < XPB_COMPACT_PER_THREAD / 4; h++) {
            const uint4 w = __ldg(q + h);
            m |= (uint32_t)(w.x != 0) << (4 * h) | (uint32_t)(w.y != 0) << (4 * h + 1) |
                 (uint32_t)(w.z != 0) << (4 * h + 2) | (uint32_t)(w.w != 0) << (4 * h + 3);
        }
    } else {
#pragma unroll
        for (int r = 0; r < XPB_COMPACT_PER_THREAD; r++)
            m |= (uint32_t)(i0 + r < n && __ldg(flags + i0 + r) != 0) << r;
    }
    unsigned long long pair = 0;
#pragma unroll
    for (int r = 0; r < XPB_COMPACT_PER_THREAD; r++) {
        deg[r] = (m >> r & 1u) ? __ldg(offsets + i0 + r + 1) - __ldg(offsets + i0 + r) : 0u;
        pair += deg[r];
    }
    *mask = m;
    return pair + ((unsigned long long)__popc(m) << 32);
}

/* counters[b + 1] = {count, {groups, 1, 1}, events, 0} and degree_scan[count] = events, from the
 * packed total of every chunk. */
__device__ __forceinline__ void xpb_burst_write_counters(unsigned long long total, uint32_t *__restrict__ counters,
                                                         uint32_t *__restrict__ degree_scan, uint32_t b)
{
    const uint32_t count = (uint32_t)(total >> 32), events = (uint32_t)total;
    uint32_t groups = events / XPB_BURST_EVENTS_PER_GROUP + (events % XPB_BURST_EVENTS_PER_GROUP != 0);
    groups = groups < 1 ? 1 : groups > XPB_BURST_MAX_GROUPS ? XPB_BURST_MAX_GROUPS : groups;
    uint32_t *c = counters + ((size_t)b + 1) * XPB_BURST_COUNTER_WORDS;
    c[0] = count;
    c[1] = groups; /* dispatch {groups, 1, 1} */
    c[2] = 1;
    c[3] = 1;
    c[4] = events;
    c[5] = 0; /* reserved */
    c[6] = 0;
    c[7] = 0;
    degree_scan[count] = events;
}

/* 1. sums[chunk] = the chunk's packed pair sum. */
template <bool VEC>
__global__ void __launch_bounds__(XPB_COMPACT_THREADS)
xpb_burst_compact_count(const uint32_t *__restrict__ flags, const uint32_t *__restrict__ offsets, uint32_t n,
                        unsigned long long *__restrict__ sums)
{
    __shared__ unsigned long long red[32];
    const uint64_t i0 = (uint64_t)blockIdx.x * XPB_COMPACT_CHUNK + (uint64_t)threadIdx.x * XPB_COMPACT_PER_THREAD;
    uint32_t mask, deg[XPB_COMPACT_PER_THREAD];
    unsigned long long pair = xpb_burst_chunk_pairs<VEC>(flags, offsets, i0, n, &mask, deg);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        pair += __shfl_xor_sync(XPB_FULL_MASK, pair, o);
    if ((threadIdx.x & 31) == 0)
        red[threadIdx.x >> 5] = pair;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long s = 0;
        for (int w = 0; w < XPB_COMPACT_THREADS / 32; w++)
            s += red[w];
        sums[blockIdx.x] = s;
    }
}

/* (more than XPB_COMPACT_FUSED_CHUNKS chunks) sums[0..chunks) -> exclusive prefixes; counters[b + 1]
 * and degree_scan[count]. One block. */
__global__ void __launch_bounds__(XPB_SCAN_THREADS)
xpb_burst_compact_scan(unsigned long long *__restrict__ sums, uint32_t chunks, uint32_t *__restrict__ counters,
                       uint32_t *__restrict__ degree_scan, const uint32_t *__restrict__ bdev, uint32_t boff)
{
    __shared__ unsigned long long red[32];
    unsigned long long carry = 0;
    for (uint32_t base = 0; base < chunks; base += XPB_SCAN_THREADS * XPB_SCAN_PER_THREAD) {
        const uint64_t c0 = (uint64_t)base + (uint64_t)threadIdx.x * XPB_SCAN_PER_THREAD;
        unsigned long long x[XPB_SCAN_PER_THREAD], mine = 0;
#pragma unroll
        for (int r = 0; r < XPB_SCAN_PER_THREAD; r++) {
            x[r] = c0 + r < chunks ? sums[c0 + r] : 0ull;
            mine += x[r];
        }
        unsigned long long total;
        unsigned long long run = carry + xpb_burst_block_scan(mine, red, &total);
#pragma unroll
        for (int r = 0; r < XPB_SCAN_PER_THREAD; r++) {
            if (c0 + r < chunks)
                sums[c0 + r] = run;
            run += x[r];
        }
        carry += total;
    }
    if (threadIdx.x == 0)
        xpb_burst_write_counters(carry, counters, degree_scan, xpb_burst_index(bdev, boff));
}

/* 2. fired[] and degree_scan[] for the chunk's flagged neurons. FUSED: the chunk's prefix is the
 * sum of sums[0..chunk), added up here, and the last chunk's block writes the counters; else
 * sums[chunk] already holds the prefix (xpb_burst_compact_scan). */
template <bool VEC, bool FUSED>
__global__ void __launch_bounds__(XPB_COMPACT_THREADS)
xpb_burst_compact_write(const uint32_t *__restrict__ flags, const uint32_t *__restrict__ offsets, uint32_t n,
                        const unsigned long long *__restrict__ sums, uint32_t *__restrict__ fired,
                        uint32_t *__restrict__ degree_scan, uint32_t *__restrict__ counters,
                        const uint32_t *__restrict__ bdev, uint32_t boff)
{
    __shared__ unsigned long long red[32];
    const uint64_t i0 = (uint64_t)blockIdx.x * XPB_COMPACT_CHUNK + (uint64_t)threadIdx.x * XPB_COMPACT_PER_THREAD;
    uint32_t mask, deg[XPB_COMPACT_PER_THREAD];
    const unsigned long long pair = xpb_burst_chunk_pairs<VEC>(flags, offsets, i0, n, &mask, deg);
    unsigned long long base;
    if (FUSED) {
        unsigned long long before = 0;
#pragma unroll 4
        for (uint32_t c = threadIdx.x; c < blockIdx.x; c += XPB_COMPACT_THREADS)
            before += __ldg(sums + c);
        unsigned long long all;
        xpb_burst_block_scan(before, red, &all);
        base = all;
    } else {
        base = __ldg(sums + blockIdx.x);
    }
    unsigned long long total;
    const unsigned long long at = base + xpb_burst_block_scan(pair, red, &total);
    uint32_t k = (uint32_t)(at >> 32), dsum = (uint32_t)at;
#pragma unroll
    for (int r = 0; r < XPB_COMPACT_PER_THREAD; r++) {
        if (mask >> r & 1u) {
            fired[k] = (uint32_t)(i0 + r);
            degree_scan[k] = dsum;
            k++;
            dsum += deg[r];
        }
    }
    if (FUSED && blockIdx.x == gridDim.x - 1 && threadIdx.x == 0)
        xpb_burst_write_counters(base + total, counters, degree_scan, xpb_burst_index(bdev, boff));
}

template <bool VEC>
static xpb_status compact_enqueue(const xpb_cuda_ctx *ctx, const xpb_burst_dev *d, const uint32_t *bdev,
                                  uint32_t boff, xpb_error *err)
{
    const uint32_t chunks = (uint32_t)(((uint64_t)d->n + XPB_COMPACT_CHUNK - 1) / XPB_COMPACT_CHUNK);
    unsigned long long *sums = xpb_burst_sums(d->scratch);
    xpb_burst_compact_count<VEC><<<chunks, XPB_COMPACT_THREADS, 0, ctx->stream>>>(d->fired_flag, d->offsets, d->n,
                                                                                  sums);
    XPB_CUDA_CHECK_LAUNCH(err, "burst/compact (count)");
    if (chunks <= XPB_COMPACT_FUSED_CHUNKS) {
        xpb_burst_compact_write<VEC, true><<<chunks, XPB_COMPACT_THREADS, 0, ctx->stream>>>(
            d->fired_flag, d->offsets, d->n, sums, d->fired, d->degree_scan, d->counters, bdev, boff);
        XPB_CUDA_CHECK_LAUNCH(err, "burst/compact (write)");
        return XPB_OK;
    }
    xpb_burst_compact_scan<<<1, XPB_SCAN_THREADS, 0, ctx->stream>>>(sums, chunks, d->counters, d->degree_scan, bdev,
                                                                    boff);
    XPB_CUDA_CHECK_LAUNCH(err, "burst/compact (scan)");
    xpb_burst_compact_write<VEC, false><<<chunks, XPB_COMPACT_THREADS, 0, ctx->stream>>>(
        d->fired_flag, d->offsets, d->n, sums, d->fired, d->degree_scan, d->counters, bdev, boff);
    XPB_CUDA_CHECK_LAUNCH(err, "burst/compact (write)");
    return XPB_OK;
}

xpb_status xpb_burst_compact_enqueue(const xpb_cuda_ctx *ctx, const xpb_burst_dev *d, const uint32_t *bdev,
                                     uint32_t boff, xpb_error *err)
{
    return xpb_cuda_aligned16(d->fired_flag) ? compact_enqueue<true>(ctx, d, bdev, boff, err)
                                             : compact_enqueue<false>(ctx, d, bdev, boff, err);
}

static xpb_status compact_supports(void *ctx, const void *vargs, xpb_error *why)
{
    (void)ctx;
    return xpb_burst_check(static_cast<const xpb_burst_args *>(vargs), "burst/compact", 1, why);
}

static xpb_status compact_launch(void *vctx, const void *vargs, void *state, xpb_error *err)
{
    (void)state;
    const xpb_cuda_ctx *ctx = static_cast<const xpb_cuda_ctx *>(vctx);
    const xpb_burst_args *a = static_cast<const xpb_burst_args *>(vargs);
    xpb_burst_dev d;
    xpb_status st;
    if ((st = xpb_burst_check(a, "burst/compact", 1, err)) != XPB_OK ||
        (st = xpb_burst_resolve(a, XPB_BURST_NEED_COMPACT, (uint64_t)a->burst + 2, "burst/compact", &d, err)) !=
            XPB_OK ||
        (st = xpb_cuda_activate(ctx, err)) != XPB_OK)
        return st;
    return xpb_burst_compact_enqueue(ctx, &d, NULL, a->burst, err);
}

extern "C" const xpb_kernel xpb_cuda_burst_compact = {
    /* .op        = */ XPB_OP_BURST_COMPACT,
    /* .variant   = */ "default",
    /* .precision = */ "exact",
    /* .supports  = */ compact_supports,
    /* .prepare   = */ NULL,
    /* .release   = */ NULL,
    /* .launch    = */ compact_launch,
};
