/* burst.h - burst propagation (docs/workloads.md section 4): the network and its deterministic
 * generator (network.c), the neuron state, and the serial reference of one burst and of a run of
 * B bursts that every backend's run must match bit for bit (reference.c, compiled with
 * -ffp-contract=off).
 *
 * Status (issue 8): the generator and the reference exist and are unit-tested
 * (tests/unit/test_burst_reference.c); the workload's cases, its run through a backend and the backend
 * ops do not exist yet. The ops proposed for them:
 *
 * Proposal: three ops per backend (draft argument structs in burst_ops_draft.h, for
 * workloads/ops/xpb_ops.h), plus XPB_OP_BURST_RUN as the case's op (a whole run, no kernel of its own,
 * like XPB_OP_ANNEAL_COMPRESS). Network and state stay on the device for the whole run; a burst b
 * is   propagate(fired list of b-1) -> dynamics(b) -> compact,   and only the 32-byte counters
 * (fired count, events) cross the bus per burst (the fired lists too when validating).
 *  - propagate: input[t] += (inhibitory[s] ? -1 : 1) * weight * psp for each synapse of each
 *    fired s, as int32 atomics (integer sums: any order gives the same input). Load-balanced by
 *    events, not by sources: compact leaves the exclusive scan of the fired sources' out-degrees
 *    (degree_scan) and their total (events); each workgroup takes an equal slice of [0, events),
 *    finds its first source by binary search in degree_scan (merge-path) and walks the rows from
 *    there, so a hub row (100x the fan-out) is spread over many workgroups instead of stalling
 *    one warp. Grid: counters.dispatch (written by compact: an indirect dispatch in Vulkan, so
 *    many bursts can be recorded into one command buffer; CUDA reads the count on the device in
 *    a graph or a persistent kernel), capped at the device's limit, workgroups striding beyond.
 *  - dynamics: stimulus and the neuron update of burst b, fused: per neuron, input + (stimulus ?
 *    S : 0), steps a-g exactly as burst_reference_step, the fp32 steps uncontracted (CUDA
 *    __fmul_rn/__fadd_rn, GLSL precise); writes fired_flag[i] (uint32 0/1) and sets input[i] = 0
 *    after reading it, so the next propagate starts from zeros without a clearing pass.
 *  - compact: fired_flag -> the fired ids ascending (a stable scan, so the list read back is the
 *    burst's fired set as the contract outputs it; no atomics append), their degree scan, and the
 *    counters {fired, dispatch[3], events}.
 * Per-op validation then has exact oracles: propagate's input against the int32 sums on the
 * host, dynamics' state against burst_dynamics_neuron, compact's list against the flags. */
#ifndef XPB_BURST_H
#define XPB_BURST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "burst_hash.h"
#include "xpb_status.h"

/* ---- the contract's pinned constants --------------------------------------------------------- */

/* scale: the fp32 nearest to 1/65025 (1/65025 = 0x1.0203040506071p-16 in double). */
#define BURST_SCALE 0x1.020304p-16f
/* weight * psp <= 255 * 255: one synapse's largest input. */
#define BURST_MAX_SYNAPSE_INPUT 65025
/* Hub neurons have this many times the fan-out F. */
#define BURST_HUB_FACTOR 100

/* ---- the generator's parameters ---------------------------------------------------------------- */

/* What a case carries: the network is a pure function of these (network.c), and S and p_stim are
 * the run's stimulus. burst_params_default fills every field; a case may override any. */
typedef struct burst_params {
    int64_t n;          /* neurons, >= 1                                                   */
    int64_t fanout;     /* F: outgoing synapses of every neuron but the hubs, >= 0         */
    int64_t hubs;       /* neurons with BURST_HUB_FACTOR * F synapses (0: none), <= n      */
    double inhibitory;  /* fraction of inhibitory neurons, [0, 1] (default 0.2)            */
    double rate;        /* the target fired fraction the defaults aim at (default 0.01)    */
    uint64_t seed;
    int32_t stim;       /* S: stimulus input units, >= 0                                   */
    double p_stim;      /* stimulus probability, [0, 1)                                    */
} burst_params;

/* The defaults for n neurons of fan-out F: no hubs, 20% inhibitory, 1% target rate, seed 1, and
 * S and p_stim from burst_stimulus_default. */
burst_params burst_params_default(int64_t n, int64_t fanout);
/* S and p_stim that give about `rate` fired per burst (network.c says what was measured). */
void burst_stimulus_default(double rate, int32_t *stim, double *p_stim);
/* floor(p_stim * 2^32): the stimulus floor (p_stim in [0, 1)). */
uint32_t burst_stimulus_floor(double p_stim);
/* The case-id part of p: "neurons=N,fanout=F", then each other field that differs from
 * burst_params_default(N, F) ("hubs=4,seed=7,..."). Returns snprintf's count. */
int burst_params_format(const burst_params *p, char *buf, size_t len);

/* ---- the network -------------------------------------------------------------------------------- */

/* Synapses by source (CSR): row i is synapses [row(i), row(i + 1)). Offsets are uint32 while the
 * synapse count fits (offsets32), else uint64 (offsets64); the other pointer is NULL. The synapse
 * type is its source's (inhibitory[s]). Per-neuron float parameters are exact multiples of 2^-10
 * (so they are the same on every platform), integer ones small. */
typedef struct burst_network {
    burst_params params;       /* as built                                           */
    int64_t n;
    uint64_t synapses;
    uint32_t *offsets32;       /* n + 1, or NULL                                     */
    uint64_t *offsets64;       /* n + 1, or NULL                                     */
    uint32_t *targets;         /* synapses: target neuron ids (never the source)     */
    uint8_t *weight, *psp;     /* synapses, each in [1, 255]                         */
    uint8_t *inhibitory;       /* n: 1 inhibitory, 0 excitatory                      */
    float *threshold;          /* n: > 0                                             */
    float *threshold_limit;    /* n: 0 = none, else >= threshold                     */
    float *leak;               /* n: [0, 1)                                          */
    float *excitability;       /* n: [0, 1]                                          */
    uint32_t *refractory;      /* n: bursts without integration after a fire         */
    uint32_t *fire_limit;      /* n: consecutive-fire limit, 0 = none                */
    uint32_t *snooze;          /* n: extra refractory bursts once the limit is hit   */
    /* the run's constants */
    int32_t stim;              /* S                                                  */
    double p_stim;
    uint32_t stim_floor;       /* floor(p_stim * 2^32)                               */
    float scale;               /* BURST_SCALE                                        */
    int64_t max_fanin;         /* synapses into the most-targeted neuron             */
} burst_network;

static inline uint64_t burst_row(const burst_network *net, int64_t i)
{
    return net->offsets32 ? net->offsets32[i] : net->offsets64[i];
}

/* XPB_OK when 1 <= n < 2^32 (neuron ids are uint32), else XPB_ERR_USAGE with a one-line message. */
xpb_status burst_check_neurons(int64_t n, xpb_error *err);

/* Generates the network of p (network.c): the same bytes for the same p on every platform.
 * Checks the sizes first (n >= 1, F >= 0, hubs <= n, no self-loop possible, counts that overflow
 * nothing) and, after building, that max fan-in * 65025 + S < 2^31. XPB_ERR_USAGE with a one-line
 * message for what cannot be built, XPB_ERR_OUT_OF_MEMORY; *net is then empty. Free with
 * burst_network_free. */
xpb_status burst_network_build(const burst_params *p, burst_network *net, xpb_error *err);
/* Allocates an n-neuron network with `synapses` synapses, every array zeroed and params.n = n,
 * stim and scale unset: for hand-built networks (tests) and for the generator. XPB_ERR_USAGE or
 * XPB_ERR_OUT_OF_MEMORY as burst_network_build. */
xpb_status burst_network_alloc(burst_network *net, int64_t n, uint64_t synapses, xpb_error *err);
/* Sets the offsets' entry i (uint32 or uint64 as allocated). */
void burst_network_set_row(burst_network *net, int64_t i, uint64_t offset);
/* Sets S and p_stim (and the floor and scale): both built and hand-built networks end with it. */
void burst_network_set_stimulus(burst_network *net, int32_t stim, double p_stim);
/* max fan-in * 65025 + S < 2^31, computing max_fanin; XPB_ERR_USAGE naming the numbers if not. */
xpb_status burst_network_check_fanin(burst_network *net, xpb_error *err);
void burst_network_free(burst_network *net);

/* ---- the state and the reference ------------------------------------------------------------- */

/* The state of every neuron. Before burst 0: all zero, and the fired set is empty. */
typedef struct burst_state {
    int64_t n;
    float *v;           /* membrane potential      */
    uint32_t *countdown; /* refractory countdown    */
    uint32_t *count;     /* consecutive-fire count  */
} burst_state;

/* Allocates the zero state of n neurons. XPB_ERR_OUT_OF_MEMORY. */
xpb_status burst_state_init(burst_state *s, int64_t n, xpb_error *err);
void burst_state_free(burst_state *s);

/* Step 3 for neuron i in burst b with its summed input (propagation + stimulus): updates v,
 * countdown and count, and returns whether it fires. The contract's steps a-g, fp32 uncontracted. */
bool burst_dynamics_neuron(const burst_network *net, burst_state *s, uint32_t i, uint32_t b, int32_t input);

/* One burst b (steps 1-4), with the serial meaning (its neurons taken in parallel where that
 * changes no bit: reference.c): prev[0..nprev) is burst b-1's fired set; writes burst b's
 * ascending into fired (room for n) and returns its size. input: n int32 of scratch. *events, if
 * not NULL, gets the synaptic events of the propagation (the out-degree sum of prev). */
int64_t burst_reference_step(const burst_network *net, burst_state *s, uint32_t b, const uint32_t *prev,
                             int64_t nprev, int32_t *input, uint32_t *fired, uint64_t *events);

/* A run: each burst's fired set, the events, and the final state. */
typedef struct burst_run {
    int64_t n, bursts;
    uint64_t *fired_start;   /* bursts + 1: burst b fired fired[fired_start[b] .. fired_start[b+1]) */
    uint32_t *fired;         /* ascending within each burst                                         */
    uint64_t *events;        /* bursts: synaptic events propagated in burst b                       */
    float *v;                /* n: v after the last burst                                           */
    uint32_t *countdown, *count; /* n each: after the last burst                                    */
    float *v_trace;          /* bursts x n: v after each burst, or NULL (kept on request)           */
} burst_run;

/* Runs bursts 0 .. bursts-1 from the zero state (bursts >= 0; bursts < 2^32). keep_v: also record
 * v after every burst (bursts x n floats). XPB_ERR_USAGE, XPB_ERR_OUT_OF_MEMORY; *out is then
 * empty. Free with burst_run_free. */
xpb_status burst_reference_run(const burst_network *net, int64_t bursts, bool keep_v, burst_run *out,
                               xpb_error *err);
void burst_run_free(burst_run *r);
/* The fired fraction over the run: sum of fired set sizes / (n * bursts); 0 for no bursts. */
double burst_run_rate(const burst_run *r);

/* ---- comparing runs ---------------------------------------------------------------------------- */

#define BURST_DIFF_LIST 16

/* The first burst where two runs differ, and the neurons that differ there (ascending, the first
 * BURST_DIFF_LIST listed). A neuron differs when it is in one fired set and not the other, or
 * when its v differs bit for bit (v after that burst when both runs kept v_trace; the final v
 * otherwise, reported at the last burst when every fired set matched). */
typedef struct burst_difference {
    int64_t burst;        /* -1: the runs are equal (fired sets, v, countdown, count)    */
    int64_t neurons;      /* how many differ in that burst                               */
    int listed;
    struct burst_diff_neuron {
        uint32_t id;
        bool fired_a, fired_b;
        float v_a, v_b;   /* that burst's v where traced, else the final v               */
        bool traced;      /* v_before is known (both runs traced v, burst > 0)            */
        float v_before;   /* a's v before that burst: the state the burst started from   */
    } list[BURST_DIFF_LIST];
    bool final_state;     /* found only in the final v, countdown or count                */
} burst_difference;

/* Compares a (the reference) with b. The runs must have the same n and bursts (else the
 * difference is reported at burst 0 with neurons = -1). Returns true when they are equal. */
bool burst_first_difference(const burst_run *a, const burst_run *b, burst_difference *d);
/* One line for a validation message: "burst 7: 3 neurons differ: 12 (fired 1 vs 0, v 0x... vs
 * 0x...), ...". Returns snprintf's count. */
int burst_difference_format(const burst_difference *d, char *buf, size_t len);

#endif
