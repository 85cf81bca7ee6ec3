/* burst_propagate_bits.cu - a device group's rank's propagate read straight from the gathered fired
 * bits of the previous burst (cuda_burst.cuh, xpb_burst_propagate_bits_enqueue): for every set bit
 * (neuron s) and every synapse e of s's row in the rank's shard,
 *   input[targets[e]] += (inhibitory[s] ? -1 : 1) * weight[e] * psp[e]   (int32 atomic add),
 * the terms of burst_propagate.cu, so the same input bit for bit (integer sums, any order); and,
 * from the same bits, counters[b] = {fired, dispatch, events} of the previous burst.
 *
 * Why: propagate through the fired list needs that burst's compact first, and the compact works on
 * the whole network on every rank (18 us a burst at 5M neurons on 4 x H200, whatever the group
 * size: docs/multi-gpu.md), so it does not shrink with the GPUs. Read from the bits, a burst needs
 * no list: burst_sharded.cu compacts only a span's last burst (the fired list the run reads back),
 * and the counts every burst reports come from here.
 *
 * A warp takes XPB_PROPBITS_WORDS (32) consecutive words (a lane each) and works without __syncthreads:
 *   1. its fired neurons, 32 at a time: lane L finds the word holding fired neuron k0 + L by a
 *      5-step search over the words' exclusive popcount scan (shuffles), then that word's bit, and
 *      loads the neuron's row bounds and sign (and its whole-network out-degree, for the events);
 *   2. those rows' synapses, 8 x 32 at a time: lane L finds the rows of events j0 + L, j0 + 32 + L,
 *      ... by the same search over the rows' exclusive length scan, loads the 4 synapses, then
 *      adds (a target id is below n < 2^32 - 1, so UINT32_MAX marks an empty item).
 * Rows of any length are split over lanes, so a hub costs its synapses / 128 rounds of one warp:
 * networks with hubs are where this form may lose to the list's, which spreads a row over blocks.
 *   3. the counts: each block adds its fired neurons and their out-degrees (global_offsets: the
 *      network's own rows) into the tally (scratch words XPB_BURST_TALLY_WORD ..: fired, events,
 *      blocks done), then takes a ticket; the last block (its ticket gridDim.x - 1, after a fence)
 *      writes counters[b] from the sums and zeroes the tally for the next burst. Integer sums: the
 *      same counts whatever the order. Entry 0 (before burst 0) stays the run's zeros.
 *
 * A launch reads every slot (XPB_PROPBITS_ALL), or the rank's own slot alone (OWN) or every slot
 * but it (OTHERS): OWN then OTHERS add the same terms as ALL, and OWN only adds its counts to the
 * tally (no ticket, no entry), which the OTHERS launch after it on the same stream finishes. Why:
 * a rank's own bits are on its GPU when its dynamics ends, the others' only after the exchange,
 * so the own slot's share of the next burst's propagate can run during the exchange
 * (burst_sharded.cu, XPB_CUDA_SHARDED_OVERLAP). A launch's words are a run of `count` indices i
 * from `first`, the word i + first, past skip_at moved on by skip_n (OTHERS jumps the own slot). */
#include "cuda_burst.cuh"

#define XPB_PROPBITS_THREADS 256
/* events a lane has in flight: the kernel waits on its loads (Nsight Compute on 2 x H200: 67% of a
 * warp's stalls on L1TEX, a grid of 0.58 waves); 8 against 4 took a 5M x 100 burst on 2 GPUs from
 * 108.0 to 105.3 us (docs/multi-gpu.md); 16 lost 4.7% against 8, and 16 words a warp instead of
 * 32 (more warps) did not help */
#define XPB_PROPBITS_ITEMS 8
#define XPB_PROPBITS_WORDS 32 /* words of bits a warp takes (<= 32: a lane each, the rest idle) */

/* The largest lane whose `base` (non-decreasing over the lanes) is <= x: every lane calls it. */
__device__ __forceinline__ uint32_t xpb_propbits_lane(uint32_t base, uint32_t x)
{
    uint32_t lo = 0;
#pragma unroll
    for (uint32_t step = 16; step > 0; step >>= 1) {
        const uint32_t cand = lo + step;
        const uint32_t v = __shfl_sync(XPB_FULL_MASK, base, cand & 31u);
        if (cand < 32u && v <= x)
            lo = cand;
    }
    return lo;
}

/* Exclusive prefix sum over the warp of v, and the warp's total. */
__device__ __forceinline__ uint32_t xpb_propbits_scan(uint32_t v, uint32_t *total)
{
    const uint32_t incl = xpb_burst_warp_scan(v);
    *total = __shfl_sync(XPB_FULL_MASK, incl, 31);
    return incl - v;
}

/* The position of the r-th (from 0) set bit of m, r < popc(m). */
__device__ __forceinline__ uint32_t xpb_propbits_nth(uint32_t m, uint32_t r)
{
    for (; r > 0; r--)
        m &= m - 1u;
    return (uint32_t)(__ffs(m) - 1);
}

__global__ void __launch_bounds__(XPB_PROPBITS_THREADS)
xpb_burst_propagate_bits_kernel(const uint32_t *__restrict__ bits, uint32_t count, uint32_t first, uint32_t skip_at,
                                uint32_t skip_n, uint32_t finish, uint32_t slot_words, uint32_t ranks, uint32_t n,
                                const uint32_t *__restrict__ offsets,
                                const uint32_t *__restrict__ targets, const uint8_t *__restrict__ weight,
                                const uint8_t *__restrict__ psp, const uint8_t *__restrict__ inhibitory,
                                int32_t *__restrict__ input, const uint32_t *__restrict__ global_offsets,
                                uint32_t *__restrict__ counters, uint32_t *tally, const uint32_t *__restrict__ bdev,
                                uint32_t boff)
{
    __shared__ uint32_t block_sum[2]; /* the block's fired neurons and their events */
    if (threadIdx.x == 0)
        block_sum[0] = block_sum[1] = 0;
    __syncthreads();
    const uint32_t lane = threadIdx.x & 31u;
    uint32_t my_fired = 0, my_events = 0; /* this lane's share of the counts */
    const uint64_t warps = (uint64_t)gridDim.x * (blockDim.x / 32);
    const uint64_t groups = ((uint64_t)count + XPB_PROPBITS_WORDS - 1u) / XPB_PROPBITS_WORDS;
    for (uint64_t g = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; g < groups; g += warps) {
        const uint64_t i = g * XPB_PROPBITS_WORDS + lane;
        uint32_t w = (uint32_t)i + first; /* this lane's word (below count: i < 2^32 - 32) */
        w += w >= skip_at ? skip_n : 0u;
        const uint32_t m = lane < XPB_PROPBITS_WORDS && i < count ? __ldg(bits + w) : 0u;
        if (__ballot_sync(XPB_FULL_MASK, m != 0u) == 0u)
            continue; /* the common case at low rates: nothing fired in these words' neurons */
        uint32_t fired_total;
        const uint32_t fbase = xpb_propbits_scan((uint32_t)__popc(m), &fired_total);
        my_fired += (uint32_t)__popc(m);
        for (uint32_t k0 = 0; k0 < fired_total; k0 += 32u) {
            /* 1. lane L: fired neuron k0 + L of this warp's words, its row and sign */
            const uint32_t k = k0 + lane;
            const uint32_t src = xpb_propbits_lane(fbase, k); /* the lane whose word holds it */
            const uint32_t sm = __shfl_sync(XPB_FULL_MASK, m, src);
            const uint32_t sb = __shfl_sync(XPB_FULL_MASK, fbase, src);
            const uint32_t wi = __shfl_sync(XPB_FULL_MASK, w, src);
            uint32_t e0 = 0, len = 0, neg = 0;
            if (k < fired_total) {
                const uint32_t s = xpb_burst_bits_id0(wi, slot_words, ranks, n) + xpb_propbits_nth(sm, k - sb);
                e0 = __ldg(offsets + s);
                len = __ldg(offsets + s + 1) - e0;
                neg = __ldg(inhibitory + s);
                my_events += __ldg(global_offsets + s + 1) - __ldg(global_offsets + s);
            }
            /* 2. their synapses, XPB_PROPBITS_ITEMS x 32 at a time: every item's loads issued
             *    before any of its adds, so a long row keeps that many loads in flight a lane */
            uint32_t events;
            const uint32_t ebase = xpb_propbits_scan(len, &events);
            for (uint32_t j0 = 0; j0 < events; j0 += 32u * XPB_PROPBITS_ITEMS) {
                uint32_t tgt[XPB_PROPBITS_ITEMS];
                int32_t val[XPB_PROPBITS_ITEMS];
#pragma unroll
                for (int it = 0; it < XPB_PROPBITS_ITEMS; it++) {
                    const uint32_t j = j0 + 32u * it + lane;
                    const uint32_t row = xpb_propbits_lane(ebase, j);
                    const uint32_t re0 = __shfl_sync(XPB_FULL_MASK, e0, row);
                    const uint32_t rb = __shfl_sync(XPB_FULL_MASK, ebase, row);
                    const uint32_t rneg = __shfl_sync(XPB_FULL_MASK, neg, row);
                    tgt[it] = UINT32_MAX, val[it] = 0;
                    if (j < events) {
                        const uint32_t e = re0 + (j - rb);
                        const int32_t x = (int32_t)__ldg(weight + e) * (int32_t)__ldg(psp + e);
                        tgt[it] = __ldg(targets + e);
                        val[it] = rneg ? -x : x;
                    }
                }
#pragma unroll
                for (int it = 0; it < XPB_PROPBITS_ITEMS; it++)
                    if (tgt[it] != UINT32_MAX)
                        atomicAdd(input + tgt[it], val[it]);
            }
        }
    }
    /* 3. the counts: the warp's, the block's, the grid's; the last block writes them */
    my_fired = xpb_burst_warp_sum(my_fired), my_events = xpb_burst_warp_sum(my_events);
    if (lane == 0 && (my_fired | my_events) != 0) {
        atomicAdd(&block_sum[0], my_fired);
        atomicAdd(&block_sum[1], my_events);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        if (block_sum[0] != 0) {
            atomicAdd(tally, block_sum[0]);
            atomicAdd(tally + 1, block_sum[1]);
        }
        if (!finish) /* OWN: the OTHERS launch after it takes the tickets and writes the entry */
            return;
        __threadfence(); /* the sums before the ticket, for the block that takes the last one */
        if (atomicAdd(tally + 2, 1u) == gridDim.x - 1) {
            __threadfence();
            const volatile uint32_t *t = tally;
            const uint32_t fired = t[0], events = t[1];
            const uint32_t b = xpb_burst_index(bdev, boff);
            if (b > 0) /* entry 0 is the empty set before burst 0: the run's zeros */
                xpb_burst_counters_entry(counters + (size_t)b * XPB_BURST_COUNTER_WORDS, fired, events, events, 0);
            tally[0] = tally[1] = tally[2] = 0; /* for the next burst's propagate on this stream */
        }
    }
}

xpb_status xpb_burst_propagate_bits_part_enqueue(const xpb_cuda_ctx *ctx, cudaStream_t stream, const xpb_burst_dev *d,
                                                 const uint32_t *bits, int ranks, int rank, xpb_propbits_part part,
                                                 const uint32_t *global_offsets, const uint32_t *bdev, uint32_t boff,
                                                 xpb_error *err)
{
    const uint64_t slot_words = XPB_BURST_SHARD_WORDS(d->n, ranks), words = (uint64_t)ranks * slot_words;
    if (words == 0 || words > UINT32_MAX - 32u)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED, "burst/propagate (bits): %llu words of bits",
                        (unsigned long long)words);
    if (part != XPB_PROPBITS_ALL && (rank < 0 || rank >= ranks))
        return xpb_fail(err, XPB_ERR_USAGE, "burst/propagate (bits): rank %d of %d", rank, ranks);
    /* the words this launch reads: all, the own slot, or all but it (the kernel's header comment) */
    const uint32_t own = (uint32_t)((uint64_t)rank * slot_words);
    uint32_t count = (uint32_t)words, first = 0, skip_at = UINT32_MAX, skip_n = 0;
    if (part == XPB_PROPBITS_OWN)
        count = (uint32_t)slot_words, first = own;
    else if (part == XPB_PROPBITS_OTHERS)
        count = (uint32_t)(words - slot_words), skip_at = own, skip_n = (uint32_t)slot_words;
    const int64_t warps_needed = (int64_t)((count + XPB_PROPBITS_WORDS - 1u) / XPB_PROPBITS_WORDS);
    const unsigned grid = xpb_cuda_grid(ctx, (warps_needed * 32 + XPB_PROPBITS_THREADS - 1) / XPB_PROPBITS_THREADS,
                                        XPB_PROPBITS_THREADS, 8);
    xpb_burst_propagate_bits_kernel<<<grid, XPB_PROPBITS_THREADS, 0, stream>>>(
        bits, count, first, skip_at, skip_n, part != XPB_PROPBITS_OWN, (uint32_t)slot_words, (uint32_t)ranks, d->n,
        d->offsets, d->targets, d->weight, d->psp, d->inhibitory, d->input, global_offsets, d->counters,
        xpb_burst_tally(d->scratch), bdev, boff);
    XPB_CUDA_CHECK_LAUNCH(err, "burst/propagate (bits)");
    return XPB_OK;
}

xpb_status xpb_burst_propagate_bits_enqueue(const xpb_cuda_ctx *ctx, const xpb_burst_dev *d, const uint32_t *bits,
                                            int ranks, const uint32_t *global_offsets, const uint32_t *bdev,
                                            uint32_t boff, xpb_error *err)
{
    return xpb_burst_propagate_bits_part_enqueue(ctx, ctx->stream, d, bits, ranks, 0, XPB_PROPBITS_ALL, global_offsets,
                                                 bdev, boff, err);
}
