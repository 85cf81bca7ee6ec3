/* xpb_stats.h - summary statistics of timing samples. */
#ifndef XPB_STATS_H
#define XPB_STATS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XPB_MAX_SAMPLES 4096 /* raw samples kept per case (stats use all that were kept) */

typedef struct xpb_samples {
    double *v; /* seconds; owned, free with xpb_samples_free */
    size_t n, capacity;
} xpb_samples;

typedef struct xpb_stats {
    size_t n;
    double median, min, max, mean, stddev, cv; /* seconds; cv = stddev / mean */
    double p05, p95;
} xpb_stats;

/* Appends a sample; past XPB_MAX_SAMPLES it is dropped. Returns 0, or -1 when out of memory. */
int xpb_samples_push(xpb_samples *s, double seconds);
void xpb_samples_free(xpb_samples *s);
/* Statistics over v[0..n); all zero when n == 0. Does not reorder v. */
xpb_stats xpb_stats_compute(const double *v, size_t n);

/* Rounds whose medians move one way: the last of v[0..n) over the first when it is more than
 * XPB_DRIFT_FACTOR away, every step goes that way (a step back of up to 2% allowed) and at least
 * two steps move 5% or more, else 1 (also for n < 4: three independent values fall in order one
 * time in three). Rounds are taken as independent repetitions of one quantity (compare's units);
 * rounds that drift (a clock stepped down, state that grows) are not that. One odd round, first or
 * last, with the others flat, is not a drift (one step carries it all); independent rounds come
 * out in order one time in 12 for n = 4 and one in 60 for n = 5. */
#define XPB_DRIFT_FACTOR 1.2
double xpb_stats_drift(const double *v, size_t n);

#ifdef __cplusplus
}
#endif
#endif
