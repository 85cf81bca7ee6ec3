// burst_compact_emu.cc - a device group's rank's compact of the gathered fired bits, the two-pass
// kernels (burst_compact.cu) and the single-pass look-back one (burst_compact_lookback.cu), run on
// the CPU (emu.h, burst_compact_emu.sh) and compared with a serial compaction: fired[0..count),
// degree_scan[0..count], counters[b + 1]. Blocks run one after the other, so every earlier tile
// has its inclusive prefix when a tile looks back; the hook after each block turns some tiles'
// flags back to "aggregate only" (their aggregates are published) so that the look-back also walks
// over aggregates, past 32 tiles a step. What the GPU's memory model does to the flags is the
// device's conformance runs' to prove (every burst bit-exact, groups of 2 and 4, mpirun).
#include "cuda_burst_emu.h"

#include <random>

struct host_buf {
    std::vector<unsigned char> mem;
    explicit host_buf(size_t bytes) : mem(bytes + 256) {}
    template <class T> T *as() { return reinterpret_cast<T *>((reinterpret_cast<uintptr_t>(mem.data()) + 255) & ~(uintptr_t)255); }
};

struct emu_case {
    uint32_t n;
    int ranks;
    double rate;  // chance a neuron fired
    int maxdeg;   // out-degrees 0 .. maxdeg
    int agg_only; // 0: none, 1: every other tile, 2: all but every 40th tile left "aggregate only"
};

static const emu_case cases[] = {
    {1, 1, 1.0, 3, 0},          {37, 2, 0.5, 5, 0},        {100, 3, 0.0, 5, 0},
    {1000, 4, 1.0, 7, 1},       {70001, 2, 0.1, 9, 1},     {300007, 3, 0.05, 100, 2},
    {700000, 2, 0.01, 100, 2},  {300000, 4, 0.3, 3, 2},
};

static int run_case(int ci)
{
    const emu_case &c = cases[ci];
    const uint32_t n = c.n, b = 5;
    const int p = c.ranks;
    std::mt19937_64 rng(1234 + ci);
    // offsets: the whole network's rows (global) and the rank's shard (any degrees: compact only sums them)
    std::vector<uint32_t> goff(n + 1), soff(n + 1);
    goff[0] = soff[0] = 0;
    for (uint32_t i = 0; i < n; i++) {
        goff[i + 1] = goff[i] + (uint32_t)(rng() % (c.maxdeg + 1));
        soff[i + 1] = soff[i] + (uint32_t)(rng() % (c.maxdeg + 1));
    }
    const size_t W = XPB_BURST_SHARD_WORDS(n, p), words = (size_t)p * W;
    std::vector<uint32_t> bits(words, 0), want_fired;
    for (int r = 0; r < p; r++) {
        const int64_t lo = xpb_burst_shard_first(r, p, n), hi = xpb_burst_shard_first(r + 1, p, n);
        for (int64_t i = lo; i < hi; i++)
            if ((double)(rng() >> 11) * 0x1.0p-53 < c.rate) {
                bits[(size_t)r * W + (size_t)(i - lo) / 32] |= 1u << ((i - lo) % 32);
                want_fired.push_back((uint32_t)i);
            }
    }
    std::vector<uint32_t> want_ds;
    uint64_t own = 0, all = 0;
    for (uint32_t i : want_fired) {
        want_ds.push_back((uint32_t)own);
        own += soff[i + 1] - soff[i];
        all += goff[i + 1] - goff[i];
    }
    want_ds.push_back((uint32_t)own);

    host_buf fired(n * 4), ds((n + 1) * 4), counters((b + 2) * 32), scratch(XPB_BURST_SCRATCH_BYTES(n));
    xpb_cuda_ctx ctx = {};
    ctx.sm_count = 132, ctx.max_threads_per_sm = 2048, ctx.max_grid_x = 2147483647;
    xpb_burst_dev d;
    memset(&d, 0, sizeof d);
    d.offsets = soff.data(), d.fired = fired.as<uint32_t>(), d.degree_scan = ds.as<uint32_t>();
    d.counters = counters.as<uint32_t>(), d.scratch = scratch.as<unsigned char>(), d.n = n, d.events_word = 5;
    // the look-back forms: {XPB_CUDA_SHARDED_COMPACT_WORDS, XPB_CUDA_SHARDED_LOOKBACK_TILES}; every
    // words value at one tile a lane a step, and every wider step once
    static const unsigned forms[][2] = {{1, 1}, {2, 1}, {4, 1}, {8, 1}, {16, 1}, {1, 4}, {2, 8}, {4, 2}};
    const int n_forms = (int)(sizeof forms / sizeof forms[0]);
    int fails = 0;
    for (int form = 0; form <= n_forms; form++) { // 0: two-pass; then the look-back's forms[form - 1]
        const unsigned kw = form ? forms[form - 1][0] : 1u, lw = form ? forms[form - 1][1] : 1u;
        const xpb_burst_lookback lb = xpb_burst_lookback_layout(d.scratch, words, kw);
        memset(fired.as<char>(), 0xa5, n * 4), memset(ds.as<char>(), 0xa5, (n + 1) * 4);
        memset(counters.as<char>(), 0xa5, (b + 2) * 32), memset(scratch.as<char>(), 0xa5, XPB_BURST_SCRATCH_BYTES(n));
        xpb_error err = {};
        xpb_status st;
        emu_after_block = nullptr;
        if (form == 0) {
            st = xpb_burst_compact_bits_enqueue(&ctx, &d, bits.data(), p, goff.data(), nullptr, b, &err);
        } else {
            memset(lb.state, 0, lb.state_words * 4u); // what the burst's propagate does (xpb_burst_dev.clear)
            if (c.agg_only)
                emu_after_block = [&](unsigned t) {
                    if (t > 0 && (c.agg_only == 1 ? t % 2 == 1 : t % 40 != 0))
                        lb.state[1 + t] = 1; // its aggregate stays published: a look-back must add it
                };
            st = xpb_burst_compact_lookback_enqueue(&ctx, &d, bits.data(), p, goff.data(), kw, lw, nullptr, b, &err);
            emu_after_block = nullptr;
        }
        if (st != XPB_OK) {
            printf("case %d form %d: %s\n", ci, form, err.msg);
            return 1;
        }
        const uint32_t *cn = counters.as<uint32_t>() + (b + 1) * 8;
        const uint32_t count = (uint32_t)want_fired.size();
        const uint32_t groups = std::max<uint32_t>(1, std::min<uint32_t>((uint32_t)((own + 1023) / 1024), 65535));
        int bad = cn[0] != count || cn[1] != groups || cn[2] != 1 || cn[3] != 1 || cn[4] != (uint32_t)all ||
                  cn[5] != (uint32_t)own || cn[6] != 0 || cn[7] != 0;
        if (bad)
            printf("  counters {%u %u %u %u %u %u}, want {%u %u 1 1 %u %u}\n", cn[0], cn[1], cn[2], cn[3], cn[4], cn[5],
                   count, groups, (uint32_t)all, (uint32_t)own);
        for (uint32_t k = 0; k <= count; k++) {
            const bool f = k < count && fired.as<uint32_t>()[k] != want_fired[k];
            if (f || ds.as<uint32_t>()[k] != want_ds[k]) {
                if (bad < 5)
                    printf("  k %u: fired %u want %u, degree_scan %u want %u\n", k, fired.as<uint32_t>()[k],
                           k < count ? want_fired[k] : 0, ds.as<uint32_t>()[k], want_ds[k]);
                bad++;
            }
        }
        printf("case %d: n %7u ranks %d rate %.2f %-9s %2u word(s) a thread (%u tiles, %u a lane a step): %u fired, "
               "%llu events: %s\n",
               ci, n, p, c.rate, form ? "look-back" : "two-pass", kw, form ? lb.tiles : 0u, lw, count,
               (unsigned long long)all, bad ? "DIFFERS" : "equal");
        fails += bad != 0;
    }
    return fails;
}

int main(int argc, char **argv)
{
    return emu_cases_main(argc, argv, (int)(sizeof cases / sizeof cases[0]), run_case,
                          "FAIL: a rank's compact differs from the serial one",
                          "ok: both compacts of the gathered bits equal the serial one bit for bit");
}
