/* xpb_run_report.h - what a stateful workload's run reports beyond the generic run fields, as
 * data the harness writes, reads, prints and compares without knowing the workload
 * (docs/results-schema.md, run.metrics / run.timings / run.texts / run.series):
 *   metrics  named numbers with a unit and a direction (higher or lower is better, or info);
 *   timings  named times in seconds: median, p05, p95 over `count` measurements;
 *   texts    named strings (what a check compared, why something was not measured);
 *   series   named arrays over the run's iterations (trajectories; malloc'd, owned).
 * The workload fills them in its run function with the helpers below. Entries marked
 * XPB_REPORT_HEADLINE are shown on the console line of the run; compare lists the metrics that
 * have a direction. Two requests are resolved by the runner once the run is timed
 * (xpb_run_report_derive): a metric marked XPB_REPORT_PER_SECOND (a count per run) gets a
 * headline sibling "<name>_per_s" (higher is better), and a timing marked
 * XPB_REPORT_PER_ITERATION is filled with the timed whole runs divided by the iterations. */
#ifndef XPB_RUN_REPORT_H
#define XPB_RUN_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#define XPB_REPORT_NAME_LEN 40
#define XPB_REPORT_UNIT_LEN 16
#define XPB_REPORT_TEXT_LEN 256
#define XPB_REPORT_MAX_METRICS 32
#define XPB_REPORT_MAX_TIMINGS 8
#define XPB_REPORT_MAX_TEXTS 4
#define XPB_REPORT_MAX_SERIES 6

typedef enum xpb_better {
    XPB_BETTER_INFO,   /* neither: a description of the run ("neurons", "queries") */
    XPB_BETTER_HIGHER, /* e.g. recall, events per second                       */
    XPB_BETTER_LOWER,  /* e.g. energy, compression ratio                       */
} xpb_better;

enum xpb_report_flags {
    XPB_REPORT_HEADLINE = 1u,      /* shown on the run's console line                     */
    XPB_REPORT_PER_SECOND = 2u,    /* metric: a count per run; derive adds <name>_per_s   */
    XPB_REPORT_PER_ITERATION = 4u, /* timing: derive fills it from the timed whole runs   */
};

typedef struct xpb_report_metric {
    char name[XPB_REPORT_NAME_LEN];
    char unit[XPB_REPORT_UNIT_LEN]; /* "" for a pure number */
    double value;                   /* NaN: not computed (written as null) */
    xpb_better better;
    unsigned flags;
} xpb_report_metric;

typedef struct xpb_report_timing {
    char name[XPB_REPORT_NAME_LEN];
    double median, p05, p95; /* seconds; NaN: not measured (count 0) */
    long long count;         /* measurements behind them */
    unsigned flags;
} xpb_report_timing;

typedef struct xpb_report_text {
    char name[XPB_REPORT_NAME_LEN];
    char value[XPB_REPORT_TEXT_LEN];
    unsigned flags;
} xpb_report_text;

typedef struct xpb_report_series {
    char name[XPB_REPORT_NAME_LEN];
    double *v; /* n values, malloc'd (xpb_run_report_free) */
    int n;
} xpb_report_series;

typedef struct xpb_run_report {
    int n_metrics, n_timings, n_texts, n_series;
    xpb_report_metric metrics[XPB_REPORT_MAX_METRICS];
    xpb_report_timing timings[XPB_REPORT_MAX_TIMINGS];
    xpb_report_text texts[XPB_REPORT_MAX_TEXTS];
    xpb_report_series series[XPB_REPORT_MAX_SERIES];
} xpb_run_report;

/* Where a results file of an earlier schema (1 or 2) held a figure the workload now reports by
 * name: the reader maps it into the loaded run's report (xpb_workload_i.legacy_fields;
 * docs/results-schema.md, "Files of earlier versions"). A list ends with a NULL path. */
typedef enum xpb_legacy_kind {
    XPB_LEGACY_METRIC, /* a number                                             */
    XPB_LEGACY_TIMING, /* an object of median, p05, p95 (seconds)              */
    XPB_LEGACY_TEXT,   /* a string                                             */
} xpb_legacy_kind;
typedef struct xpb_legacy_field {
    xpb_legacy_kind kind;
    const char *path;       /* in the case's "run" object: keys joined by '.', an array element as
                             * key[i], e.g. "retrieval.recall[0]"                            */
    const char *name, *unit;
    xpb_better better;
    unsigned flags;
    const char *count_path; /* a timing's count; NULL: the case's timing.kernel sample count */
} xpb_legacy_field;

/* Set an entry by name: replaced when the name is there, else appended. Past the capacity the
 * entry is dropped and false returned (the capacities above hold what the workloads report: the
 * test results_legacy runs both stateful workloads and finds every name they report). */
bool xpb_run_report_metric(xpb_run_report *r, const char *name, double value, const char *unit, xpb_better better,
                           unsigned flags);
bool xpb_run_report_timing(xpb_run_report *r, const char *name, double median, double p05, double p95,
                           long long count, unsigned flags);
bool xpb_run_report_text(xpb_run_report *r, const char *name, const char *value, unsigned flags);
/* Takes v (n values, malloc'd): freed with the report, or here when it cannot be kept. */
bool xpb_run_report_series(xpb_run_report *r, const char *name, double *v, int n);

/* The metric named name, or NULL. */
const xpb_report_metric *xpb_run_report_find_metric(const xpb_run_report *r, const char *name);

/* Resolves the PER_SECOND and PER_ITERATION requests from the timed whole runs (median, p05,
 * p95 seconds over count runs of `iterations` iterations each); idempotent. */
void xpb_run_report_derive(xpb_run_report *r, double median, double p05, double p95, long long count,
                           int iterations);

/* Frees the series (the rest is inline). */
void xpb_run_report_free(xpb_run_report *r);

/* "higher", "lower", "info"; the parse returns false on another word. */
const char *xpb_better_name(xpb_better b);
bool xpb_better_parse(const char *s, xpb_better *out);

#endif
