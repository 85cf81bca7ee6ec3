/* anneal_init.c - anneal init: farthest-point anchors (xpb_ops.h). A running min-distance per
 * point in scratch; each step updates it against the newest anchor and takes the argmax (ties
 * to the lowest index: each thread keeps its first best of a contiguous static share, and the
 * threads' bests are merged in thread order, which is index order).
 *
 * The bound (as the GPU backends', backends/cuda/anneal/anneal_init.cu "Speed"): a point whose
 * minimum is its distance to anchor a = owner[i] cannot come nearer to the new anchor p when
 * |a - p| >= 2 |x_i - a|, so its distance is not computed. Each step first gives every earlier
 * anchor a threshold (workloads/ops/xpb_anneal_init_bound.h, shared with CUDA): the largest
 * minimum for which that holds with every rounding of both fp32 distances bounded; a point at or
 * below its owner's threshold keeps its minimum, which is what the comparison would have kept.
 * XPB_CPU_INIT_BOUND=off computes every distance
 * (ctest anneal_init_bound_cpu: the same bits either way). */
#include <math.h>
#include <omp.h>

#include "cpu_anneal.h"
#include "xpb_anneal_init_bound.h"
#include "xpb_knob.h"

#define MAX_THREADS 1024

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
        st = xpb_cpu_anneal_view(a->scratch, (size_t)n * 8 + (size_t)m * 4 + MAX_THREADS * 12, "scratch", &ps, err);
    int off = 0; /* XPB_CPU_INIT_BOUND: on, off */
    if (!st)
        st = xpb_knob_get_choice(XPB_KNOB_CPU_INIT_BOUND, &off, err);
    if (st)
        return st;
    const bool bound = off == 0;
    const float *x = px;
    float *anchors = pa;
    uint32_t *chosen = pc;
    /* scratch: each thread's best (index, value) of the step, the running min-distances, each
     * point's owner (the anchor its minimum is the distance to), each anchor's threshold */
    int64_t *best_i = ps;
    float *best_v = (float *)(best_i + MAX_THREADS), *mind = best_v + MAX_THREADS;
    uint32_t *owner = (uint32_t *)(mind + n);
    float *thr = (float *)(owner + n);
    int threads = omp_get_max_threads() < MAX_THREADS ? omp_get_max_threads() : MAX_THREADS;
    chosen[0] = 0;
    memcpy(anchors, x, (size_t)d * sizeof(float));
    /* One team for all steps (a fork per step costs more than a step of a small case). */
#pragma omp parallel num_threads(threads) if (n * d >= XPB_CPU_PARALLEL_MIN)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        for (int64_t j = 0; j + 1 < m; j++) {
            const float *aj = anchors + j * d;
            float bv = -1.0f;
            int64_t bi = 0;
            if (bound && j > 0) { /* the same on every thread: all meet this loop or none */
#pragma omp for schedule(static)
                for (int64_t q = 0; q < j; q++) {
                    double dd = 0.0;
                    for (int64_t k = 0; k < d; k++) {
                        const double u = (double)anchors[q * d + k] - (double)aj[k];
                        dd += u * u;
                    }
                    thr[q] = xpb_anneal_init_threshold(dd, d, XPB_INIT_BOUND_ETA_FLUSHED);
                }
            }
#pragma omp for schedule(static)
            for (int64_t i = 0; i < n; i++) {
                float v = mind[i];
                if (!(bound && j > 0 && v <= thr[owner[i]])) {
                    const float dd = xpb_cpu_dist2(x + i * d, aj, d);
                    if (j == 0 || dd < v) {
                        v = dd;
                        owner[i] = (uint32_t)j;
                    }
                    mind[i] = v;
                }
                if (v > bv)
                    bv = v, bi = i;
            }
            best_v[t] = bv, best_i[t] = bi;
#pragma omp barrier
#pragma omp single
            { /* threads hold consecutive index ranges in thread order: the first best wins ties */
                int64_t pick = best_i[0];
                float pv = best_v[0];
                for (int q = 1; q < nt; q++)
                    if (best_v[q] > pv)
                        pv = best_v[q], pick = best_i[q];
                chosen[j + 1] = (uint32_t)pick;
                memcpy(anchors + (j + 1) * d, x + pick * d, (size_t)d * sizeof(float));
            }
        }
    }
    return XPB_OK;
}

const xpb_kernel xpb_cpu_anneal_init = {
    .op = XPB_OP_ANNEAL_INIT,
    .variant = "default",
    .precision = "fp32",
    .launch = init_launch,
};
