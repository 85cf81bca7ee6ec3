/* xpb_results_report.h - a stateful case's run.metrics, run.timings and run.texts read back into
 * an xpb_run_report (schema 3), or from a file of schema 1 or 2 its workload's older objects
 * mapped into the same names (xpb_workload_i.legacy_fields). Used by xpb_results_read.c. */
#ifndef XPB_RESULTS_REPORT_H
#define XPB_RESULTS_REPORT_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "xpb_run_report.h"
#include "xpb_status.h"

/* Reads run (the case's "run" object) into *out. workload names the case's workload (for the
 * older layout); kernel_samples is the case's timing.kernel sample count (an older per-iteration
 * timing's count). A field of the wrong type is XPB_ERR_USAGE with "file: where.key: what"; a
 * workload unknown to this build, or one with nothing to map, leaves an older file's report
 * empty (its generic fields still load). */
xpb_status xpb_results_read_report(const char *file, const char *where, const cJSON *run, const char *workload,
                                   size_t kernel_samples, xpb_run_report *out, xpb_error *err);

#endif
