/* burst_sharded.cu - burst sharded (workloads/ops/xpb_ops.h, xpb_burst_args) on a device group: bursts
 * b = burst .. burst + bursts - 1 as `batch` runs them on one device, with the neurons split by
 * range, rank r of P owning [r n / P, (r + 1) n / P) and the synapses that target them (its
 * shard, burst_shard.cu). Per burst, on every rank:
 *   1. propagate: the whole fired list of burst b - 1 through the shard: events j < the rank's
 *      own count (counters word 5), so it adds only into its own neurons' input;
 *   2. dynamics on its own neurons (their global ids in the draws), their fired flags written as
 *      bits into the rank's slot of shard_bits (a warp's ballot a word);
 *   3. all_gather of the slots (NCCL, in place): every rank has every neuron's bit;
 *   4. compact of the gathered bits: the fired list of the whole group ascending (the same on
 *      every rank), its degree scan over the rank's shard, counters[b + 1] with the group's
 *      events (from the whole network's rows) and the rank's own: one launch, a single-pass
 *      look-back scan (burst_compact_lookback.cu) whose flags step 1 zeroes, or burst_compact.cu's
 *      two (XPB_CUDA_SHARDED_COMPACT=twopass).
 * With XPB_CUDA_SHARDED_PROPAGATE=bits, step 1 reads the gathered bits of burst b - 1 instead
 * and writes counters[b] from them (burst_propagate_bits.cu), so a burst needs no fired list: step
 * 4 runs only on a span's last burst (the fired list the run reads back; its look-back flags then
 * zeroed by dynamics, the kernel before it on the stream that runs in every burst). Only the bits
 * cross GPUs: n / 8 bytes a burst, whatever the rates. Integer sums and the same per-neuron steps
 * as one device, so fired sets and v are one device's bit for bit.
 *
 * Launches: 3 a rank a burst plus the collective (4 with the two-pass compact, 2 from the bits). One process driving P GPUs from one thread
 * spends more host time issuing them than the GPUs take, so plain launches may go out from one
 * host thread a rank (XPB_CUDA_SHARDED_LAUNCH), and spans of up to XPB_SHARDED_SPAN bursts are
 * captured as one CUDA graph per rank (NCCL's calls captured with them, as nccl-tests -G does),
 * cached like batch's (burst_batch.cu): by default the first launch with a key runs as stream
 * launches and marks the key, the second captures (XPB_CUDA_SHARDED_CAPTURE); the graph takes its first burst from scratch word 0. A
 * group's graphs hold its communicators: closing the group destroys them first
 * (xpb_cuda_burst_sharded_forget), or NCCL's teardown waits on them forever. */
#include "cuda_burst.cuh"
#include "burst_sharded_profile.h"
#include "burst_window.h"
#include "cuda_nccl.h"
#include "xpb_knob.h"

#include <mutex>

#define XPB_SHARDED_SPAN 64      /* bursts in one graph */
#define XPB_SHARDED_KEYS 4
#define XPB_SHARDED_GRAPH_RANKS 8 /* graphs for up to this many ranks in a process */
#define XPB_SHARDED_WINDOW_RANKS 64 /* symmetric windows for up to this many */

/* How spans go out (declared knobs, docs/knobs.md): plain launches from this thread or from one
 * thread a rank; graphs captured when a key is seen again, on first sight, or never. */
enum { CAPTURE_AUTO, CAPTURE_AGAIN, CAPTURE_FIRST, CAPTURE_NEVER }; /* the knob's words, in order */
typedef struct launch_mode {
    bool threads;
    int capture;
    bool prof;     /* XPB_CUDA_SHARDED_PROFILE: plain launches with phase marks */
    bool lookback; /* XPB_CUDA_SHARDED_COMPACT */
    unsigned compact_words; /* XPB_CUDA_SHARDED_COMPACT_WORDS */
    unsigned lookback_tiles; /* XPB_CUDA_SHARDED_LOOKBACK_TILES */
    bool from_bits;         /* XPB_CUDA_SHARDED_PROPAGATE */
    bool overlap;           /* XPB_CUDA_SHARDED_OVERLAP */
    int exchange;           /* XPB_CUDA_SHARDED_EXCHANGE: EXCHANGE_PLAIN or EXCHANGE_WINDOW */
} launch_mode;
enum { EXCHANGE_PLAIN, EXCHANGE_WINDOW }; /* the knob's words, in order */

/* What one rank runs: its three views of the burst (propagate through the shard, dynamics on its
 * own neurons, compact of the gathered bits), resolved once per launch. */
typedef struct rank_plan {
    xpb_burst_dev prop, dyn, cmp;
    const uint32_t *global_offsets;
    uint32_t *bits;     /* every rank's slot */
    uint32_t *own_bits; /* this rank's slot  */
    size_t slot_words;
    bool lookback;           /* compact in one launch (burst_compact_lookback.cu), else the two-pass one */
    unsigned compact_words;  /* the one-launch compact's words of bits a thread */
    unsigned lookback_tiles; /* its look-back's earlier tiles a lane a step */
    bool from_bits;          /* propagate from the gathered bits, the compact at a span's end only */
    bool overlap;            /* from the bits: the own slot's share on the side stream during the exchange */
    int rank;                /* r of P: the own slot */
} rank_plan;

static xpb_status plan_rank(const xpb_burst_args *a, int l, int r, int p, uint64_t entries, const launch_mode *m,
                            rank_plan *q, xpb_error *err)
{
    xpb_burst_rank k;
    const xpb_status st = xpb_burst_rank_resolve(a, l, entries, "burst/sharded", &k, err);
    if (st != XPB_OK)
        return st;
    const int64_t lo = xpb_burst_shard_first(r, p, a->n), hi = xpb_burst_shard_first(r + 1, p, a->n);
    memset(q, 0, sizeof *q);
    q->slot_words = XPB_BURST_SHARD_WORDS(a->n, p);
    q->bits = k.bits;
    q->own_bits = k.bits + (size_t)r * q->slot_words;
    q->global_offsets = k.net.offsets;
    q->prop = k.net;
    q->prop.offsets = k.shard_offsets;
    q->prop.targets = k.shard_targets;
    q->prop.weight = k.shard_weight;
    q->prop.psp = k.shard_psp;
    q->prop.events_word = 5; /* reserved[0]: the rank's own events */
    q->lookback = m->lookback;
    q->compact_words = m->compact_words;
    q->lookback_tiles = m->lookback_tiles;
    q->from_bits = m->from_bits;
    q->overlap = m->overlap;
    q->rank = r;
    if (q->lookback) { /* propagate zeroes the look-back state of the same burst's compact */
        const xpb_burst_lookback lb =
            xpb_burst_lookback_layout(k.net.scratch, (uint64_t)p * q->slot_words, q->compact_words);
        q->prop.clear = lb.state;
        q->prop.clear_words = lb.state_words;
    }
    q->cmp = q->prop;
    q->dyn = k.net; /* its own neurons: the per-neuron views from lo on */
    q->dyn.threshold += lo, q->dyn.threshold_limit += lo, q->dyn.leak += lo, q->dyn.excitability += lo;
    q->dyn.refractory += lo, q->dyn.fire_limit += lo, q->dyn.snooze += lo;
    q->dyn.v += lo, q->dyn.countdown += lo, q->dyn.count += lo, q->dyn.input += lo;
    q->dyn.n = (uint32_t)(hi - lo);
    q->dyn.first = (uint32_t)lo;
    q->dyn.bits = q->own_bits;
    if (q->from_bits) { /* dynamics runs in every burst, the compact only in some: dynamics clears */
        q->dyn.clear = q->prop.clear, q->dyn.clear_words = q->prop.clear_words;
        q->prop.clear = NULL, q->prop.clear_words = 0;
    }
    return XPB_OK;
}

/* Mark `mark` of rank l's burst when profiling (burst_sharded_profile.h). */
static xpb_status rank_mark(const xpb_cuda_ctx *g, int l, bool prof, int mark, xpb_error *err)
{
    const xpb_cuda_ctx *rank = xpb_cuda_group_rank_ctx(g, l);
    return prof ? xpb_sharded_prof_mark(l, rank->device, rank->stream, mark, err) : XPB_OK;
}

/* Rank l's propagate of burst (base ? *base : 0) + boff from the gathered bits. With the overlap,
 * a span's first burst reads every slot; a later one the others' alone, after the own slot's
 * share that the burst before left on the side stream (rank_overlap_own). */
static xpb_status rank_propagate_bits(const xpb_cuda_ctx *g, const rank_plan *q, const xpb_cuda_ctx *rank,
                                      const uint32_t *base, uint32_t boff, bool span_first, xpb_error *err)
{
    const bool rest = q->overlap && !span_first;
    if (rest)
        XPB_CUDA_CHECK(err, cudaStreamWaitEvent(rank->stream, rank->ev_join, 0));
    return xpb_burst_propagate_bits_part_enqueue(rank, rank->stream, &q->prop, q->bits, xpb_cuda_group_size(g), q->rank,
                                                 rest ? XPB_PROPBITS_OTHERS : XPB_PROPBITS_ALL, q->global_offsets,
                                                 base, boff, err);
}

/* With the overlap, after a burst's dynamics (not a span's last burst): the next burst's propagate
 * of the rank's own fired bits, on the side stream, so that it runs while the exchange that
 * follows on the stream brings the others' (its counts wait in the tally for the rest). */
static xpb_status rank_overlap_own(const xpb_cuda_ctx *g, const rank_plan *q, const xpb_cuda_ctx *rank,
                                   const uint32_t *base, uint32_t boff, xpb_error *err)
{
    XPB_CUDA_CHECK(err, cudaEventRecord(rank->ev_fork, rank->stream));
    XPB_CUDA_CHECK(err, cudaStreamWaitEvent(rank->side, rank->ev_fork, 0));
    const xpb_status st =
        xpb_burst_propagate_bits_part_enqueue(rank, rank->side, &q->prop, q->bits, xpb_cuda_group_size(g), q->rank,
                                              XPB_PROPBITS_OWN, q->global_offsets, base, boff + 1, err);
    if (st != XPB_OK)
        return st;
    XPB_CUDA_CHECK(err, cudaEventRecord(rank->ev_join, rank->side));
    return XPB_OK;
}

/* Rank l's propagate and dynamics of burst (base ? *base : 0) + boff, the span's first and last
 * bursts said (the overlap's fork and join stay inside a span: a captured graph ends joined). */
static xpb_status rank_update(const xpb_cuda_ctx *g, const rank_plan *q, int l, const uint32_t *base, uint32_t boff,
                              bool span_first, bool span_last, bool prof, xpb_error *err)
{
    const xpb_cuda_ctx *rank = xpb_cuda_group_rank_ctx(g, l);
    xpb_status st;
    if ((st = xpb_cuda_activate(rank, err)) == XPB_OK && (st = rank_mark(g, l, prof, XPB_SHARDED_PROF_START, err)) == XPB_OK &&
        (st = q->from_bits ? rank_propagate_bits(g, q, rank, base, boff, span_first, err)
                           : xpb_burst_propagate_enqueue(rank, &q->prop, base, boff, err)) == XPB_OK)
        st = rank_mark(g, l, prof, XPB_SHARDED_PROF_PROPAGATE, err);
    /* a rank of no neurons (n < P) still launches it where it clears the look-back state (`bits`):
       else the next compact's tickets run on past its tiles and wait forever */
    if (st == XPB_OK && (q->dyn.n > 0 || q->dyn.clear_words > 0))
        st = xpb_burst_dynamics_enqueue(rank, &q->dyn, base, boff, err);
    if (st == XPB_OK && q->from_bits && q->overlap && !span_last)
        st = rank_overlap_own(g, q, rank, base, boff, err);
    return st == XPB_OK ? rank_mark(g, l, prof, XPB_SHARDED_PROF_DYNAMICS, err) : st;
}

/* Rank l's compact of the gathered bits of that burst, where it runs (`last`: the span's last burst;
 * from the bits only that one); the profile's compact mark either way. */
static xpb_status rank_compact(const xpb_cuda_ctx *g, const rank_plan *q, int l, const uint32_t *base, uint32_t boff,
                               bool last, bool prof, xpb_error *err)
{
    const xpb_cuda_ctx *rank = xpb_cuda_group_rank_ctx(g, l);
    const int p = xpb_cuda_group_size(g);
    xpb_status st = xpb_cuda_activate(rank, err);
    if (st == XPB_OK && (last || !q->from_bits))
        st = q->lookback ? xpb_burst_compact_lookback_enqueue(rank, &q->cmp, q->bits, p, q->global_offsets,
                                                              q->compact_words, q->lookback_tiles, base, boff, err)
                         : xpb_burst_compact_bits_enqueue(rank, &q->cmp, q->bits, p, q->global_offsets, base, boff, err);
    return st == XPB_OK ? rank_mark(g, l, prof, XPB_SHARDED_PROF_COMPACT, err) : st;
}

static xpb_status rank_gather(const xpb_cuda_ctx *g, const rank_plan *q, int l, xpb_error *err)
{
    const ncclResult_t nr = ncclAllGather(q->own_bits, q->bits, q->slot_words, ncclUint32, xpb_cuda_group_comm(g, l),
                                          xpb_cuda_group_stream(g, l));
    return nr == ncclSuccess ? XPB_OK : xpb_nccl_fail(err, nr, "ncclAllGather(burst/sharded bits)", __FILE__, __LINE__);
}

/* `count` bursts, numbered (base ? *base : 0) + first + i, on every rank of this process, from
 * this thread (what a capture records; the all_gathers of a burst in one NCCL group). prof: mark
 * the phases (not while capturing). */
static xpb_status enqueue_bursts(const xpb_cuda_ctx *g, const rank_plan *plan, bool graph, uint32_t first,
                                 uint32_t count, bool prof, xpb_error *err)
{
    const int local = xpb_cuda_group_local(g);
    for (uint32_t i = 0; i < count; i++) {
        const uint32_t boff = first + i;
        xpb_status st = XPB_OK;
        for (int l = 0; l < local && st == XPB_OK; l++)
            st = rank_update(g, &plan[l], l, graph ? reinterpret_cast<const uint32_t *>(plan[l].prop.scratch) : NULL,
                             boff, i == 0, i + 1 == count, prof, err);
        if (st != XPB_OK)
            return st;
        XPB_NCCL_CHECK(err, ncclGroupStart());
        for (int l = 0; l < local && st == XPB_OK; l++)
            st = rank_gather(g, &plan[l], l, err);
        const ncclResult_t end = ncclGroupEnd(); /* always closes the group, even after a failed call */
        if (st == XPB_OK && end != ncclSuccess)
            st = xpb_nccl_fail(err, end, "ncclGroupEnd", __FILE__, __LINE__);
        for (int l = 0; l < local && st == XPB_OK; l++) /* the collectives are enqueued at the group's end */
            st = rank_mark(g, l, prof, XPB_SHARDED_PROF_GATHER, err);
        for (int l = 0; l < local && st == XPB_OK; l++)
            st = rank_compact(g, &plan[l], l, graph ? reinterpret_cast<const uint32_t *>(plan[l].prop.scratch) : NULL,
                              boff, i + 1 == count, prof, err);
        if (st != XPB_OK)
            return st;
    }
    return XPB_OK;
}

/* Bursts first .. first + count - 1 as stream launches, one host thread a rank (nccl-tests' -t:
 * each thread its GPU and its communicator, no NCCL group; xpb_cuda_group_each_rank, which the
 * collectives' threads mode shares): one thread issuing every rank's ~5 launches a burst was the
 * bound on 4 GPUs (186 us a burst against 93 us of device time). */
typedef struct threaded_span {
    const xpb_cuda_ctx *g;
    const rank_plan *plan;
    uint32_t first, count;
    bool prof;
} threaded_span;

static xpb_status threaded_span_rank(void *user, int l, xpb_error *err)
{
    const threaded_span *t = static_cast<const threaded_span *>(user);
    xpb_status st = XPB_OK;
    for (uint32_t i = 0; i < t->count && st == XPB_OK; i++) {
        if ((st = rank_update(t->g, &t->plan[l], l, NULL, t->first + i, i == 0, i + 1 == t->count, t->prof, err)) ==
                XPB_OK &&
            (st = rank_gather(t->g, &t->plan[l], l, err)) == XPB_OK &&
            (st = rank_mark(t->g, l, t->prof, XPB_SHARDED_PROF_GATHER, err)) == XPB_OK)
            st = rank_compact(t->g, &t->plan[l], l, NULL, t->first + i, i + 1 == t->count, t->prof, err);
    }
    return st;
}

static xpb_status enqueue_bursts_threaded(const xpb_cuda_ctx *g, const rank_plan *plan, uint32_t first,
                                          uint32_t count, bool prof, xpb_error *err)
{
    threaded_span t = {g, plan, first, count, prof};
    return xpb_cuda_group_each_rank(g, threaded_span_rank, &t, err);
}

static xpb_status launch_mode_read(const xpb_cuda_ctx *g, launch_mode *m, xpb_error *err)
{
    int threads = 0, capture = 0, compact = 0;
    long words = 0, tiles = 0;
    xpb_status st = xpb_knob_get_choice(XPB_KNOB_CUDA_SHARDED_LAUNCH, &threads, err);
    if (st == XPB_OK)
        st = xpb_knob_get_choice(XPB_KNOB_CUDA_SHARDED_CAPTURE, &capture, err);
    if (st == XPB_OK)
        st = xpb_knob_get_choice(XPB_KNOB_CUDA_SHARDED_COMPACT, &compact, err);
    if (st == XPB_OK)
        st = xpb_knob_get_long(XPB_KNOB_CUDA_SHARDED_COMPACT_WORDS, &words, err);
    m->compact_words = (unsigned)words;
    if (st == XPB_OK)
        st = xpb_knob_get_long(XPB_KNOB_CUDA_SHARDED_LOOKBACK_TILES, &tiles, err);
    m->lookback_tiles = (unsigned)tiles;
    int from = 0;
    if (st == XPB_OK)
        st = xpb_knob_get_choice(XPB_KNOB_CUDA_SHARDED_PROPAGATE, &from, err);
    /* "auto|list|bits"; auto: bits where the group has two or more GPUs (in this process or under
     * MPI), whose propagate it makes slower on one GPU but saves the compact each burst, replicated
     * on every rank (5M x 100 batched: 4 x H200 71.8 against 79.3 us a burst, mpirun -np 4 88
     * against 130, 2 x H200 107 against 109; a group of one 172.7 against 162.3: docs/multi-gpu.md) */
    m->from_bits = from == 2 || (from == 0 && xpb_cuda_group_size(g) > 1);
    int overlap = 0;
    if (st == XPB_OK)
        st = xpb_knob_get_choice(XPB_KNOB_CUDA_SHARDED_OVERLAP, &overlap, err);
    m->overlap = overlap == 1; /* "off|own" */
    if (st == XPB_OK && m->overlap && !m->from_bits)
        st = xpb_fail(err, XPB_ERR_UNSUPPORTED,
                      "burst/sharded: XPB_CUDA_SHARDED_OVERLAP=own overlaps the propagate from the bits, and "
                      "this group propagates from the fired list (XPB_CUDA_SHARDED_PROPAGATE)");
    m->threads = threads == 1; /* "one|threads" */
    m->capture = capture;      /* "auto|again|first|never", in the enum's order */
    /* auto: plain launches on a group of two or more GPUs where each rank has a thread of its own
     * (one thread a rank here, or one rank a process under MPI): 4 x H200, 5M x 100 batched, 76.8
     * us a burst in one process where graphs captured again replayed at 170.5 us from one thread;
     * under mpirun -np 4 70.6 / 70.7 us where captured graphs took 85.7 / 93.4 with a p95 of
     * 113-127 (docs/multi-gpu.md). Captured when seen again on a group of one, and where one
     * thread launches every rank. */
    const bool own_thread = m->threads || xpb_cuda_group_local(g) == 1;
    if (m->capture == CAPTURE_AUTO)
        m->capture = xpb_cuda_group_size(g) > 1 && own_thread ? CAPTURE_NEVER : CAPTURE_AGAIN;
    m->lookback = compact == 0; /* "lookback|twopass" */
    if (st == XPB_OK)
        st = xpb_knob_get_choice(XPB_KNOB_CUDA_SHARDED_EXCHANGE, &m->exchange, err);
    /* plain by default: the window read 1.5% faster a burst on 4 x H200 (5M x 100, level on 2),
     * bit-exact everywhere, but one of three racecheck passes over the group's burst cases with it
     * ended in a crash not understood (docs/multi-gpu.md, the exchange on a symmetric window). */
    if (st == XPB_OK)
        st = xpb_sharded_prof_enabled(&m->prof, err);
    if (m->prof)
        m->capture = CAPTURE_NEVER;
    return st;
}

static xpb_status plain_launches(const xpb_cuda_ctx *g, const rank_plan *plan, uint32_t first, uint32_t count,
                                 const launch_mode *mode, xpb_error *err)
{
    xpb_status st = mode->threads && xpb_cuda_group_local(g) > 1
                        ? enqueue_bursts_threaded(g, plan, first, count, mode->prof, err)
                        : enqueue_bursts(g, plan, false, first, count, mode->prof, err);
    if (mode->prof) { /* read the marks even after a failure, so none is left behind */
        const xpb_status pst = xpb_sharded_prof_collect(err);
        st = st != XPB_OK ? st : pst;
    }
    return st;
}

/* ---- the graph cache ------------------------------------------------------------------------------ */

typedef struct span_key {
    int local, ranks;
    uint32_t count, pad;
    int device[XPB_SHARDED_GRAPH_RANKS];
    void *comm[XPB_SHARDED_GRAPH_RANKS];
    rank_plan plan[XPB_SHARDED_GRAPH_RANKS]; /* every pointer and scalar the launches take */
} span_key;

typedef struct span_entry {
    bool valid, captured;
    span_key key;
    cudaGraphExec_t exec[XPB_SHARDED_GRAPH_RANKS];
    uint64_t used;
} span_entry;

static std::mutex span_lock;
static span_entry span_cache[XPB_SHARDED_KEYS];
static uint64_t span_clock;

__global__ void xpb_burst_sharded_set_base(uint32_t *base, uint32_t burst) { *base = burst; }

/* Destroys e's graphs on the devices they were made on (the key's, not the caller's group: a
 * scaling run holds several groups). */
static void span_entry_clear(span_entry *e)
{
    for (int l = 0; l < e->key.local && l < XPB_SHARDED_GRAPH_RANKS; l++) {
        if (e->exec[l]) {
            (void)cudaSetDevice(e->key.device[l]);
            cudaGraphExecDestroy(e->exec[l]); /* CUDA frees one still in flight when it completes */
        }
        e->exec[l] = NULL;
    }
    (void)cudaGetLastError();
    e->captured = false;
}

/* Drops g's cached spans (their graphs hold its communicators and buffers). Under span_lock. */
static void span_forget_group(const xpb_cuda_ctx *g)
{
    for (int i = 0; i < XPB_SHARDED_KEYS; i++) {
        span_entry *e = &span_cache[i];
        bool ours = false;
        for (int l = 0; e->valid && l < e->key.local && l < xpb_cuda_group_local(g); l++)
            ours = ours || e->key.comm[l] == xpb_cuda_group_comm(g, l);
        if (ours) {
            span_entry_clear(e);
            e->valid = false;
        }
    }
}

extern "C" void xpb_cuda_burst_sharded_forget(const xpb_cuda_ctx *g)
{
    xpb_sharded_prof_report(xpb_cuda_group_first(g));
    {
        std::lock_guard<std::mutex> hold(span_lock);
        span_forget_group(g);
    }
    xpb_burst_window_forget(g); /* after the graphs that use them */
}

/* Captures e's span: every rank's stream at once, so the grouped all_gathers land in each. */
static xpb_status span_capture(const xpb_cuda_ctx *g, span_entry *e, xpb_error *err)
{
    const int local = e->key.local;
    cudaGraph_t graph[XPB_SHARDED_GRAPH_RANKS] = {};
    xpb_status st = XPB_OK;
    int begun = 0;
    for (; begun < local && st == XPB_OK; begun++) {
        const xpb_cuda_ctx *rank = xpb_cuda_group_rank_ctx(g, begun);
        if ((st = xpb_cuda_activate(rank, err)) != XPB_OK)
            break;
        const cudaError_t ce = cudaStreamBeginCapture(rank->stream, cudaStreamCaptureModeRelaxed);
        if (ce != cudaSuccess) {
            st = xpb_cuda_fail(err, ce, "cudaStreamBeginCapture(burst/sharded)", __FILE__, __LINE__);
            break;
        }
    }
    if (st == XPB_OK)
        st = enqueue_bursts(g, e->key.plan, true, 0, e->key.count, false, err);
    for (int l = 0; l < begun; l++) { /* every capture ends, whatever failed */
        const xpb_cuda_ctx *rank = xpb_cuda_group_rank_ctx(g, l);
        (void)xpb_cuda_activate(rank, NULL);
        const cudaError_t ce = cudaStreamEndCapture(rank->stream, &graph[l]);
        if (st == XPB_OK && ce != cudaSuccess)
            st = xpb_cuda_fail(err, ce, "cudaStreamEndCapture(burst/sharded)", __FILE__, __LINE__);
    }
    for (int l = 0; l < local && st == XPB_OK; l++) {
        (void)xpb_cuda_activate(xpb_cuda_group_rank_ctx(g, l), NULL);
        const cudaError_t ce = cudaGraphInstantiate(&e->exec[l], graph[l], 0);
        if (ce != cudaSuccess) {
            e->exec[l] = NULL;
            st = xpb_cuda_fail(err, ce, "cudaGraphInstantiate(burst/sharded)", __FILE__, __LINE__);
        }
    }
    for (int l = 0; l < local; l++)
        if (graph[l])
            cudaGraphDestroy(graph[l]);
    if (st != XPB_OK)
        span_entry_clear(e);
    e->captured = st == XPB_OK;
    return st;
}

/* Bursts first .. first + count - 1 through the cached graphs of key, captured now when the key
 * was seen before, or as stream launches when it is new. Call with span_lock held. */
static xpb_status span_run(const xpb_cuda_ctx *g, span_key *key, uint32_t first, const launch_mode *mode,
                           xpb_error *err)
{
    span_entry *slot = NULL, *hit = NULL;
    for (int i = 0; i < XPB_SHARDED_KEYS && !hit; i++) {
        span_entry *e = &span_cache[i];
        if (e->valid && memcmp(&e->key, key, sizeof *key) == 0)
            hit = e;
        else if (!slot || (slot->valid && (!e->valid || e->used < slot->used)))
            slot = e;
    }
    /* Measured on 4 H100s at 5M x 100 (one process, a run's buffers at new addresses, so its
     * batch is never seen twice): plain launches 186 us a burst against 93 us of device time,
     * host-bound; capturing every span on first sight 259 us on 4 GPUs (the capture and
     * instantiation of 4 graphs of ~320 nodes a run), though 125 against 142 us on 2. So a key
     * is captured only when seen again (per-burst runs: from their second burst on) unless
     * XPB_CUDA_SHARDED_CAPTURE says otherwise. */
    if (mode->capture == CAPTURE_NEVER)
        return plain_launches(g, key->plan, first, key->count, mode, err);
    if (!hit) { /* remember the key; this span runs as plain launches, or is captured now */
        span_entry_clear(slot);
        memcpy(&slot->key, key, sizeof *key); /* padding too: keys compare by memcmp */
        slot->valid = true;
        slot->used = ++span_clock;
        if (mode->capture == CAPTURE_AGAIN)
            return plain_launches(g, key->plan, first, key->count, mode, err);
        hit = slot;
    }
    hit->used = ++span_clock;
    xpb_status st = hit->captured ? XPB_OK : span_capture(g, hit, err);
    for (int l = 0; l < key->local && st == XPB_OK; l++) {
        const xpb_cuda_ctx *rank = xpb_cuda_group_rank_ctx(g, l);
        if ((st = xpb_cuda_activate(rank, err)) != XPB_OK)
            break;
        xpb_burst_sharded_set_base<<<1, 1, 0, rank->stream>>>(reinterpret_cast<uint32_t *>(key->plan[l].prop.scratch),
                                                              first);
        XPB_CUDA_CHECK_LAUNCH(err, "burst/sharded (base)");
        XPB_CUDA_CHECK(err, cudaGraphLaunch(hit->exec[l], rank->stream));
    }
    return st;
}

/* ---- the kernel ---------------------------------------------------------------------------------- */

/* The gathered bits of every local rank on its symmetric window (burst_window.h) instead of the
 * run's shard_bits, zeroed when the run begins (burst/shard zeroes shard_bits: the empty set before
 * burst 0). Where NCCL registers none, the run's error naming NCCL's reason (the window was asked
 * for: XPB_CUDA_SHARDED_EXCHANGE=window). Under span_lock: new windows (a larger run) drop the
 * group's cached graphs, whose all_gathers were captured on the old registration, even where a new
 * window lands at an old address (the key would match). */
static xpb_status use_window(const xpb_cuda_ctx *g, const xpb_burst_args *a, rank_plan *plan, xpb_error *err)
{
    const int local = xpb_cuda_group_local(g), p = xpb_cuda_group_size(g);
    const size_t bytes = XPB_BURST_SHARD_BITS_BYTES(a->n, p);
    uint32_t *bits[XPB_SHARDED_WINDOW_RANKS];
    if (local > XPB_SHARDED_WINDOW_RANKS)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED, "burst/sharded: windows for up to %d ranks a process",
                        XPB_SHARDED_WINDOW_RANKS);
    bool renewed = false;
    xpb_status st = xpb_burst_window_bits(g, bytes, bits, &renewed, err);
    if (st != XPB_OK)
        return st;
    if (renewed)
        span_forget_group(g);
    for (int l = 0; l < local && st == XPB_OK; l++) {
        rank_plan *q = &plan[l];
        q->bits = bits[l];
        q->own_bits = bits[l] + (size_t)q->rank * q->slot_words;
        q->dyn.bits = q->own_bits;
        if (a->burst == 0) {
            const xpb_cuda_ctx *rank = xpb_cuda_group_rank_ctx(g, l);
            if ((st = xpb_cuda_activate(rank, err)) == XPB_OK)
                XPB_CUDA_CHECK(err, cudaMemsetAsync(bits[l], 0, bytes, rank->stream));
        }
    }
    return st;
}

static xpb_status sharded_check(const xpb_cuda_ctx *g, const xpb_burst_args *a, xpb_error *err)
{
    if (a->bursts < 1)
        return xpb_fail(err, XPB_ERR_USAGE, "burst/sharded: bursts = 0 (at least one)");
    return xpb_burst_group_check(g, a, "burst/sharded", a->bursts, err);
}

static xpb_status sharded_supports(void *ctx, const void *vargs, xpb_error *why)
{
    return sharded_check(static_cast<const xpb_cuda_ctx *>(ctx), static_cast<const xpb_burst_args *>(vargs), why);
}

static xpb_status sharded_launch(void *vctx, const void *vargs, void *state, xpb_error *err)
{
    (void)state;
    const xpb_cuda_ctx *g = static_cast<const xpb_cuda_ctx *>(vctx);
    const xpb_burst_args *a = static_cast<const xpb_burst_args *>(vargs);
    xpb_status st = sharded_check(g, a, err);
    launch_mode mode;
    if (st == XPB_OK)
        st = launch_mode_read(g, &mode, err);
    const int p = xpb_cuda_group_size(g), local = xpb_cuda_group_local(g), first = xpb_cuda_group_first(g);
    const uint64_t entries = (uint64_t)a->burst + a->bursts + 1;
    /* each neuron's state is on its owner's copy: downloads read each range from there */
    if (st == XPB_OK)
        for (const xpb_view *v : {&a->v, &a->countdown, &a->count})
            xpb_cuda_group_set_column_parts(v->buf, v->offset, 1, a->n, 0);
    static span_key key; /* under span_lock: a key is too large for the stack of every caller */
    std::lock_guard<std::mutex> hold(span_lock);
    memset(&key, 0, sizeof key);
    const bool cacheable = local <= XPB_SHARDED_GRAPH_RANKS;
    rank_plan *plan = cacheable ? key.plan : NULL;
    if (!cacheable) { /* more ranks in a process than the cache holds: stream launches only */
        plan = static_cast<rank_plan *>(calloc((size_t)local, sizeof *plan));
        if (!plan)
            return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "burst/sharded: out of host memory");
    }
    for (int l = 0; l < local && st == XPB_OK; l++)
        st = plan_rank(a, l, first + l, p, entries, &mode, &plan[l], err);
    if (st == XPB_OK && mode.exchange == EXCHANGE_WINDOW)
        st = use_window(g, a, plan, err);
    if (st == XPB_OK && !cacheable)
        st = plain_launches(g, plan, a->burst, a->bursts, &mode, err);
    if (!cacheable) {
        free(plan);
        return st;
    }
    key.local = local, key.ranks = p;
    for (int l = 0; l < local; l++) {
        key.device[l] = xpb_cuda_group_rank_ctx(g, l)->device;
        key.comm[l] = xpb_cuda_group_comm(g, l);
    }
    for (uint32_t done = 0; done < a->bursts && st == XPB_OK;) {
        const uint32_t left = a->bursts - done;
        key.count = left < XPB_SHARDED_SPAN ? left : XPB_SHARDED_SPAN;
        st = span_run(g, &key, a->burst + done, &mode, err);
        done += key.count;
    }
    return st;
}

extern "C" const xpb_kernel xpb_cuda_burst_sharded = {
    /* .op        = */ XPB_OP_BURST_SHARDED,
    /* .variant   = */ "default",
    /* .precision = */ "exact",
    /* .supports  = */ sharded_supports,
    /* .prepare   = */ NULL,
    /* .release   = */ NULL,
    /* .launch    = */ sharded_launch,
};
