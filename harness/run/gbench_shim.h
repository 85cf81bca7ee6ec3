/* gbench_shim.h - Google Benchmark, driven from C.
 *
 * Google Benchmark decides how many iterations to run (min time per repetition, repetitions) and
 * runs the timed loop; each iteration calls back into C, which returns the iteration's time
 * from the backend's device timer (GB "manual time"). The shim collects every iteration's time
 * as a raw sample. Warm-up is done by the caller before measuring, so every sample counts. */
#ifndef XPB_GBENCH_SHIM_H
#define XPB_GBENCH_SHIM_H

#include "xpb_stats.h"
#include "xpb_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One timed iteration (a sample of launches_per_sample launches): returns its device time in
 * seconds via *seconds. */
typedef xpb_status (*xpb_timed_fn)(void *user, double *seconds, xpb_error *err);

typedef struct xpb_gbench_config {
    int repetitions;         /* >= 1 */
    double min_time;         /* seconds of measured time per repetition */
    int launches_per_sample; /* >= 1: what one call of fn runs */
} xpb_gbench_config;

/* Measures fn; appends each iteration's time per launch (sample / launches_per_sample) to
 * samples. Google Benchmark itself sees whole samples, so its iteration count and min_time
 * match the wall time spent. Returns the first error fn returned, with its message in err. */
xpb_status xpb_gbench_measure(const char *name, xpb_timed_fn fn, void *user,
                              const xpb_gbench_config *cfg, xpb_samples *samples, xpb_error *err);

#ifdef __cplusplus
}
#endif
#endif
