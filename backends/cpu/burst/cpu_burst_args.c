/* cpu_burst_args.c - size and view checks of the CPU burst kernels (cpu_burst.h). */
#include "cpu_anneal.h"
#include "cpu_burst.h"

#define ROUND4(x) (((size_t)(x) + 3u) & ~(size_t)3u)

xpb_status xpb_cpu_burst_resolve(const xpb_burst_args *a, uint32_t bursts, xpb_cpu_burst *k, xpb_error *err)
{
    memset(k, 0, sizeof *k);
    if (a->n < 1 || a->n >= (int64_t)UINT32_MAX || a->synapses >= (uint64_t)UINT32_MAX)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED,
                        "cpu: burst needs 1 <= n < 2^32 - 1 and synapses < 2^32 (n=%lld, synapses=%llu)",
                        (long long)a->n, (unsigned long long)a->synapses);
    const size_t n = (size_t)a->n, s = (size_t)a->synapses;
    const size_t ncnt = (size_t)a->burst + bursts + 1; /* counters[0 .. burst + bursts] */
    struct {
        xpb_view v;
        size_t bytes;
        const char *what;
        void **out;
    } views[] = {
        {a->offsets, (n + 1) * 4, "burst offsets", (void **)&k->offsets},
        {a->targets, s * 4, "burst targets", (void **)&k->targets},
        {a->weight, ROUND4(s), "burst weight", (void **)&k->weight},
        {a->psp, ROUND4(s), "burst psp", (void **)&k->psp},
        {a->inhibitory, ROUND4(n), "burst inhibitory", (void **)&k->inhibitory},
        {a->threshold, n * 4, "burst threshold", (void **)&k->threshold},
        {a->threshold_limit, n * 4, "burst threshold_limit", (void **)&k->threshold_limit},
        {a->leak, n * 4, "burst leak", (void **)&k->leak},
        {a->excitability, n * 4, "burst excitability", (void **)&k->excitability},
        {a->refractory, n * 4, "burst refractory", (void **)&k->refractory},
        {a->fire_limit, n * 4, "burst fire_limit", (void **)&k->fire_limit},
        {a->snooze, n * 4, "burst snooze", (void **)&k->snooze},
        {a->v, n * 4, "burst v", (void **)&k->v},
        {a->countdown, n * 4, "burst countdown", (void **)&k->countdown},
        {a->count, n * 4, "burst count", (void **)&k->count},
        {a->input, n * 4, "burst input", (void **)&k->input},
        {a->fired_flag, n * 4, "burst fired_flag", (void **)&k->fired_flag},
        {a->fired, n * 4, "burst fired", (void **)&k->fired},
        {a->degree_scan, (n + 1) * 4, "burst degree_scan", (void **)&k->degree_scan},
        {a->counters, ncnt * sizeof(xpb_burst_counters), "burst counters", (void **)&k->counters},
        {a->scratch, XPB_BURST_SCRATCH_BYTES(n), "burst scratch", (void **)&k->scratch},
    };
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) {
        xpb_status st = xpb_cpu_anneal_view(views[i].v, views[i].bytes, views[i].what, views[i].out, err);
        if (st)
            return st;
    }
    k->n = a->n;
    return XPB_OK;
}
