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
