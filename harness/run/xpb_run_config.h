/* xpb_run_config.h - how a run goes (cmd_run.c fills it from the options): read by the runner
 * and recorded in the results file's "config". */
#ifndef XPB_RUN_CONFIG_H
#define XPB_RUN_CONFIG_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xpb_workload.h"

typedef struct xpb_run_config {
    const char *preset;
    const xpb_sizes *sizes;
    uint64_t seed;
    int rounds;          /* passes over every case, each timing it again (>= 1; xpb_runner_run) */
    int repetitions;     /* Google Benchmark repetitions per case in each round */
    double min_time;     /* seconds per repetition */
    double warmup_time;  /* seconds of untimed launches first */
    bool graph;          /* --graph: each sample's launches replayed from a graph (CUDA graphs) */
    double sample_min;   /* --sample-min: a timed sample's least device time; 0: the default (xpb_runner_batch) */
    int e2e_iterations;  /* end-to-end (host clock) iterations */
    bool validate_only;  /* validate, skip timing */
    bool sampled;        /* validate sampled units instead of all */
    size_t sample_units;
    bool progress_tty;   /* redraw one progress line instead of one line per case */
    bool progress_quiet; /* no progress at all (MPI ranks other than 0) */
    /* The progress, begun by the caller (who may share it with the watcher, xpb_watch.h); NULL:
     * the runner keeps its own from progress_tty and progress_quiet. */
    struct xpb_progress *progress;
    bool power;          /* --power: sample board power during the timed launches */
    /* XPB_SLOWDOWN=REGEX=FRACTION: cases whose id matches run 1 + FRACTION launches per timed
     * launch (an extra launch whenever the fractions add up to one), a real slowdown on purpose,
     * to show that compare catches one (docs/reports.md). Announced, and in the results' config. */
    const char *slowdown;     /* the variable's text, NULL when unset */
    regex_t slowdown_re;
    double slowdown_fraction;
    const char *variants; /* --variant LIST: only these kernel variants (comma-separated); NULL = all */
    const char *dump_dir;      /* --dump DIR: every case's arrays as .npy (xpb_dump.h); NULL = off */
    const char *dump_fail_dir; /* where a failing case is dumped automatically; NULL = nowhere */
    int *dump_count;           /* automatic dumps so far (limit XPB_DUMP_AUTO_MAX) */
    /* --isolate / --no-isolate (xpb_isolate.h): which cases run in a process of their own; the
     * command line's default is XPB_ISOLATE_PLUGINS (a --kernels library's kernels). */
    enum { XPB_ISOLATE_OFF, XPB_ISOLATE_PLUGINS, XPB_ISOLATE_ALL } isolate;
    double case_timeout;      /* --case-timeout: seconds an isolated case may take; 0 = no limit */
    int run_argc;             /* the run's arguments after "run", which an isolated case's */
    char *const *run_argv;    /* process is given again */
    /* Self-test of the checker: after each launch, corrupt the read-back output before it is
     * validated, so every case must fail: XPB_FAULT_NONE in normal runs. */
    enum { XPB_FAULT_NONE, XPB_FAULT_VALUE, XPB_FAULT_UNWRITTEN, XPB_FAULT_GUARD } inject_fault;
} xpb_run_config;

#endif
