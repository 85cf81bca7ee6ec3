/* network.c - the burst workload's network generator (burst.h, docs/workloads.md section 4).
 *
 * Counter-based: every value is a pure function of (seed, stream, index) through xpb_rng_hash
 * (SplitMix64), with index = (neuron << 32) | k for synapse k of a neuron's row and the neuron id
 * for its parameters, so the network is the same bytes on every platform and thread count, and a
 * neuron's synapses depend on no other row (a hub case differs from the plain one in the hub rows
 * only). Float parameters are integers over 1024, exact in fp32. Pinned choices:
 *   target of synapse k of i: (i + 1 + h % (n - 1)) % n: uniform over the other neurons, never i
 *     (two synapses of one row may share a target: parallel synapses, summed like any others)
 *   synapse strength: strong with probability 1 / (2F) (bits 40..63 of h below 2^23 / F): weight
 *     and psp in [192, 255], one strong input (0.56 .. 1.0 of v) can fire a resting neuron; weak
 *     otherwise: weight in [1, W], W = clamp(1280 / F, 1, 255), psp in [128, 255]
 *   hubs: neuron k * q + q / 2 (q = n / hubs) for k < hubs, with BURST_HUB_FACTOR * F synapses
 *   inhibitory iff (h >> 32) < floor(inhibitory * 2^32)
 *   threshold [1/2, 1); threshold_limit 0 (3 in 4) or threshold + [3/2, 3); leak [1/16, 1/2);
 *   excitability 0 (1 in 64), 1 (8 in 64), else [1/2, 1); refractory 0..3; fire_limit 0 (half)
 *   or 1..4; snooze 0..7
 *   stimulus: S = 2 * 65025 (fires any resting neuron that is not refractory, limited or
 *   unexcited), p_stim = 0.85 * rate.
 * Activity: the stimulus drives it, the strong synapses relay it (about 0.3 fires per fire,
 * whatever F, since each row holds half a strong synapse on average); the weak ones move v. The
 * fired fraction of the reference with the defaults, seed 1, 100 bursts (measured 2026-11,
 * burst_reference_run): 1K x 10: 1.07%; 10K x 100: 0.99% (seed 7: 1.00%); 100K x 100: 1.00%;
 * 500K x 50: 1.00%; 1M x 10: 1.08%; 100K x 2: 1.12%; 100K x 1: 1.01%; 100K x 100 with 10 hubs:
 * 1.00%; over 1000 bursts 1K x 10: 1.07%, 10K x 100: 1.00% (no drift: quarters within 10%).
 * Stimulus alone gives 0.84% at p_stim = 0.01; a strong share of 1/F per row gives 1.6%, 1.5/F 3%,
 * 2/F 10% (runaway, held only by refractoriness): 1/(2F) keeps a wide margin. Weights scaled
 * by 1/F alone (no strong synapses) are bistable: quiet below a budget of ~8000, 15-25% above. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "burst.h"
#include "xpb_rng.h"

#define WEAK_WEIGHT_BUDGET 1280 /* W = clamp(this / F, 1, 255)           */
#define WEAK_PSP_LO 128
#define STRONG_LO 192            /* strong weight and psp in [this, 255]    */
#define STIM_UNITS (2 * BURST_MAX_SYNAPSE_INPUT)
#define STIM_PER_RATE 0.85       /* p_stim = this * the target rate         */
#define MAX_SYNAPSES ((uint64_t)1 << 40)
#define FANIN_PREFETCH 16        /* synapses ahead: their counts are fetched while one is bumped */

enum {
    STREAM_TARGET = 300,
    STREAM_SYNAPSE,
    STREAM_INHIBITORY,
    STREAM_THRESHOLD,
    STREAM_LIMIT,
    STREAM_LEAK,
    STREAM_EXCITABILITY,
    STREAM_REFRACTORY,
    STREAM_FIRE_LIMIT,
    STREAM_SNOOZE,
};

void burst_stimulus_default(double rate, int32_t *stim, double *p_stim)
{
    *stim = STIM_UNITS;
    *p_stim = rate * STIM_PER_RATE;
}

burst_params burst_params_default(int64_t n, int64_t fanout)
{
    burst_params p = {.n = n, .fanout = fanout, .hubs = 0, .inhibitory = 0.2, .rate = 0.01, .seed = 1};
    burst_stimulus_default(p.rate, &p.stim, &p.p_stim);
    return p;
}

uint32_t burst_stimulus_floor(double p_stim)
{
    return p_stim > 0 ? (uint32_t)floor(p_stim * 4294967296.0) : 0;
}

/* ",key=x" with the shortest of %.15g and %.17g that reads back as x. */
static void put_double(char *out, size_t len, const char *key, double x)
{
    snprintf(out, len, ",%s=%.15g", key, x);
    if (strtod(out + strlen(key) + 2, NULL) != x)
        snprintf(out, len, ",%s=%.17g", key, x);
}

int burst_params_format(const burst_params *p, char *buf, size_t len)
{
    burst_params d = burst_params_default(p->n, p->fanout);
    char hubs[32] = "", inh[48] = "", rate[48] = "", seed[32] = "", stim[32] = "", p_stim[48] = "";
    if (p->hubs != d.hubs)
        snprintf(hubs, sizeof hubs, ",hubs=%lld", (long long)p->hubs);
    if (p->inhibitory != d.inhibitory)
        put_double(inh, sizeof inh, "inhibitory", p->inhibitory);
    if (p->rate != d.rate)
        put_double(rate, sizeof rate, "rate", p->rate);
    if (p->seed != d.seed)
        snprintf(seed, sizeof seed, ",seed=%llu", (unsigned long long)p->seed);
    if (p->stim != d.stim)
        snprintf(stim, sizeof stim, ",stim=%ld", (long)p->stim);
    if (p->p_stim != d.p_stim)
        put_double(p_stim, sizeof p_stim, "p_stim", p->p_stim);
    return snprintf(buf, len, "neurons=%lld,fanout=%lld%s%s%s%s%s%s", (long long)p->n, (long long)p->fanout, hubs,
                    inh, rate, seed, stim, p_stim);
}

xpb_status burst_check_neurons(int64_t n, xpb_error *err)
{
    if (n < 1 || (uint64_t)n > UINT32_MAX)
        return xpb_fail(err, XPB_ERR_USAGE, "burst: %lld neurons: must be 1 .. 2^32-1", (long long)n);
    return XPB_OK;
}

xpb_status burst_network_alloc(burst_network *net, int64_t n, uint64_t synapses, xpb_error *err)
{
    memset(net, 0, sizeof *net);
    xpb_status st = burst_check_neurons(n, err);
    if (st != XPB_OK)
        return st;
    if (synapses > MAX_SYNAPSES)
        return xpb_fail(err, XPB_ERR_USAGE, "burst: %llu synapses: more than 2^40", (unsigned long long)synapses);
    size_t nn = (size_t)n, ns = (size_t)synapses;
    net->n = n;
    net->params.n = n;
    net->synapses = synapses;
    if (synapses <= UINT32_MAX)
        net->offsets32 = calloc(nn + 1, sizeof *net->offsets32);
    else
        net->offsets64 = calloc(nn + 1, sizeof *net->offsets64);
    net->targets = calloc(ns ? ns : 1, sizeof *net->targets);
    net->weight = calloc(ns ? ns : 1, 1);
    net->psp = calloc(ns ? ns : 1, 1);
    net->inhibitory = calloc(nn, 1);
    net->threshold = calloc(nn, sizeof(float));
    net->threshold_limit = calloc(nn, sizeof(float));
    net->leak = calloc(nn, sizeof(float));
    net->excitability = calloc(nn, sizeof(float));
    net->refractory = calloc(nn, sizeof(uint32_t));
    net->fire_limit = calloc(nn, sizeof(uint32_t));
    net->snooze = calloc(nn, sizeof(uint32_t));
    if (!(net->offsets32 || net->offsets64) || !net->targets || !net->weight || !net->psp || !net->inhibitory ||
        !net->threshold || !net->threshold_limit || !net->leak || !net->excitability || !net->refractory ||
        !net->fire_limit || !net->snooze) {
        burst_network_free(net);
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "burst: out of memory for %lld neurons and %llu synapses",
                        (long long)n, (unsigned long long)synapses);
    }
    net->scale = BURST_SCALE;
    return XPB_OK;
}

void burst_network_set_row(burst_network *net, int64_t i, uint64_t offset)
{
    if (net->offsets32)
        net->offsets32[i] = (uint32_t)offset;
    else
        net->offsets64[i] = offset;
}

void burst_network_set_stimulus(burst_network *net, int32_t stim, double p_stim)
{
    net->stim = stim;
    net->p_stim = p_stim;
    net->stim_floor = burst_stimulus_floor(p_stim);
    net->scale = BURST_SCALE;
    net->params.stim = stim;
    net->params.p_stim = p_stim;
}

/* In parallel: a count per target, bumped atomically, each thread keeping the largest count it
 * saw. A thread stops at the first count that breaks the bound (cap), as the serial count stopped,
 * so no count passes cap by more than the thread count; the fan-in reported then is cap itself,
 * the count the serial loop stopped at (the running maximum grows one at a time). */
xpb_status burst_network_check_fanin(burst_network *net, xpb_error *err)
{
    uint32_t *fanin = calloc((size_t)net->n, sizeof *fanin);
    if (!fanin)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "burst: out of memory counting fan-in");
    int64_t limit = ((int64_t)1 << 31) - net->stim; /* fan-in * 65025 must stay below; >= 1 */
    int64_t cap = (limit + BURST_MAX_SYNAPSE_INPUT - 1) / BURST_MAX_SYNAPSE_INPUT; /* the least that breaks it */
    int64_t max = 0;
#pragma omp parallel reduction(max : max)
    {
        bool stop = false;
#pragma omp for schedule(static)
        for (uint64_t e = 0; e < net->synapses; e++) {
            if (stop)
                continue;
            if (e + FANIN_PREFETCH < net->synapses) /* the atomic waits out its miss; the next ones need not */
                __builtin_prefetch(&fanin[net->targets[e + FANIN_PREFETCH]], 1);
            uint32_t c;
#pragma omp atomic capture
            c = ++fanin[net->targets[e]];
            max = c > max ? c : max;
            stop = max >= cap;
        }
    }
    free(fanin);
    max = max < cap ? max : cap;
    net->max_fanin = max;
    if (net->stim < 0 || max * BURST_MAX_SYNAPSE_INPUT >= limit)
        return xpb_fail(err, XPB_ERR_USAGE, "burst: a fan-in of %lld synapses: %lld * 65025 + S (%ld) must stay below 2^31",
                        (long long)max, (long long)max, (long)net->stim);
    return XPB_OK;
}

void burst_network_free(burst_network *net)
{
    free(net->offsets32), free(net->offsets64), free(net->targets), free(net->weight), free(net->psp);
    free(net->inhibitory), free(net->threshold), free(net->threshold_limit), free(net->leak);
    free(net->excitability), free(net->refractory), free(net->fire_limit), free(net->snooze);
    memset(net, 0, sizeof *net);
}

/* The parameters' checks, before any allocation: a one-line message for what cannot be built. */
static xpb_status check_params(const burst_params *p, uint64_t *synapses, xpb_error *err)
{
    xpb_status st = burst_check_neurons(p->n, err);
    if (st != XPB_OK)
        return st;
    if (p->fanout < 0 || p->hubs < 0 || p->hubs > p->n)
        return xpb_fail(err, XPB_ERR_USAGE, "burst: fan-out %lld, hubs %lld: need fan-out >= 0, 0 <= hubs <= %lld",
                        (long long)p->fanout, (long long)p->hubs, (long long)p->n);
    if (p->n == 1 && p->fanout > 0)
        return xpb_fail(err, XPB_ERR_USAGE, "burst: one neuron cannot have synapses (no self-loops): fan-out must be 0");
    if (!(p->inhibitory >= 0 && p->inhibitory <= 1) || !(p->rate >= 0 && p->rate <= 1) ||
        !(p->p_stim >= 0 && p->p_stim < 1) || p->stim < 0)
        return xpb_fail(err, XPB_ERR_USAGE, "burst: inhibitory %g, rate %g, p_stim %g, S %ld: need [0,1], [0,1], [0,1), >= 0",
                        p->inhibitory, p->rate, p->p_stim, (long)p->stim);
    uint64_t f = (uint64_t)p->fanout, plain = (uint64_t)(p->n - p->hubs), hubs = (uint64_t)p->hubs;
    /* each product checked against MAX_SYNAPSES (2^40) by division first, so nothing wraps */
    if (f > MAX_SYNAPSES / BURST_HUB_FACTOR || (plain && f > MAX_SYNAPSES / plain) ||
        (hubs && f * BURST_HUB_FACTOR > MAX_SYNAPSES / hubs) ||
        plain * f + hubs * f * BURST_HUB_FACTOR > MAX_SYNAPSES)
        return xpb_fail(err, XPB_ERR_USAGE, "burst: %lld neurons x fan-out %lld (%lld hubs): more than 2^40 synapses",
                        (long long)p->n, (long long)p->fanout, (long long)p->hubs);
    *synapses = plain * f + hubs * f * BURST_HUB_FACTOR;
    return XPB_OK;
}

static float over1024(uint64_t k) { return (float)k / 1024.0f; }

static void neuron_params(burst_network *net, const burst_params *p)
{
    uint64_t s = p->seed, inh = (uint64_t)floor(p->inhibitory * 4294967296.0);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < net->n; i++) {
        uint64_t u = (uint64_t)i;
        net->inhibitory[i] = (xpb_rng_hash(s, STREAM_INHIBITORY, u) >> 32) < inh;
        uint64_t th = 512 + xpb_rng_hash(s, STREAM_THRESHOLD, u) % 512;
        net->threshold[i] = over1024(th);
        uint64_t h = xpb_rng_hash(s, STREAM_LIMIT, u);
        net->threshold_limit[i] = h % 4 == 0 ? over1024(th + 1536 + (h >> 2) % 1536) : 0.0f;
        net->leak[i] = over1024(64 + xpb_rng_hash(s, STREAM_LEAK, u) % 448);
        h = xpb_rng_hash(s, STREAM_EXCITABILITY, u);
        net->excitability[i] = h % 64 == 0 ? 0.0f : h % 64 <= 8 ? 1.0f : over1024(512 + (h >> 6) % 512);
        net->refractory[i] = (uint32_t)(xpb_rng_hash(s, STREAM_REFRACTORY, u) % 4);
        h = xpb_rng_hash(s, STREAM_FIRE_LIMIT, u);
        net->fire_limit[i] = h % 2 == 0 ? 0 : 1 + (uint32_t)((h >> 1) % 4);
        net->snooze[i] = (uint32_t)(xpb_rng_hash(s, STREAM_SNOOZE, u) % 8);
    }
}

static void synapses(burst_network *net, const burst_params *p)
{
    uint64_t s = p->seed, n = (uint64_t)net->n, f = (uint64_t)p->fanout;
    uint64_t wmax = f > 0 ? WEAK_WEIGHT_BUDGET / f : 255;
    wmax = wmax < 1 ? 1 : wmax > 255 ? 255 : wmax;
    uint64_t strong_floor = f > 0 ? ((uint64_t)1 << 23) / f : 0; /* of 2^24: 1 / (2F) */
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t i = 0; i < net->n; i++) {
        uint64_t begin = burst_row(net, i), end = burst_row(net, i + 1);
        for (uint64_t e = begin; e < end; e++) {
            uint64_t idx = (uint64_t)i << 32 | (e - begin);
            /* (i + 1 + h % (n - 1)) % n: the sum is below 2n, so the last % n is a subtraction */
            uint64_t t = (uint64_t)i + 1 + xpb_rng_hash(s, STREAM_TARGET, idx) % (n - 1);
            net->targets[e] = (uint32_t)(t >= n ? t - n : t);
            /* bits 0..31: weight (w < 2^32, so w % wmax is a 32-bit divide); 32..39: psp; 40..63:
             * strong or weak */
            uint64_t h = xpb_rng_hash(s, STREAM_SYNAPSE, idx), w = h & 0xffffffffu, q = (h >> 32) & 0xffu;
            bool strong = (h >> 40) < strong_floor;
            net->weight[e] = (uint8_t)(strong ? STRONG_LO + w % (256 - STRONG_LO) : 1 + (uint32_t)w % (uint32_t)wmax);
            net->psp[e] = (uint8_t)(strong ? STRONG_LO + q % (256 - STRONG_LO) : WEAK_PSP_LO + q % (256 - WEAK_PSP_LO));
        }
    }
}

xpb_status burst_network_build(const burst_params *p, burst_network *net, xpb_error *err)
{
    uint64_t total = 0;
    memset(net, 0, sizeof *net);
    xpb_status st = check_params(p, &total, err);
    if (st == XPB_OK)
        st = burst_network_alloc(net, p->n, total, err);
    if (st != XPB_OK)
        return st;
    net->params = *p;
    /* rows: F synapses each, BURST_HUB_FACTOR * F for the hubs (spread evenly over the ids) */
    uint64_t f = (uint64_t)p->fanout, at = 0;
    int64_t q = p->hubs ? p->n / p->hubs : 0, next_hub = p->hubs ? q / 2 : -1, hub = 0;
    for (int64_t i = 0; i < p->n; i++) {
        burst_network_set_row(net, i, at);
        bool is_hub = i == next_hub;
        if (is_hub)
            next_hub = ++hub < p->hubs ? hub * q + q / 2 : -1;
        at += is_hub ? f * BURST_HUB_FACTOR : f;
    }
    burst_network_set_row(net, p->n, at);
    neuron_params(net, p);
    synapses(net, p);
    burst_network_set_stimulus(net, p->stim, p->p_stim);
    st = burst_network_check_fanin(net, err);
    if (st != XPB_OK)
        burst_network_free(net);
    return st;
}
