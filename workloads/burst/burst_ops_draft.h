/* burst_ops_draft.h - DRAFT, included by nothing yet: the burst ops' argument structs as proposed
 * for harness/xpb_ops.h (issue 8; the plan in words is at the top of burst.h). When they move
 * there, the op enum gains
 *     XPB_OP_BURST_RUN,        a whole run of B bursts (the case's op; no kernel of its own)
 *     XPB_OP_BURST_PROPAGATE,  xpb_burst_propagate_args
 *     XPB_OP_BURST_DYNAMICS,   xpb_burst_dynamics_args
 *     XPB_OP_BURST_COMPACT,    xpb_burst_compact_args
 * and this file goes away.
 *
 * Layout on the device (docs/workloads.md section 4; the host side is burst_network and
 * burst_state in burst.h, uploaded once per run): CSR by source, offsets n + 1 uint32 (uint64
 * when wide_offsets: more than 2^32 - 1 synapses), targets uint32, weight and psp uint8 per
 * synapse, inhibitory uint8 per neuron; per-neuron fp32 threshold, threshold_limit, leak,
 * excitability and uint32 refractory, fire_limit, snooze; state fp32 v, uint32 countdown and
 * count. Sizes: 1 <= n < 2^32, synapses <= 2^40, max fan-in * 65025 + S < 2^31 (the generator
 * checks it), so int32 input never overflows. Every op is deterministic (integer atomics only) and
 * must not allocate device memory per launch. A burst b runs propagate, dynamics, compact; before
 * burst 0 the fired list is empty (counters zero) and input, v, countdown, count are zero. */
#ifndef XPB_BURST_OPS_DRAFT_H
#define XPB_BURST_OPS_DRAFT_H

#include <stdint.h>

#include "xpb_ops.h"

/* The per-burst counters compact writes and propagate reads (16-byte aligned, 32 bytes): the only
 * bytes read back per burst when not validating. dispatch is a VkDispatchIndirectCommand (and the
 * grid of a CUDA graph or persistent kernel): ceil(events / XPB_BURST_EVENTS_PER_GROUP)
 * workgroups, at most the device's limit (workgroups then stride), at least 1. */
#define XPB_BURST_EVENTS_PER_GROUP 1024
typedef struct xpb_burst_counters {
    uint32_t fired;       /* ids in the fired list                         */
    uint32_t dispatch[3]; /* propagate's workgroups: {x, 1, 1}             */
    uint64_t events;      /* synaptic events: the out-degree sum of the list */
    uint64_t reserved;
} xpb_burst_counters;

/* propagate: for each fired source s = fired[k], k < counters.fired, and each synapse e of its row:
 *   input[targets[e]] += (inhibitory[s] ? -1 : 1) * weight[e] * psp[e]   (int32 atomic add)
 * Load-balanced by events: degree_scan[k] = the out-degree sum of fired[0..k) (from compact);
 * workgroup g takes events [g * P, (g + 1) * P) (P = XPB_BURST_EVENTS_PER_GROUP, striding over
 * [0, events)), finds the source of its first event by binary search in degree_scan and walks
 * rows from there, so a hub row is shared by many workgroups. input must hold zeros before the
 * first burst; dynamics leaves it zeroed after each. */
typedef struct xpb_burst_propagate_args {
    xpb_view offsets, targets, weight, psp, inhibitory; /* in: the network               */
    xpb_view fired;       /* in: n uint32 (the first counters.fired used)               */
    xpb_view degree_scan; /* in: n + 1 uint64                                           */
    xpb_view counters;    /* in: xpb_burst_counters                                     */
    xpb_view input;       /* in/out: n int32                                            */
    int64_t n;
    uint64_t synapses;
    int wide_offsets;     /* offsets are uint64                                         */
} xpb_burst_propagate_args;

/* dynamics of burst b, per neuron i: in = input[i] + (burst_stimulus_draw(i, b) < stim_floor ?
 * stim : 0); then steps a-g of burst_dynamics_neuron (burst.h) exactly, the fp32 steps
 * uncontracted (CUDA __fmul_rn / __fadd_rn, GLSL precise, C -ffp-contract=off); fired_flag[i] =
 * 1 if i fired, else 0; input[i] = 0. */
typedef struct xpb_burst_dynamics_args {
    xpb_view input;                   /* in/out: n int32, zeroed                  */
    xpb_view v, countdown, count;     /* in/out: n fp32, n uint32, n uint32       */
    xpb_view threshold, threshold_limit, leak, excitability; /* in: n fp32 each  */
    xpb_view refractory, fire_limit, snooze;                 /* in: n uint32 each */
    xpb_view fired_flag;              /* out: n uint32                            */
    int64_t n;
    uint32_t burst;                   /* b                                        */
    int32_t stim;                     /* S                                        */
    uint32_t stim_floor;              /* floor(p_stim * 2^32)                     */
    float scale;                      /* BURST_SCALE                              */
} xpb_burst_dynamics_args;

/* compact: fired = the i with fired_flag[i] != 0, ascending (a stable scan over the flags, not
 * an atomic append, so the list read back is the burst's fired set in the contract's order);
 * degree_scan[k] = sum of row lengths of fired[0..k) for k <= count; counters = {count,
 * dispatch, events}. scratch: XPB_BURST_COMPACT_SCRATCH_BYTES(n), undefined on entry and exit. */
#define XPB_BURST_COMPACT_SCRATCH_BYTES(n) ((size_t)(n) / 64u * 16u + 4096u)
typedef struct xpb_burst_compact_args {
    xpb_view fired_flag;  /* in: n uint32                       */
    xpb_view offsets;     /* in: the network's row offsets      */
    xpb_view fired;       /* out: n uint32 (count used)         */
    xpb_view degree_scan; /* out: n + 1 uint64 (count + 1 used) */
    xpb_view counters;    /* out: xpb_burst_counters            */
    xpb_view scratch;
    int64_t n;
    int wide_offsets;
} xpb_burst_compact_args;

#endif
