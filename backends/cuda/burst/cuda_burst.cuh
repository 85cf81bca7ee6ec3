/* cuda_burst.cuh - what the four burst-propagation kernels (burst_*.cu) share: the size checks of
 * the contract (workloads/ops/xpb_ops.h, "burst propagation"), the views resolved into typed device
 * pointers with their sizes checked, the pinned hashes (workloads/burst/burst_hash.h) as device code,
 * a 64-bit block scan, and the enqueue functions of the three ops, which batch strings together.
 *
 * The burst index: every kernel gets (bdev, boff) and works on burst b = (bdev ? *bdev : 0) +
 * boff. A single op, and batch's plain launches, pass bdev = NULL and boff = the burst; batch's
 * cached CUDA graphs pass bdev = scratch word 0 (written before each graph launch) and boff = the
 * burst's place in the graph, so one graph serves every starting burst. */
#ifndef XPB_CUDA_BURST_CUH
#define XPB_CUDA_BURST_CUH

#include <stdint.h>
#include <string.h>

#include "cuda_common.cuh"

#define XPB_BURST_COUNTER_WORDS 8 /* sizeof(xpb_burst_counters) / 4 */
#define XPB_BURST_BASE_BYTES 256  /* scratch[0, 256): batch's base burst word, the tally; compact's sums after */

/* Where compact's chunk sums start: 256 bytes into scratch, rounded up to 8 (views are 256-aligned
 * in practice; only 4 is required). The scratch size leaves room to spare. */
static inline unsigned long long *xpb_burst_sums(unsigned char *scratch)
{
    const uintptr_t p = (uintptr_t)(scratch + XPB_BURST_BASE_BYTES);
    return reinterpret_cast<unsigned long long *>((p + 7u) & ~(uintptr_t)7u);
}

/* Which views an op reads or writes (xpb_burst_resolve). */
enum {
    XPB_BURST_NEED_PROPAGATE = 1,
    XPB_BURST_NEED_DYNAMICS = 2,
    XPB_BURST_NEED_COMPACT = 4,
    XPB_BURST_NEED_ALL = 7,
};

/* The args' views as typed device pointers (NULL where the op does not need them), and the
 * scalars the kernels take. */
typedef struct xpb_burst_dev {
    const uint32_t *offsets, *targets;
    const uint8_t *weight, *psp, *inhibitory;
    const float *threshold, *threshold_limit, *leak, *excitability;
    const uint32_t *refractory, *fire_limit, *snooze;
    float *v;
    uint32_t *countdown, *count;
    int32_t *input;
    uint32_t *fired_flag, *fired, *degree_scan;
    uint32_t *counters; /* xpb_burst_counters as 8 words each */
    unsigned char *scratch;
    uint32_t n;
    int32_t stim;
    uint32_t stim_floor;
    float scale;
    /* On a device group (burst_sharded.cu) a rank's dynamics runs on its own neurons: the views
     * above start at its first neuron, n is its count, `first` its first neuron's global id (the
     * draws take global ids), and it writes its fired flags as bits (a ballot word per 32
     * neurons) into `bits` instead of fired_flag. propagate reads its event count from counters
     * word `events_word` (4: events; 5: reserved[0], a rank's own events). One device: 0, NULL, 4. */
    uint32_t first;
    uint32_t *bits;
    uint32_t events_word;
    /* propagate (or dynamics, in the view it gets) zeroes clear[0 .. clear_words) before anything
     * else: on a group's rank, the look-back state of the same burst's compact (xpb_burst_lookback),
     * which must start zero and which a kernel earlier on the same stream resets for free:
     * propagate, or dynamics where propagate reads the bits (the compact then runs only in some
     * bursts, dynamics in every one: burst_sharded.cu). One device: NULL, 0. */
    uint32_t *clear;
    uint32_t clear_words;
} xpb_burst_dev;

/* The contract's sizes, and what this backend supports: 1 <= n < 2^32 - 1 and synapses < 2^32
 * (XPB_ERR_USAGE below 1, XPB_ERR_UNSUPPORTED above), and for the ops that index counters,
 * `bursts` counter entries past the first one read (propagate 0, compact 1, batch `bursts`) within
 * uint32 burst numbers. what: "burst/propagate". */
static inline xpb_status xpb_burst_check(const xpb_burst_args *a, const char *what, uint64_t bursts,
                                         xpb_error *err)
{
    if (a->n < 1)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: n = %lld below 1", what, (long long)a->n);
    if (a->n >= (int64_t)UINT32_MAX)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED, "%s: n = %lld not below 2^32 - 1 (uint32 neuron ids and scans)",
                        what, (long long)a->n);
    if (a->synapses > UINT32_MAX)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED, "%s: %llu synapses not below 2^32 (uint32 offsets and events)",
                        what, (unsigned long long)a->synapses);
    if ((uint64_t)a->burst + bursts > UINT32_MAX)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: bursts %u + %llu past 2^32 - 1", what, a->burst,
                        (unsigned long long)bursts);
    return XPB_OK;
}

/* Resolves view v of `bytes` bytes to a device pointer, `align`-byte aligned (a power of two).
 * XPB_ERR_USAGE when no buffer is bound, the view runs past its buffer or is misaligned. */
static inline xpb_status xpb_burst_view(const xpb_view *v, size_t bytes, size_t align, const char *op,
                                        const char *name, void **out, xpb_error *err)
{
    *out = NULL;
    if (!v->buf)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: %s: no buffer bound", op, name);
    if (v->offset > v->buf->bytes || bytes > v->buf->bytes - v->offset)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: %s: view [%zu, %zu + %zu) runs past its buffer of %zu bytes", op,
                        name, v->offset, v->offset, bytes, v->buf->bytes);
    char *p = (char *)v->buf->ptr + v->offset;
    if (((uintptr_t)p & (align - 1)) != 0)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: %s: view offset %zu not %zu-byte aligned", op, name, v->offset,
                        align);
    *out = p;
    return XPB_OK;
}

/* Fills d with the views the ops in `need` use (XPB_BURST_NEED_*), each size-checked: counters
 * must hold `entries` xpb_burst_counters. Run xpb_burst_check first. */
static inline xpb_status xpb_burst_resolve(const xpb_burst_args *a, unsigned need, uint64_t entries, const char *op,
                                           xpb_burst_dev *d, xpb_error *err)
{
    memset(d, 0, sizeof *d);
    const size_t n = (size_t)a->n, syn = (size_t)a->synapses, w = 4;
    xpb_status st = XPB_OK;
#define XPB_BURST_VIEW(field, bytes, align)                                                              \
    do {                                                                                                 \
        void *p_ = NULL;                                                                                 \
        if ((st = xpb_burst_view(&a->field, (bytes), (align), op, #field, &p_, err)) != XPB_OK)           \
            return st;                                                                                   \
        d->field = static_cast<decltype(d->field)>(p_);                                                  \
    } while (0)
    if (need & (XPB_BURST_NEED_PROPAGATE | XPB_BURST_NEED_COMPACT)) {
        XPB_BURST_VIEW(offsets, (n + 1) * w, w);
        XPB_BURST_VIEW(fired, n * w, w);
        XPB_BURST_VIEW(degree_scan, (n + 1) * w, w);
        XPB_BURST_VIEW(counters, (size_t)entries * sizeof(xpb_burst_counters), w);
    }
    if (need & XPB_BURST_NEED_PROPAGATE) {
        XPB_BURST_VIEW(targets, syn * w, w);
        XPB_BURST_VIEW(weight, syn, 1);
        XPB_BURST_VIEW(psp, syn, 1);
        XPB_BURST_VIEW(inhibitory, n, 1);
    }
    if (need & (XPB_BURST_NEED_PROPAGATE | XPB_BURST_NEED_DYNAMICS))
        XPB_BURST_VIEW(input, n * w, w);
    if (need & (XPB_BURST_NEED_DYNAMICS | XPB_BURST_NEED_COMPACT))
        XPB_BURST_VIEW(fired_flag, n * w, w);
    if (need & XPB_BURST_NEED_DYNAMICS) {
        XPB_BURST_VIEW(threshold, n * w, w);
        XPB_BURST_VIEW(threshold_limit, n * w, w);
        XPB_BURST_VIEW(leak, n * w, w);
        XPB_BURST_VIEW(excitability, n * w, w);
        XPB_BURST_VIEW(refractory, n * w, w);
        XPB_BURST_VIEW(fire_limit, n * w, w);
        XPB_BURST_VIEW(snooze, n * w, w);
        XPB_BURST_VIEW(v, n * w, w);
        XPB_BURST_VIEW(countdown, n * w, w);
        XPB_BURST_VIEW(count, n * w, w);
    }
    if (need & XPB_BURST_NEED_COMPACT)
        XPB_BURST_VIEW(scratch, XPB_BURST_SCRATCH_BYTES(n), 4);
#undef XPB_BURST_VIEW
    d->n = (uint32_t)a->n;
    d->events_word = 4;
    d->stim = a->stim;
    d->stim_floor = a->stim_floor;
    d->scale = a->scale;
    return XPB_OK;
}

/* ---- a device group's rank (burst_shard.cu, burst_sharded.cu) --------------------------------- */

/* The group's ops run only on a group whose size the args name. */
static inline xpb_status xpb_burst_group_check(const xpb_cuda_ctx *g, const xpb_burst_args *a, const char *what,
                                               uint64_t bursts, xpb_error *err)
{
    if (xpb_cuda_group_size(g) == 0)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED, "%s runs on a device group (--devices)", what);
    if (a->ranks != xpb_cuda_group_size(g))
        return xpb_fail(err, XPB_ERR_USAGE, "%s: the args name %d ranks, the group has %d", what, a->ranks,
                        xpb_cuda_group_size(g));
    return xpb_burst_check(a, what, bursts, err);
}

/* Every view of the args on this process's l-th rank of a group, size-checked: `net` as one
 * device's (the whole network and state, counters for `entries` bursts), and the shard's. */
typedef struct xpb_burst_rank {
    xpb_burst_dev net;
    uint32_t *shard_offsets, *shard_targets;
    uint8_t *shard_weight, *shard_psp;
    uint32_t *bits;
    size_t bits_bytes, scratch_bytes;
} xpb_burst_rank;

static inline xpb_status xpb_burst_rank_resolve(const xpb_burst_args *a, int l, uint64_t entries, const char *op,
                                                xpb_burst_rank *k, xpb_error *err)
{
    xpb_burst_args r = *a;
    xpb_view *views[] = {&r.offsets,       &r.targets,    &r.weight,        &r.psp,          &r.inhibitory,
                         &r.threshold,     &r.threshold_limit, &r.leak,     &r.excitability, &r.refractory,
                         &r.fire_limit,    &r.snooze,     &r.v,             &r.countdown,    &r.count,
                         &r.input,         &r.fired_flag, &r.fired,         &r.degree_scan,  &r.counters,
                         &r.scratch,       &r.shard_offsets, &r.shard_targets, &r.shard_weight, &r.shard_psp,
                         &r.shard_bits};
    xpb_buffer stand_in[sizeof views / sizeof views[0]];
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) { /* rank l's copy of each buffer */
        const xpb_buffer *b = views[i]->buf;
        if (!b || !b->rank_ptr || l >= b->ranks)
            continue;
        stand_in[i] = *b;
        stand_in[i].ptr = b->rank_ptr[l];
        views[i]->buf = &stand_in[i];
    }
    memset(k, 0, sizeof *k);
    xpb_status st = xpb_burst_resolve(&r, XPB_BURST_NEED_ALL, entries, op, &k->net, err);
    const size_t n = (size_t)a->n, syn = (size_t)a->synapses;
    void *p = NULL;
    if (st == XPB_OK && (st = xpb_burst_view(&r.shard_offsets, (n + 1) * 4, 4, op, "shard_offsets", &p, err)) == XPB_OK)
        k->shard_offsets = static_cast<uint32_t *>(p);
    if (st == XPB_OK && (st = xpb_burst_view(&r.shard_targets, syn * 4, 4, op, "shard_targets", &p, err)) == XPB_OK)
        k->shard_targets = static_cast<uint32_t *>(p);
    if (st == XPB_OK && (st = xpb_burst_view(&r.shard_weight, syn, 1, op, "shard_weight", &p, err)) == XPB_OK)
        k->shard_weight = static_cast<uint8_t *>(p);
    if (st == XPB_OK && (st = xpb_burst_view(&r.shard_psp, syn, 1, op, "shard_psp", &p, err)) == XPB_OK)
        k->shard_psp = static_cast<uint8_t *>(p);
    k->bits_bytes = XPB_BURST_SHARD_BITS_BYTES(n, a->ranks);
    if (st == XPB_OK && (st = xpb_burst_view(&r.shard_bits, k->bits_bytes, 4, op, "shard_bits", &p, err)) == XPB_OK)
        k->bits = static_cast<uint32_t *>(p);
    k->scratch_bytes = XPB_BURST_SCRATCH_BYTES(n);
    return st;
}

/* ---- the ops' enqueue functions (one per file; no checks, no activation: the callers do both) */

/* propagate of burst (bdev ? *bdev : 0) + boff: reads counters[b], adds into input. */
xpb_status xpb_burst_propagate_enqueue(const xpb_cuda_ctx *ctx, const xpb_burst_dev *d, const uint32_t *bdev,
                                       uint32_t boff, xpb_error *err);
/* dynamics of that burst: the neuron update; writes fired_flag, zeroes input. */
xpb_status xpb_burst_dynamics_enqueue(const xpb_cuda_ctx *ctx, const xpb_burst_dev *d, const uint32_t *bdev,
                                      uint32_t boff, xpb_error *err);
/* compact of that burst: fired, degree_scan and counters[b + 1] from fired_flag (2 launches; 3
 * above 8M neurons). */
xpb_status xpb_burst_compact_enqueue(const xpb_cuda_ctx *ctx, const xpb_burst_dev *d, const uint32_t *bdev,
                                     uint32_t boff, xpb_error *err);

/* An enqueue function above. */
typedef xpb_status (*xpb_burst_enqueue_fn)(const xpb_cuda_ctx *ctx, const xpb_burst_dev *d, const uint32_t *bdev,
                                           uint32_t boff, xpb_error *err);

/* One op's launch alone (its xpb_kernel.launch): checks a with `bursts` (xpb_burst_check), resolves
 * the views in `need` with counters of a->burst + ahead entries (0 when ahead is 0: the op reads
 * no counters), activates ctx, then enqueues the op for a->burst. what: "burst/propagate". */
static inline xpb_status xpb_burst_launch(void *vctx, const void *vargs, const char *what, uint64_t bursts,
                                          unsigned need, uint64_t ahead, xpb_burst_enqueue_fn enqueue,
                                          xpb_error *err)
{
    const xpb_cuda_ctx *ctx = static_cast<const xpb_cuda_ctx *>(vctx);
    const xpb_burst_args *a = static_cast<const xpb_burst_args *>(vargs);
    const uint64_t entries = ahead ? (uint64_t)a->burst + ahead : 0;
    xpb_burst_dev d;
    xpb_status st;
    if ((st = xpb_burst_check(a, what, bursts, err)) != XPB_OK ||
        (st = xpb_burst_resolve(a, need, entries, what, &d, err)) != XPB_OK ||
        (st = xpb_cuda_activate(ctx, err)) != XPB_OK)
        return st;
    return enqueue(ctx, &d, NULL, a->burst, err);
}

/* The sharded run's compact (burst_compact.cu): from the gathered fired bits of every rank
 * (XPB_BURST_SHARD_WORDS(n, ranks) words a rank; rank r's bit k is neuron
 * xpb_burst_shard_first(r, ranks, n) + k), the fired list of the whole group ascending, its
 * degree scan over this rank's shard (d->offsets: shard_offsets), and counters[b + 1] = {count,
 * dispatch, events over the group (global_offsets: the whole network's rows), reserved[0] = this
 * rank's events}. d->n is the whole network's neuron count. */
xpb_status xpb_burst_compact_bits_enqueue(const xpb_cuda_ctx *ctx, const xpb_burst_dev *d, const uint32_t *bits,
                                          int ranks, const uint32_t *global_offsets, const uint32_t *bdev,
                                          uint32_t boff, xpb_error *err);

/* The single-pass compact of a group's rank (burst_compact_lookback.cu): a tile is
 * XPB_BURST_LOOKBACK_THREADS threads of `words_per_thread` consecutive words of the gathered bits
 * each (XPB_CUDA_SHARDED_COMPACT_WORDS); its state in scratch, after the 256-byte base word:
 * `state` = {ticket, a flag a tile} (zeroed earlier in the same burst: xpb_burst_dev.clear),
 * then, 8-aligned, two 64-bit values a tile for its aggregate and two for its inclusive prefix. */
#define XPB_BURST_LOOKBACK_THREADS 512
typedef struct xpb_burst_lookback {
    uint32_t *state;                /* [0] ticket, [1 + t] tile t's flag (0 none, 1 aggregate, 2 inclusive) */
    unsigned long long *agg, *incl; /* [2 t], [2 t + 1]: tile t's packed (count, degrees) and its events */
    uint32_t tiles, state_words;
    size_t bytes; /* scratch bytes used, from its start */
} xpb_burst_lookback;

/* The layout over `words` words of bits (ranks x XPB_BURST_SHARD_WORDS), words_per_thread >= 1. */
static inline xpb_burst_lookback xpb_burst_lookback_layout(unsigned char *scratch, uint64_t words,
                                                           unsigned words_per_thread)
{
    xpb_burst_lookback l;
    const uint64_t tile_words = (uint64_t)XPB_BURST_LOOKBACK_THREADS * words_per_thread;
    l.tiles = (uint32_t)((words + tile_words - 1) / tile_words);
    l.state_words = l.tiles + 1;
    l.state = reinterpret_cast<uint32_t *>(scratch + XPB_BURST_BASE_BYTES);
    const uintptr_t vals = ((uintptr_t)(l.state + l.state_words) + 7u) & ~(uintptr_t)7u; /* views: 4-aligned */
    l.agg = reinterpret_cast<unsigned long long *>(vals);
    l.incl = l.agg + 2u * (size_t)l.tiles;
    l.bytes = (size_t)(vals - (uintptr_t)scratch) + (size_t)l.tiles * 32u;
    return l;
}

/* The same outputs as xpb_burst_compact_bits_enqueue, in one launch, with d->clear set as
 * xpb_burst_lookback_layout says for the same words_per_thread (1, 2, 4, 8 or 16) and the burst's
 * propagate enqueued before it on the stream; a look-back step reads 32 x lookback_tiles earlier
 * tiles (1, 2, 4 or 8: XPB_CUDA_SHARDED_LOOKBACK_TILES). */
xpb_status xpb_burst_compact_lookback_enqueue(const xpb_cuda_ctx *ctx, const xpb_burst_dev *d, const uint32_t *bits,
                                              int ranks, const uint32_t *global_offsets, unsigned words_per_thread,
                                              unsigned lookback_tiles, const uint32_t *bdev, uint32_t boff,
                                              xpb_error *err);

/* A group's rank's propagate of burst b = (bdev ? *bdev : 0) + boff straight from the gathered bits
 * of burst b - 1 (every rank's slot, as compact reads them) through its shard (d->offsets ..
 * d->psp: shard_offsets ..; d->n the whole network's neurons), with no fired list and no degree
 * scan read (burst_propagate_bits.cu): input[t] += the same integer terms as
 * xpb_burst_propagate_enqueue's, so the same input bit for bit; and counters[b] (b > 0) = {fired,
 * dispatch, events over global_offsets (the network's own rows), reserved 0}: the fired count and
 * events the compact of burst b - 1 writes there (its dispatch and reserved[0] are from the rank's
 * own events; here dispatch is from the group's and reserved zero), through the tally in d->scratch
 * (xpb_burst_tally: zero before the first call, and left zero by every call).
 * burst_sharded.cu's XPB_CUDA_SHARDED_PROPAGATE=bits. */
xpb_status xpb_burst_propagate_bits_enqueue(const xpb_cuda_ctx *ctx, const xpb_burst_dev *d, const uint32_t *bits,
                                            int ranks, const uint32_t *global_offsets, const uint32_t *bdev,
                                            uint32_t boff, xpb_error *err);
/* Which slots of the gathered bits a launch of the propagate reads (burst_propagate_bits.cu): every
 * one, rank's own (its counts only added to the tally), or every other one (after OWN on the same
 * stream, or on a stream that waits for it: then the same input and entry as ALL). */
typedef enum { XPB_PROPBITS_ALL, XPB_PROPBITS_OWN, XPB_PROPBITS_OTHERS } xpb_propbits_part;
xpb_status xpb_burst_propagate_bits_part_enqueue(const xpb_cuda_ctx *ctx, cudaStream_t stream, const xpb_burst_dev *d,
                                                 const uint32_t *bits, int ranks, int rank, xpb_propbits_part part,
                                                 const uint32_t *global_offsets, const uint32_t *bdev, uint32_t boff,
                                                 xpb_error *err);

/* Scratch words XPB_BURST_TALLY_WORD .. + 2 (inside the base bytes, after batch's base word):
 * propagate-from-the-bits' tally {fired, events, blocks done}; burst/shard zeroes it once per run. */
#define XPB_BURST_TALLY_WORD 4
#define XPB_BURST_TALLY_WORDS 3
static inline uint32_t *xpb_burst_tally(unsigned char *scratch)
{
    return reinterpret_cast<uint32_t *>(scratch) + XPB_BURST_TALLY_WORD;
}

/* ---- device helpers -------------------------------------------------------------------------- */

/* The id of the neuron of bit 0 of word w of the gathered bits: slot r = w / slot_words holds
 * neurons from r n / ranks on (xpb_burst_shard_first). */
__device__ __forceinline__ uint32_t xpb_burst_bits_id0(uint32_t w, uint32_t slot_words, uint32_t ranks, uint32_t n)
{
    const uint32_t r = w / slot_words;
    return (uint32_t)((uint64_t)r * n / ranks) + (w - r * slot_words) * 32u;
}

__device__ __forceinline__ uint32_t xpb_burst_index(const uint32_t *bdev, uint32_t boff)
{
    return (bdev ? *bdev : 0u) + boff;
}

/* pcg_hash (burst.h), uint32 arithmetic mod 2^32. */
__device__ __forceinline__ uint32_t xpb_burst_pcg_hash(uint32_t x)
{
    const uint32_t state = x * 747796405u + 2891336453u;
    const uint32_t word = ((state >> ((state >> 28) + 4u)) ^ state) * 277803737u;
    return (word >> 22) ^ word;
}

__device__ __forceinline__ uint32_t xpb_burst_stimulus_draw(uint32_t i, uint32_t b)
{
    return xpb_burst_pcg_hash(i * 3266489917u + b * 668265263u + 374761393u);
}

__device__ __forceinline__ uint32_t xpb_burst_excitability_draw(uint32_t i, uint32_t b)
{
    return xpb_burst_pcg_hash(i * 2654435761u + b * 1597334677u);
}

/* Inclusive prefix sum over the warp (every lane calls it), of 64-bit packed pairs or 32-bit counts. */
template <class T> __device__ __forceinline__ T xpb_burst_warp_scan(T v)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const T t = __shfl_up_sync(XPB_FULL_MASK, v, o);
        if (lane >= o)
            v += t;
    }
    return v;
}

/* Sum over the warp (every lane calls it and gets it), of 64-bit sums or 32-bit counts. */
template <class T> __device__ __forceinline__ T xpb_burst_warp_sum(T v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(XPB_FULL_MASK, v, o);
    return v;
}

/* Exclusive prefix sum over the block (blockDim.x a multiple of 32; every thread calls it);
 * *total gets the block's sum. red: 32 words of __shared__ scratch, reusable after the call. */
__device__ __forceinline__ unsigned long long xpb_burst_block_scan(unsigned long long v, unsigned long long *red,
                                                                    unsigned long long *total)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    const unsigned long long incl = xpb_burst_warp_scan(v);
    __syncthreads(); /* the previous call's readers are done with red */
    if (lane == 31)
        red[warp] = incl;
    __syncthreads();
    if (warp == 0) {
        const unsigned long long t = xpb_burst_warp_scan(lane < nwarps ? red[lane] : 0ull);
        red[lane] = t;
    }
    __syncthreads();
    *total = red[nwarps - 1];
    return (warp > 0 ? red[warp - 1] : 0ull) + incl - v;
}

/* One counters entry c: {count, dispatch {groups, 1, 1} for `spread` events (the events propagate
 * strides over), events, reserved {own, 0, 0}}. */
__device__ __forceinline__ void xpb_burst_counters_entry(uint32_t *__restrict__ c, uint32_t count, uint32_t spread,
                                                         uint32_t events, uint32_t own)
{
    uint32_t groups = spread / XPB_BURST_EVENTS_PER_GROUP + (spread % XPB_BURST_EVENTS_PER_GROUP != 0);
    groups = groups < 1 ? 1 : groups > XPB_BURST_MAX_GROUPS ? XPB_BURST_MAX_GROUPS : groups;
    c[0] = count;
    c[1] = groups; /* dispatch {groups, 1, 1} */
    c[2] = 1;
    c[3] = 1;
    c[4] = events;
    c[5] = own; /* reserved[0]: a group's rank's own events, for its propagate */
    c[6] = 0;
    c[7] = 0;
}

/* counters[b + 1] = {count, {groups, 1, 1}, events, 0} and degree_scan[count] = events, from the
 * packed total of every chunk; on a group's rank events = `global` and reserved[0] its own. */
__device__ __forceinline__ void xpb_burst_write_counters(unsigned long long total, bool group,
                                                         unsigned long long global, uint32_t *__restrict__ counters,
                                                         uint32_t *__restrict__ degree_scan, uint32_t b)
{
    const uint32_t count = (uint32_t)(total >> 32), events = (uint32_t)total;
    xpb_burst_counters_entry(counters + ((size_t)b + 1) * XPB_BURST_COUNTER_WORDS, count, events,
                             group ? (uint32_t)global : events, /* a group's rank: the whole network's */
                             group ? events : 0u);
    degree_scan[count] = events;
}

#endif
