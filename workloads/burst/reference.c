/* reference.c - the serial reference of burst propagation (burst.h), written for clarity against
 * docs/workloads.md section 4 and its pinned details, which it follows step by step; the comments
 * quote the rule each block implements. Serial in meaning: within a burst the neurons are taken
 * in parallel (OpenMP) where that cannot change a bit (integer input sums, each neuron's own
 * state), and the bursts one after another. Compiled with -ffp-contract=off (CMakeLists.txt), so
 * `f = f * scale; v = v + f` stays two roundings and never becomes one fused multiply-add. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "burst.h"

xpb_status burst_state_init(burst_state *s, int64_t n, xpb_error *err)
{
    memset(s, 0, sizeof *s);
    xpb_status st = burst_check_neurons(n, err);
    if (st != XPB_OK)
        return st;
    s->n = n;
    s->v = calloc((size_t)n, sizeof *s->v);
    s->countdown = calloc((size_t)n, sizeof *s->countdown);
    s->count = calloc((size_t)n, sizeof *s->count);
    if (!s->v || !s->countdown || !s->count) {
        burst_state_free(s);
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "burst: out of memory for the state of %lld neurons",
                        (long long)n);
    }
    return XPB_OK;
}

void burst_state_free(burst_state *s)
{
    free(s->v), free(s->countdown), free(s->count);
    memset(s, 0, sizeof *s);
}

bool burst_dynamics_neuron(const burst_network *net, burst_state *s, uint32_t i, uint32_t b, int32_t input)
{
    uint32_t limit = net->fire_limit[i];
    /* a. "if countdown > 0: countdown -= 1; if it reaches 0 and the neuron had hit its
     * consecutive-fire limit (limit > 0 and count >= limit), reset the count to 0; the neuron
     * neither integrates nor leaks this burst; done." */
    if (s->countdown[i] > 0) {
        s->countdown[i] -= 1;
        if (s->countdown[i] == 0 && limit > 0 && s->count[i] >= limit)
            s->count[i] = 0;
        return false;
    }
    /* b. "f = (float)input (round to nearest); f = f * scale; v = v + f", fp32, no contraction */
    float f = (float)input;
    f = f * net->scale;
    float v = s->v[i] + f;
    /* c. "candidate iff threshold <= v and (threshold_limit == 0 or v <= threshold_limit)" */
    float limit_v = net->threshold_limit[i];
    bool candidate = net->threshold[i] <= v && (limit_v == 0.0f || v <= limit_v);
    bool fire = false;
    if (candidate && limit > 0 && s->count[i] >= limit) {
        /* d. "a candidate with count >= limit (limit > 0): count = 0, no fire; goes on at g" */
        s->count[i] = 0;
    } else if (candidate) {
        /* e. ">= 0.999 always fires; <= 0 never; else fires iff (double)pcg_hash(i * 2654435761 +
         * b * 1597334677) < (double)excitability * 2^32"; the two tests on the fp32 value */
        float ex = net->excitability[i];
        if (ex >= 0.999f)
            fire = true;
        else if (ex > 0.0f)
            fire = (double)burst_excitability_draw(i, b) < (double)ex * 4294967296.0;
    }
    if (fire) {
        /* f. "v = 0, count += 1, then countdown = refractory + snooze if the limit is now hit,
         * else refractory" */
        s->v[i] = 0.0f;
        s->count[i] += 1;
        bool hit = limit > 0 && s->count[i] >= limit;
        s->countdown[i] = net->refractory[i] + (hit ? net->snooze[i] : 0);
        return true;
    }
    /* g. "otherwise: count = 0 when a limit is set; v = v * (1 - leak), 1 - leak in fp32" */
    if (limit > 0)
        s->count[i] = 0;
    float keep = 1.0f - net->leak[i];
    s->v[i] = v * keep;
    return false;
}

/* The neurons of one burst's dynamics are taken in at most this many blocks, in parallel: each
 * block writes its fired ids from its own first id on, then the blocks' lists are joined in order,
 * so the set comes out ascending as a serial pass over the neurons writes it. */
#define DYNAMICS_BLOCKS 256

int64_t burst_reference_step(const burst_network *net, burst_state *s, uint32_t b, const uint32_t *prev,
                             int64_t nprev, int32_t *input, uint32_t *fired, uint64_t *events)
{
    /* Each neuron's input is an integer sum and its dynamics read and write its own state only, so
     * the loops below run in parallel and still compute exactly the serial meaning. */
    const int64_t n = net->n;
    const int64_t blocks = n < DYNAMICS_BLOCKS ? n : DYNAMICS_BLOCKS;
    int64_t count_of[DYNAMICS_BLOCKS];
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < blocks; k++) {
        int64_t lo = n * k / blocks, hi = n * (k + 1) / blocks;
        memset(input + lo, 0, (size_t)(hi - lo) * sizeof *input);
    }
    /* 1. propagation: "for every fired source s and each of its synapses (s -> t, w, p, type):
     * input[t] += (type == inhibitory ? -1 : +1) * w * p, accumulated as int32" (any order gives
     * the same sums; no partial sum passes max fan-in * 65025 < 2^31) */
    uint64_t ev = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : ev)
    for (int64_t k = 0; k < nprev; k++) {
        uint32_t src = prev[k];
        int32_t sign = net->inhibitory[src] ? -1 : 1;
        uint64_t begin = burst_row(net, src), end = burst_row(net, (int64_t)src + 1);
        for (uint64_t e = begin; e < end; e++) {
            int32_t add = sign * (int32_t)net->weight[e] * (int32_t)net->psp[e];
#pragma omp atomic
            input[net->targets[e]] += add;
        }
        ev += end - begin;
    }
    if (events)
        *events = ev;
    /* 2. stimulus: "neuron i gets +S input units in burst b iff pcg_hash(i * 3266489917 +
     * b * 668265263 + 374761393) < floor(p_stim * 2^32)"; 3. dynamics, per neuron */
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t k = 0; k < blocks; k++) {
        int64_t lo = n * k / blocks, hi = n * (k + 1) / blocks, c = 0;
        for (int64_t i = lo; i < hi; i++) {
            int32_t in = input[i];
            if (burst_stimulus_draw((uint32_t)i, b) < net->stim_floor)
                in += net->stim;
            if (burst_dynamics_neuron(net, s, (uint32_t)i, b, in))
                fired[lo + c++] = (uint32_t)i;
        }
        count_of[k] = c;
    }
    /* 4. the fired set, ascending: the blocks' lists in block order */
    int64_t count = 0;
    for (int64_t k = 0; k < blocks; k++) {
        memmove(fired + count, fired + n * k / blocks, (size_t)count_of[k] * sizeof *fired);
        count += count_of[k];
    }
    return count;
}

/* Appends fired[0..c) to the run's list, growing it by doubling. */
static bool append(burst_run *r, uint64_t *cap, uint64_t at, const uint32_t *fired, int64_t c)
{
    if (at + (uint64_t)c > *cap) {
        uint64_t want = *cap * 2 > at + (uint64_t)c ? *cap * 2 : at + (uint64_t)c;
        uint32_t *p = realloc(r->fired, (size_t)want * sizeof *p);
        if (!p)
            return false;
        r->fired = p;
        *cap = want;
    }
    memcpy(r->fired + at, fired, (size_t)c * sizeof *fired);
    return true;
}

xpb_status burst_reference_run(const burst_network *net, int64_t bursts, bool keep_v, burst_run *out,
                               xpb_error *err)
{
    memset(out, 0, sizeof *out);
    int64_t n = net->n;
    if (bursts < 0 || (uint64_t)bursts > UINT32_MAX || (keep_v && bursts > 0 && (uint64_t)bursts > SIZE_MAX / 4 / (uint64_t)n))
        return xpb_fail(err, XPB_ERR_USAGE, "burst: %lld bursts: must be 0 .. 2^32-1 (and fit in memory to keep v)",
                        (long long)bursts);
    burst_state s;
    xpb_status st = burst_state_init(&s, n, err);
    if (st != XPB_OK)
        return st;
    out->n = n;
    out->bursts = bursts;
    uint64_t cap = (uint64_t)n;
    int32_t *input = malloc((size_t)n * sizeof *input);
    uint32_t *cur = malloc((size_t)n * sizeof *cur);
    out->fired_start = calloc((size_t)bursts + 1, sizeof *out->fired_start);
    out->events = calloc((size_t)bursts + 1, sizeof *out->events);
    out->fired = malloc((size_t)cap * sizeof *out->fired);
    out->v_trace = keep_v && bursts ? malloc((size_t)bursts * (size_t)n * sizeof(float)) : NULL;
    bool ok = input && cur && out->fired_start && out->events && out->fired && (out->v_trace || !keep_v || !bursts);
    uint64_t at = 0;
    for (int64_t b = 0; ok && b < bursts; b++) {
        /* "bursts count from 0; before burst 0 the fired set is empty": the previous set is the
         * run's last stored one */
        const uint32_t *prev = out->fired + out->fired_start[b > 0 ? b - 1 : 0];
        int64_t nprev = b > 0 ? (int64_t)(out->fired_start[b] - out->fired_start[b - 1]) : 0;
        int64_t c = burst_reference_step(net, &s, (uint32_t)b, prev, nprev, input, cur, &out->events[b]);
        ok = append(out, &cap, at, cur, c);
        at += (uint64_t)c;
        out->fired_start[b + 1] = at;
        if (ok && out->v_trace)
            memcpy(out->v_trace + b * n, s.v, (size_t)n * sizeof *s.v);
    }
    free(input), free(cur);
    if (!ok) {
        burst_state_free(&s);
        burst_run_free(out);
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "burst: out of memory for a run of %lld bursts of %lld neurons",
                        (long long)bursts, (long long)n);
    }
    out->v = s.v;
    out->countdown = s.countdown;
    out->count = s.count;
    return XPB_OK;
}

void burst_run_free(burst_run *r)
{
    free(r->fired_start), free(r->fired), free(r->events), free(r->v), free(r->countdown), free(r->count);
    free(r->v_trace);
    memset(r, 0, sizeof *r);
}

double burst_run_rate(const burst_run *r)
{
    if (r->bursts <= 0 || r->n <= 0)
        return 0;
    return (double)r->fired_start[r->bursts] / ((double)r->n * (double)r->bursts);
}

/* ---- comparing runs -------------------------------------------------------------------------- */

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static void note(burst_difference *d, uint32_t id, bool fa, bool fb, float va, float vb, const float *before)
{
    if (d->listed < BURST_DIFF_LIST)
        d->list[d->listed++] = (struct burst_diff_neuron){id, fa, fb, va, vb, before != NULL, before ? before[id] : 0};
    d->neurons++;
}

static bool in_set(const uint32_t *set, uint64_t c, uint32_t id)
{
    uint64_t lo = 0, hi = c;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (set[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c && set[lo] == id;
}

/* The neurons of burst t that differ, ascending: those in one fired set only, and, when both runs
 * traced v, those whose v after the burst differs bit for bit. */
static void compare_burst(const burst_run *a, const burst_run *b, int64_t t, burst_difference *d)
{
    const uint32_t *fa = a->fired + a->fired_start[t], *fb = b->fired + b->fired_start[t];
    uint64_t ca = a->fired_start[t + 1] - a->fired_start[t], cb = b->fired_start[t + 1] - b->fired_start[t];
    bool traced = a->v_trace && b->v_trace;
    const float *before = traced && t > 0 ? a->v_trace + (t - 1) * a->n : NULL;
    const float *va = traced ? a->v_trace + t * a->n : a->v, *vb = traced ? b->v_trace + t * b->n : b->v;
    uint64_t i = 0, j = 0;
    if (traced) { /* every neuron, walking the two sets alongside */
        for (int64_t id = 0; id < a->n; id++) {
            bool in_a = i < ca && fa[i] == (uint32_t)id, in_b = j < cb && fb[j] == (uint32_t)id;
            i += in_a, j += in_b;
            if (in_a != in_b || bits(va[id]) != bits(vb[id]))
                note(d, (uint32_t)id, in_a, in_b, va[id], vb[id], before);
        }
        return;
    }
    while (i < ca || j < cb) { /* merge the two ascending sets */
        uint32_t id = j >= cb || (i < ca && fa[i] < fb[j]) ? fa[i] : fb[j];
        bool in_a = i < ca && fa[i] == id, in_b = j < cb && fb[j] == id;
        i += in_a, j += in_b;
        if (in_a != in_b)
            note(d, id, in_a, in_b, va[id], vb[id], NULL);
    }
}

bool burst_first_difference(const burst_run *a, const burst_run *b, burst_difference *d)
{
    memset(d, 0, sizeof *d);
    d->burst = -1;
    if (a->n != b->n || a->bursts != b->bursts) {
        d->burst = 0;
        d->neurons = -1;
        return false;
    }
    for (int64_t t = 0; t < a->bursts; t++) {
        compare_burst(a, b, t, d);
        if (d->neurons > 0) {
            d->burst = t;
            return false;
        }
    }
    /* every burst's fired set (and traced v) matched: the final state */
    int64_t last = a->bursts > 0 ? a->bursts - 1 : 0;
    const uint32_t *fa = a->fired + a->fired_start[last];
    uint64_t ca = a->bursts > 0 ? a->fired_start[last + 1] - a->fired_start[last] : 0;
    for (int64_t i = 0; i < a->n; i++)
        if (bits(a->v[i]) != bits(b->v[i]) || a->countdown[i] != b->countdown[i] || a->count[i] != b->count[i]) {
            bool f = in_set(fa, ca, (uint32_t)i);
            note(d, (uint32_t)i, f, f, a->v[i], b->v[i], NULL);
        }
    if (d->neurons == 0)
        return true;
    d->burst = last;
    d->final_state = true;
    return false;
}

int burst_difference_format(const burst_difference *d, char *buf, size_t len)
{
    if (d->burst < 0)
        return snprintf(buf, len, "the runs are equal");
    if (d->neurons < 0)
        return snprintf(buf, len, "the runs differ in size (neurons or bursts)");
    size_t at = 0;
#define PUT(...) at += (size_t)snprintf(buf + (at < len ? at : len), at < len ? len - at : 0, __VA_ARGS__)
    PUT("burst %lld%s: %lld differing neuron%s:", (long long)d->burst, d->final_state ? " (final state)" : "",
        (long long)d->neurons, d->neurons == 1 ? "" : "s");
    for (int k = 0; k < d->listed; k++) {
        const struct burst_diff_neuron *e = &d->list[k];
        PUT("%s %u (fired %d vs %d, v %.9g vs %.9g", k ? "," : "", e->id, e->fired_a, e->fired_b, (double)e->v_a,
            (double)e->v_b);
        if (e->traced)
            PUT(", v before %.9g", (double)e->v_before);
        PUT(")");
    }
    if (d->neurons > d->listed)
        PUT(", ...");
#undef PUT
    return (int)at;
}
