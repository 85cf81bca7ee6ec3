/* run.c - one run of B bursts through a backend's ops (xpb_workload_i.run of the burst
 * workload), docs/workloads.md section 4.
 *
 * Device-resident: the network and the zero state are uploaded once; then either
 *   per burst (batched = 0): propagate, dynamics, compact, and the burst's 32-byte counters read
 *     back (the fired count the host would act on), so every burst is one submission and a wait;
 *   batched (batched = 1): one XPB_OP_BURST_BATCH of all B bursts (one command buffer with
 *     indirect dispatches on Vulkan), then the counters of every burst read back once.
 * counters[b] (xpb_ops.h) is what compact leaves after burst b - 1: counters[b].events are the
 * synaptic events burst b propagates.
 *
 * On a device group (s->ranks > 0; docs/multi-gpu.md) the `shard` op first splits the synapses by
 * target over the ranks, and every burst goes through `sharded` (one burst a launch per burst, or
 * all B in one): the same counters and checks, against the same reference.
 *
 * When the runner validates (s->validating), per burst: the fired list (and v, when the reference
 * traced it) come back and are compared with the reference run bit for bit, from burst 0; the
 * ops of the first burst that propagates anything are checked one by one against exact oracles
 * (checks.c). A batched run cannot be read between bursts: it checks every burst's fired count and
 * events, the last burst's fired set and the final v, countdown and count. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "burst_case.h"
#include "xpb_clock.h"
#include "xpb_session.h"

#define ROUND4(x) (((size_t)(x) + 3u) & ~(size_t)3u)

typedef struct host_buf { /* the host arrays of one burst's op checks */
    int32_t *input0, *input1, *input2;
    burst_state before, after;
    uint32_t *flag, *fired, *scan, *prev;
    xpb_burst_counters cnt;
} host_buf;

static void *alloc_host(size_t bytes, xpb_status *st, xpb_error *err)
{
    void *p = *st ? NULL : calloc(bytes ? bytes : 1, 1);
    if (!p && !*st)
        *st = xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "burst: out of host memory (%zu bytes)", bytes);
    return p;
}

/* Device buffers for the network and the state, with the network and the zero state uploaded. */
static xpb_status setup(xpb_session *s, const burst_network *net, int64_t bursts, xpb_burst_args *a,
                        xpb_error *err)
{
    const size_t n = (size_t)net->n, syn = (size_t)net->synapses;
    if (!net->offsets32)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED, "burst: %zu synapses: the ops need fewer than 2^32", syn);
    struct {
        xpb_view *v;
        size_t bytes;
        const void *src; /* NULL: zeros (zbytes of them, enough for every such upload) */
        size_t src_bytes;
        bool group; /* a device group's only */
    } b[] = {
        {&a->offsets, (n + 1) * 4, net->offsets32, (n + 1) * 4, false},
        {&a->targets, syn * 4, net->targets, syn * 4, false},
        {&a->weight, ROUND4(syn), net->weight, syn, false},
        {&a->psp, ROUND4(syn), net->psp, syn, false},
        {&a->inhibitory, ROUND4(n), net->inhibitory, n, false},
        {&a->threshold, n * 4, net->threshold, n * 4, false},
        {&a->threshold_limit, n * 4, net->threshold_limit, n * 4, false},
        {&a->leak, n * 4, net->leak, n * 4, false},
        {&a->excitability, n * 4, net->excitability, n * 4, false},
        {&a->refractory, n * 4, net->refractory, n * 4, false},
        {&a->fire_limit, n * 4, net->fire_limit, n * 4, false},
        {&a->snooze, n * 4, net->snooze, n * 4, false},
        {&a->v, n * 4, NULL, n * 4, false},
        {&a->countdown, n * 4, NULL, n * 4, false},
        {&a->count, n * 4, NULL, n * 4, false},
        {&a->input, n * 4, NULL, n * 4, false},
        {&a->fired_flag, n * 4, NULL, 0, false},
        {&a->fired, n * 4, NULL, 0, false},
        {&a->degree_scan, (n + 1) * 4, NULL, 0, false},
        {&a->counters, ((size_t)bursts + 1) * sizeof(xpb_burst_counters), NULL, sizeof(xpb_burst_counters), false},
        {&a->scratch, XPB_BURST_SCRATCH_BYTES(n), NULL, 0, false},
        /* a device group's: each rank's shard of the synapses (room for all), the fired bits */
        {&a->shard_offsets, (n + 1) * 4, NULL, 0, true},
        {&a->shard_targets, syn * 4, NULL, 0, true},
        {&a->shard_weight, ROUND4(syn), NULL, 0, true},
        {&a->shard_psp, ROUND4(syn), NULL, 0, true},
        {&a->shard_bits, s->ranks ? XPB_BURST_SHARD_BITS_BYTES(n, s->ranks) : 0, NULL, 0, true},
    };
    size_t zbytes = (n + 1) * 4 > sizeof(xpb_burst_counters) ? (n + 1) * 4 : sizeof(xpb_burst_counters);
    void *zeros = NULL;
    xpb_status st = XPB_OK;
    for (size_t i = 0; i < sizeof b / sizeof b[0] && !st; i++) {
        if (b[i].group && !s->ranks)
            continue;
        if (!(st = xpb_session_alloc(s, b[i].bytes ? b[i].bytes : 4, b[i].v, err)) && b[i].src_bytes) {
            const void *src = b[i].src ? b[i].src : zeros ? zeros : (zeros = alloc_host(zbytes, &st, err));
            if (!st && b[i].src) /* the network: no op writes it */
                st = xpb_session_upload_input(s, *b[i].v, 0, src, b[i].src_bytes, err);
            else if (!st) /* the state's zeros, which the run overwrites */
                st = xpb_session_upload(s, *b[i].v, 0, src, b[i].src_bytes, err);
        }
    }
    free(zeros);
    a->n = net->n;
    a->synapses = net->synapses;
    a->ranks = s->ranks;
    a->bursts = 1;
    a->stim = net->stim;
    a->stim_floor = net->stim_floor;
    a->scale = net->scale;
    return st;
}

static xpb_status get(xpb_session *s, xpb_view v, size_t offset, void *dst, size_t bytes, xpb_error *err)
{
    return bytes ? xpb_session_download(s, v, offset, dst, bytes, err) : XPB_OK;
}

/* The state (v, countdown, count) into st. */
static xpb_status get_state(xpb_session *s, const xpb_burst_args *a, burst_state *bs, xpb_error *err)
{
    size_t nb = (size_t)a->n * 4;
    xpb_status st = get(s, a->v, 0, bs->v, nb, err);
    if (!st)
        st = get(s, a->countdown, 0, bs->countdown, nb, err);
    return st ? st : get(s, a->count, 0, bs->count, nb, err);
}

/* Burst b's three ops, each read back and checked against its oracle (checks.c). inject: the
 * dynamics' v comes back damaged, as from a broken kernel. */
static xpb_status checked_burst(xpb_session *s, xpb_burst_args *a, const burst_network *net, uint32_t b,
                                burst_checks *k, int inject, xpb_error *err)
{
    host_buf h = {0};
    size_t n = (size_t)a->n, nb = n * 4;
    xpb_status st = XPB_OK;
    h.input0 = alloc_host(nb, &st, err), h.input1 = alloc_host(nb, &st, err), h.input2 = alloc_host(nb, &st, err);
    h.flag = alloc_host(nb, &st, err), h.fired = alloc_host(nb, &st, err), h.prev = alloc_host(nb, &st, err);
    h.scan = alloc_host(nb + 4, &st, err);
    if (!st)
        st = burst_state_init(&h.before, a->n, err);
    if (!st)
        st = burst_state_init(&h.after, a->n, err);
    xpb_burst_counters prev_cnt;
    if (!st)
        st = get(s, a->counters, (size_t)b * sizeof prev_cnt, &prev_cnt, sizeof prev_cnt, err);
    if (!st)
        st = get(s, a->fired, 0, h.prev, (size_t)prev_cnt.fired * 4, err);
    if (!st)
        st = get(s, a->input, 0, h.input0, nb, err);
    if (!st)
        st = get_state(s, a, &h.before, err);
    a->burst = b;
    if (!st)
        st = xpb_session_launch(s, XPB_OP_BURST_PROPAGATE, a, err);
    if (!st)
        st = get(s, a->input, 0, h.input1, nb, err);
    if (!st)
        burst_check_propagate(k, net, b, h.prev, prev_cnt.fired, h.input0, h.input1);
    if (!st)
        st = xpb_session_launch(s, XPB_OP_BURST_DYNAMICS, a, err);
    if (!st)
        st = get_state(s, a, &h.after, err);
    if (!st)
        st = get(s, a->fired_flag, 0, h.flag, nb, err);
    if (!st)
        st = get(s, a->input, 0, h.input2, nb, err);
    if (!st && inject) {
        uint32_t bits;
        memcpy(&bits, &h.after.v[n / 2], 4);
        bits ^= 1u;
        memcpy(&h.after.v[n / 2], &bits, 4);
    }
    if (!st)
        burst_check_dynamics(k, net, b, h.input1, &h.before, &h.after, h.flag, h.input2);
    if (!st)
        st = xpb_session_launch(s, XPB_OP_BURST_COMPACT, a, err);
    if (!st)
        st = get(s, a->counters, ((size_t)b + 1) * sizeof h.cnt, &h.cnt, sizeof h.cnt, err);
    if (!st)
        st = get(s, a->fired, 0, h.fired, (size_t)(h.cnt.fired < n ? h.cnt.fired : n) * 4, err);
    if (!st)
        st = get(s, a->degree_scan, 0, h.scan, (size_t)((h.cnt.fired < n ? h.cnt.fired : n) + 1) * 4, err);
    if (!st)
        burst_check_compact(k, net, h.flag, h.fired, h.scan, &h.cnt);
    free(h.input0), free(h.input1), free(h.input2), free(h.flag), free(h.fired), free(h.prev), free(h.scan);
    burst_state_free(&h.before), burst_state_free(&h.after);
    return st;
}

/* The device run as a burst_run (fired sets, events, final state; v per burst when traced). */
typedef struct dev_run {
    burst_run r;
    uint64_t cap;
} dev_run;

static xpb_status dev_run_init(dev_run *d, int64_t n, int64_t bursts, bool trace, xpb_error *err)
{
    xpb_status st = XPB_OK;
    memset(d, 0, sizeof *d);
    d->r.n = n, d->r.bursts = bursts, d->cap = (uint64_t)n;
    d->r.fired_start = alloc_host(((size_t)bursts + 1) * 8, &st, err);
    d->r.events = alloc_host(((size_t)bursts + 1) * 8, &st, err);
    d->r.fired = alloc_host((size_t)n * 4, &st, err);
    d->r.v = alloc_host((size_t)n * 4, &st, err);
    d->r.countdown = alloc_host((size_t)n * 4, &st, err);
    d->r.count = alloc_host((size_t)n * 4, &st, err);
    if (trace)
        d->r.v_trace = alloc_host((size_t)n * (size_t)bursts * 4, &st, err);
    return st;
}

/* Burst b's fired list (count ids, read back) appended to the run. */
static xpb_status dev_run_append(dev_run *d, xpb_session *s, const xpb_burst_args *a, int64_t b, uint32_t count,
                                 xpb_error *err)
{
    uint64_t at = d->r.fired_start[b];
    if (at + count > d->cap) {
        uint64_t cap = d->cap * 2 > at + count ? d->cap * 2 : at + count;
        uint32_t *p = realloc(d->r.fired, (size_t)cap * 4);
        if (!p)
            return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "burst: out of host memory for the fired sets");
        d->r.fired = p, d->cap = cap;
    }
    d->r.fired_start[b + 1] = at + count;
    xpb_status st = get(s, a->fired, 0, d->r.fired + at, (size_t)count * 4, err);
    if (!st && d->r.v_trace)
        st = get(s, a->v, 0, d->r.v_trace + (size_t)b * (size_t)a->n, (size_t)a->n * 4, err);
    return st;
}

/* The whole run's check against the reference; fills out's run fields and its summary line. */
static void check_run(const burst_run *ref, dev_run *dr, bool batched, const uint32_t *fired_per_burst,
                      const uint32_t *events_per_burst, int inject, xpb_run_outcome *out, burst_outcome *ob)
{
    char msg[XPB_RUN_TEXT_LEN - 64];
    out->run_checked = true;
    out->ref_iterations = (int)ref->bursts;
    if (inject) { /* --inject-fault: the final v comes back one ulp off */
        uint32_t bits;
        memcpy(&bits, &dr->r.v[dr->r.n / 2], 4);
        bits ^= 1u;
        memcpy(&dr->r.v[dr->r.n / 2], &bits, 4);
    }
    if (!batched) {
        burst_difference diff;
        out->run_passed = burst_first_difference(ref, &dr->r, &diff);
        out->parted_at = (int)diff.burst;
        if (out->run_passed)
            snprintf(msg, sizeof msg, "run: %lld bursts bit-exact (every fired set%s, final v, countdown, count)",
                     (long long)ref->bursts, ref->v_trace ? " and v after every burst" : "");
        else
            burst_difference_format(&diff, msg, sizeof msg);
        snprintf(ob->checked, sizeof ob->checked, "every burst's fired set%s; final v, countdown, count",
                 ref->v_trace ? " and v" : "");
    } else { /* counts per burst, then the last fired set and the final state */
        out->parted_at = -1;
        for (int64_t b = 0; b < ref->bursts && out->parted_at < 0; b++)
            if (fired_per_burst[b] != ref->fired_start[b + 1] - ref->fired_start[b] || events_per_burst[b] != ref->events[b])
                out->parted_at = (int)b;
        if (out->parted_at >= 0) {
            int64_t b = out->parted_at;
            snprintf(msg, sizeof msg, "burst %lld: fired %u vs %llu, events %u vs %llu (reference second)", (long long)b,
                     fired_per_burst[b], (unsigned long long)(ref->fired_start[b + 1] - ref->fired_start[b]),
                     events_per_burst[b], (unsigned long long)ref->events[b]);
        } else {
            /* the device's last fired set stands in for every burst's (equal counts were checked) */
            burst_run a = *ref, bb = dr->r;
            int64_t last = ref->bursts - 1;
            a.bursts = bb.bursts = 1;
            a.fired = ref->fired + ref->fired_start[last];
            uint64_t fs_a[2] = {0, ref->fired_start[last + 1] - ref->fired_start[last]};
            a.fired_start = fs_a, a.v_trace = NULL, bb.v_trace = NULL;
            bb.fired = dr->r.fired;
            uint64_t fs_b[2] = {0, dr->r.fired_start[1]};
            bb.fired_start = fs_b;
            burst_difference diff;
            if (burst_first_difference(&a, &bb, &diff)) {
                snprintf(msg, sizeof msg, "run (batched): %lld bursts: every fired count and event count, the last "
                         "fired set and the final v, countdown, count bit-exact", (long long)ref->bursts);
            } else {
                diff.burst = last;
                burst_difference_format(&diff, msg, sizeof msg);
                out->parted_at = (int)last;
            }
        }
        out->run_passed = out->parted_at < 0;
        snprintf(ob->checked, sizeof ob->checked,
                 "batched: every burst's fired and event counts; the last fired set; final v, countdown, count");
    }
    snprintf(out->summary, sizeof out->summary, "%s", msg);
}

void burst_outcome_free(void *outcome)
{
    burst_outcome *ob = outcome;
    if (!ob)
        return;
    free(ob->fired_per_burst), free(ob->events_per_burst);
    free(ob->fired_start), free(ob->fired_ids), free(ob->final_v);
    free(ob);
}

/* What the run did, as the outcome's named metrics, timing, text and trajectory
 * (xpb_run_report.h); false when out of memory. */
static bool publish(const burst_outcome *ob, int64_t bursts, xpb_run_report *rep)
{
    const unsigned H = XPB_REPORT_HEADLINE;
    const double nb = bursts > 0 ? (double)bursts : 1.0;
    xpb_run_report_metric(rep, "neurons", (double)ob->neurons, "", XPB_BETTER_INFO, 0);
    xpb_run_report_metric(rep, "synapses", (double)ob->synapses, "", XPB_BETTER_INFO, 0);
    xpb_run_report_metric(rep, "batched", ob->batched, "", XPB_BETTER_INFO, 0);
    xpb_run_report_metric(rep, "events", (double)ob->events, "events", XPB_BETTER_INFO, XPB_REPORT_PER_SECOND);
    xpb_run_report_metric(rep, "fired", (double)ob->fired, "", XPB_BETTER_INFO, 0);
    xpb_run_report_metric(rep, "events_per_burst", (double)ob->events / nb, "events", XPB_BETTER_INFO, H);
    xpb_run_report_metric(rep, "fired_fraction", ob->neurons > 0 ? (double)ob->fired / ((double)ob->neurons * nb) : 0,
                          "", XPB_BETTER_INFO, H);
    xpb_run_report_timing(rep, "per_burst", NAN, NAN, NAN, 0, XPB_REPORT_PER_ITERATION | H);
    if (ob->checked[0])
        xpb_run_report_text(rep, "checked", ob->checked, 0);
    const uint32_t *src[2] = {ob->fired_per_burst, ob->events_per_burst};
    const char *names[2] = {"fired", "events"};
    for (int k = 0; k < 2 && src[k]; k++) {
        double *v = malloc((size_t)(bursts > 0 ? bursts : 1) * sizeof *v);
        for (int64_t b = 0; v && b < bursts; b++)
            v[b] = src[k][b];
        if (!v || !xpb_run_report_series(rep, names[k], v, (int)bursts))
            return false;
    }
    return true;
}

/* Publishes ob into out's report, and keeps it as out's state when the run is the validated one
 * (its dump), else frees it. */
static xpb_status finish(burst_outcome *ob, bool keep, xpb_status st, int64_t bursts, xpb_run_outcome *out,
                         xpb_error *err)
{
    if (!publish(ob, bursts, &out->report) && !st)
        st = xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "burst: out of host memory for the trajectory");
    if (keep)
        out->state = ob, out->state_free = burst_outcome_free;
    else
        burst_outcome_free(ob);
    return st;
}

xpb_status burst_run_case(const xpb_case *c, const xpb_case_data *d, xpb_session *s, int inject, xpb_validation *v,
                          xpb_run_outcome *out, xpb_error *err)
{
    const burst_host *host = d->host;
    const burst_network *net = &host->net;
    const int64_t bursts = xpb_case_param(c, "bursts", 1), n = net->n;
    const bool batched = xpb_case_param(c, "batched", 0) != 0;
    const bool validating = s->validating && v;
    xpb_burst_args a;
    memset(&a, 0, sizeof a);
    memset(out, 0, sizeof *out);
    burst_outcome *ob = calloc(1, sizeof *ob);
    if (!ob)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "burst: out of host memory");
    double h2d0 = s->h2d_s;
    uint64_t b2d0 = s->h2d_bytes;
    xpb_status st = setup(s, net, bursts, &a, err);
    out->upload_s = s->h2d_s - h2d0;
    out->upload_bytes = s->h2d_bytes - b2d0;
    xpb_op ops[] = {XPB_OP_BURST_PROPAGATE, XPB_OP_BURST_DYNAMICS, XPB_OP_BURST_COMPACT};
    /* a device group runs every burst through `sharded` (one burst a launch, or all at once),
     * after `shard` has split the synapses by target (set-up, not the run) */
    const bool group = s->ranks > 0;
    const xpb_op batch_op = group ? XPB_OP_BURST_SHARDED : XPB_OP_BURST_BATCH;
    if (batched || group) {
        a.bursts = batched ? (uint32_t)bursts : 1u;
        if (!st)
            st = xpb_session_supports(s, batch_op, &a, err);
    }
    for (size_t i = 0; i < 3 && !st && !batched && !group; i++)
        st = xpb_session_supports(s, ops[i], &a, err);
    if (group && !st)
        st = xpb_session_supports(s, XPB_OP_BURST_SHARD, &a, err);
    if (group && !st)
        st = xpb_session_launch(s, XPB_OP_BURST_SHARD, &a, err);
    if (group && !st)
        st = xpb_session_sync(s, err);

    xpb_burst_counters *cnt = alloc_host(((size_t)bursts + 1) * sizeof *cnt, &st, err);
    dev_run dr;
    memset(&dr, 0, sizeof dr);
    if (!st && validating)
        st = dev_run_init(&dr, n, bursts, !batched && host->ref.v_trace, err);
    burst_checks chk = {.v = v};
    int64_t check_at = -1; /* the burst whose ops are checked one by one */
    double t_start = xpb_clock_now();
    if (batched) {
        a.burst = 0;
        if (!st)
            st = xpb_session_launch(s, batch_op, &a, err);
        if (!st)
            st = get(s, a.counters, 0, cnt, ((size_t)bursts + 1) * sizeof *cnt, err);
    }
    for (int64_t b = 0; !batched && !st && b < bursts; b++) {
        a.burst = (uint32_t)b;
        if (group) {
            st = xpb_session_launch(s, batch_op, &a, err);
        } else if (validating && check_at < 0 && b > 0 && cnt[b].fired > 0) {
            check_at = b;
            st = checked_burst(s, &a, net, (uint32_t)b, &chk, inject, err);
        } else {
            for (size_t i = 0; i < 3 && !st; i++)
                st = xpb_session_launch(s, ops[i], &a, err);
        }
        if (!st) /* the burst's fired count: what a host acting on the spikes waits for */
            st = get(s, a.counters, ((size_t)b + 1) * sizeof *cnt, &cnt[b + 1], sizeof *cnt, err);
        if (!st && validating)
            st = dev_run_append(&dr, s, &a, b, cnt[b + 1].fired, err);
    }
    out->run_s = xpb_clock_now() - t_start;

    /* what the run did: fired and events per burst (counters[b].events: propagated in burst b) */
    ob->neurons = n, ob->synapses = net->synapses, ob->batched = batched;
    ob->fired_per_burst = alloc_host((size_t)bursts * 4, &st, err);
    ob->events_per_burst = alloc_host((size_t)bursts * 4, &st, err);
    for (int64_t b = 0; !st && b < bursts; b++) {
        ob->fired_per_burst[b] = cnt[b + 1].fired;
        ob->events_per_burst[b] = b == 0 ? 0 : cnt[b].events;
        ob->fired += cnt[b + 1].fired, ob->events += ob->events_per_burst[b];
    }
    out->iterations = (int)bursts;
    out->converged = true;
    if (!st && validating) {
        if (batched) /* the last burst's fired list and the final state */
            st = get(s, a.fired, 0, dr.r.fired, (size_t)(cnt[bursts].fired < n ? cnt[bursts].fired : n) * 4, err);
        if (batched)
            dr.r.fired_start[1] = cnt[bursts].fired < n ? cnt[bursts].fired : (uint64_t)n;
        burst_state fin = {n, dr.r.v, dr.r.countdown, dr.r.count};
        if (!st)
            st = get_state(s, &a, &fin, err);
        for (int64_t b = 0; !st && !batched && b < bursts; b++)
            dr.r.events[b] = ob->events_per_burst[b];
    }
    if (!st && !validating) /* a timed run must do the validated run's work (what its time stands for) */
        st = burst_check_timed_run(&host->ref, ob->fired_per_burst, bursts, err);
    free(cnt);
    if (st || !validating) {
        burst_run_free(&dr.r);
        return finish(ob, false, st, bursts, out, err);
    }
    check_run(&host->ref, &dr, batched, ob->fired_per_burst, ob->events_per_burst, inject, out, ob);
    out->ops_passed = chk.first_fail[0] == 0;
    char opmsg[400];
    if (group)
        snprintf(opmsg, sizeof opmsg, "ops: sharded over %d ranks (the per-op checks run on one device)", s->ranks);
    else if (batched)
        snprintf(opmsg, sizeof opmsg, "ops: batched (the per-op checks run on the per-burst case)");
    else if (chk.first_fail[0])
        snprintf(opmsg, sizeof opmsg, "ops FAIL: %s", chk.first_fail);
    else if (check_at >= 0)
        snprintf(opmsg, sizeof opmsg, "ops: propagate, dynamics, compact exact at burst %lld", (long long)check_at);
    else
        snprintf(opmsg, sizeof opmsg, "ops: nothing fired before the last burst, so no propagation to check");
    char runmsg[XPB_RUN_TEXT_LEN];
    snprintf(runmsg, sizeof runmsg, "%s", out->summary);
    bool run_first = !out->run_passed && !chk.first_fail[0];
    snprintf(out->summary, sizeof out->summary, "%.380s; %.380s", run_first ? runmsg : opmsg, run_first ? opmsg : runmsg);
    /* kept for the dump: the device's fired sets (per-burst runs) and final v */
    ob->fired_start = dr.r.fired_start, ob->fired_ids = dr.r.fired, ob->final_v = dr.r.v;
    dr.r.fired_start = NULL, dr.r.fired = NULL, dr.r.v = NULL;
    burst_run_free(&dr.r);
    return finish(ob, true, XPB_OK, bursts, out, err);
}
