/* cpu_anneal.h - what the CPU kernels of the annealing ops share (anneal_*.c): resolving views
 * into host pointers with bounds checks, and the fp32 distance they all use. */
#ifndef XPB_CPU_ANNEAL_H
#define XPB_CPU_ANNEAL_H

#include <string.h>

#include "cpu_internal.h"

/* *out = the host address of `bytes` bytes at view v, or XPB_ERR_USAGE when they do not lie
 * inside v's buffer. */
xpb_status xpb_cpu_anneal_view(xpb_view v, size_t bytes, const char *what, void **out, xpb_error *err);
/* The sizes every anneal op checks: 1 <= n < 2^31, 1 <= d <= 4096, 1 <= m <= n. */
xpb_status xpb_cpu_anneal_sizes(int64_t n, int64_t d, int64_t m, xpb_error *err);

/* Direct-form squared distance in fp32, one running sum (docs: any order is allowed). */
static inline float xpb_cpu_dist2(const float *x, const float *a, int64_t d)
{
    float s = 0.0f;
    for (int64_t k = 0; k < d; k++) {
        float t = x[k] - a[k];
        s += t * t;
    }
    return s;
}

/* The selection key of a point: its distance's bits (a distance >= +0 orders like its bits),
 * then its index. */
static inline uint64_t xpb_cpu_anneal_key(float dist, uint32_t i)
{
    uint32_t b;
    memcpy(&b, &dist, sizeof b);
    return (uint64_t)b << 32 | i;
}

#endif
