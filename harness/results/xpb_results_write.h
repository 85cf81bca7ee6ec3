/* xpb_results_write.h - results files (JSON, CSV, Markdown) and the console table.
 *
 * The JSON layout is documented and versioned in docs/results-schema.md. Every file is written
 * to a temporary file beside the target and renamed over it, so a killed run never leaves a
 * half-written results file. CSV and Markdown come from the same rows as the JSON. */
#ifndef XPB_RESULTS_WRITE_H
#define XPB_RESULTS_WRITE_H

#include <stdio.h>

#include "xpb_runner.h"
#include "xpb_sysinfo.h"
#include "xpb_tuning.h"

#define XPB_RESULTS_SCHEMA "xpubench-results"
/* 2: the stateful workloads' "run" object; 3: the workload's own figures in it as the named
 * run.metrics, run.timings, run.texts and run.series (docs/results-schema.md) */
#define XPB_RESULTS_SCHEMA_VERSION 3

/* Availability of each backend xpubench knows, as seen by this run. */
typedef struct xpb_backend_status {
    const char *name;
    bool compiled, available;
    char reason[XPB_ERROR_MSG_LEN];
} xpb_backend_status;

typedef struct xpb_run_meta {
    const xpb_run_config *cfg;
    const char *command_line;
    const char *filter;
    xpb_sysinfo sys;
    xpb_backend_status backends[XPB_MAX_BACKENDS];
    int n_backends;
    const xpb_tuning_state *tuning; /* the knob values found for each device; NULL: not recorded */
} xpb_run_meta;

xpb_status xpb_results_write_json(const char *path, const xpb_run *run, const xpb_run_meta *meta,
                                  xpb_error *err);
xpb_status xpb_results_write_csv(const char *path, const xpb_run *run, xpb_error *err);
xpb_status xpb_results_write_markdown(const char *path, const xpb_run *run, xpb_error *err);
/* The end-of-run table, grouped by workload. */
void xpb_results_print_table(FILE *f, const xpb_run *run);

#endif
