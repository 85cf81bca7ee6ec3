/* burst_compact_lookback.cu - a device group's rank's compact (burst_sharded.cu) in one launch: the
 * same outputs as xpb_burst_compact_bits_enqueue (burst_compact.cu) from the gathered fired bits of
 * every rank's slot: the fired list of the whole group ascending, its degree scan over the rank's
 * shard (d->offsets: shard_offsets), counters[b + 1] = {count, dispatch, the group's events (from
 * global_offsets: the network's own rows), reserved[0] = the rank's own events}.
 *
 * Why: the two-pass compact (count, then write) is ~30 us a burst on every rank whatever the group
 * size (docs/multi-gpu.md), two launches that each read the bits and the offsets of every fired
 * neuron, the write launch also adding up every earlier chunk's sum (quadratic in chunks). Here a
 * block reads them once, and the chunk prefixes come from a single-pass scan with decoupled
 * look-back (Merrill and Garland, 2016):
 *   - a tile is XPB_BURST_LOOKBACK_THREADS threads of K consecutive words of bits each (K =
 *     XPB_CUDA_SHARDED_COMPACT_WORDS, default 1: 16384 positions, 306 tiles at 5M neurons); its
 *     number is a ticket taken at the block's start (an atomic on state[0]), so a tile waits only
 *     on tiles whose blocks already run: no deadlock whatever the block order. Why one word: the
 *     kernel is bound by each thread's chain of dependent loads (its word, then the offsets of its
 *     set bits), which more blocks overlap; fewer, longer tiles (shorter look-backs) read slower
 *     on 4 x H200, 5M x 100 batched: 77.1 - 78.0 us a burst at K = 1, 80.0 - 81.1 at 4, 86.9 -
 *     87.6 at 8, 102.1 - 104.5 at 16 (docs/multi-gpu.md);
 *   - a thread takes its words' set bits in order; each is neuron id0 + bit (slot r of words
 *     [r W, (r + 1) W) holds neurons from r n / ranks on: xpb_bit_src's ids), with its shard and
 *     whole-network out-degrees; (count, shard degrees) pack into one 64-bit sum as in
 *     burst_compact.cu (degree sums stay below 2^32, so the low half never carries);
 *   - the block scans the packed pairs and sums the events; tile t > 0 publishes its aggregate
 *     (values, __threadfence, then flag 1), warp 0 walks back 32 tiles a step (32 x W with
 *     XPB_CUDA_SHARDED_LOOKBACK_TILES = W: each lane W, for fewer dependent steps where the tiles
 *     are many; an A/B knob, 1 by default) adding aggregates
 *     until a tile with its inclusive prefix (flag 2), then publishes its own inclusive prefix;
 *     values are read with volatile loads after the flag (and a fence), never from a stale L1 line;
 *   - each thread writes fired[k] and degree_scan[k] of its set bits from its exclusive prefix;
 *     the last tile writes the counters and degree_scan[count].
 * The flags and the ticket must be zero at the start: a kernel of the same burst earlier on the
 * same stream zeroes them (xpb_burst_dev.clear: propagate, or dynamics with
 * XPB_CUDA_SHARDED_PROPAGATE=bits; whatever the launch mode or graph),
 * so a burst has no memset and no host work. Integer sums in a fixed order per id: the outputs
 * are the two-pass kernels' bit for bit. XPB_CUDA_SHARDED_COMPACT picks this or the two-pass. */
#include "cuda_burst.cuh"

#define XPB_LB_THREADS XPB_BURST_LOOKBACK_THREADS
#define XPB_LB_AGG 1u
#define XPB_LB_INCL 2u

static_assert(XPB_LB_THREADS % 32 == 0 && XPB_LB_THREADS <= 1024, "a tile is whole warps of one block");

__device__ __forceinline__ uint32_t xpb_lb_degree(const uint32_t *__restrict__ offsets, uint32_t i)
{
    return __ldg(offsets + i + 1) - __ldg(offsets + i);
}

/* Warp 0 of tile `tile`: publishes its aggregate (agg_pair, agg_events), finds the sum of every
 * earlier tile by looking back, publishes its inclusive prefix; returns the earlier tiles' sums
 * (every lane). A step reads 32 x W earlier tiles, lane L the W from end - W L on (nearest first),
 * their flags then their values all in flight: a late tile of many waits W times fewer steps for
 * the tiles before it (XPB_CUDA_SHARDED_LOOKBACK_TILES). */
template <int W>
__device__ __forceinline__ void xpb_lb_lookback(uint32_t tile, unsigned long long agg_pair,
                                                unsigned long long agg_events, uint32_t *state,
                                                unsigned long long *agg, unsigned long long *incl,
                                                unsigned long long *pre_pair, unsigned long long *pre_events)
{
    const uint32_t lane = threadIdx.x & 31u;
    volatile uint32_t *flag = state + 1;
    unsigned long long pp = 0, pe = 0;
    if (tile > 0) {
        if (lane == 0) {
            agg[2u * tile] = agg_pair;
            agg[2u * tile + 1u] = agg_events;
            __threadfence(); /* the values before the flag, for any block that sees the flag */
            flag[tile] = XPB_LB_AGG;
        }
        for (int64_t end = (int64_t)tile - 1;; end -= 32 * W) {
            uint32_t f[W];
            int near = W; /* this lane's nearest inclusive prefix, W: none */
#pragma unroll
            for (int k = 0; k < W; k++) {
                const int64_t j = end - (int64_t)lane * W - k;
                f[k] = XPB_LB_INCL; /* before tile 0: an inclusive prefix of 0 */
                if (j >= 0)
                    do
                        f[k] = flag[j];
                    while (f[k] == 0u); /* tile j's block runs (it took an earlier ticket): it publishes */
                if (f[k] == XPB_LB_INCL && near == W)
                    near = k;
            }
            __threadfence(); /* its values after its flag */
            unsigned long long vp = 0, ve = 0;
#pragma unroll
            for (int k = 0; k < W; k++) {
                const int64_t j = end - (int64_t)lane * W - k;
                if (j >= 0 && k <= near) { /* up to and with the nearest inclusive one */
                    const volatile unsigned long long *v = f[k] == XPB_LB_INCL ? incl : agg;
                    vp += v[2 * j];
                    ve += v[2 * j + 1];
                }
            }
            const unsigned inc = __ballot_sync(XPB_FULL_MASK, near < W);
            const uint32_t stop = inc ? (uint32_t)(__ffs(inc) - 1) : 31u; /* the lane of the nearest inclusive one */
            if (lane > stop)
                vp = ve = 0;
            pp += xpb_burst_warp_sum(vp);
            pe += xpb_burst_warp_sum(ve);
            if (inc)
                break;
        }
    }
    if (lane == 0) {
        incl[2u * tile] = pp + agg_pair;
        incl[2u * tile + 1u] = pe + agg_events;
        __threadfence();
        flag[tile] = XPB_LB_INCL;
    }
    *pre_pair = pp;
    *pre_events = pe;
}

template <int K, int W>
__global__ void __launch_bounds__(XPB_LB_THREADS)
xpb_burst_compact_lookback(const uint32_t *__restrict__ bits, uint32_t words, uint32_t slot_words, uint32_t ranks,
                           uint32_t n, const uint32_t *__restrict__ offsets,
                           const uint32_t *__restrict__ global_offsets, uint32_t *__restrict__ fired,
                           uint32_t *__restrict__ degree_scan, uint32_t *__restrict__ counters, uint32_t *state,
                           unsigned long long *agg, unsigned long long *incl, uint32_t tiles,
                           const uint32_t *__restrict__ bdev, uint32_t boff)
{
    __shared__ unsigned long long red[32];
    __shared__ unsigned long long before[2]; /* the earlier tiles' packed pairs and events */
    __shared__ uint32_t ticket;
    if (threadIdx.x == 0)
        ticket = atomicAdd(state, 1u);
    __syncthreads();
    const uint32_t tile = ticket;
    const uint64_t w0 = ((uint64_t)tile * XPB_LB_THREADS + threadIdx.x) * K; /* this thread's first word */
    uint32_t m[K];
#pragma unroll
    for (int i = 0; i < K; i++)
        m[i] = w0 + i < words ? __ldg(bits + w0 + i) : 0u;
    unsigned long long pair = 0, events = 0;
#pragma unroll
    for (int i = 0; i < K; i++) {
        const uint32_t id0 = m[i] ? xpb_burst_bits_id0((uint32_t)(w0 + i), slot_words, ranks, n) : 0u;
        pair += (unsigned long long)__popc(m[i]) << 32;
        for (uint32_t mm = m[i]; mm; mm &= mm - 1u) {
            const uint32_t id = id0 + (uint32_t)(__ffs(mm) - 1);
            pair += xpb_lb_degree(offsets, id);
            events += xpb_lb_degree(global_offsets, id);
        }
    }
    unsigned long long tile_pair, tile_events;
    const unsigned long long ex = xpb_burst_block_scan(pair, red, &tile_pair);
    xpb_burst_block_scan(events, red, &tile_events);
    if (threadIdx.x < 32) {
        unsigned long long pp, pe;
        xpb_lb_lookback<W>(tile, tile_pair, tile_events, state, agg, incl, &pp, &pe);
        if (threadIdx.x == 0)
            before[0] = pp, before[1] = pe;
    }
    __syncthreads();
    const unsigned long long at = before[0] + ex;
    uint32_t k = (uint32_t)(at >> 32), dsum = (uint32_t)at;
#pragma unroll
    for (int i = 0; i < K; i++) {
        const uint32_t id0 = m[i] ? xpb_burst_bits_id0((uint32_t)(w0 + i), slot_words, ranks, n) : 0u;
        for (uint32_t mm = m[i]; mm; mm &= mm - 1u) {
            const uint32_t id = id0 + (uint32_t)(__ffs(mm) - 1);
            fired[k] = id;
            degree_scan[k] = dsum;
            dsum += xpb_lb_degree(offsets, id); /* read above by this thread: an L1 hit */
            k++;
        }
    }
    if (tile == tiles - 1 && threadIdx.x == 0)
        xpb_burst_write_counters(before[0] + tile_pair, true, before[1] + tile_events, counters, degree_scan,
                                 xpb_burst_index(bdev, boff));
}

xpb_status xpb_burst_compact_lookback_enqueue(const xpb_cuda_ctx *ctx, const xpb_burst_dev *d, const uint32_t *bits,
                                              int ranks, const uint32_t *global_offsets, unsigned words_per_thread,
                                              unsigned lookback_tiles, const uint32_t *bdev, uint32_t boff,
                                              xpb_error *err)
{
    const uint64_t slot_words = XPB_BURST_SHARD_WORDS(d->n, ranks), words = (uint64_t)ranks * slot_words;
    const xpb_burst_lookback l = xpb_burst_lookback_layout(d->scratch, words, words_per_thread);
    if (words == 0 || words > UINT32_MAX - (uint64_t)XPB_LB_THREADS * 16u)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED, "burst/compact (look-back): %llu words of bits",
                        (unsigned long long)words);
    if (l.bytes > XPB_BURST_SCRATCH_BYTES(d->n)) /* never (tiles * 36 bytes << n / 8), but checked */
        return xpb_fail(err, XPB_ERR_RUNTIME, "burst/compact (look-back): state of %zu bytes past scratch's %zu",
                        l.bytes, (size_t)XPB_BURST_SCRATCH_BYTES(d->n));
    if (l.tiles > (uint32_t)ctx->max_grid_x)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED, "burst/compact (look-back): %u tiles past the grid's %d", l.tiles,
                        ctx->max_grid_x);
#define XPB_LB_LAUNCH(K, W)                                                                                          \
    xpb_burst_compact_lookback<K, W><<<l.tiles, XPB_LB_THREADS, 0, ctx->stream>>>(                                  \
        bits, (uint32_t)words, (uint32_t)slot_words, (uint32_t)ranks, d->n, d->offsets, global_offsets, d->fired,    \
        d->degree_scan, d->counters, l.state, l.agg, l.incl, l.tiles, bdev, boff)
#define XPB_LB_WINDOWS(K)                                                                                            \
    switch (lookback_tiles) { /* XPB_CUDA_SHARDED_LOOKBACK_TILES (POW2 1..8) */                                     \
    case 1: XPB_LB_LAUNCH(K, 1); break;                                                                              \
    case 2: XPB_LB_LAUNCH(K, 2); break;                                                                              \
    case 4: XPB_LB_LAUNCH(K, 4); break;                                                                              \
    case 8: XPB_LB_LAUNCH(K, 8); break;                                                                              \
    }
    if (lookback_tiles != 1 && lookback_tiles != 2 && lookback_tiles != 4 && lookback_tiles != 8)
        return xpb_fail(err, XPB_ERR_USAGE, "burst/compact (look-back): %u tiles a lane a step (1, 2, 4 or 8)",
                        lookback_tiles);
    switch (words_per_thread) { /* XPB_CUDA_SHARDED_COMPACT_WORDS (POW2 1..16) */
    case 1: XPB_LB_WINDOWS(1); break;
    case 2: XPB_LB_WINDOWS(2); break;
    case 4: XPB_LB_WINDOWS(4); break;
    case 8: XPB_LB_WINDOWS(8); break;
    case 16: XPB_LB_WINDOWS(16); break;
    default:
        return xpb_fail(err, XPB_ERR_USAGE, "burst/compact (look-back): %u words a thread (1, 2, 4, 8 or 16)",
                        words_per_thread);
    }
#undef XPB_LB_WINDOWS
#undef XPB_LB_LAUNCH
    XPB_CUDA_CHECK_LAUNCH(err, "burst/compact (look-back)");
    return XPB_OK;
}
