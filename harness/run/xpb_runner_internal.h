/* xpb_runner_internal.h - shared between the runner's files (xpb_runner.c, one-shot kernels;
 * xpb_runner_stateful.c, stateful workloads; xpb_runner_record.c, what both record into a
 * result). Not for other callers. */
#ifndef XPB_RUNNER_INTERNAL_H
#define XPB_RUNNER_INTERNAL_H

#include "xpb_result_record.h"
#include "xpb_run_config.h"

/* Records a failed step as the result's status: unsupported, or an error (a lost device marks
 * the device so later cases are not tried on it). */
void xpb_runner_set_outcome(xpb_result *r, xpb_device *dev, xpb_status st, const xpb_error *err);

/* A case's buffers on one device (xpb_runner.c): inputs and outputs, each between guards. */
typedef struct xpb_case_buffers {
    xpb_device *dev;
    const xpb_case_data *data;
    xpb_buffer *in[XPB_MAX_ARRAYS], *out[XPB_MAX_ARRAYS];
    xpb_view in_view[XPB_MAX_ARRAYS], out_view[XPB_MAX_ARRAYS];
    void *out_host; /* guard + output 0 + guard, downloaded */
    double download_s; /* host seconds reading out_host back for the checks (phases_s.download) */
} xpb_case_buffers;

/* Uploads cb->data's inputs (a device group's rank only its part where the workload says so). */
xpb_status xpb_runner_upload_inputs(xpb_case_buffers *cb, const xpb_case *c, xpb_error *err);
/* Fills every output, guards included, with the poison pattern. */
xpb_status xpb_runner_poison_outputs(xpb_case_buffers *cb, xpb_error *err);

/* ---- the validation launch's check (xpb_runner_validate.c) ---- */

/* Reads guard + output 0 + guard back into cb->out_host: the whole, or under MPI (*local) only
 * this process's rank's bytes [*lo, *hi) of it (xpb_backend_i.buffer_download_local), where every
 * process has one span; the same choice on every process. */
xpb_status xpb_runner_download_mine(xpb_case_buffers *cb, bool *local, size_t *lo, size_t *hi, xpb_error *err);
/* After the validation launch: output 0 read back and checked (--inject-fault applied), guards
 * included, into r->validation and r->validated; dumped as --dump / a failure asks. Under MPI
 * each process checks its own rank's part and the verdict is combined (the same everywhere). */
xpb_status xpb_runner_validate_launch(xpb_case_buffers *cb, const xpb_case *c, const xpb_kernel *k,
                                      const xpb_run_config *cfg, xpb_result *r, xpb_error *err);

/* ---- the checks after timing (xpb_runner_checks.c; docs/validation.md, "After timing") ---- */

/* Reads output 0 back, guards included, and checks it against d's reference with the checker
 * and bound of the validation launch (sampling seeded by seed); into *check, with its failure's
 * summary as the reason. */
xpb_status xpb_runner_check_output(xpb_case_buffers *cb, const xpb_case *c, const xpb_case_data *d,
                                   const xpb_kernel *k, const xpb_run_config *cfg, uint64_t seed,
                                   xpb_after_check *check, xpb_error *err);
/* Why neither check after timing applies to a case on dev, or NULL when both do. */
const char *xpb_runner_after_timing_skip(const xpb_device *dev);
/* The fresh-seed recheck's inputs of one case: made by the first variant that reaches its
 * recheck, kept for the case's other variants and devices (the recheck seed is the run's, so each
 * makes the same inputs: 2.4 s a variant at the 8 GiB all_reduce on 4 GPUs), freed after the
 * case's first round (later rounds do not recheck). */
typedef struct xpb_recheck_inputs {
    bool made;
    xpb_case_data d;
} xpb_recheck_inputs;
void xpb_recheck_inputs_free(xpb_recheck_inputs *ri);

/* After the timed launches: the case's inputs made afresh from another seed (r->recheck_seed),
 * uploaded into the same buffers, the outputs poisoned, one launch, checked against the new
 * inputs' reference, into r->recheck. A kernel that replays an output it kept (keyed on the
 * buffers' addresses or on its call count) writes the old inputs' output and fails. A kernel with
 * a prepare step prepares again for the new inputs (*state, *prepared: the case's; GEMM's tf32
 * and fp16 variants convert A and B there). */
xpb_status xpb_runner_recheck(xpb_case_buffers *cb, const xpb_kernel *k, const xpb_case *c, const void *args,
                              void **state, bool *prepared, xpb_recheck_inputs *ri, const xpb_run_config *cfg,
                              xpb_result *r, xpb_error *err);
/* After round 1's timing: a failed timed output or recheck makes r failed-validation, its message
 * naming the check, with no timing (a failed case reports no speed). */
void xpb_runner_fail_after_timing(xpb_result *r);

/* Validates and times one case of a stateful workload (c->workload->run) with kernel k. */
void xpb_run_stateful(xpb_device *dev, const xpb_kernel *k, const xpb_case *c, const xpb_case_data *d,
                      const xpb_run_config *cfg, xpb_result *r);
/* A later round (xpb_runner.h): times the stateful case again, appending to r's samples and one
 * unit; a failure makes r an error. */
void xpb_run_stateful_again(xpb_device *dev, const xpb_case *c, const xpb_case_data *d, const xpb_run_config *cfg,
                            xpb_result *r);
void xpb_run_outcome_free(xpb_run_outcome *o);

/* Appends the median of r->kernel_samples[from..] to r->units and recomputes r->kernel over
 * every sample. */
xpb_status xpb_runner_close_round(xpb_result *r, size_t from, xpb_error *err);

/* Reads dev's conditions (clocks, temperature, power, throttle reasons) into r: the first reading
 * before the first timed round, the last after the last, and every throttle reason seen. Nothing
 * when the backend cannot read them. (xpb_runner_record.c) */
void xpb_runner_read_conditions(xpb_device *dev, xpb_result *r, bool before);

#endif
