/* xpb_stateful.h - the outcome of one run of a stateful workload (xpb_workload_i.run): what the
 * run reached, its trajectory, its per-op time, and its two-level validation (docs/validation.md,
 * "Stateful workloads"). The runner keeps one per result (xpb_result.run) and writes it into
 * the results file ("run" object, docs/results-schema.md). */
#ifndef XPB_STATEFUL_H
#define XPB_STATEFUL_H

#include <stdbool.h>
#include <stdint.h>

#include "xpb_ops.h"

#define XPB_RUN_TEXT_LEN 768

/* One iteration of a trajectory. */
typedef struct xpb_run_step {
    double energy;
    int64_t changes;
    int64_t anchors;
    double t; /* temperature (annealing); 0 where a workload has none */
} xpb_run_step;

typedef struct xpb_run_outcome {
    bool present;        /* a stateful result                                         */
    /* what the run reached */
    int iterations;
    bool converged;
    double energy;       /* the final energy (the workload's figure of merit)         */
    double ratio;        /* compression ratio (annealing); 0 where none              */
    int64_t anchors;
    xpb_run_step *steps; /* iterations entries, malloc'd (freed with the run)         */
    /* where the time went: the breakdown runs (device timer around each launch), repeated;
     * op_seconds and the transfers are medians over them, op_launches those of one run */
    double op_seconds[XPB_OP_COUNT];
    int64_t op_launches[XPB_OP_COUNT];
    double *op_samples;  /* op's time in breakdown run i: op_samples[i * XPB_OP_COUNT + op],
                          * op_runs runs (malloc'd, freed with the run; the result's only)  */
    int op_runs;
    double *op_units;    /* one per round (xpb_runner.h): the op's median over that round's breakdown
                          * runs, op_units[round * XPB_OP_COUNT + op], op_rounds rounds (malloc'd) */
    int op_rounds;
    double h2d_s, d2h_s; /* transfers during one run (host clock), the initial upload apart */
    uint64_t h2d_bytes, d2h_bytes;
    double run_s;        /* host clock from the first op to the result read back: the run's
                          * time, without buffer set-up and the initial upload              */
    double upload_s;     /* the initial upload of the inputs                         */
    uint64_t upload_bytes;
    /* validation, level 1: each op on the run's first iteration against fp64 (in
     * xpb_result.validation: elements checked, worst err/tol); near ties are reported apart */
    bool ops_passed;
    int64_t near_ties;
    /* validation, level 2: the whole run against the reference run */
    bool run_checked;    /* false when the reference run was not computed (too large)  */
    bool run_passed;
    int ref_iterations;
    double ref_energy, ref_ratio;
    int64_t ref_anchors;
    double energy_rel_err, energy_rel_tol;
    int iteration_band;
    int parted_at;       /* first iteration whose energy or anchor count differs beyond the
                          * energy tolerance, or -1 */
    char summary[XPB_RUN_TEXT_LEN]; /* the checks in words, first failure first */
    /* the run's state, kept by the validated run only (NULL otherwise; freed with the run), for
     * the dump and the retrieval report: anchors after init (init_anchors x d floats), and the
     * final anchors (anchors x d) and assignments (one per point) */
    float *init_anchors;
    int64_t init_anchor_count;
    float *final_anchors;
    uint32_t *final_assign;
    /* retrieval on held-out queries, from the validated run's final state (annealing:
     * workloads/anneal/retrieval.c; docs/results-schema.md, run.retrieval); queries = 0: none */
    struct xpb_run_retrieval {
        int64_t queries;         /* held-out queries, one batch                               */
        int k[2];                /* top-k sizes: 10 and 20, at most the point count            */
        double recall[2];        /* mean |compressed top-k and exact top-k| / k                */
        double anchor_recall[2]; /* exact top-k points whose anchor the compressed top-k holds */
        int64_t anchors;         /* the compressed store's anchors (the search's m)            */
        bool timed;              /* latency measured (the search op validated)                 */
        bool exact_timed;        /* the exact-search baseline too (under its cap)              */
        int batches;             /* timed batches of all queries, after one warm-up            */
        /* per batch: host clock (upload + op + download + ranking) and the op's device time */
        struct xpb_run_latency {
            double median, p05, p95;
        } compressed, compressed_op, exact, exact_op;
        char note[256];          /* what was not measured, and why                             */
    } retrieval;
    /* burst propagation (workloads/burst/run.c; docs/results-schema.md, run.burst): the run's
     * spikes; iterations = bursts. Per-burst time and events/s derive from the timed runs. */
    struct xpb_run_burst {
        bool present;
        int64_t neurons;
        uint64_t synapses;
        bool batched;            /* one submission for all bursts, else one per burst         */
        uint64_t events, fired;  /* summed over the run                                       */
        uint32_t *fired_per_burst, *events_per_burst; /* iterations entries (malloc'd)        */
        char checked[160];       /* what the whole-run check compared                         */
        /* the validated run's own output, for the dump (NULL otherwise; freed with the run):
         * fired ids of burst b at fired_ids[fired_start[b] .. fired_start[b + 1]) (per-burst
         * runs; a batched run has only the last burst's, at [0, fired_start[1])), final v */
        uint64_t *fired_start;
        uint32_t *fired_ids;
        float *final_v;
    } burst;
} xpb_run_outcome;

#endif
