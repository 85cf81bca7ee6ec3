/* burst_propagate.c - burst propagate on the CPU (xpb_ops.h): each fired source adds its
 * synapses' signed weight * psp to its targets' int32 input. Sources are split over the team by
 * events (the degree scan from compact), not by source, so a hub row does not stall one thread;
 * the adds are atomic (integer sums: any order gives the same input). */
#include "cpu_burst.h"

/* The k with scan[k] <= j < scan[k + 1] (scan ascending, scan[0] = 0 <= j < scan[count]). */
static uint32_t source_of(const uint32_t *scan, uint32_t count, uint32_t j)
{
    uint32_t lo = 0, hi = count; /* scan[lo] <= j < scan[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (scan[mid] <= j)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

void xpb_cpu_burst_propagate(const xpb_cpu_burst *k, uint32_t b)
{
    const uint32_t fired = k->counters[b].fired, events = k->counters[b].events;
    if (fired == 0 || events == 0)
        return;
    const int64_t chunk = 4096;
    const int64_t chunks = ((int64_t)events + chunk - 1) / chunk;
#pragma omp parallel for schedule(dynamic, 1) if (events >= XPB_CPU_PARALLEL_MIN)
    for (int64_t c = 0; c < chunks; c++) {
        uint32_t j = (uint32_t)(c * chunk), end = (uint32_t)((c + 1) * chunk < events ? (c + 1) * chunk : events);
        uint32_t src = source_of(k->degree_scan, fired, j);
        while (j < end) { /* walk rows from the chunk's first event */
            const uint32_t s = k->fired[src];
            const int32_t sign = k->inhibitory[s] ? -1 : 1;
            const uint32_t row_end = k->degree_scan[src + 1] < end ? k->degree_scan[src + 1] : end;
            const uint32_t base = k->offsets[s] - k->degree_scan[src];
            for (; j < row_end; j++) {
                const uint32_t e = base + j;
                const int32_t add = sign * (int32_t)k->weight[e] * (int32_t)k->psp[e];
#pragma omp atomic
                k->input[k->targets[e]] += add;
            }
            src++;
        }
    }
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)ctx, (void)state;
    const xpb_burst_args *a = args;
    xpb_cpu_burst k;
    xpb_status st = xpb_cpu_burst_resolve(a, 0, &k, err);
    if (!st)
        xpb_cpu_burst_propagate(&k, a->burst);
    return st;
}

const xpb_kernel xpb_cpu_burst_propagate_kernel = {
    .op = XPB_OP_BURST_PROPAGATE,
    .variant = "default",
    .precision = "exact",
    .launch = launch,
};
