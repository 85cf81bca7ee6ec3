/* test_burst_reference.c - the serial burst reference (workloads/burst/): a hand-built 5-neuron
 * network whose spikes and potentials are worked out by hand below, pcg_hash against known
 * values, the generator's invariants and firing rate at the quick sizes, and the run comparison
 * used by validation, and the check of a timed run's fired counts. */
#include <stdlib.h>
#include <string.h>

#include "burst/burst.h"
#include "burst/burst_case.h"
#include "xpb_sha256.h"
#include "xpb_test.h"

static void test_pcg(void)
{
    /* pcg_hash(0): state = 0 * 747796405 + 2891336453 = 0xac564b05; its top nibble is 0xa, so the
     * shift is 14: 0xac564b05 >> 14 = 0x2b159, xor the state: 0xac54fa5c; times 277803737 mod 2^32:
     * 0x07bb2ffc; word >> 22 = 0x1e; 0x07bb2ffc ^ 0x1e = 0x07bb2fe2 = 129708002. The others were
     * computed the same way (Python, arithmetic mod 2^32). */
    CHECK(burst_pcg_hash(0) == 129708002u);
    CHECK(burst_pcg_hash(1) == 2831084092u); /* state 0xd8e8c2ba, shift 17, word 0xa8bee89e */
    CHECK(burst_pcg_hash(2) == 2055130248u);
    CHECK(burst_pcg_hash(42) == 1223963391u);
    CHECK(burst_pcg_hash(123456789) == 4272394698u);
    CHECK(burst_pcg_hash(0xffffffffu) == 3861530882u);
    /* the draws with the pinned constants, mod 2^32: stimulus of (i, b) = (1, 5) hashes
     * 1 * 3266489917 + 5 * 668265263 + 374761393 = 2687610329; excitability of (3, 7) hashes
     * 3 * 2654435761 + 7 * 1597334677 = 1964780838 */
    CHECK(burst_stimulus_draw(1, 5) == burst_pcg_hash(2687610329u) && burst_stimulus_draw(1, 5) == 197143519u);
    CHECK(burst_stimulus_draw(0, 0) == 3081205344u);
    CHECK(burst_excitability_draw(3, 7) == burst_pcg_hash(1964780838u) && burst_excitability_draw(3, 7) == 2222033079u);
    /* scale: the fp32 nearest 1/65025; 65025 input units are then exactly 1.0f */
    CHECK(BURST_SCALE == (float)(1.0 / 65025.0));
    CHECK((float)65025 * BURST_SCALE == 1.0f && (float)-65025 * BURST_SCALE == -1.0f &&
          (float)195075 * BURST_SCALE == 3.0f);
    CHECK(burst_stimulus_floor(0.05) == 214748364u && burst_stimulus_floor(0) == 0);
}

/* ---- the hand-built network -------------------------------------------------------------------
 * Five neurons; every synapse has weight 255 and psp 255, so one spike is +-65025 input units =
 * +-1.0 in v exactly. Synapses: 0 -> 2, 0 -> 3, 1 -> 2, 2 -> 4, 3 -> 4 (3 is inhibitory: -1.0).
 *
 *     threshold  limit  leak  refractory  fire_limit  snooze  excitability
 *  0  0          -      0.5   1           2           2       1      pacemaker: refractory + snooze
 *  1  0          -      0.5   0           2           0       1      pacemaker: step d (no countdown)
 *  2  1          1.5    0.75  0           -           0       0.999  fires only for v in [1, 1.5]
 *  3  1          -      0.5   0           -           0       0.75   inhibitory, the pcg draw decides
 *  4  1          -      0.25  0           -           0       0      never fires
 *
 * Threshold 0 makes 0 and 1 candidates every burst (v = 0 >= 0), so their spikes show the
 * countdown and the limit alone. S = 130050 (+2.0), p_stim = 0.05: floor 214748364; of the 55
 * draws (i < 5, b < 11) three are below it: (1, 5) 197143519, (2, 8) 36019838, (4, 8) 90982386.
 * Neuron 3's excitability draws where it is a candidate, against 0.75 * 2^32 = 3221225472:
 * b1 4228007296 (no), b3 3270284003 (no), b7 2222033079 (fires), b9 1125052093 (fires). */
#define HAND_N 5
#define HAND_B 11

static void hand_network(burst_network *net, float excitability3)
{
    xpb_error err = {{0}};
    CHECK(burst_network_alloc(net, HAND_N, 5, &err) == XPB_OK);
    static const uint64_t rows[HAND_N + 1] = {0, 2, 3, 4, 5, 5};
    static const uint32_t targets[5] = {2, 3, 2, 4, 4};
    for (int i = 0; i <= HAND_N; i++)
        burst_network_set_row(net, i, rows[i]);
    for (int e = 0; e < 5; e++)
        net->targets[e] = targets[e], net->weight[e] = 255, net->psp[e] = 255;
    static const float threshold[HAND_N] = {0, 0, 1, 1, 1}, limit[HAND_N] = {0, 0, 1.5f, 0, 0},
                       leak[HAND_N] = {0.5f, 0.5f, 0.75f, 0.5f, 0.25f};
    static const uint32_t refractory[HAND_N] = {1, 0, 0, 0, 0}, fire_limit[HAND_N] = {2, 2, 0, 0, 0},
                          snooze[HAND_N] = {2, 0, 0, 0, 0};
    const float excitability[HAND_N] = {1.0f, 1.0f, 0.999f, excitability3, 0.0f};
    for (int i = 0; i < HAND_N; i++) {
        net->threshold[i] = threshold[i], net->threshold_limit[i] = limit[i], net->leak[i] = leak[i];
        net->refractory[i] = refractory[i], net->fire_limit[i] = fire_limit[i], net->snooze[i] = snooze[i];
        net->excitability[i] = excitability[i];
    }
    net->inhibitory[3] = 1;
    burst_network_set_stimulus(net, 2 * BURST_MAX_SYNAPSE_INPUT, 0.05);
    CHECK(burst_network_check_fanin(net, &err) == XPB_OK && net->max_fanin == 2);
}

/* Burst by burst ("in" = propagated input + stimulus, in units of 65025; cd = countdown):
 * b0  no input. 0 and 1: v = 0 >= 0, fire (count 1; cd: 0 gets refractory 1, 1 gets 0).
 * b1  from {0,1}: 2 gets +2, 3 gets +1. 0: cd 1 -> 0 (count 1 < limit: kept), skipped.
 *     1 fires: count 2 hits the limit, cd = 0 + snooze 0 = 0. 2: v = 2 > limit 1.5, not a
 *     candidate; leaks 2 * 0.25 = 0.5. 3: v = 1, candidate, draw 4228007296 >= 3221225472: no;
 *     leaks to 0.5.
 * b2  from {1}: 2 gets +1. 0 fires: count 2 hits, cd = 1 + 2 = 3. 1: candidate with count 2 >=
 *     2: step d, count = 0, no fire, v = 0. 2: v = 0.5 + 1 = 1.5 <= 1.5, excitability 0.999 >=
 *     0.999: fires. 3: 0.5 -> 0.25.
 * b3  from {0,2}: 2 +1, 3 +1, 4 +1. 0: cd 3 -> 2. 1 fires (count 1). 2: v = 1, fires. 3: v =
 *     1.25, draw 3270284003: no; 0.625. 4: v = 1 is a candidate but excitability 0: 0.75.
 * b4  from {1,2}: 2 +1, 4 +1. 0: cd 2 -> 1. 1 fires (count 2, cd 0). 2 fires. 3: 0.3125.
 *     4: 1.75 -> 1.3125.
 * b5  from {1,2}: 2 +1, 4 +1; stimulus: 1 gets +2. 0: cd 1 -> 0 with count 2 = limit: count
 *     reset to 0. 1: v = 2, step d (count 2): count 0, no fire, leaks to 1. 2 fires. 3: 0.15625.
 *     4: 2.3125 -> 1.734375.
 * b6  from {2}: 4 +1. 0 fires (count 1, cd 1). 1: v = 1 + 0, fires (count 1). 2: v = 0.
 *     3: 0.078125. 4: 2.734375 -> 2.05078125.
 * b7  from {0,1}: 2 +2, 3 +1. 0: cd 1 -> 0 (count 1: kept). 1 fires (count 2). 2: v = 2 above
 *     the limit: 0.5. 3: v = 1.078125, draw 2222033079 < 3221225472: fires. 4: 1.5380859375.
 * b8  from {1,3}: 2 +1, 4 -1 (inhibitory 3); stimulus: 2 and 4 get +2. 0 fires (count 2 hits,
 *     cd 3). 1: step d, v = 0. 2: v = 0.5 + 3 = 3.5 above the limit: 0.875. 3: 0.
 *     4: 1.5380859375 - 1 + 2 = 2.5380859375 -> 1.903564453125.
 * b9  from {0}: 2 +1, 3 +1. 0: cd 3 -> 2. 1 fires (count 1). 2: v = 1.875 above the limit:
 *     0.46875. 3: v = 1, draw 1125052093: fires. 4: 1.42767333984375.
 * b10 from {1,3}: 2 +1, 4 -1. 0: cd 2 -> 1. 1 fires (count 2). 2: v = 1.46875, fires.
 *     4: 0.42767333984375 -> 0.3207550048828125 (every value here is exact in fp32).
 * Final: countdown {1, 0, 0, 0, 0}; count {2, 2, 5, 2, 0} (2 has no limit: its count only grows). */
static const int hand_fired[HAND_B][HAND_N] = {
    {1, 1, 0, 0, 0}, {0, 1, 0, 0, 0}, {1, 0, 1, 0, 0}, {0, 1, 1, 0, 0}, {0, 1, 1, 0, 0}, {0, 0, 1, 0, 0},
    {1, 1, 0, 0, 0}, {0, 1, 0, 1, 0}, {1, 0, 0, 0, 0}, {0, 1, 0, 1, 0}, {0, 1, 1, 0, 0},
};
static const float hand_v[HAND_B][HAND_N] = {
    {0, 0, 0, 0, 0},
    {0, 0, 0.5f, 0.5f, 0},
    {0, 0, 0, 0.25f, 0},
    {0, 0, 0, 0.625f, 0.75f},
    {0, 0, 0, 0.3125f, 1.3125f},
    {0, 1.0f, 0, 0.15625f, 1.734375f},
    {0, 0, 0, 0.078125f, 2.05078125f},
    {0, 0, 0.5f, 0, 1.5380859375f},
    {0, 0, 0.875f, 0, 1.903564453125f},
    {0, 0, 0.46875f, 0, 1.42767333984375f},
    {0, 0, 0, 0, 0.3207550048828125f},
};
/* synaptic events in burst b: the out-degrees (2, 1, 1, 1, 0) of burst b-1's fired set */
static const uint64_t hand_events[HAND_B] = {0, 3, 1, 3, 2, 2, 1, 3, 2, 2, 2};

static void test_hand(void)
{
    burst_network net;
    hand_network(&net, 0.75f);
    xpb_error err = {{0}};
    burst_state s;
    CHECK(burst_state_init(&s, HAND_N, &err) == XPB_OK);
    int32_t input[HAND_N];
    uint32_t prev[HAND_N], cur[HAND_N];
    int64_t nprev = 0;
    for (uint32_t b = 0; b < HAND_B; b++) {
        uint64_t events = 99;
        int64_t c = burst_reference_step(&net, &s, b, prev, nprev, input, cur, &events);
        int64_t k = 0, want = 0;
        for (uint32_t i = 0; i < HAND_N; i++) {
            want += hand_fired[b][i];
            if (hand_fired[b][i] && k < c)
                CHECK(cur[k++] == i);
            CHECK(memcmp(&s.v[i], &hand_v[b][i], sizeof(float)) == 0); /* bit for bit */
        }
        CHECK(c == want && events == hand_events[b]);
        if (c != want || memcmp(s.v, hand_v[b], sizeof hand_v[b]) != 0)
            fprintf(stderr, "hand network: burst %u differs\n", b);
        memcpy(prev, cur, (size_t)c * sizeof *cur);
        nprev = c;
    }
    static const uint32_t countdown[HAND_N] = {1, 0, 0, 0, 0}, count[HAND_N] = {2, 2, 5, 2, 0};
    CHECK(memcmp(s.countdown, countdown, sizeof countdown) == 0 && memcmp(s.count, count, sizeof count) == 0);

    /* the same as a run, with v kept per burst */
    burst_run r;
    CHECK(burst_reference_run(&net, HAND_B, true, &r, &err) == XPB_OK);
    CHECK(r.fired_start[HAND_B] == 19); /* the table's ones */
    CHECK(memcmp(r.v_trace, hand_v, sizeof hand_v) == 0 && memcmp(r.v, hand_v[HAND_B - 1], sizeof hand_v[0]) == 0);
    CHECK(memcmp(r.events, hand_events, sizeof hand_events) == 0);
    CHECK(memcmp(r.countdown, countdown, sizeof countdown) == 0 && memcmp(r.count, count, sizeof count) == 0);
    CHECK_NEAR(burst_run_rate(&r), 19.0 / (HAND_N * HAND_B), 1e-15);
    burst_run_free(&r);
    burst_state_free(&s);
    burst_network_free(&net);
}

/* burst_first_difference on the hand network: neuron 3 with excitability 0 instead of 0.75 first
 * differs at b7, where the draw fired it (v 0) and now it leaks (1.078125 * 0.5 = 0.5390625). */
static void test_difference(void)
{
    burst_network a, b;
    hand_network(&a, 0.75f);
    hand_network(&b, 0.0f);
    xpb_error err = {{0}};
    burst_run ra, rb, ra2;
    CHECK(burst_reference_run(&a, HAND_B, true, &ra, &err) == XPB_OK);
    CHECK(burst_reference_run(&b, HAND_B, true, &rb, &err) == XPB_OK);
    CHECK(burst_reference_run(&a, HAND_B, false, &ra2, &err) == XPB_OK);
    burst_difference d;
    char msg[512];
    CHECK(burst_first_difference(&ra, &ra2, &d) && d.burst == -1); /* one traced, one not: fired + final v */
    CHECK(!burst_first_difference(&ra, &rb, &d));
    CHECK(d.burst == 7 && d.neurons == 1 && d.listed == 1 && d.list[0].id == 3 && !d.final_state);
    CHECK(d.list[0].fired_a && !d.list[0].fired_b && d.list[0].v_a == 0.0f && d.list[0].v_b == 0.5390625f);
    burst_difference_format(&d, msg, sizeof msg);
    printf("%s\n", msg);
    CHECK(strstr(msg, "burst 7") && strstr(msg, " 3 (fired 1 vs 0, v 0 vs 0.5390625, v before "));
    /* without the v trace: the same burst from the fired sets, v then the final one */
    free(rb.v_trace);
    rb.v_trace = NULL;
    CHECK(!burst_first_difference(&ra, &rb, &d) && d.burst == 7 && d.neurons == 1 && d.list[0].id == 3);
    /* equal fired sets, one final v one ulp off: reported at the last burst as the final state */
    ra2.v[4] = nextafterf(ra2.v[4], 10.0f);
    CHECK(!burst_first_difference(&ra, &ra2, &d));
    CHECK(d.burst == HAND_B - 1 && d.final_state && d.neurons == 1 && d.list[0].id == 4);
    burst_difference_format(&d, msg, sizeof msg);
    printf("%s\n", msg);
    burst_run_free(&ra), burst_run_free(&rb), burst_run_free(&ra2);
    burst_network_free(&a), burst_network_free(&b);
}

/* ---- the generator ------------------------------------------------------------------------------ */

static bool networks_equal(const burst_network *a, const burst_network *b)
{
    size_t n = (size_t)a->n, e = (size_t)a->synapses;
    return a->n == b->n && a->synapses == b->synapses && !!a->offsets32 == !!b->offsets32 &&
           memcmp(a->offsets32, b->offsets32, (n + 1) * sizeof(uint32_t)) == 0 &&
           memcmp(a->targets, b->targets, e * sizeof(uint32_t)) == 0 && memcmp(a->weight, b->weight, e) == 0 &&
           memcmp(a->psp, b->psp, e) == 0 && memcmp(a->inhibitory, b->inhibitory, n) == 0 &&
           memcmp(a->threshold, b->threshold, n * 4) == 0 && memcmp(a->threshold_limit, b->threshold_limit, n * 4) == 0 &&
           memcmp(a->leak, b->leak, n * 4) == 0 && memcmp(a->excitability, b->excitability, n * 4) == 0 &&
           memcmp(a->refractory, b->refractory, n * 4) == 0 && memcmp(a->fire_limit, b->fire_limit, n * 4) == 0 &&
           memcmp(a->snooze, b->snooze, n * 4) == 0 && a->stim == b->stim && a->stim_floor == b->stim_floor &&
           a->max_fanin == b->max_fanin;
}

/* The invariants of a generated network: row lengths, no self-loops, ranges, fan-in. */
static void check_network(const burst_network *net, int64_t hubs)
{
    int64_t n = net->n, f = net->params.fanout, hub_rows = 0, inhibitory = 0, max = 0;
    uint32_t *fanin = calloc((size_t)n, sizeof *fanin);
    bool ok = true;
    for (int64_t i = 0; i < n; i++) {
        uint64_t len = burst_row(net, i + 1) - burst_row(net, i);
        hub_rows += len == (uint64_t)(f * BURST_HUB_FACTOR) && f > 0;
        ok &= len == (uint64_t)f || len == (uint64_t)(f * BURST_HUB_FACTOR);
        for (uint64_t e = burst_row(net, i); e < burst_row(net, i + 1); e++) {
            ok &= net->targets[e] != (uint32_t)i && net->targets[e] < (uint32_t)n;
            ok &= net->weight[e] >= 1 && net->psp[e] >= 1;
            fanin[net->targets[e]]++;
        }
        inhibitory += net->inhibitory[i];
        ok &= net->threshold[i] >= 0.5f && net->threshold[i] < 1.0f && net->leak[i] >= 0 && net->leak[i] < 1;
        ok &= net->threshold_limit[i] == 0 || net->threshold_limit[i] >= net->threshold[i];
        ok &= net->excitability[i] >= 0 && net->excitability[i] <= 1;
    }
    for (int64_t i = 0; i < n; i++)
        max = fanin[i] > max ? fanin[i] : max;
    free(fanin);
    CHECK(ok);
    CHECK(burst_row(net, n) == net->synapses && hub_rows == (f > 0 ? hubs : 0));
    CHECK(net->synapses == (uint64_t)((n - hubs) * f + hubs * f * BURST_HUB_FACTOR));
    CHECK(max == net->max_fanin && max * BURST_MAX_SYNAPSE_INPUT + net->stim < ((int64_t)1 << 31));
    double share = (double)inhibitory / (double)n;
    printf("%lld x %lld (%lld hubs): %.1f%% inhibitory, max fan-in %lld\n", (long long)n, (long long)f,
           (long long)hubs, 100 * share, (long long)max);
    CHECK(share > 0.2 - 4 * 0.4 / sqrt((double)n) && share < 0.2 + 4 * 0.4 / sqrt((double)n)); /* 4 sigma */
}

static void test_generator(int64_t n, int64_t f)
{
    burst_params p = burst_params_default(n, f);
    burst_network a, b;
    xpb_error err = {{0}};
    CHECK(burst_network_build(&p, &a, &err) == XPB_OK);
    CHECK(burst_network_build(&p, &b, &err) == XPB_OK);
    check_network(&a, 0);
    CHECK(networks_equal(&a, &b)); /* byte for byte */
    burst_run r;
    CHECK(burst_reference_run(&a, 100, false, &r, &err) == XPB_OK);
    double rate = burst_run_rate(&r);
    printf("%lld x %lld, 100 bursts: fired fraction %.3f%%\n", (long long)n, (long long)f, 100 * rate);
    CHECK(rate >= 0.005 && rate <= 0.02);
    for (int64_t t = 50; t < 100; t += 10) { /* neither dies out nor explodes late in the run */
        uint64_t fired = r.fired_start[t + 10] - r.fired_start[t];
        CHECK(fired > 0 && fired <= (uint64_t)n * 10 / 20);
    }
    burst_run_free(&r);
    burst_network_free(&b);
    /* another seed: another network */
    p.seed = 2;
    CHECK(burst_network_build(&p, &b, &err) == XPB_OK);
    CHECK(memcmp(a.targets, b.targets, (size_t)a.synapses * sizeof *a.targets) != 0);
    burst_network_free(&b);
    /* hubs: 100x the fan-out, and every other row exactly as without them */
    p.seed = 1;
    p.hubs = 3;
    CHECK(burst_network_build(&p, &b, &err) == XPB_OK);
    check_network(&b, 3);
    int64_t same = 0;
    for (int64_t i = 0; i < n; i++) {
        uint64_t la = burst_row(&a, i + 1) - burst_row(&a, i), lb = burst_row(&b, i + 1) - burst_row(&b, i);
        same += la == lb && memcmp(a.targets + burst_row(&a, i), b.targets + burst_row(&b, i), la * 4) == 0 &&
                memcmp(a.weight + burst_row(&a, i), b.weight + burst_row(&b, i), la) == 0;
    }
    CHECK(same == n - 3);
    burst_network_free(&a);
    burst_network_free(&b);
}

static void test_bad_sizes(void)
{
    burst_network net;
    xpb_error err = {{0}};
    burst_params p = burst_params_default(0, 10);
    CHECK(burst_network_build(&p, &net, &err) == XPB_ERR_USAGE && strstr(err.msg, "neurons"));
    p = burst_params_default(1, 1); /* no self-loops: a lone neuron has no target */
    CHECK(burst_network_build(&p, &net, &err) == XPB_ERR_USAGE && strstr(err.msg, "self-loops"));
    p = burst_params_default(1, 0);
    CHECK(burst_network_build(&p, &net, &err) == XPB_OK && net.synapses == 0);
    burst_network_free(&net);
    p = burst_params_default(10, 2);
    p.hubs = 11;
    CHECK(burst_network_build(&p, &net, &err) == XPB_ERR_USAGE);
    p = burst_params_default((int64_t)1 << 32, 1);
    CHECK(burst_network_build(&p, &net, &err) == XPB_ERR_USAGE);
    p = burst_params_default(1000000, (int64_t)1 << 40); /* 2^60 synapses: refused, no overflow */
    CHECK(burst_network_build(&p, &net, &err) == XPB_ERR_USAGE && strstr(err.msg, "2^40"));
    p = burst_params_default(1000000, INT64_MAX);
    CHECK(burst_network_build(&p, &net, &err) == XPB_ERR_USAGE);
    p = burst_params_default(100, 10);
    p.p_stim = 1.0;
    CHECK(burst_network_build(&p, &net, &err) == XPB_ERR_USAGE);
    /* two neurons, 40000 synapses each, all to the other: fan-in 40000 * 65025 >= 2^31 */
    p = burst_params_default(2, 40000);
    CHECK(burst_network_build(&p, &net, &err) == XPB_ERR_USAGE && strstr(err.msg, "fan-in"));
    printf("%s\n", err.msg);
    /* the fan-in named is where the serial count stopped: the first count that breaks the bound,
     * ceil((2^31 - S) / 65025) = 33024 for S = 130050, not the 40000 a full count reaches */
    CHECK(strstr(err.msg, "a fan-in of 33024 synapses") != NULL);
    CHECK(net.targets == NULL);
}

/* The generator and the reference, bit for bit as they were computed serially (SHA-256 of every
 * array, computed before they ran in parallel): the network of a case is pinned by the contract,
 * and neither the thread count nor the order of the work may change a byte of it or of the run. */
static void put(xpb_sha256 *h, const void *p, size_t n)
{
    if (p && n)
        xpb_sha256_update(h, p, n);
}

static void test_pinned(int64_t n, int64_t f, int64_t hubs, int64_t bursts, bool trace, const char *want_net,
                        const char *want_run)
{
    burst_params p = burst_params_default(n, f);
    p.hubs = hubs;
    burst_network net;
    burst_run r;
    xpb_error err = {{0}};
    CHECK(burst_network_build(&p, &net, &err) == XPB_OK);
    CHECK(burst_reference_run(&net, bursts, trace, &r, &err) == XPB_OK);
    size_t nn = (size_t)n, e = (size_t)net.synapses;
    xpb_sha256 h;
    unsigned char d[32];
    char hex[2][65];
    xpb_sha256_init(&h);
    put(&h, net.offsets32, (nn + 1) * 4), put(&h, net.targets, e * 4), put(&h, net.weight, e), put(&h, net.psp, e);
    put(&h, net.inhibitory, nn), put(&h, net.threshold, nn * 4), put(&h, net.threshold_limit, nn * 4);
    put(&h, net.leak, nn * 4), put(&h, net.excitability, nn * 4), put(&h, net.refractory, nn * 4);
    put(&h, net.fire_limit, nn * 4), put(&h, net.snooze, nn * 4), put(&h, &net.max_fanin, 8);
    xpb_sha256_final(&h, d);
    for (int i = 0; i < 32; i++)
        snprintf(hex[0] + 2 * i, 3, "%02x", d[i]);
    xpb_sha256_init(&h);
    put(&h, r.fired_start, ((size_t)bursts + 1) * 8), put(&h, r.fired, r.fired_start[bursts] * 4);
    put(&h, r.events, (size_t)bursts * 8), put(&h, r.v, nn * 4), put(&h, r.countdown, nn * 4);
    put(&h, r.count, nn * 4), put(&h, r.v_trace, r.v_trace ? (size_t)bursts * nn * 4 : 0);
    xpb_sha256_final(&h, d);
    for (int i = 0; i < 32; i++)
        snprintf(hex[1] + 2 * i, 3, "%02x", d[i]);
    printf("%lld x %lld (%lld hubs), %lld bursts: network %.16s, run %.16s\n", (long long)n, (long long)f,
           (long long)hubs, (long long)bursts, hex[0], hex[1]);
    CHECK(strcmp(hex[0], want_net) == 0);
    CHECK(strcmp(hex[1], want_run) == 0);
    burst_run_free(&r);
    burst_network_free(&net);
}

static void test_params_format(void)
{
    char buf[256];
    burst_params p = burst_params_default(1000, 10);
    burst_params_format(&p, buf, sizeof buf);
    CHECK(strcmp(buf, "neurons=1000,fanout=10") == 0);
    p.hubs = 4, p.seed = 7, p.inhibitory = 0.1;
    burst_params_format(&p, buf, sizeof buf);
    CHECK(strcmp(buf, "neurons=1000,fanout=10,hubs=4,inhibitory=0.1,seed=7") == 0);
    CHECK(p.stim == 2 * BURST_MAX_SYNAPSE_INPUT && p.p_stim > 0 && p.p_stim < p.rate);
}

/* A timed run that fired other counts than the reference is an error naming the first burst. */
static void test_timed_run(void)
{
    uint64_t start[5] = {0, 0, 3, 7, 8};
    burst_run ref;
    memset(&ref, 0, sizeof ref);
    ref.bursts = 4, ref.fired_start = start;
    const uint32_t same[4] = {0, 3, 4, 1}, later[4] = {0, 3, 5, 1}, first[4] = {1, 3, 4, 1};
    xpb_error err = {{0}};
    CHECK(burst_check_timed_run(&ref, same, 4, &err) == XPB_OK);
    CHECK(burst_check_timed_run(&ref, later, 4, &err) == XPB_ERR_RUNTIME && strstr(err.msg, "fired 5 neurons in burst 2 ") &&
          strstr(err.msg, "validated run fired 4"));
    CHECK(burst_check_timed_run(&ref, first, 4, &err) == XPB_ERR_RUNTIME && strstr(err.msg, "in burst 0 "));
    CHECK(burst_check_timed_run(&ref, later, 2, &err) == XPB_OK); /* only the bursts the run ran */
}

int main(void)
{
    test_pcg();
    test_hand();
    test_difference();
    test_generator(1000, 10);
    test_generator(10000, 100);
    test_bad_sizes();
    test_pinned(4097, 33, 4, 25, true, "b2a0e2ad6e9ba4e00fd79181bbc61b6df9738b8f2aa9191b45c9cba23880f8a4",
                "1a8b06d9cb2d2ad257f953db6c0834333a42de04cca43cd644331487e0ff0fb6");
    test_pinned(20000, 50, 3, 12, true, "ae5dbea44c0abb359be5b4fb2d8625c09477c0b02c9a2565783c9d8e492248a2",
                "4f272915696abf083d498206cbcb2b84b726ef6d39f44eba5660dc2a504f0c69");
    test_pinned(100000, 100, 0, 40, false, "aa62300e2a7b2a531a999289a1f7709b43bae88b7273f5122c8399a13096b644",
                "2af98602aa96480eccf139243eda4a1fe31ccb7f3d83cb92cfc68772f1744986");
    test_params_format();
    test_timed_run();
    XPB_TEST_END();
}
