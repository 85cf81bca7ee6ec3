/* xpb_runner.h - runs a list of cases on a set of opened devices. */
#ifndef XPB_RUNNER_H
#define XPB_RUNNER_H

#include <regex.h>
#include <stdbool.h>
#include <stdint.h>

#include "xpb_result_record.h"

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
    /* Self-test of the checker: after each launch, corrupt the read-back output before it is
     * validated, so every case must fail: XPB_FAULT_NONE in normal runs. */
    enum { XPB_FAULT_NONE, XPB_FAULT_VALUE, XPB_FAULT_UNWRITTEN, XPB_FAULT_GUARD } inject_fault;
} xpb_run_config;

/* Opens backend device `index`; fills d. On failure d is untouched beyond its fields. */
xpb_status xpb_device_open(const xpb_backend_i *b, int index, xpb_device *d, xpb_error *err);
/* Opens devices[0..n) of backend b as one device group (--devices; xpb_backend_i.open_group),
 * labelled "cuda:0,1". XPB_ERR_UNSUPPORTED with the reason when b has no device groups. */
xpb_status xpb_device_open_group(const xpb_backend_i *b, const int *devices, int n, xpb_device *d, xpb_error *err);
/* Opens this process's rank of a device group that spans every MPI process (xpb_mpi.h), on its
 * host's device `device` (xpb_backend_i.open_group_mpi); labelled "cuda:mpiN". */
xpb_status xpb_device_open_group_mpi(const xpb_backend_i *b, int device, xpb_device *d, xpb_error *err);
void xpb_device_close(xpb_device *d);

/* Runs every case on every device in run->devices, appending results to run. Round 1 validates
 * and times each case; rounds 2..cfg->rounds go over the cases again and time every case that
 * timed, with fresh device buffers, upload and warm-up, interleaved: a block of consecutive cases
 * (up to 2 GiB of inputs, made once) runs round 1, then round 2 of each, and so on. A case's
 * rounds are thus seconds apart and their medians (xpb_result.units) are independent
 * repetitions: a drift (clocks, heat, buffer placement, another process) shows up as their spread
 * instead of vanishing into thousands of back-to-back samples (docs/reports.md, "Verdicts").
 * Returns XPB_OK unless the run could not proceed at all (host out of memory). */
xpb_status xpb_runner_run(xpb_run *run, const xpb_case_list *cases, const xpb_run_config *cfg,
                          xpb_error *err);

/* Launches per timed sample on dev for launches of `best` seconds: enough for sample_min seconds
 * (0: 200 us on one device; on a device group 2 ms and at least 20 launches, as nccl-tests' -n 20),
 * at least one, at most 1000. */
int xpb_runner_batch(const xpb_device *dev, double sample_min, double best);

/* Fills the derived fields (throughput, roofs, speedups) of every result. */
void xpb_runner_derive(xpb_run *run);

void xpb_run_free(xpb_run *run);

#endif
