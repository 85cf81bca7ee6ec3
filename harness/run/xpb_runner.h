/* xpb_runner.h - runs a list of cases on a set of opened devices. */
#ifndef XPB_RUNNER_H
#define XPB_RUNNER_H

#include <stdbool.h>

#include "xpb_result_record.h"
#include "xpb_run_config.h"

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
 * (0: 200 us on one device; on a device group 2 ms and at least 20 launches, as nccl-tests' -n 20,
 * or fewer where they span 50 ms), at least one, at most 1000. */
int xpb_runner_batch(const xpb_device *dev, double sample_min, double best);
/* The batch again from one timed sample of `batch` launches that took sample_s: larger where the
 * sample fell short of its target (launches that overlap back to back), else batch unchanged. */
int xpb_runner_batch_refine(const xpb_device *dev, double sample_min, int batch, double sample_s);

/* Fills the derived fields (throughput, roofs, speedups) of every result. */
void xpb_runner_derive(xpb_run *run);

void xpb_run_free(xpb_run *run);

#endif
