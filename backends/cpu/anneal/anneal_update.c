/* anneal_update.c - anneal update: anchors move toward their trimmed means by a clamped step. */
#include "cpu_anneal.h"

static xpb_status update_launch(void *ctx, const void *args_, void *state, xpb_error *err)
{
    (void)ctx, (void)state;
    const xpb_anneal_update_args *a = args_;
    const int64_t m = a->m, d = a->d;
    void *pa, *pc, *pm;
    if (m < 1 || d < 1 || d > 4096)
        return xpb_fail(err, XPB_ERR_USAGE, "cpu: bad anneal update sizes m=%lld d=%lld", (long long)m, (long long)d);
    xpb_status st = xpb_cpu_anneal_view(a->anchors, (size_t)(m * d) * 4, "anchors", &pa, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->counts, (size_t)m * 4, "counts", &pc, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->mean, (size_t)(m * d) * 4, "mean", &pm, err);
    if (st)
        return st;
    float *an = pa;
    const float *mean = pm;
    const uint32_t *counts = pc;
    const float lr = a->lr_t;
#pragma omp parallel for schedule(static) if (m * d >= XPB_CPU_PARALLEL_MIN)
    for (int64_t i = 0; i < m * d; i++) {
        if (counts[i / d] == 0)
            continue;
        float step = (mean[i] - an[i]) * lr;
        an[i] += step < -0.1f ? -0.1f : step > 0.1f ? 0.1f : step;
    }
    return XPB_OK;
}

const xpb_kernel xpb_cpu_anneal_update = {
    .op = XPB_OP_ANNEAL_UPDATE,
    .variant = "default",
    .precision = "fp32",
    .launch = update_launch,
};
