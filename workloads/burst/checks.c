/* checks.c - level 1 of the burst validation: each op's output against an exact oracle computed
 * on the host from the op's own inputs as read back (burst_case.h). Everything here is exact:
 * integers are compared as integers, floats by their bits (so -0 and +0 differ, as they would
 * in the next burst's threshold test). Each element compared counts in the run's validation.
 * Last, the one check a timed run gets: its fired counts against the reference's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "burst_case.h"

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Adds one exact element (out == ref); describes the first failure of the run. */
static void add(burst_checks *k, const char *what, int64_t index, double out, double ref)
{
    xpb_validation_add_f64(k->v, index, out, false, ref, 0.0);
    if (out != ref && !k->first_fail[0])
        snprintf(k->first_fail, sizeof k->first_fail, "%s[%lld] = %.17g, exact value %.17g", what, (long long)index,
                 out, ref);
}

/* Adds one fp32 element compared by its bits; the failure shows value and bits. */
static void add_bits(burst_checks *k, const char *what, int64_t index, float out, float ref)
{
    uint32_t o = fbits(out), r = fbits(ref);
    xpb_validation_add_f64(k->v, index, o, false, r, 0.0);
    if (o != r && !k->first_fail[0])
        snprintf(k->first_fail, sizeof k->first_fail, "%s[%lld] = %.9g (0x%08x), exact value %.9g (0x%08x)", what,
                 (long long)index, (double)out, o, (double)ref, r);
}

void burst_check_propagate(burst_checks *k, const burst_network *net, uint32_t b, const uint32_t *fired, uint32_t nf,
                           const int32_t *input_before, const int32_t *input_after)
{
    int64_t *sum = calloc((size_t)net->n, sizeof *sum);
    if (!sum) {
        snprintf(k->first_fail, sizeof k->first_fail, "propagate: out of host memory for the check");
        return;
    }
    for (uint32_t j = 0; j < nf; j++) {
        uint32_t s = fired[j];
        if (s >= (uint64_t)net->n) { /* a fired id out of range: report it, do not index with it */
            add(k, "propagate: fired", j, s, -1);
            continue;
        }
        for (uint64_t e = burst_row(net, s); e < burst_row(net, s + 1); e++)
            sum[net->targets[e]] += (net->inhibitory[s] ? -1 : 1) * (int64_t)net->weight[e] * net->psp[e];
    }
    char what[48];
    snprintf(what, sizeof what, "burst %u propagate: input", b);
    for (int64_t i = 0; i < net->n; i++)
        add(k, what, i, input_after[i], (double)input_before[i] + (double)sum[i]);
    free(sum);
}

void burst_check_dynamics(burst_checks *k, const burst_network *net, uint32_t b, const int32_t *input,
                          const burst_state *before, const burst_state *after, const uint32_t *flag,
                          const int32_t *input_after)
{
    char what[64];
    burst_state ref; /* the state before, stepped by the reference neuron by neuron */
    xpb_error err;
    if (burst_state_init(&ref, net->n, &err) != XPB_OK) {
        snprintf(k->first_fail, sizeof k->first_fail, "dynamics: out of host memory for the check");
        return;
    }
    memcpy(ref.v, before->v, (size_t)net->n * sizeof *ref.v);
    memcpy(ref.countdown, before->countdown, (size_t)net->n * sizeof *ref.countdown);
    memcpy(ref.count, before->count, (size_t)net->n * sizeof *ref.count);
    for (int64_t i = 0; i < net->n; i++) {
        int32_t in = input[i] + (burst_stimulus_draw((uint32_t)i, b) < net->stim_floor ? net->stim : 0);
        bool fired = burst_dynamics_neuron(net, &ref, (uint32_t)i, b, in);
        float v = ref.v[i];
        uint32_t cd = ref.countdown[i], cnt = ref.count[i];
        snprintf(what, sizeof what, "burst %u dynamics: v", b);
        add_bits(k, what, i, after->v[i], v);
        snprintf(what, sizeof what, "burst %u dynamics: countdown", b);
        add(k, what, i, after->countdown[i], cd);
        snprintf(what, sizeof what, "burst %u dynamics: count", b);
        add(k, what, i, after->count[i], cnt);
        snprintf(what, sizeof what, "burst %u dynamics: fired_flag", b);
        add(k, what, i, flag[i], fired ? 1 : 0);
        snprintf(what, sizeof what, "burst %u dynamics: input after", b);
        add(k, what, i, input_after[i], 0);
    }
    burst_state_free(&ref);
}

void burst_check_compact(burst_checks *k, const burst_network *net, const uint32_t *flag, const uint32_t *fired,
                         const uint32_t *degree_scan, const xpb_burst_counters *c)
{
    uint64_t count = 0, events = 0;
    bool list_ok = true;
    for (int64_t i = 0; i < net->n; i++) {
        if (!flag[i])
            continue;
        if (count < c->fired && list_ok) {
            add(k, "compact: fired", (int64_t)count, fired[count], (double)i);
            add(k, "compact: degree_scan", (int64_t)count, degree_scan[count], (double)events);
            list_ok = fired[count] == (uint32_t)i;
        }
        count++;
        events += burst_row(net, i + 1) - burst_row(net, i);
    }
    if (list_ok && count <= c->fired)
        add(k, "compact: degree_scan", (int64_t)count, degree_scan[count], (double)events);
    uint64_t groups = (events + XPB_BURST_EVENTS_PER_GROUP - 1) / XPB_BURST_EVENTS_PER_GROUP;
    groups = groups < 1 ? 1 : groups > XPB_BURST_MAX_GROUPS ? XPB_BURST_MAX_GROUPS : groups;
    add(k, "compact: counters.fired", 0, c->fired, (double)count);
    add(k, "compact: counters.dispatch[0]", 1, c->dispatch[0], (double)groups);
    add(k, "compact: counters.dispatch[1]", 2, c->dispatch[1], 1);
    add(k, "compact: counters.dispatch[2]", 3, c->dispatch[2], 1);
    add(k, "compact: counters.events", 4, c->events, (double)events);
    for (int r = 0; r < 3; r++)
        add(k, "compact: counters.reserved", 5 + r, c->reserved[r], 0);
}

/* A timed run is not checked op by op, but its counters come back anyway: its fired count in
 * every burst must be the reference's (the validated run matched it bit for bit). A run that
 * differs did other work than the validated one, so its time would stand for nothing: an error,
 * naming the first burst that differs. */
xpb_status burst_check_timed_run(const burst_run *ref, const uint32_t *fired, int64_t bursts, xpb_error *err)
{
    for (int64_t b = 0; b < bursts; b++) {
        const uint64_t want = ref->fired_start[b + 1] - ref->fired_start[b];
        if (fired[b] != want)
            return xpb_fail(err, XPB_ERR_RUNTIME,
                            "burst: a timed run fired %u neurons in burst %lld where the validated run fired %llu: "
                            "the timed runs did not repeat the validated run",
                            fired[b], (long long)b, (unsigned long long)want);
    }
    return XPB_OK;
}
