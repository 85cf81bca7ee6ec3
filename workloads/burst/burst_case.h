/* burst_case.h - the burst workload's parts that meet the harness: a case's network parameters
 * and its host data (workload.c), the run through a backend's ops (run.c), the per-op checks
 * (checks.c) and the dump (dump.c). */
#ifndef XPB_BURST_CASE_H
#define XPB_BURST_CASE_H

#include "burst.h"
#include "xpb_validate.h"
#include "xpb_workload.h"

/* Past bursts * neurons of this, the reference keeps only the final v (not v after every burst),
 * so the whole-run check compares every burst's fired set and the final state. */
#define BURST_TRACE_MAX 50000000.0

/* What make_data keeps for a case (xpb_case_data.host): the network and the reference run of
 * `bursts` bursts, shared by the cases that hold it (workload.c: holders counts them). Read-only
 * once made. */
typedef struct burst_host {
    burst_network net;
    burst_run ref;
    int64_t bursts;
    int holders;
} burst_host;

/* The generator's parameters of case c (neurons, fanout, hubs; the rest at their defaults). */
burst_params burst_case_params(const xpb_case *c);

/* What a run did, kept by the workload: published into the outcome's report (run.c), and held as
 * the outcome's state by the validated run (for the dump; freed by burst_outcome_free).
 * Per-burst time and events/s derive from the timed runs (xpb_run_report_derive). */
typedef struct burst_outcome {
    int64_t neurons;
    uint64_t synapses;
    bool batched;            /* one submission for all bursts, else one per burst         */
    uint64_t events, fired;  /* summed over the run                                       */
    uint32_t *fired_per_burst, *events_per_burst; /* one per burst                        */
    char checked[160];       /* what the whole-run check compared                         */
    /* the validated run's own output, for the dump (NULL otherwise): fired ids of burst b at
     * fired_ids[fired_start[b] .. fired_start[b + 1]) (per-burst runs; a batched run has only
     * the last burst's, at [0, fired_start[1])), final v */
    uint64_t *fired_start;
    uint32_t *fired_ids;
    float *final_v;
} burst_outcome;
void burst_outcome_free(void *outcome);

/* xpb_workload_i.run of the burst workload. */
xpb_status burst_run_case(const xpb_case *c, const xpb_case_data *d, xpb_session *s, int inject, xpb_validation *v,
                          xpb_run_outcome *out, xpb_error *err);

/* xpb_workload_i.dump_run (dump.c): the network, its parameters and the run's fired sets and final
 * v as .npy files with a JSON sidecar that says how to replay it (docs/workloads.md section 4). */
xpb_status burst_dump_run(const char *dir, const char *stem, const xpb_case *c, const xpb_case_data *d,
                          const xpb_run_outcome *o, const xpb_run_origin *origin, xpb_error *err);

/* ---- per-op checks (checks.c): exact oracles, on the state read back around one burst ---------- */

/* A timed run's fired count in every burst (bursts of them) against the reference's: XPB_OK, or
 * XPB_ERR_RUNTIME naming the first burst that differs (a timed run that did other work than the
 * validated one). */
xpb_status burst_check_timed_run(const burst_run *ref, const uint32_t *fired, int64_t bursts, xpb_error *err);

typedef struct burst_checks {
    xpb_validation *v;
    char first_fail[320];
} burst_checks;

/* propagate: input_after = input_before + the signed weight * psp of every synapse of fired[0..nf). */
void burst_check_propagate(burst_checks *k, const burst_network *net, uint32_t b, const uint32_t *fired, uint32_t nf,
                           const int32_t *input_before, const int32_t *input_after);
/* dynamics: from the state before (v, countdown, count) and the input, burst_dynamics_neuron for
 * every neuron gives the state after and the fired flags; input is zero after. */
void burst_check_dynamics(burst_checks *k, const burst_network *net, uint32_t b, const int32_t *input,
                          const burst_state *before, const burst_state *after, const uint32_t *flag,
                          const int32_t *input_after);
/* compact: fired = the flagged ids ascending, degree_scan their row lengths' prefix sums, and the
 * counters {count, dispatch, events}. */
void burst_check_compact(burst_checks *k, const burst_network *net, const uint32_t *flag, const uint32_t *fired,
                         const uint32_t *degree_scan, const xpb_burst_counters *counters);

#endif
