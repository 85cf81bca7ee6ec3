/* burst_batch.c - vulkan burst batch (XPB_OP_BURST_BATCH, xpb_ops.h): bursts b = burst .. burst +
 * bursts - 1, each propagate, dynamics and compact's second pass (3 dispatches: the dynamics
 * leaves compact's block sums), submitted with whatever else the context's open command buffer
 * holds by whatever waits next (synchronize, timer_end, a download), as every launch of this
 * backend: no host wait and no host read between bursts. The dispatches are prepared once
 * (pipelines and descriptors; one descriptor set per shader for the whole batch where there are
 * no push descriptors) and recorded per burst with b in the push constants. Each propagate's grid
 * comes from counters[b], written by the compact before it (or is fixed: burst_propagate.c);
 * every dispatch is preceded by a barrier on the dispatch before it (each reads what that one
 * wrote: propagate the fired list, degree scan and counters, dynamics the input, compact the
 * flags and block sums; compute to compute, vk_command.c), the propagate's one also covering the
 * indirect-command read. No cap on bursts per command buffer: Vulkan sets none.
 *
 * Recorded once, replayed (XPB_VULKAN_BURST_REPLAY=1, the default; vk_capture.c). Recording 3
 * dispatches a burst costs the host microseconds a burst on NVIDIA's driver, paid before the GPU
 * starts, at every timed run. So the batch is recorded into a secondary command buffer, kept with
 * its key, and a later launch with the same key only executes it: one barrier and one command. The
 * key is everything the recorded commands depend on: every view's buffer and offset (the bindings
 * and the indirect commands name them), n and the synapse count (binding ranges), the first burst
 * and the count (push constants, the counters the indirect commands read), and the plan (grids,
 * workgroup size, the stimulus and scale in the push constants). The run's buffers are freed
 * after each run, but a capture holds the buffers it names: freed, they are parked, and the next
 * run, allocating the same sizes in the same order, gets them back (vk_buffer.c), so every run of
 * a case after the first replays, from the validated run's recording on. What a replay does is
 * the same commands on the same buffers as recording inline, so the results are bit for bit
 * those of the inline recording. A launch whose capture is already in the open command buffer
 * (the same batch twice before a wait) records inline. XPB_VULKAN_BURST_REPLAY=0 records every
 * launch inline (A/B runs). */
#include <string.h>

#include "burst_common.h"

/* What a batch's commands depend on (above); compared byte for byte, so zeroed before it is set. */
#define BATCH_VIEWS 21
typedef struct batch_key {
    struct {
        const xpb_buffer *buf;
        uint64_t offset;
    } view[BATCH_VIEWS];
    uint64_t n, synapses;
    uint32_t burst, bursts;
    vkb_burst_plan plan;
} batch_key;

/* The views a batch binds, in a fixed order. */
static void batch_views(const xpb_burst_args *a, xpb_view v[BATCH_VIEWS])
{
    const xpb_view all[BATCH_VIEWS] = {
        a->offsets,      a->targets, a->weight,     a->psp,        a->inhibitory, a->threshold, a->threshold_limit,
        a->leak,         a->excitability, a->refractory, a->fire_limit, a->snooze, a->v,         a->countdown,
        a->count,        a->input,   a->fired_flag, a->fired,      a->degree_scan, a->counters, a->scratch,
    };
    memcpy(v, all, sizeof all);
}

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    const xpb_burst_args *a = args;
    if (a->bursts < 1)
        return xpb_fail(why, XPB_ERR_USAGE, "burst batch: %u bursts: needs at least 1", a->bursts);
    return vkb_burst_supports(ctx, a, (uint64_t)a->burst + a->bursts - 1, "batch", why);
}

/* Prepares the dispatches and records every burst into the open command buffer (a capture's,
 * while one records). */
static xpb_status record(vkb_ctx *c, const xpb_burst_args *a, const vkb_burst_plan *plan, xpb_error *err)
{
    uint64_t last = (uint64_t)a->burst + a->bursts - 1;
    vkb_prepared prop, dyn, compact[2];
    xpb_status st;
    if ((st = vkb_burst_propagate_prepare(c, a, plan, last, &prop, err)) ||
        (st = vkb_burst_dynamics_prepare(c, a, plan, &dyn, err)) ||
        (st = vkb_burst_compact_prepare(c, a, plan, last, compact, err)))
        return st;
    for (uint64_t b = a->burst; b <= last; b++)
        if ((st = vkb_burst_propagate_record(c, a, plan, &prop, (uint32_t)b, err)) ||
            (st = vkb_burst_dynamics_record(c, plan, &dyn, (uint32_t)b, err)) ||
            (st = vkb_burst_compact_record(c, plan, compact, (uint32_t)b, false, err)))
            return st;
    return XPB_OK;
}

/* The batch through its capture: replayed when one exists for its key, else recorded into a new
 * one and replayed; recorded inline when the capture is already in the open command buffer or
 * every slot is. */
static xpb_status replay(vkb_ctx *c, const xpb_burst_args *a, const vkb_burst_plan *plan, xpb_error *err)
{
    batch_key key;
    xpb_view v[BATCH_VIEWS];
    xpb_buffer *bufs[BATCH_VIEWS];
    memset(&key, 0, sizeof key); /* padding too: keys compare by memcmp */
    batch_views(a, v);
    for (int i = 0; i < BATCH_VIEWS; i++) {
        if (!v[i].buf) /* recording says which binding is missing */
            return record(c, a, plan, err);
        key.view[i].buf = bufs[i] = v[i].buf;
        key.view[i].offset = v[i].offset;
    }
    key.n = (uint64_t)a->n;
    key.synapses = a->synapses;
    key.burst = a->burst;
    key.bursts = a->bursts;
    key.plan = *plan;
    vkb_capture *cap = vkb_capture_find(c, &key, sizeof key);
    if (cap)
        return vkb_capture_replayable(c, cap) ? vkb_capture_replay(c, cap, err) : record(c, a, plan, err);
    bool started;
    xpb_status st = vkb_capture_begin(c, &key, sizeof key, bufs, BATCH_VIEWS, &started, err);
    if (st || !started)
        return st ? st : record(c, a, plan, err);
    if ((st = record(c, a, plan, err))) {
        vkb_capture_abort(c);
        return st;
    }
    if ((st = vkb_capture_end(c, &cap, err)))
        return st;
    return vkb_capture_replay(c, cap, err);
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    vkb_ctx *c = ctx;
    const xpb_burst_args *a = args;
    (void)state;
    int replayed = 1;
    xpb_status st = supports(ctx, args, err);
    if (!st)
        st = xpb_knob_get_choice(XPB_KNOB_VULKAN_BURST_REPLAY, &replayed, err);
    vkb_burst_plan plan;
    if (st || (st = vkb_burst_plan_for(c, a, &plan, err)))
        return st;
    return replayed ? replay(c, a, &plan, err) : record(c, a, &plan, err);
}

const xpb_kernel xpb_vulkan_burst_batch = {
    .op = XPB_OP_BURST_BATCH,
    .variant = "default",
    .precision = "exact",
    .supports = supports,
    .launch = launch,
};
