/* anneal_changes.c - anneal changes: the energy (mean direct-form fp32 distance of each point to
 * its anchor, accumulated in double) and the count of points whose anchor changed. */
#include "cpu_anneal.h"

static xpb_status changes_launch(void *ctx, const void *args_, void *state, xpb_error *err)
{
    (void)ctx, (void)state;
    const xpb_anneal_changes_args *a = args_;
    const int64_t n = a->n, d = a->d, m = a->m;
    void *px, *pa, *pg, *pp, *pr;
    xpb_status st = xpb_cpu_anneal_sizes(n, d, m, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->x, (size_t)(n * d) * 4, "x", &px, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->anchors, (size_t)(m * d) * 4, "anchors", &pa, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->assign, (size_t)n * 4, "assign", &pg, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->prev, (size_t)n * 4, "prev", &pp, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->result, 8, "result", &pr, err);
    if (st)
        return st;
    const float *x = px, *an = pa;
    const uint32_t *asg = pg, *prev = pp;
    double e = 0;
    int64_t changes = 0, bad = 0;
#pragma omp parallel for schedule(static) reduction(+ : e, changes, bad) if (n * d >= XPB_CPU_PARALLEL_MIN)
    for (int64_t i = 0; i < n; i++) {
        if (asg[i] >= (uint32_t)m) {
            bad++;
            continue;
        }
        e += xpb_cpu_dist2(x + i * d, an + (int64_t)asg[i] * d, d);
        changes += asg[i] != prev[i];
    }
    if (bad)
        return xpb_fail(err, XPB_ERR_USAGE, "cpu: changes: %lld assignments are not anchors below m = %lld",
                        (long long)bad, (long long)m);
    float energy = (float)(e / (double)n);
    uint32_t c = (uint32_t)changes;
    memcpy(pr, &energy, 4);
    memcpy((char *)pr + 4, &c, 4);
    return XPB_OK;
}

const xpb_kernel xpb_cpu_anneal_changes = {
    .op = XPB_OP_ANNEAL_CHANGES,
    .variant = "default",
    .precision = "fp32",
    .launch = changes_launch,
};
