/* xpb_stateful.h - the outcome of one run of a stateful workload (xpb_workload_i.run): what the
 * run reached, its per-op time, its two-level validation (docs/validation.md, "Stateful
 * workloads"), and what else the workload reports, as named data (xpb_run_report.h). The runner keeps one per result (xpb_result.run) and writes it into
 * the results file ("run" object, docs/results-schema.md). */
#ifndef XPB_STATEFUL_H
#define XPB_STATEFUL_H

#include <stdbool.h>
#include <stdint.h>

#include "xpb_ops.h"
#include "xpb_run_report.h"

#define XPB_RUN_TEXT_LEN 768

typedef struct xpb_run_outcome {
    bool present;        /* a stateful result                                         */
    /* what the run reached */
    int iterations;
    bool converged;
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
    bool inputs_kept;    /* XPB_STATEFUL_INPUTS=kept: the timed and breakdown runs shared their
                          * buffers, and an input already there was not uploaded again      */
    uint64_t inputs_kept_bytes; /* the bytes a breakdown run did not upload again for that */
    /* validation, level 1: each op on the run's first iteration against fp64 (in
     * xpb_result.validation: elements checked, worst err/tol); near ties are reported apart */
    bool ops_passed;
    int64_t near_ties;
    /* validation, level 2: the whole run against the reference run */
    bool run_checked;    /* false when the reference run was not computed (too large)  */
    bool run_passed;
    int ref_iterations;
    int parted_at;       /* first iteration where the run differs from the reference beyond
                          * the workload's tolerance, or -1 */
    char summary[XPB_RUN_TEXT_LEN]; /* the checks in words, first failure first */
    /* what the run reached and measured beyond the fields above, as named data the harness
     * writes, reads, prints and compares without knowing the workload (xpb_run_report.h);
     * freed with the run */
    xpb_run_report report;
    /* the workload's own state of the validated run, for its dump (xpb_workload_i.dump_run):
     * opaque to the harness, freed with the run by state_free; NULL when none */
    void *state;
    void (*state_free)(void *state);
} xpb_run_outcome;

#endif
