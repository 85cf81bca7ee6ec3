// burst_propagate_bits_emu.cc - a device group's rank's propagate straight from the gathered bits
// (burst_propagate_bits.cu), run on the CPU (emu.h, burst_propagate_bits_emu.sh) and compared with
// a serial propagate: input[t] += (inhibitory[s] ? -1 : 1) * weight[e] * psp[e] for every fired s
// (a set bit of any rank's slot) and every synapse e of its row. Rows of length 0, rows longer than
// a warp (a hub), empty and full firing, slots whose last word is partial; input starts at nonzero
// values (a burst's input holds what earlier terms left) and the guard words after it stay put.
// The counts too: counters[b] = {fired, dispatch, events over the whole network's rows, 0} written
// by the grid's last block, and the same from a rank's own slot then the others' (two launches) (the emulator runs the blocks in order, so it checks the sums and the
// ticket's arithmetic, not the fences), no other entry touched, the tally left zero; and burst 0
// writes no entry (it is the run's zeros).
#include "cuda_burst_emu.h"

#include <random>

struct bits_case {
    uint32_t n;
    int ranks;
    double rate;  // chance a neuron fired
    int maxdeg;   // row lengths 0 .. maxdeg
    uint32_t hub; // a row of this many synapses (neuron n / 2), 0: none
};

static const bits_case cases[] = {
    {1, 1, 1.0, 3, 0},        {37, 2, 0.5, 5, 0},      {100, 3, 0.0, 5, 0},    {1000, 4, 1.0, 7, 0},
    {4097, 4, 0.3, 40, 5000}, {70001, 2, 0.05, 9, 0}, {33000, 3, 0.9, 2, 100},
};

static int run_case(int ci)
{
    const bits_case &c = cases[ci];
    const uint32_t n = c.n;
    const int p = c.ranks;
    std::mt19937_64 rng(4321 + ci);
    std::vector<uint32_t> off(n + 1), shard_off(n + 1);
    off[0] = 0;
    for (uint32_t i = 0; i < n; i++)
        off[i + 1] = off[i] + (c.hub && i == n / 2 ? c.hub : (uint32_t)(rng() % (c.maxdeg + 1)));
    const uint32_t syn = off[n];
    // the rank's shard: a row's synapses are a prefix of the network's row (any subset would do)
    shard_off[0] = 0;
    for (uint32_t i = 0; i < n; i++)
        shard_off[i + 1] = shard_off[i] + (off[i + 1] - off[i]) * 2 / 3;
    std::vector<uint32_t> tgt(syn + 1);
    std::vector<uint8_t> w(syn + 1), psp(syn + 1), inh(n);
    for (uint32_t e = 0; e < syn; e++)
        tgt[e] = (uint32_t)(rng() % n), w[e] = (uint8_t)rng(), psp[e] = (uint8_t)rng();
    for (uint32_t i = 0; i < n; i++)
        inh[i] = (uint8_t)(rng() % 5 == 0);
    const size_t W = XPB_BURST_SHARD_WORDS(n, p), words = (size_t)p * W;
    std::vector<uint32_t> bits(words, 0);
    std::vector<int32_t> want(n);
    for (uint32_t i = 0; i < n; i++)
        want[i] = (int32_t)(rng() % 2001) - 1000;
    const std::vector<int32_t> start = want;
    uint64_t fired = 0, events = 0;
    for (int r = 0; r < p; r++) {
        const int64_t lo = xpb_burst_shard_first(r, p, n), hi = xpb_burst_shard_first(r + 1, p, n);
        for (int64_t i = lo; i < hi; i++)
            if ((double)(rng() >> 11) * 0x1.0p-53 < c.rate) {
                bits[(size_t)r * W + (size_t)(i - lo) / 32] |= 1u << ((i - lo) % 32);
                fired++;
                events += off[i + 1] - off[i];
                for (uint32_t e = shard_off[i]; e < shard_off[i + 1]; e++) {
                    const int32_t x = (int32_t)w[e] * (int32_t)psp[e];
                    want[tgt[e]] += inh[i] ? -x : x;
                }
            }
    }
    const uint32_t guard = 64;
    std::vector<int32_t> input(n + guard, (int32_t)0x5a5a5a5a);
    std::copy(start.begin(), start.end(), input.begin());
    xpb_cuda_ctx ctx = {};
    ctx.sm_count = 2, ctx.max_threads_per_sm = 2048, ctx.max_grid_x = 2147483647;
    xpb_burst_dev d;
    memset(&d, 0, sizeof d);
    d.offsets = shard_off.data(), d.targets = tgt.data(), d.weight = w.data(), d.psp = psp.data();
    d.inhibitory = inh.data(), d.input = input.data(), d.n = n;
    const uint32_t burst = 1 + (uint32_t)ci % 3, entries = 5, poison = 0xA5A5A5A5u;
    std::vector<uint32_t> counters((size_t)entries * XPB_BURST_COUNTER_WORDS, poison);
    std::vector<unsigned char> scratch(XPB_BURST_BASE_BYTES, 0x5a);
    std::fill_n(xpb_burst_tally(scratch.data()), XPB_BURST_TALLY_WORDS, 0u); // as burst/shard leaves it
    d.counters = counters.data(), d.scratch = scratch.data();
    xpb_error err = {};
    // burst 0 first (no entry written: every word stays poisoned), then the case's burst, then
    // the case's burst again in two parts, a rank's own slot and then the others' (the overlap of
    // burst_sharded.cu): the same terms and the same entry, the tally left zero
    for (int launch = 0; launch < 2 + 2 * p; launch++) { // ALL, ALL, then OWN and OTHERS of every rank
        const int own = launch < 2 ? 0 : (launch - 2) / 2;
        const xpb_propbits_part part = launch < 2 ? XPB_PROPBITS_ALL : launch % 2 == 0 ? XPB_PROPBITS_OWN : XPB_PROPBITS_OTHERS;
        if (xpb_burst_propagate_bits_part_enqueue(&ctx, ctx.stream, &d, bits.data(), p, own, part, off.data(), NULL,
                                                  launch == 0 ? 0u : burst, &err) != XPB_OK) {
            printf("case %d: %s\n", ci, err.msg);
            return 1;
        }
        if (part == XPB_PROPBITS_OWN && xpb_burst_tally(scratch.data())[2] != 0) { // counts wait, no ticket
            printf("case %d: OWN took a ticket\n", ci);
            return 1;
        }
    }
    int bad = 0;
    for (uint32_t i = 0; i < n; i++) // 2 + p passes added: the terms 2 + p times over the start
        want[i] += (1 + p) * (want[i] - start[i]);
    uint32_t groups = (uint32_t)((events + XPB_BURST_EVENTS_PER_GROUP - 1) / XPB_BURST_EVENTS_PER_GROUP);
    groups = groups < 1 ? 1 : groups > XPB_BURST_MAX_GROUPS ? XPB_BURST_MAX_GROUPS : groups;
    const uint32_t entry[XPB_BURST_COUNTER_WORDS] = {(uint32_t)fired, groups, 1, 1, (uint32_t)events, 0, 0, 0};
    for (uint32_t e = 0; e < entries; e++)
        for (int k = 0; k < XPB_BURST_COUNTER_WORDS; k++) {
            const uint32_t got = counters[(size_t)e * XPB_BURST_COUNTER_WORDS + k];
            const uint32_t exp = e == burst ? entry[k] : poison;
            if (got != exp && bad++ < 5)
                printf("  counters[%u] word %d = %u, want %u\n", e, k, got, exp);
        }
    for (int k = 0; k < XPB_BURST_TALLY_WORDS; k++)
        if (xpb_burst_tally(scratch.data())[k] != 0 && bad++ < 5)
            printf("  tally word %d left %u, want 0\n", k, xpb_burst_tally(scratch.data())[k]);
    for (uint32_t i = 0; i < n; i++)
        if (input[i] != want[i] && bad++ < 5)
            printf("  input[%u] = %d, want %d\n", i, input[i], want[i]);
    for (uint32_t i = n; i < n + guard; i++)
        if (input[i] != (int32_t)0x5a5a5a5a && bad++ < 5)
            printf("  guard word %u written: %d\n", i - n, input[i]);
    printf("case %d: n %6u ranks %d rate %.2f, %llu fired, %u synapses (hub %u): %s\n", ci, n, p, c.rate,
           (unsigned long long)fired, syn, c.hub, bad ? "DIFFERS" : "equal");
    return bad != 0;
}

int main(int argc, char **argv)
{
    return emu_cases_main(argc, argv, (int)(sizeof cases / sizeof cases[0]), run_case,
                          "FAIL: the propagate from the bits differs from the serial one",
                          "ok: the propagate from the gathered bits equals the serial one bit for bit");
}
