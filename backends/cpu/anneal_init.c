/* anneal_init.c - anneal init: farthest-point anchors (xpb_ops.h). A running min-distance per
 * point in scratch; each step updates it against the newest anchor and takes the argmax (ties
 * to the lowest index: each thread keeps its first best, and the threads' bests are merged in
 * thread order, which is index order under a static schedule). */
#include <omp.h>

#include "cpu_anneal.h"

static xpb_status init_launch(void *ctx, const void *args_, void *state, xpb_error *err)
{
    (void)ctx, (void)state;
    const xpb_anneal_init_args *a = args_;
    const int64_t n = a->n, d = a->d, m = a->m;
    void *px, *pa, *pc, *ps;
    xpb_status st = xpb_cpu_anneal_sizes(n, d, m, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->x, (size_t)(n * d) * 4, "x", &px, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->anchors, (size_t)(m * d) * 4, "anchors", &pa, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->chosen, (size_t)m * 4, "chosen", &pc, err);
    if (!st)
        st = xpb_cpu_anneal_view(a->scratch, (size_t)n * 4, "scratch", &ps, err);
    if (st)
        return st;
    const float *x = px;
    float *anchors = pa, *mind = ps;
    uint32_t *chosen = pc;
    int64_t pick = 0;
    for (int64_t j = 0; j < m; j++) {
        chosen[j] = (uint32_t)pick;
        memcpy(anchors + j * d, x + pick * d, (size_t)d * sizeof(float));
        if (j == m - 1)
            break;
        const float *aj = anchors + j * d;
        float best_v = -1.0f;
        int64_t best_i = 0;
#pragma omp parallel if (n * d >= XPB_CPU_PARALLEL_MIN)
        {
            float bv = -1.0f;
            int64_t bi = 0;
#pragma omp for schedule(static)
            for (int64_t i = 0; i < n; i++) {
                float t = xpb_cpu_dist2(x + i * d, aj, d);
                float v = j == 0 || t < mind[i] ? t : mind[i];
                mind[i] = v;
                if (v > bv)
                    bv = v, bi = i;
            }
#pragma omp for ordered schedule(static, 1)
            for (int th = 0; th < omp_get_num_threads(); th++) {
#pragma omp ordered
                if (bv > best_v)
                    best_v = bv, best_i = bi;
            }
        }
        pick = best_i;
    }
    return XPB_OK;
}

const xpb_kernel xpb_cpu_anneal_init = {
    .op = XPB_OP_ANNEAL_INIT,
    .variant = "default",
    .precision = "fp32",
    .launch = init_launch,
};
