/* burst_batch.cu - burst batch (workloads/ops/xpb_ops.h, xpb_burst_args): bursts b = burst ..
 * burst + bursts - 1, each propagate -> dynamics -> compact (burst_propagate.cu, burst_dynamics.cu,
 * burst_compact.cu), in one submission with no host wait: the host reads nothing between bursts.
 *
 * CUDA graphs of up to XPB_BATCH_SPAN bursts (4 kernels a burst, 5 above 8M neurons; propagate's
 * fixed grid reads its event count from counters[b] on the device), captured from the context's
 * stream, instantiated and kept in a small per-process cache. The graph's kernels take their
 * burst as scratch word 0 plus their place in the span, so one graph serves every span of that
 * length whatever its first burst: a batch is, for each span, a one-thread kernel writing the
 * word, then the graph launch, all on the context's stream. The key is the device, every view's
 * device address, n, the stimulus, scale and the span's length, not `burst`.
 *
 * The first batch with a key runs as plain stream launches (the same kernels) and only marks the
 * key seen; the second captures its graph. So a run whose buffers land at new addresses every
 * time never pays a capture it cannot reuse, and repeated runs on the same buffers (warm-up, then
 * timed repetitions) get graphs from their second launch on. The cache holds XPB_BATCH_KEYS keys
 * and replaces the least recently used; a replaced graph still in flight is freed by CUDA when it
 * completes. A capture costs the host about a millisecond (XPB_BATCH_SPAN bursts). */
#include "cuda_burst.cuh"

#include <mutex>

#define XPB_BATCH_SPAN 64 /* bursts in one graph */
#define XPB_BATCH_KEYS 8

typedef struct batch_key {
    int device;
    int sm_count;
    uint32_t count;  /* bursts in the graph: XPB_BATCH_SPAN, or a batch's remainder */
    uint32_t pad;    /* zero */
    xpb_burst_dev d; /* the views and scalars (xpb_burst_resolve zeroes it first) */
} batch_key;

typedef struct batch_entry {
    bool valid;
    batch_key key;
    cudaGraphExec_t exec; /* NULL: seen once, not captured yet */
    uint64_t used;        /* last use, for replacement */
} batch_entry;

static std::mutex batch_lock;
static batch_entry batch_cache[XPB_BATCH_KEYS];
static uint64_t batch_clock;

__global__ void xpb_burst_batch_set_base(uint32_t *base, uint32_t burst) { *base = burst; }

/* The launches of `count` bursts, burst i numbered (base ? *base : 0) + first + i. */
static xpb_status batch_enqueue(const xpb_cuda_ctx *ctx, const xpb_burst_dev *d, const uint32_t *base,
                                uint32_t first, uint32_t count, xpb_error *err)
{
    xpb_status st = XPB_OK;
    for (uint32_t i = 0; i < count && st == XPB_OK; i++) {
        if ((st = xpb_burst_propagate_enqueue(ctx, d, base, first + i, err)) == XPB_OK &&
            (st = xpb_burst_dynamics_enqueue(ctx, d, base, first + i, err)) == XPB_OK)
            st = xpb_burst_compact_enqueue(ctx, d, base, first + i, err);
    }
    return st;
}

/* Captures `count` bursts numbered from scratch word 0 into *exec. On failure the stream is left
 * out of capture. */
static xpb_status batch_capture(const xpb_cuda_ctx *ctx, const xpb_burst_dev *d, uint32_t count,
                                cudaGraphExec_t *exec, xpb_error *err)
{
    *exec = NULL;
    const uint32_t *base = reinterpret_cast<const uint32_t *>(d->scratch);
    XPB_CUDA_CHECK(err, cudaStreamBeginCapture(ctx->stream, cudaStreamCaptureModeRelaxed));
    const xpb_status st = batch_enqueue(ctx, d, base, 0, count, err);
    cudaGraph_t graph = NULL;
    const cudaError_t e = cudaStreamEndCapture(ctx->stream, &graph);
    if (st != XPB_OK || e != cudaSuccess) {
        if (graph)
            cudaGraphDestroy(graph);
        return st != XPB_OK ? st : xpb_cuda_fail(err, e, "cudaStreamEndCapture(burst/batch)", __FILE__, __LINE__);
    }
    const cudaError_t ei = cudaGraphInstantiate(exec, graph, 0);
    cudaGraphDestroy(graph);
    if (ei != cudaSuccess) {
        *exec = NULL;
        return xpb_cuda_fail(err, ei, "cudaGraphInstantiate(burst/batch)", __FILE__, __LINE__);
    }
    return XPB_OK;
}

/* *exec = the graph for key: the cached one, or captured now when the key was seen before; NULL
 * when the key is new (it is then remembered). Call with batch_lock held. */
static xpb_status batch_graph_for(const xpb_cuda_ctx *ctx, const batch_key *key, cudaGraphExec_t *exec,
                                  xpb_error *err)
{
    *exec = NULL;
    batch_entry *slot = NULL; /* a free slot if there is one, else the least recently used */
    for (int i = 0; i < XPB_BATCH_KEYS; i++) {
        batch_entry *g = &batch_cache[i];
        if (g->valid && memcmp(&g->key, key, sizeof *key) == 0) {
            g->used = ++batch_clock;
            if (!g->exec) {
                const xpb_status st = batch_capture(ctx, &key->d, key->count, &g->exec, err);
                if (st != XPB_OK)
                    return st;
            }
            *exec = g->exec;
            return XPB_OK;
        }
        if (!slot || (slot->valid && (!g->valid || g->used < slot->used)))
            slot = g;
    }
    if (slot->exec)
        cudaGraphExecDestroy(slot->exec);
    memcpy(&slot->key, key, sizeof *key); /* padding too: keys compare by memcmp */
    slot->exec = NULL;
    slot->valid = true;
    slot->used = ++batch_clock;
    return XPB_OK;
}

/* Bursts first .. first + count - 1 (count <= XPB_BATCH_SPAN) through the graph for key (key's
 * count = count), or as plain launches when there is none yet. Call with batch_lock held. */
static xpb_status batch_span(const xpb_cuda_ctx *ctx, batch_key *key, uint32_t first, uint32_t count,
                             xpb_error *err)
{
    key->count = count;
    cudaGraphExec_t exec = NULL;
    xpb_status st = batch_graph_for(ctx, key, &exec, err);
    if (st != XPB_OK)
        return st;
    if (!exec)
        return batch_enqueue(ctx, &key->d, NULL, first, count, err);
    xpb_burst_batch_set_base<<<1, 1, 0, ctx->stream>>>(reinterpret_cast<uint32_t *>(key->d.scratch), first);
    XPB_CUDA_CHECK_LAUNCH(err, "burst/batch (base)");
    XPB_CUDA_CHECK(err, cudaGraphLaunch(exec, ctx->stream));
    return XPB_OK;
}

static xpb_status batch_check(const xpb_burst_args *a, xpb_error *err)
{
    if (a->bursts < 1)
        return xpb_fail(err, XPB_ERR_USAGE, "burst/batch: bursts = 0 (at least one)");
    return xpb_burst_check(a, "burst/batch", a->bursts, err);
}

static xpb_status batch_supports(void *ctx, const void *vargs, xpb_error *why)
{
    (void)ctx;
    return batch_check(static_cast<const xpb_burst_args *>(vargs), why);
}

static xpb_status batch_launch(void *vctx, const void *vargs, void *state, xpb_error *err)
{
    (void)state;
    const xpb_cuda_ctx *ctx = static_cast<const xpb_cuda_ctx *>(vctx);
    const xpb_burst_args *a = static_cast<const xpb_burst_args *>(vargs);
    batch_key key;
    memset(&key, 0, sizeof key);
    xpb_status st;
    if ((st = batch_check(a, err)) != XPB_OK ||
        (st = xpb_burst_resolve(a, XPB_BURST_NEED_ALL, (uint64_t)a->burst + a->bursts + 1, "burst/batch", &key.d,
                                err)) != XPB_OK ||
        (st = xpb_cuda_activate(ctx, err)) != XPB_OK)
        return st;
    key.device = ctx->device;
    key.sm_count = ctx->sm_count;

    std::lock_guard<std::mutex> hold(batch_lock);
    for (uint32_t done = 0; done < a->bursts && st == XPB_OK;) {
        const uint32_t left = a->bursts - done, span = left < XPB_BATCH_SPAN ? left : XPB_BATCH_SPAN;
        st = batch_span(ctx, &key, a->burst + done, span, err);
        done += span;
    }
    return st;
}

extern "C" const xpb_kernel xpb_cuda_burst_batch = {
    /* .op        = */ XPB_OP_BURST_BATCH,
    /* .variant   = */ "default",
    /* .precision = */ "exact",
    /* .supports  = */ batch_supports,
    /* .prepare   = */ NULL,
    /* .release   = */ NULL,
    /* .launch    = */ batch_launch,
};
