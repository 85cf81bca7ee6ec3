/* cpu_burst.h - what the CPU kernels of the burst ops share (burst_*.c): the args' views resolved
 * into host pointers, each checked against its buffer (workloads/ops/xpb_ops.h, "burst propagation"). */
#ifndef XPB_CPU_BURST_H
#define XPB_CPU_BURST_H

#include "cpu_internal.h"

typedef struct xpb_cpu_burst {
    const uint32_t *offsets, *targets;
    const uint8_t *weight, *psp, *inhibitory;
    const float *threshold, *threshold_limit, *leak, *excitability;
    const uint32_t *refractory, *fire_limit, *snooze;
    float *v;
    uint32_t *countdown, *count;
    int32_t *input;
    uint32_t *fired_flag, *fired, *degree_scan;
    xpb_burst_counters *counters; /* counters[0 .. burst + count] */
    uint32_t *scratch;            /* XPB_BURST_SCRATCH_BYTES(n) / 4 words */
    int64_t n;
} xpb_cpu_burst;

/* Checks the sizes (1 <= n < 2^32 - 1, synapses < 2^32, count >= 1 for batch) and resolves every
 * view; XPB_ERR_USAGE naming the first view that does not fit its buffer. */
xpb_status xpb_cpu_burst_resolve(const xpb_burst_args *a, uint32_t bursts, xpb_cpu_burst *out, xpb_error *err);

/* The three ops of one burst b (burst_propagate.c, burst_dynamics.c, burst_compact.c). */
void xpb_cpu_burst_propagate(const xpb_cpu_burst *k, uint32_t b);
void xpb_cpu_burst_dynamics(const xpb_cpu_burst *k, const xpb_burst_args *a, uint32_t b);
void xpb_cpu_burst_compact(const xpb_cpu_burst *k, uint32_t b);

#endif
