/* anneal_mutants.c - the anneal stats op (xpb_ops.h, xpb_anneal_stats_args) written plainly:
 * each anchor's points sorted by the key (distance bits, index), trimmed, summed in double, with
 * one bug a kernel author makes (mutants.h). The mutation test runs it as the only stats kernel
 * inside whole anneal runs, the other ops being the CPU backend's. Test-only. */
#include <stdlib.h>

#include "cpu_anneal.h"
#include "mutants.h"

static int key_order(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static xpb_status stats_launch(const void *args, mutant_bug bug, xpb_error *err)
{
    const xpb_anneal_stats_args *a = args;
    const int64_t n = a->n, d = a->d, m = a->m;
    void *px, *pg, *pd, *pc, *pm, *pv;
    xpb_status st = xpb_cpu_anneal_sizes(n, d, m, err);
    if (!st) st = xpb_cpu_anneal_view(a->x, (size_t)(n * d) * 4, "x", &px, err);
    if (!st) st = xpb_cpu_anneal_view(a->assign, (size_t)n * 4, "assign", &pg, err);
    if (!st) st = xpb_cpu_anneal_view(a->dist, (size_t)n * 4, "dist", &pd, err);
    if (!st) st = xpb_cpu_anneal_view(a->counts, (size_t)m * 4, "counts", &pc, err);
    if (!st) st = xpb_cpu_anneal_view(a->mean, (size_t)(m * d) * 4, "mean", &pm, err);
    if (!st) st = xpb_cpu_anneal_view(a->var, (size_t)(m * d) * 4, "var", &pv, err);
    if (st)
        return st;
    const float *x = px, *dist = pd;
    const uint32_t *asg = pg;
    uint32_t *counts = pc;
    float *mean = pm, *var = pv;
    uint64_t *keys = malloc((size_t)n * sizeof *keys);
    double *mu = malloc((size_t)d * sizeof *mu);
    if (!keys || !mu) {
        free(keys), free(mu);
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "anneal stats mutant: out of host memory");
    }
    for (int64_t j = 0; j < m; j++) {
        int64_t c = 0;
        for (int64_t i = 0; i < n; i++)
            if (asg[i] == (uint32_t)j)
                keys[c++] = bug == BUG_STATS_ORDER_BY_INDEX ? (uint64_t)i : xpb_cpu_anneal_key(dist[i], (uint32_t)i);
        qsort(keys, (size_t)c, sizeof *keys, key_order);
        int64_t t = (int64_t)((double)c * a->trim), lo = t, hi = c - t; /* kept: ranks [lo, hi) */
        if (bug == BUG_STATS_TRIM_TOP_EXTRA && hi - lo > 1)
            hi--;
        if (hi - lo < 1)
            lo = 0, hi = c;
        for (int64_t k = 0; k < d; k++)
            mu[k] = 0;
        for (int64_t r = lo; r < hi; r++)
            for (int64_t k = 0; k < d; k++)
                mu[k] += x[(int64_t)(uint32_t)keys[r] * d + k];
        for (int64_t k = 0; k < d; k++) {
            mu[k] = c ? mu[k] / (double)(hi - lo) : 0.0;
            double s = 0;
            for (int64_t r = 0; r < c; r++) {
                double e = x[(int64_t)(uint32_t)keys[r] * d + k] - mu[k];
                s += e * e;
            }
            double div = bug == BUG_STATS_VAR_OVER_C ? (double)c : (double)(c - 1);
            mean[j * d + k] = (float)mu[k];
            var[j * d + k] = c < 2 ? 0.0f : (float)(s / div);
        }
        counts[j] = (uint32_t)c;
    }
    free(keys), free(mu);
    return XPB_OK;
}

XPB_MUTANT_KERNEL(anneal_stats_control, XPB_OP_ANNEAL_STATS, stats_launch, BUG_NONE)
XPB_MUTANT_KERNEL(anneal_stats_trim_top_extra, XPB_OP_ANNEAL_STATS, stats_launch, BUG_STATS_TRIM_TOP_EXTRA)
XPB_MUTANT_KERNEL(anneal_stats_order_by_index, XPB_OP_ANNEAL_STATS, stats_launch, BUG_STATS_ORDER_BY_INDEX)
XPB_MUTANT_KERNEL(anneal_stats_var_over_c, XPB_OP_ANNEAL_STATS, stats_launch, BUG_STATS_VAR_OVER_C)
