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
    /* where the time went: the breakdown run (device timer around each launch) */
    double op_seconds[XPB_OP_COUNT];
    int64_t op_launches[XPB_OP_COUNT];
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
} xpb_run_outcome;

#endif
