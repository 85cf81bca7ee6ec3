/* xpb_stats.c - see xpb_stats.h. */
#include "xpb_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int xpb_samples_push(xpb_samples *s, double seconds)
{
    if (s->n >= XPB_MAX_SAMPLES)
        return 0;
    if (s->n == s->capacity) {
        size_t cap = s->capacity ? s->capacity * 2 : 64;
        double *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return -1;
        s->v = v;
        s->capacity = cap;
    }
    s->v[s->n++] = seconds;
    return 0;
}

void xpb_samples_free(xpb_samples *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Linear interpolation between order statistics (the usual "type 7" quantile). */
static double quantile(const double *sorted, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    return sorted[lo] + (pos - (double)lo) * (sorted[hi] - sorted[lo]);
}

xpb_stats xpb_stats_compute(const double *v, size_t n)
{
    xpb_stats s;
    memset(&s, 0, sizeof s);
    if (n == 0)
        return s;
    double *sorted = malloc(n * sizeof *sorted);
    if (!sorted)
        return s;
    memcpy(sorted, v, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += sorted[i];
    s.n = n;
    s.mean = sum / (double)n;
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (sorted[i] - s.mean) * (sorted[i] - s.mean);
    s.stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
    s.cv = s.mean > 0 ? s.stddev / s.mean : 0;
    s.min = sorted[0];
    s.max = sorted[n - 1];
    s.median = quantile(sorted, n, 0.5);
    s.p05 = quantile(sorted, n, 0.05);
    s.p95 = quantile(sorted, n, 0.95);
    free(sorted);
    return s;
}

double xpb_stats_drift(const double *v, size_t n)
{
    if (n < 4 || !(v[0] > 0) || !(v[n - 1] > 0))
        return 1.0;
    const double d = v[n - 1] / v[0];
    if (d < XPB_DRIFT_FACTOR && d > 1.0 / XPB_DRIFT_FACTOR)
        return 1.0;
    int big = 0; /* steps of 5% or more the drift's way */
    for (size_t i = 1; i < n; i++) { /* each step the drift's way, or back by at most 2% */
        const double step = d > 1 ? v[i] / v[i - 1] : v[i - 1] / v[i];
        if (!(step >= 0.98))
            return 1.0;
        big += step >= 1.05;
    }
    return big >= 2 ? d : 1.0;
}
