/* burst_compact.cu - burst compact (workloads/ops/xpb_ops.h, xpb_burst_args): from fired_flag, the
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
 * prefixes in place, 4096 a round, and writes the counters; the write launch reads its prefix.
 *
 * The same kernels serve a device group's rank (burst_sharded.cu) through their flag source: on
 * one device position i of fired_flag is neuron i (xpb_flag_src); on a rank, positions run over
 * the gathered bits of every rank's slot (xpb_bit_src: 8 positions are one byte of a word), the
 * degrees are the rank's shard's, and a second per-chunk sum counts the events of the whole
 * network (its own rows), which the counters report as the burst's events. A rank runs these only
 * with XPB_CUDA_SHARDED_COMPACT=twopass; by default its compact is one launch
 * (burst_compact_lookback.cu). */
#include "cuda_burst.cuh"

#define XPB_COMPACT_THREADS 512
#define XPB_COMPACT_PER_THREAD 8
#define XPB_COMPACT_CHUNK (XPB_COMPACT_THREADS * XPB_COMPACT_PER_THREAD)
#define XPB_COMPACT_FUSED_CHUNKS 2048 /* up to this many chunks, no scan launch */
#define XPB_SCAN_THREADS 1024
#define XPB_SCAN_PER_THREAD 4

/* One device: position i is neuron i of fired_flag; VEC: two 16-byte loads where aligned. */
template <bool VEC> struct xpb_flag_src {
    static constexpr bool GLOBAL = false;
    const uint32_t *flags, *global_offsets; /* global_offsets unused */
    uint64_t positions;                     /* n */
    /* The flags of positions i0 .. i0 + 7 (those < n) as bits 0..7. */
    __device__ __forceinline__ uint32_t mask(uint64_t i0) const
    {
        uint32_t m = 0;
        if (VEC && i0 + XPB_COMPACT_PER_THREAD <= positions) {
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
                m |= (uint32_t)(i0 + r < positions && __ldg(flags + i0 + r) != 0) << r;
        }
        return m;
    }
    __device__ __forceinline__ uint32_t id(uint64_t p) const { return (uint32_t)p; }
};

/* A rank of a device group: `ranks` slots of slot_bits positions; slot r's bit k is neuron
 * r n / ranks + k (xpb_burst_shard_first), its unused bits zero. */
struct xpb_bit_src {
    static constexpr bool GLOBAL = true;
    const uint32_t *bits, *global_offsets;
    uint64_t positions; /* ranks * slot_bits */
    uint64_t n;
    uint32_t ranks, slot_bits;
    __device__ __forceinline__ uint32_t mask(uint64_t i0) const
    {
        if (i0 >= positions) /* the last chunk's tail; positions is a multiple of 32 */
            return 0;
        return (__ldg(bits + (i0 >> 5)) >> (i0 & 31u)) & 0xFFu; /* i0 is a multiple of 8 */
    }
    __device__ __forceinline__ uint32_t id(uint64_t p) const
    {
        const uint64_t r = p / slot_bits;
        return (uint32_t)(r * n / ranks + (p - r * slot_bits));
    }
};

/* The thread's positions i0 .. i0 + 7: their flags as bits of *mask, the out-degrees (offsets'
 * rows) of the flagged ones in deg[] and their first id in *id0 (8 positions are 8 consecutive
 * neurons); returns the packed pair sum. GLOBAL sources also sum the flagged neurons' rows of
 * the whole network into *global. */
template <class Src>
__device__ __forceinline__ unsigned long long xpb_burst_chunk_pairs(const Src &src, const uint32_t *__restrict__ offsets,
                                                                     uint64_t i0, uint32_t *mask, uint32_t *id0,
                                                                     uint32_t deg[XPB_COMPACT_PER_THREAD],
                                                                     unsigned long long *global)
{
    const uint32_t m = src.mask(i0);
    const uint32_t first = m ? src.id(i0) : 0u;
    unsigned long long pair = 0, g = 0;
#pragma unroll
    for (int r = 0; r < XPB_COMPACT_PER_THREAD; r++) {
        const bool on = m >> r & 1u;
        deg[r] = on ? __ldg(offsets + first + r + 1) - __ldg(offsets + first + r) : 0u;
        pair += deg[r];
        if (Src::GLOBAL && on)
            g += __ldg(src.global_offsets + first + r + 1) - __ldg(src.global_offsets + first + r);
    }
    *mask = m;
    *id0 = first;
    *global = g;
    return pair + ((unsigned long long)__popc(m) << 32);
}

/* Sum of v over the block (every thread calls it; the result in every thread). */
__device__ __forceinline__ unsigned long long xpb_burst_block_sum(unsigned long long v, unsigned long long *red)
{
    unsigned long long total;
    xpb_burst_block_scan(v, red, &total);
    return total;
}

/* 1. sums[chunk] = the chunk's packed pair sum (GLOBAL sources: gsums[chunk] = its events over
 * the whole network). */
template <class Src>
__global__ void __launch_bounds__(XPB_COMPACT_THREADS)
xpb_burst_compact_count(const Src src, const uint32_t *__restrict__ offsets, unsigned long long *__restrict__ sums,
                        unsigned long long *__restrict__ gsums)
{
    __shared__ unsigned long long red[32];
    const uint64_t i0 = (uint64_t)blockIdx.x * XPB_COMPACT_CHUNK + (uint64_t)threadIdx.x * XPB_COMPACT_PER_THREAD;
    uint32_t mask, id0, deg[XPB_COMPACT_PER_THREAD];
    unsigned long long g;
    const unsigned long long pair = xpb_burst_chunk_pairs(src, offsets, i0, &mask, &id0, deg, &g);
    const unsigned long long s = xpb_burst_block_sum(pair, red);
    if (threadIdx.x == 0)
        sums[blockIdx.x] = s;
    if (Src::GLOBAL) {
        const unsigned long long gs = xpb_burst_block_sum(g, red);
        if (threadIdx.x == 0)
            gsums[blockIdx.x] = gs;
    }
}

/* The whole network's events of the burst: gsums[0..chunks) summed by the block. */
template <class Src>
__device__ __forceinline__ unsigned long long xpb_burst_global_total(const unsigned long long *__restrict__ gsums,
                                                                      uint32_t chunks, unsigned long long *red)
{
    if (!Src::GLOBAL)
        return 0;
    unsigned long long g = 0;
    for (uint32_t c = threadIdx.x; c < chunks; c += blockDim.x)
        g += __ldg(gsums + c);
    return xpb_burst_block_sum(g, red);
}

/* (more than XPB_COMPACT_FUSED_CHUNKS chunks) sums[0..chunks) -> exclusive prefixes; counters[b + 1]
 * and degree_scan[count]. One block. */
template <class Src>
__global__ void __launch_bounds__(XPB_SCAN_THREADS)
xpb_burst_compact_scan(unsigned long long *__restrict__ sums, const unsigned long long *__restrict__ gsums,
                       uint32_t chunks, uint32_t *__restrict__ counters, uint32_t *__restrict__ degree_scan,
                       const uint32_t *__restrict__ bdev, uint32_t boff)
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
    const unsigned long long global = xpb_burst_global_total<Src>(gsums, chunks, red);
    if (threadIdx.x == 0)
        xpb_burst_write_counters(carry, Src::GLOBAL, global, counters, degree_scan, xpb_burst_index(bdev, boff));
}

/* 2. fired[] and degree_scan[] for the chunk's flagged neurons. FUSED: the chunk's prefix is the
 * sum of sums[0..chunk), added up here, and the last chunk's block writes the counters; else
 * sums[chunk] already holds the prefix (xpb_burst_compact_scan). */
template <class Src, bool FUSED>
__global__ void __launch_bounds__(XPB_COMPACT_THREADS)
xpb_burst_compact_write(const Src src, const uint32_t *__restrict__ offsets,
                        const unsigned long long *__restrict__ sums, const unsigned long long *__restrict__ gsums,
                        uint32_t *__restrict__ fired, uint32_t *__restrict__ degree_scan,
                        uint32_t *__restrict__ counters, const uint32_t *__restrict__ bdev, uint32_t boff)
{
    __shared__ unsigned long long red[32];
    const uint64_t i0 = (uint64_t)blockIdx.x * XPB_COMPACT_CHUNK + (uint64_t)threadIdx.x * XPB_COMPACT_PER_THREAD;
    uint32_t mask, id0, deg[XPB_COMPACT_PER_THREAD];
    unsigned long long g;
    const unsigned long long pair = xpb_burst_chunk_pairs(src, offsets, i0, &mask, &id0, deg, &g);
    unsigned long long base;
    if (FUSED) {
        unsigned long long before = 0;
#pragma unroll 4
        for (uint32_t c = threadIdx.x; c < blockIdx.x; c += XPB_COMPACT_THREADS)
            before += __ldg(sums + c);
        base = xpb_burst_block_sum(before, red);
    } else {
        base = __ldg(sums + blockIdx.x);
    }
    unsigned long long total;
    const unsigned long long at = base + xpb_burst_block_scan(pair, red, &total);
    uint32_t k = (uint32_t)(at >> 32), dsum = (uint32_t)at;
#pragma unroll
    for (int r = 0; r < XPB_COMPACT_PER_THREAD; r++) {
        if (mask >> r & 1u) {
            fired[k] = id0 + (uint32_t)r;
            degree_scan[k] = dsum;
            k++;
            dsum += deg[r];
        }
    }
    if (FUSED && blockIdx.x == gridDim.x - 1) {
        const unsigned long long global = xpb_burst_global_total<Src>(gsums, gridDim.x, red);
        if (threadIdx.x == 0)
            xpb_burst_write_counters(base + total, Src::GLOBAL, global, counters, degree_scan,
                                     xpb_burst_index(bdev, boff));
    }
}

/* The compaction of src's positions: 2 launches, 3 past XPB_COMPACT_FUSED_CHUNKS chunks. */
template <class Src>
static xpb_status compact_enqueue(const xpb_cuda_ctx *ctx, const Src &src, const xpb_burst_dev *d,
                                  const uint32_t *bdev, uint32_t boff, xpb_error *err)
{
    const uint32_t chunks = (uint32_t)((src.positions + XPB_COMPACT_CHUNK - 1) / XPB_COMPACT_CHUNK);
    if (chunks == 0)
        return xpb_fail(err, XPB_ERR_USAGE, "burst/compact: no neurons");
    unsigned long long *sums = xpb_burst_sums(d->scratch), *gsums = sums + chunks;
    xpb_burst_compact_count<Src><<<chunks, XPB_COMPACT_THREADS, 0, ctx->stream>>>(src, d->offsets, sums, gsums);
    XPB_CUDA_CHECK_LAUNCH(err, "burst/compact (count)");
    if (chunks <= XPB_COMPACT_FUSED_CHUNKS) {
        xpb_burst_compact_write<Src, true><<<chunks, XPB_COMPACT_THREADS, 0, ctx->stream>>>(
            src, d->offsets, sums, gsums, d->fired, d->degree_scan, d->counters, bdev, boff);
        XPB_CUDA_CHECK_LAUNCH(err, "burst/compact (write)");
        return XPB_OK;
    }
    xpb_burst_compact_scan<Src><<<1, XPB_SCAN_THREADS, 0, ctx->stream>>>(sums, gsums, chunks, d->counters,
                                                                         d->degree_scan, bdev, boff);
    XPB_CUDA_CHECK_LAUNCH(err, "burst/compact (scan)");
    xpb_burst_compact_write<Src, false><<<chunks, XPB_COMPACT_THREADS, 0, ctx->stream>>>(
        src, d->offsets, sums, gsums, d->fired, d->degree_scan, d->counters, bdev, boff);
    XPB_CUDA_CHECK_LAUNCH(err, "burst/compact (write)");
    return XPB_OK;
}

xpb_status xpb_burst_compact_enqueue(const xpb_cuda_ctx *ctx, const xpb_burst_dev *d, const uint32_t *bdev,
                                     uint32_t boff, xpb_error *err)
{
    if (xpb_cuda_aligned16(d->fired_flag)) {
        const xpb_flag_src<true> src = {d->fired_flag, NULL, d->n};
        return compact_enqueue(ctx, src, d, bdev, boff, err);
    }
    const xpb_flag_src<false> src = {d->fired_flag, NULL, d->n};
    return compact_enqueue(ctx, src, d, bdev, boff, err);
}

xpb_status xpb_burst_compact_bits_enqueue(const xpb_cuda_ctx *ctx, const xpb_burst_dev *d, const uint32_t *bits,
                                          int ranks, const uint32_t *global_offsets, const uint32_t *bdev,
                                          uint32_t boff, xpb_error *err)
{
    const uint32_t slot_bits = (uint32_t)(XPB_BURST_SHARD_WORDS(d->n, ranks) * 32u);
    const xpb_bit_src src = {bits, global_offsets, (uint64_t)ranks * slot_bits, d->n, (uint32_t)ranks, slot_bits};
    return compact_enqueue(ctx, src, d, bdev, boff, err);
}

static xpb_status compact_supports(void *ctx, const void *vargs, xpb_error *why)
{
    (void)ctx;
    return xpb_burst_check(static_cast<const xpb_burst_args *>(vargs), "burst/compact", 1, why);
}

static xpb_status compact_launch(void *vctx, const void *vargs, void *state, xpb_error *err)
{
    (void)state;
    return xpb_burst_launch(vctx, vargs, "burst/compact", 1, XPB_BURST_NEED_COMPACT, 2,
                            xpb_burst_compact_enqueue, err);
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
