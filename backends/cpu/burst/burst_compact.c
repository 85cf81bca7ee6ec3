/* burst_compact.c - burst compact on the CPU (xpb_ops.h): the fired flags become the ascending
 * fired list, its degree scan and the burst's counters. Two passes over blocks of neurons: each
 * block counts its fired neurons and their out-degrees (in parallel), a serial scan of the block
 * sums gives each block its base, and each block writes its part (in parallel): the list is
 * stable, as the contract's order needs, without an atomic append. */
#include "cpu_burst.h"

#define BLOCK 65536 /* neurons per block: n / BLOCK pairs of sums fit the scratch */

void xpb_cpu_burst_compact(const xpb_cpu_burst *k, uint32_t b)
{
    const int64_t n = k->n, blocks = (n + BLOCK - 1) / BLOCK;
    uint32_t *sums = k->scratch; /* per block: fired, then events; then their bases */
#pragma omp parallel for schedule(static) if (n >= XPB_CPU_PARALLEL_MIN)
    for (int64_t blk = 0; blk < blocks; blk++) {
        uint32_t fired = 0, events = 0;
        const int64_t end = (blk + 1) * BLOCK < n ? (blk + 1) * BLOCK : n;
        for (int64_t i = blk * BLOCK; i < end; i++)
            if (k->fired_flag[i]) {
                fired++;
                events += k->offsets[i + 1] - k->offsets[i];
            }
        sums[2 * blk] = fired, sums[2 * blk + 1] = events;
    }
    uint32_t fired = 0, events = 0;
    for (int64_t blk = 0; blk < blocks; blk++) { /* exclusive scan, in place */
        uint32_t f = sums[2 * blk], e = sums[2 * blk + 1];
        sums[2 * blk] = fired, sums[2 * blk + 1] = events;
        fired += f, events += e;
    }
#pragma omp parallel for schedule(static) if (n >= XPB_CPU_PARALLEL_MIN)
    for (int64_t blk = 0; blk < blocks; blk++) {
        uint32_t at = sums[2 * blk], deg = sums[2 * blk + 1];
        const int64_t end = (blk + 1) * BLOCK < n ? (blk + 1) * BLOCK : n;
        for (int64_t i = blk * BLOCK; i < end; i++)
            if (k->fired_flag[i]) {
                k->fired[at] = (uint32_t)i;
                k->degree_scan[at++] = deg;
                deg += k->offsets[i + 1] - k->offsets[i];
            }
    }
    k->degree_scan[fired] = events;
    uint64_t groups = ((uint64_t)events + XPB_BURST_EVENTS_PER_GROUP - 1) / XPB_BURST_EVENTS_PER_GROUP;
    groups = groups < 1 ? 1 : groups > XPB_BURST_MAX_GROUPS ? XPB_BURST_MAX_GROUPS : groups;
    k->counters[b + 1] = (xpb_burst_counters){fired, {(uint32_t)groups, 1, 1}, events, {0, 0, 0}};
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)ctx, (void)state;
    const xpb_burst_args *a = args;
    xpb_cpu_burst k;
    xpb_status st = xpb_cpu_burst_resolve(a, 1, &k, err);
    if (!st)
        xpb_cpu_burst_compact(&k, a->burst);
    return st;
}

const xpb_kernel xpb_cpu_burst_compact_kernel = {
    .op = XPB_OP_BURST_COMPACT,
    .variant = "default",
    .precision = "exact",
    .launch = launch,
};
