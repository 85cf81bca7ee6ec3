/* workload.c - the burst propagation workload (docs/workloads.md section 4): its presets, its
 * input (the generated network, network.c) and its reference run (reference.c), both computed
 * once per case. The run through each backend's ops is run.c; the per-op checks are checks.c.
 *
 * Case params: neurons N, fanout F (synapses per neuron), bursts B (default 100); hubs=H for
 * H hub neurons of BURST_HUB_FACTOR * F synapses (the skewed network); batched=1 to record all
 * B bursts in one submission (XPB_OP_BURST_BATCH) instead of submitting and reading the fired
 * count back after every burst. The other generator parameters (20% inhibitory, 1% target
 * rate, seed 1, S and p_stim) are the defaults of burst_params_default, so the id names the
 * network. A case's op is "run" (the whole run); its kernel variants are those of `propagate`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "burst_case.h"
#include "size_keys.h"
#include "xpb_sysinfo.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define BURSTS_DEFAULT 100

extern const xpb_workload_i xpb_workload_burst;

typedef struct shape {
    int64_t n, fanout, bursts, hubs;
} shape;

/* Awkward sizes, an isolated neuron, a network without synapses, hubs. */
static const shape conf[] = {{1, 0, 20, 0},    {3, 2, 20, 0},      {255, 7, 30, 0},
                             {257, 16, 30, 2}, {4097, 33, 25, 4}, {20000, 50, 12, 3}};
static const shape quick[] = {{1000, 10, BURSTS_DEFAULT, 0}, {10000, 100, BURSTS_DEFAULT, 0}};
static const shape dflt[] = {{100000, 100, BURSTS_DEFAULT, 0},
                             {500000, 50, BURSTS_DEFAULT / 2, 0},
                             {1000000, 10, BURSTS_DEFAULT / 10, 0},
                             {100000, 100, BURSTS_DEFAULT, 10}};
static const shape full[] = {{5000000, 2, 100, 0},      {8000000, 1, 100, 0}, {1000000, 100, BURSTS_DEFAULT, 0},
                             {5000000, 100, BURSTS_DEFAULT, 0}};

typedef struct preset {
    const char *name;
    const shape *s;
    size_t n;
} preset;

static const preset presets[] = {
    {"conformance", conf, COUNT(conf)},
    {"quick", quick, COUNT(quick)},
    {"default", dflt, COUNT(dflt)},
    {"full", full, COUNT(full)},
};

burst_params burst_case_params(const xpb_case *c)
{
    burst_params p = burst_params_default(xpb_case_param(c, "neurons", 1), xpb_case_param(c, "fanout", 0));
    p.hubs = xpb_case_param(c, "hubs", 0);
    return p;
}

static xpb_status push(const shape *s, int batched, xpb_case_list *l, xpb_error *e)
{
    xpb_case c;
    memset(&c, 0, sizeof c);
    c.workload = &xpb_workload_burst;
    c.op = XPB_OP_BURST_RUN;
    c.dtype = XPB_DTYPE_F32;
    xpb_case_set_param(&c, "neurons", s->n);
    xpb_case_set_param(&c, "fanout", s->fanout);
    xpb_case_set_param(&c, "bursts", s->bursts);
    if (s->hubs)
        xpb_case_set_param(&c, "hubs", s->hubs);
    if (batched)
        xpb_case_set_param(&c, "batched", 1);
    /* a neuron update per neuron and burst; events/s come from the run (run.burst) */
    c.elements = (uint64_t)s->n * (uint64_t)s->bursts;
    xpb_case_make_id(&c);
    return xpb_case_list_push(l, &c, e);
}

static xpb_status check_shape(const shape *s, xpb_error *err)
{
    double synapses = (double)s->n * (double)s->fanout + (double)s->hubs * (BURST_HUB_FACTOR - 1) * (double)s->fanout;
    if (s->n < 1 || s->n >= (int64_t)UINT32_MAX || s->fanout < 0 || s->fanout > s->n - 1 ||
        s->bursts < 1 || s->bursts > 1000000 || s->hubs < 0 || s->hubs > s->n || synapses >= 4294967295.0)
        return xpb_fail(err, XPB_ERR_USAGE,
                        "bad burst size neurons=%lld,fanout=%lld,bursts=%lld,hubs=%lld (needs 1 <= neurons < 2^32 - 1, "
                        "0 <= fanout < neurons, 1 <= bursts <= 1000000, 0 <= hubs <= neurons, synapses < 2^32)",
                        (long long)s->n, (long long)s->fanout, (long long)s->bursts, (long long)s->hubs);
    return XPB_OK;
}

static xpb_status add_cases(const char *preset_name, const xpb_sizes *sizes, xpb_case_list *l, xpb_error *err)
{
    if (sizes && sizes->input)
        return XPB_OK; /* the network is generated; --input is the anneal workload's */
    if (sizes && sizes->count > 0) { /* neurons, fanout (bursts, hubs, batched optional) */
        shape s = {0, 0, BURSTS_DEFAULT, 0};
        int64_t batched = -1;
        if (!xpb_sizes_get(sizes, "neurons", &s.n) || !xpb_sizes_get(sizes, "fanout", &s.fanout))
            return XPB_OK; /* not a burst size */
        xpb_sizes_get(sizes, "bursts", &s.bursts);
        xpb_sizes_get(sizes, "hubs", &s.hubs);
        xpb_sizes_get(sizes, "batched", &batched);
        xpb_status st = check_shape(&s, err);
        if (!st && batched != 1) /* both ways unless one is named */
            st = push(&s, 0, l, err);
        if (!st && batched != 0)
            st = push(&s, 1, l, err);
        return st;
    }
    for (size_t i = 0; i < COUNT(presets); i++) {
        if (strcmp(presets[i].name, preset_name) != 0)
            continue;
        xpb_status st = XPB_OK;
        for (size_t j = 0; j < presets[i].n && !st; j++) /* per-burst submits, then one batch */
            for (int batched = 0; batched < 2 && !st; batched++)
                st = push(&presets[i].s[j], batched, l, err);
        return st;
    }
    return XPB_OK;
}

static bool knows_size_key(const char *k)
{
    static const char *const keys[] = {"neurons", "fanout", "bursts", "hubs", "batched"};
    return xpb_size_key_in(k, keys, COUNT(keys));
}

/* The cases of one network and burst count (the per-burst and the batched case, on every device)
 * follow one another and need the same network and reference run: at 5M x 100, 3 GiB and most
 * of a case's host time, made once per case before. The last one made is shared while a case
 * still holds it (the runner keeps a block's data until its later rounds are done), and freed
 * with its last holder, so nothing outlives the cases. make_data runs on the runner's thread. */
static burst_host *shared_host;

static bool same_params(const burst_params *a, const burst_params *b)
{
    return a->n == b->n && a->fanout == b->fanout && a->hubs == b->hubs && a->inhibitory == b->inhibitory &&
           a->rate == b->rate && a->seed == b->seed && a->stim == b->stim && a->p_stim == b->p_stim;
}

static void host_free(void *p)
{
    burst_host *h = p;
    if (--h->holders > 0)
        return;
    if (shared_host == h)
        shared_host = NULL;
    burst_network_free(&h->net);
    burst_run_free(&h->ref);
    free(h);
}

/* The network (the seed is the generator's, part of the id; the runner's input seed is unused)
 * and the reference run, v traced after every burst while that stays small; or the shared ones
 * of the same network and burst count. */
static xpb_status make_data(const xpb_case *c, uint64_t seed, xpb_case_data *d, xpb_error *err)
{
    (void)seed;
    memset(d, 0, sizeof *d);
    burst_params p = burst_case_params(c);
    int64_t bursts = xpb_case_param(c, "bursts", BURSTS_DEFAULT);
    burst_host *h = shared_host;
    if (h && h->bursts == bursts && same_params(&h->net.params, &p)) {
        h->holders++;
        d->host = h;
        d->host_free = host_free;
        return XPB_OK;
    }
    /* The network (6 bytes a synapse, about 40 a neuron), the reference's state and scratch, and
     * v after every burst when traced: checked first, so that an oversized case is an error
     * instead of a visit from the OOM killer. */
    double synapses = (double)p.n * (double)p.fanout + (double)p.hubs * (BURST_HUB_FACTOR - 1) * (double)p.fanout;
    double need = synapses * 6.0 + (double)p.n * 64.0 +
                  ((double)bursts * (double)p.n <= BURST_TRACE_MAX ? (double)bursts * (double)p.n * 4.0 : 0.0);
    uint64_t avail = xpb_sysinfo_mem_available();
    if (avail && need > (double)avail * 0.9)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "burst: the network and its reference need %.2f GiB of host "
                        "memory; %.2f GiB available", need / 1073741824.0, (double)avail / 1073741824.0);
    h = calloc(1, sizeof *h);
    if (!h)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "burst: out of host memory");
    h->bursts = bursts;
    h->holders = 1;
    xpb_status st = burst_network_build(&p, &h->net, err);
    if (!st)
        st = burst_reference_run(&h->net, bursts, (double)bursts * (double)p.n <= BURST_TRACE_MAX, &h->ref, err);
    if (st) {
        host_free(h);
        return st;
    }
    shared_host = h;
    d->host = h;
    d->host_free = host_free;
    return XPB_OK;
}

static const char *tolerance_text(const xpb_case *c, const char *precision)
{
    (void)c, (void)precision;
    return "exact: per op (propagate's int32 input, dynamics' state and flags, compact's list and counters) and "
           "the whole run (every burst's fired set and v, bit for bit, against the serial reference)";
}

/* Alike in shape to anneal/workload.c's table but not shared: each row is this workload's own data. */
/* Where results files of schema 1 and 2 held what run.c now reports by name: the "burst" object. */
#define H XPB_REPORT_HEADLINE
static const xpb_legacy_field legacy_fields[] = {
    {XPB_LEGACY_METRIC, "burst.neurons", "neurons", "", XPB_BETTER_INFO, 0, NULL},
    {XPB_LEGACY_METRIC, "burst.synapses", "synapses", "", XPB_BETTER_INFO, 0, NULL},
    {XPB_LEGACY_METRIC, "burst.batched", "batched", "", XPB_BETTER_INFO, 0, NULL},
    {XPB_LEGACY_METRIC, "burst.events", "events", "events", XPB_BETTER_INFO, 0, NULL},
    {XPB_LEGACY_METRIC, "burst.fired", "fired", "", XPB_BETTER_INFO, 0, NULL},
    {XPB_LEGACY_METRIC, "burst.events_per_burst", "events_per_burst", "events", XPB_BETTER_INFO, H, NULL},
    {XPB_LEGACY_METRIC, "burst.fired_fraction", "fired_fraction", "", XPB_BETTER_INFO, H, NULL},
    {XPB_LEGACY_TIMING, "burst.per_burst_s", "per_burst", "", XPB_BETTER_INFO, H, NULL},
    {XPB_LEGACY_METRIC, "burst.events_per_s", "events_per_s", "events/s", XPB_BETTER_HIGHER, H, NULL},
    {XPB_LEGACY_TEXT, "burst.checked", "checked", "", XPB_BETTER_INFO, 0, NULL},
    {0, NULL, NULL, NULL, 0, 0, NULL},
};
#undef H

const xpb_workload_i xpb_workload_burst = {
    .name = "burst",
    .description = "burst propagation through a spiking network (stateful: propagate, dynamics, compact per "
                   "burst; fired sets and v bit-exact against the serial reference)",
    .add_cases = add_cases,
    .knows_size_key = knows_size_key,
    .make_data = make_data,
    .tolerance_text = tolerance_text,
    .run = burst_run_case,
    .variant_op = XPB_OP_BURST_PROPAGATE,
    .group_variant_op = XPB_OP_BURST_SHARDED,
    .dump_run = burst_dump_run,
    .legacy_fields = legacy_fields,
};
