/* anneal_stats.c - anneal stats: per anchor its count, exact trimmed mean and variance
 * (xpb_ops.h). Points are grouped by anchor (a counting sort in index order), then each anchor
 * (in parallel) finds the keys of rank t and c-1-t by bisection on the 64-bit key (distance
 * bits, index) with counting passes over its group - exact, no sort - and sums its kept points
 * in double per dimension (the result does not depend on any order). */
#include <math.h>

#include "cpu_anneal.h"

/* The smallest key K of the group with #{key <= K} >= r + 1: the key of rank r (0-based). */
static uint64_t key_of_rank(const uint32_t *members, int64_t c, const float *dist, int64_t r)
{
    uint64_t lo = 0, hi = UINT64_MAX;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        int64_t below = 0;
        for (int64_t p = 0; p < c; p++)
            below += xpb_cpu_anneal_key(dist[members[p]], members[p]) <= mid;
        if (below >= r + 1)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static xpb_status stats_launch(void *ctx, const void *args_, void *state, xpb_error *err)
{
    (void)ctx, (void)state;
    const xpb_anneal_stats_args *a = args_;
    const int64_t n = a->n, d = a->d, m = a->m;
    void *px, *pg, *pd, *pc, *pm, *pv, *ps;
    xpb_status st = xpb_cpu_anneal_sizes(n, d, m, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->x, (size_t)(n * d) * 4, "x", &px, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->assign, (size_t)n * 4, "assign", &pg, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->dist, (size_t)n * 4, "dist", &pd, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->counts, (size_t)m * 4, "counts", &pc, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->mean, (size_t)(m * d) * 4, "mean", &pm, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->var, (size_t)(m * d) * 4, "var", &pv, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->scratch, (size_t)n * 4 + (size_t)(m + 1) * 8, "scratch", &ps, err);
    if (st)
        return st;
    const float *x = px, *dist = pd;
    const uint32_t *asg = pg;
    uint32_t *counts = pc;
    float *mean = pm, *var = pv;
    /* scratch: members (n), start (m + 1), fill (m) */
    uint32_t *members = ps, *start = members + n, *fill = start + m + 1;
    for (int64_t i = 0; i < n; i++)
        if (asg[i] >= (uint32_t)m)
            return xpb_fail(err, XPB_ERR_USAGE, "cpu: stats: assign[%lld] = %u is not an anchor below m = %lld",
                            (long long)i, asg[i], (long long)m);
    memset(start, 0, (size_t)(2 * m + 1) * sizeof *start);
    for (int64_t i = 0; i < n; i++)
        start[asg[i] + 1]++;
    for (int64_t j = 0; j < m; j++)
        start[j + 1] += start[j];
    for (int64_t i = 0; i < n; i++)
        members[start[asg[i]] + fill[asg[i]]++] = (uint32_t)i;
#pragma omp parallel for schedule(dynamic, 1) if (n * d >= XPB_CPU_PARALLEL_MIN)
    for (int64_t j = 0; j < m; j++) {
        const uint32_t *g = members + start[j];
        int64_t c = start[j + 1] - start[j];
        int64_t t = (int64_t)floor((double)c * a->trim);
        uint64_t klo = 0, khi = UINT64_MAX;
        if (c - 2 * t >= 1 && t > 0) {
            klo = key_of_rank(g, c, dist, t);
            khi = key_of_rank(g, c, dist, c - 1 - t);
        }
        counts[j] = (uint32_t)c;
        for (int64_t e = 0; e < d; e++) {
            double s = 0;
            int64_t q = 0;
            for (int64_t p = 0; p < c; p++) {
                uint64_t key = xpb_cpu_anneal_key(dist[g[p]], g[p]);
                if (key >= klo && key <= khi)
                    s += x[(int64_t)g[p] * d + e], q++;
            }
            float mu = q ? (float)(s / (double)q) : 0.0f;
            double v = 0;
            for (int64_t p = 0; p < c; p++) {
                double dv = (double)x[(int64_t)g[p] * d + e] - (double)mu;
                v += dv * dv;
            }
            mean[j * d + e] = mu;
            var[j * d + e] = c >= 2 ? (float)(v / (double)(c - 1)) : 0.0f;
        }
    }
    return XPB_OK;
}

const xpb_kernel xpb_cpu_anneal_stats = {
    .op = XPB_OP_ANNEAL_STATS,
    .variant = "default",
    .precision = "fp32",
    .launch = stats_launch,
};
