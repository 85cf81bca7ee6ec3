/* test_burst_shard.c - the sharded burst's plan (backends/cuda/burst/burst_shard.cu and
 * burst_sharded.cu; docs/multi-gpu.md) played out on the host against the serial reference, so
 * the design is checked where CI runs (no GPU): each rank of P keeps the synapses that target its
 * neurons [r n / P, (r+1) n / P) (xpb_burst_shard_first), propagates the whole fired list through
 * them, updates its own neurons, sets their bits in its slot (XPB_BURST_SHARD_WORDS words), and
 * every rank compacts the gathered slots into the fired list with the bit-position-to-neuron map
 * of the CUDA compact (slot r, bit k -> first(r) + k), counting the events of the whole network
 * from its own rows and its own from its shard. Every burst's fired set, events and the final
 * state must equal burst_reference_run's, for P = 1..7 (more ranks than neurons included), and no
 * rank may add into another's neuron. The CUDA kernels themselves are proven on the device (the
 * shardburst phase of scripts/device-run.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "burst/burst.h"
#include "xpb_ops.h"
#include "xpb_test.h"

typedef struct shard {
    int64_t lo, hi;
    uint64_t *rows; /* n + 1: the shard's CSR by source */
    uint32_t *targets;
    int32_t *value; /* signed weight * psp of each synapse, as propagate adds it */
} shard;

static void build_shard(const burst_network *net, int r, int p, shard *s)
{
    const int64_t n = net->n;
    s->lo = xpb_burst_shard_first(r, p, n);
    s->hi = xpb_burst_shard_first(r + 1, p, n);
    s->rows = calloc((size_t)n + 1, sizeof *s->rows);
    s->targets = malloc((net->synapses ? net->synapses : 1) * sizeof *s->targets);
    s->value = malloc((net->synapses ? net->synapses : 1) * sizeof *s->value);
    uint64_t k = 0;
    for (int64_t src = 0; src < n; src++) {
        s->rows[src] = k;
        for (uint64_t e = burst_row(net, src); e < burst_row(net, src + 1); e++) {
            const uint32_t t = net->targets[e];
            if ((uint32_t)(t - (uint32_t)s->lo) < (uint32_t)(s->hi - s->lo)) { /* the kernel's test */
                const int32_t x = (int32_t)net->weight[e] * (int32_t)net->psp[e];
                s->targets[k] = t;
                s->value[k++] = net->inhibitory[src] ? -x : x;
            }
        }
    }
    s->rows[n] = k;
}

static void free_shard(shard *s)
{
    free(s->rows), free(s->targets), free(s->value);
}

/* One case: n neurons of fan-out f (hubs h) over p ranks, `bursts` bursts. */
static void check_case(int64_t n, int64_t f, int64_t h, int p, int64_t bursts)
{
    xpb_error err = {{0}};
    burst_params prm = burst_params_default(n, f);
    prm.hubs = h;
    burst_network net;
    CHECK(burst_network_build(&prm, &net, &err) == XPB_OK);
    burst_run ref;
    CHECK(burst_reference_run(&net, bursts, false, &ref, &err) == XPB_OK);

    shard *sh = calloc((size_t)p, sizeof *sh);
    uint64_t total = 0;
    for (int r = 0; r < p; r++) {
        build_shard(&net, r, p, &sh[r]);
        total += sh[r].rows[n];
    }
    CHECK(total == net.synapses); /* every synapse in exactly one shard */

    const size_t words = XPB_BURST_SHARD_WORDS(n, p), slot_bits = words * 32;
    CHECK(slot_bits >= (size_t)(sh[0].hi - sh[0].lo)); /* the largest range fits a slot */
    uint32_t *bits = calloc((size_t)p * words, 4), *fired = malloc((size_t)n * 4), *prev = malloc((size_t)n * 4);
    int32_t *input = calloc((size_t)n, 4);
    burst_state st;
    CHECK(burst_state_init(&st, n, &err) == XPB_OK);
    int64_t nprev = 0;
    bool same = true;
    for (int64_t b = 0; b < bursts && same; b++) {
        uint64_t own_events_sum = 0;
        for (int r = 0; r < p; r++) { /* propagate: the whole list through rank r's shard */
            for (int64_t k = 0; k < nprev; k++)
                for (uint64_t e = sh[r].rows[prev[k]]; e < sh[r].rows[prev[k] + 1]; e++) {
                    CHECK(sh[r].targets[e] >= sh[r].lo && sh[r].targets[e] < sh[r].hi);
                    input[sh[r].targets[e]] += sh[r].value[e];
                    own_events_sum++;
                }
        }
        memset(bits, 0, (size_t)p * words * 4);
        for (int r = 0; r < p; r++) /* dynamics on the own neurons, their bits in slot r */
            for (int64_t i = sh[r].lo; i < sh[r].hi; i++) {
                const int32_t in = input[i] + (burst_stimulus_draw((uint32_t)i, (uint32_t)b) < net.stim_floor ? net.stim : 0);
                const bool fire = burst_dynamics_neuron(&net, &st, (uint32_t)i, (uint32_t)b, in);
                input[i] = 0;
                const size_t k = (size_t)(i - sh[r].lo);
                bits[(size_t)r * words + k / 32] |= (uint32_t)fire << (k % 32);
            }
        /* compact of the gathered bits, the position -> neuron map of the CUDA compact */
        int64_t count = 0;
        uint64_t events = 0;
        for (size_t pos = 0; pos < (size_t)p * slot_bits; pos++) {
            if (!(bits[pos / 32] >> (pos % 32) & 1u))
                continue;
            const size_t r = pos / slot_bits;
            const uint32_t id = (uint32_t)((uint64_t)r * (uint64_t)n / (uint64_t)p + (pos - r * slot_bits));
            CHECK(id < (uint64_t)n && (int64_t)id >= sh[r].lo && (int64_t)id < sh[r].hi);
            fired[count++] = id;
            events += burst_row(&net, id + 1) - burst_row(&net, id); /* the whole network's rows */
        }
        const uint64_t r0 = ref.fired_start[b], r1 = ref.fired_start[b + 1];
        same = (uint64_t)count == r1 - r0 && memcmp(fired, ref.fired + r0, (size_t)count * 4) == 0;
        /* the events this burst propagated are the previous burst's list's rows, summed over the shards */
        same = same && own_events_sum == ref.events[b];
        /* the counters' events of the list (the whole network's rows) are what burst b + 1 propagates */
        same = same && (b + 1 >= bursts || events == ref.events[b + 1]);
        memcpy(prev, fired, (size_t)count * 4);
        nprev = count;
        if (!same)
            fprintf(stderr, "n=%lld f=%lld hubs=%lld P=%d: burst %lld differs (fired %lld vs %llu)\n", (long long)n,
                    (long long)f, (long long)h, p, (long long)b, (long long)count, (unsigned long long)(r1 - r0));
    }
    CHECK(same);
    CHECK(memcmp(st.v, ref.v, (size_t)n * 4) == 0);
    CHECK(memcmp(st.countdown, ref.countdown, (size_t)n * 4) == 0);
    CHECK(memcmp(st.count, ref.count, (size_t)n * 4) == 0);
    for (int r = 0; r < p; r++)
        free_shard(&sh[r]);
    free(sh), free(bits), free(fired), free(prev), free(input);
    burst_state_free(&st);
    burst_run_free(&ref);
    burst_network_free(&net);
}

int main(void)
{
    /* the slot layout: every rank's range fits its slot, words a multiple of 32 bits */
    for (int64_t n = 1; n < 300; n += 7)
        for (int p = 1; p <= 9; p++) {
            size_t w = XPB_BURST_SHARD_WORDS(n, p);
            for (int r = 0; r < p; r++)
                CHECK(xpb_burst_shard_first(r + 1, p, n) - xpb_burst_shard_first(r, p, n) <= (int64_t)w * 32);
            CHECK(xpb_burst_shard_first(0, p, n) == 0 && xpb_burst_shard_first(p, p, n) == n);
            CHECK(XPB_BURST_SHARD_BITS_BYTES(n, p) == (size_t)p * w * 4);
        }
    /* the conformance preset's networks (workloads/burst/workload.c) on 1..7 ranks, and a larger one */
    static const int64_t cases[][4] = {{1, 0, 0, 20}, {3, 2, 0, 20}, {255, 7, 0, 30}, {257, 16, 2, 30},
                                       {4097, 33, 4, 25}, {20000, 50, 3, 12}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int p = 1; p <= 7; p++)
            check_case(cases[c][0], cases[c][1], cases[c][2], p, cases[c][3]);
    XPB_TEST_END();
}
