/* xpb_results_loaded.h - loads a results file (docs/results-schema.md, schema versions 1 to 3)
 * into plain structs for compare and plot. Only the fields those commands use are kept.
 *
 * A file that is missing, empty, truncated, not JSON, not an xpubench results file, of another
 * schema version, or whose fields have the wrong types is refused with a one-line message naming
 * the file and what is wrong; nothing is half-loaded. */
#ifndef XPB_RESULTS_LOADED_H
#define XPB_RESULTS_LOADED_H

#include <stdbool.h>
#include <stddef.h>

#include "xpb_run_report.h"
#include "xpb_status.h"

#define XPB_RTEXT 128 /* names, devices, variants */
#define XPB_RID 256   /* case ids */

/* One entry of run.ops[] (a stateful workload): an op's device time in one run. */
typedef struct xpb_rop {
    char op[XPB_RTEXT];
    double seconds, share, launches; /* seconds: the median over the breakdown runs        */
    bool has_runs;                   /* per_run present; files without it timed one run     */
    double cv;                       /* per_run.cv                                          */
    double *samples;                 /* per_run.samples_s (one per run), finite values; owned */
    size_t n_samples;
    double *units;                   /* units_s: the op's median in each round; owned */
    size_t n_units;
    size_t *run_units;               /* with reruns pooled: how many of units each run gave, in
                                      * order (n_runs of them; NULL, 0: one run); owned */
    size_t n_runs;
} xpb_rop;

/* One entry of cases[]. Numbers absent from the file (or null) are NaN. */
typedef struct xpb_rcase {
    char id[XPB_RID];
    char workload[XPB_RTEXT], op[XPB_RTEXT], dtype[32];
    char backend[32], device[48], device_name[XPB_RTEXT];
    char variant[64], precision[32];
    char kernel_config[160]; /* what the kernel chose by itself ("" where the file has none) */
    char status[32];  /* "ok", "failed-validation", "unsupported", "error", "skipped" */
    char message[512];
    bool software_device;
    double elements, bytes_read, bytes_written, flops; /* work */
    bool has_validation, passed;
    double max_err_over_tol;
    bool timed;                /* has timing.kernel */
    double median_s, cv;       /* timing.kernel */
    double *samples;           /* timing.kernel.samples_s, finite values only; owned */
    size_t n_samples;
    double *units;             /* timing.units.medians_s: one per round (files since rounds); owned */
    size_t n_units;
    int reruns;                /* other runs of the build pooled into units (xpb_results_add_rerun) */
    size_t *run_units;         /* with reruns pooled: how many of units each run gave, in order
                                * (n_runs of them; NULL, 0: one run); owned */
    size_t n_runs;
    bool has_conditions;       /* conditions: the GPU around the timed rounds (NVML) */
    double sm_mhz_before, sm_mhz_after;
    char throttled[96];        /* conditions.throttled: "" or "sw_power_cap,..." */
    double gbps, gflops, speedup_vs_cpu; /* throughput */
    double avg_watts;          /* power.avg_w when the run sampled power (--power), else NaN */
    bool has_run;              /* a stateful workload's run object (docs/results-schema.md) */
    double iterations;         /* run.iterations */
    bool converged;
    bool inputs_kept;          /* run.transfers.inputs "kept" (XPB_STATEFUL_INPUTS=kept) */
    /* run.metrics, run.timings and run.texts (series are not loaded); from a file of schema 1 or
     * 2, its workload objects mapped into them by name (xpb_results_legacy.c) */
    xpb_run_report report;
    xpb_rop *ops;              /* run.ops[]; owned */
    size_t n_ops;
} xpb_rcase;

/* One entry of system.devices[]. */
typedef struct xpb_rdevice {
    char id[48], backend[32], name[XPB_RTEXT], driver[XPB_RTEXT], runtime[XPB_RTEXT];
    char library[XPB_RTEXT], warning[XPB_RTEXT]; /* optional: the math library, a fallback warning */
    double peak_gflops_fp32, peak_gbps;
    bool software_device;
    bool tuned;              /* "tuning": a tuning file set this device's knobs */
    char tuning[512];        /* its knob values in effect, NAME=VALUE by spaces; "" when none */
    char tuning_file[128];   /* "h100.json sha256:0123456789ab" */
} xpb_rdevice;

typedef struct xpb_results_file {
    char path[1024];
    char run_id[XPB_RTEXT], created_utc[48];
    char version[32], git_commit[64];
    char build[512];           /* "type=Release c_compiler=GNU 12 cuda=ON ..." (xpubench.build) */
    char hostname[XPB_RTEXT], cpu_model[XPB_RTEXT], os[XPB_RTEXT];
    char preset[32];
    char knobs[512];           /* config.knobs: the declared knobs set in the environment, NAME=VALUE
                                * by spaces in declaration order; "" when none (or an older file) */
    double seed;
    /* A run that a signal stopped ("complete": false): what stopped it and how far it got, e.g.
     * "interrupted by SIGTERM after 57 of 137 cases"; "" for a whole run. */
    char partial[160];
    xpb_rdevice *devices;
    size_t n_devices;
    xpb_rcase *cases;
    size_t n_cases;
} xpb_results_file;

/* Reads and checks path into *out (zeroed first). On failure returns XPB_ERR_IO (cannot read)
 * or XPB_ERR_USAGE (not a valid results file), fills err with "PATH: what is wrong", and leaves
 * *out empty. The caller frees a loaded file with xpb_results_file_free. */
xpb_status xpb_results_load(const char *path, xpb_results_file *out, xpb_error *err);

/* Same as xpb_results_load, from text already in memory (len bytes, need not be terminated);
 * name labels the messages. */
xpb_status xpb_results_parse(const char *name, const char *text, size_t len, xpb_results_file *out,
                             xpb_error *err);

void xpb_results_file_free(xpb_results_file *f);

/* Pools another run of the same build into `into`, in its own process: each case (and op of a
 * stateful case) that has units on both gets rerun's units appended, and its `reruns` count
 * goes up by one; run_units records which units came from which run, so that compare can tell
 * the spread between the runs' medians (processes) from the spread of rounds. Units are then the rounds of several processes, so their spread holds the
 * shifts between processes that one process's rounds cannot show (docs/reports.md, "Verdicts").
 * XPB_ERR_OUT_OF_MEMORY is the only failure. */
xpb_status xpb_results_add_rerun(xpb_results_file *into, const xpb_results_file *rerun, xpb_error *err);

/* The device entry with id `device` (e.g. "cuda:0"), or NULL. */
const xpb_rdevice *xpb_results_device(const xpb_results_file *f, const char *device);

/* True for a case that validated and was timed (status ok with kernel timing). */
bool xpb_rcase_is_timed_ok(const xpb_rcase *c);

#endif
