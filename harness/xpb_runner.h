/* xpb_runner.h - runs a list of cases on a set of opened devices. */
#ifndef XPB_RUNNER_H
#define XPB_RUNNER_H

#include <regex.h>
#include <stdbool.h>
#include <stdint.h>

#include "xpb_result.h"

typedef struct xpb_run_config {
    const char *preset;
    const xpb_sizes *sizes;
    uint64_t seed;
    int repetitions;
    double min_time;     /* seconds per repetition */
    double warmup_time;  /* seconds of untimed launches first */
    int e2e_iterations;  /* end-to-end (host clock) iterations */
    bool validate_only;  /* validate, skip timing */
    bool sampled;        /* validate sampled units instead of all */
    size_t sample_units;
    bool progress_tty;   /* redraw one progress line instead of one line per case */
    bool power;          /* --power: sample board power during the timed launches */
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
void xpb_device_close(xpb_device *d);

/* Runs every case on every device in run->devices, appending results to run. Returns XPB_OK
 * unless the run could not proceed at all (host out of memory). */
xpb_status xpb_runner_run(xpb_run *run, const xpb_case_list *cases, const xpb_run_config *cfg,
                          xpb_error *err);

/* Fills the derived fields (throughput, roofs, speedups) of every result. */
void xpb_runner_derive(xpb_run *run);

void xpb_run_free(xpb_run *run);

#endif
