/* softmax.c - softmax per row: out = e^(x - max) / sum(e^(x - max)).
 *
 * Passes over a row: max; exponentials stored; their sum in double; scale by 1/sum. Many
 * rows: each thread takes whole rows. Few long rows: every row is split over the team, which
 * combines its partial maxima and sums in thread order (so results do not depend on timing). */
#include "cpu_internal.h"
#include "cpu_math.h"

#include <omp.h>

/* Largest of x[0..n) (NaNs are skipped), in XPB_CPU_ACC independent lanes: unlike
 * `omp simd reduction(max:)`, this vectorizes with Clang too (no -ffast-math). */
static float part_max(const float *x, int64_t n)
{
    float acc[XPB_CPU_ACC];
    for (int j = 0; j < XPB_CPU_ACC; j++)
        acc[j] = -INFINITY;
    int64_t i = 0;
    for (; i + XPB_CPU_ACC <= n; i += XPB_CPU_ACC)
#pragma omp simd
        for (int j = 0; j < XPB_CPU_ACC; j++)
            acc[j] = x[i + j] > acc[j] ? x[i + j] : acc[j];
    float m = -INFINITY;
    for (; i < n; i++)
        m = x[i] > m ? x[i] : m;
    for (int j = 0; j < XPB_CPU_ACC; j++)
        m = acc[j] > m ? acc[j] : m;
    return m;
}

/* out = e^(x - m), prefetching the next row (or NULL) as it goes. */
static void part_exp(const float *x, float *out, int64_t n, float m, const float *next)
{
    for (int64_t b = 0; b < n; b += XPB_CPU_BLOCK) {
        int64_t e = b + XPB_CPU_BLOCK < n ? b + XPB_CPU_BLOCK : n;
        xpb_cpu_prefetch_next(next, b, e, n);
#pragma omp simd
        for (int64_t i = b; i < e; i++)
            out[i] = xpb_cpu_expf(x[i] - m);
    }
}

/* Sum in double of out[0..n) (the stored exponentials), in XPB_CPU_ACC independent lanes. A
 * separate pass: summing inside part_exp's loop made it 1.5x slower, and out is still in cache. */
static double part_sum(const float *out, int64_t n)
{
    double acc[XPB_CPU_ACC] = {0.0};
    int64_t i = 0;
    for (; i + XPB_CPU_ACC <= n; i += XPB_CPU_ACC)
#pragma omp simd
        for (int j = 0; j < XPB_CPU_ACC; j++)
            acc[j] += (double)out[i + j];
    double s = 0.0;
    for (; i < n; i++)
        s += (double)out[i];
    for (int j = 0; j < XPB_CPU_ACC; j++)
        s += acc[j];
    return s;
}

static void part_scale(float *out, int64_t n, float r)
{
#pragma omp simd
    for (int64_t i = 0; i < n; i++)
        out[i] *= r;
}

static void softmax_row(const float *x, float *out, int64_t cols, const float *next)
{
    float m = part_max(x, cols);
    part_exp(x, out, cols, m, next);
    part_scale(out, cols, (float)(1.0 / part_sum(out, cols)));
}

static void softmax_split(const xpb_cpu_rowop_view *v, float eps, int nt)
{
    (void)eps; /* softmax has none (xpb_cpu_split_fn) */
    float maxes[XPB_CPU_MAX_SPLIT];
    double sums[XPB_CPU_MAX_SPLIT];
#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num(), team = omp_get_num_threads();
        int64_t b, e;
        xpb_cpu_chunk(v->cols, t, team, &b, &e);
        for (int64_t r = 0; r < v->rows; r++) {
            const float *x = v->x + r * v->cols + b;
            float *out = v->out + r * v->cols + b;
            maxes[t] = part_max(x, e - b);
#pragma omp barrier
            float m = maxes[0];
            for (int i = 1; i < team; i++)
                m = maxes[i] > m ? maxes[i] : m;
            part_exp(x, out, e - b, m, NULL);
            sums[t] = part_sum(out, e - b);
#pragma omp barrier
            double s = 0.0;
            for (int i = 0; i < team; i++)
                s += sums[i];
            part_scale(out, e - b, (float)(1.0 / s));
            /* maxes and sums are rewritten only after the next barrier every thread has passed
             * once it has read them, so no barrier is needed here. */
        }
    }
}

static void softmax_one(const xpb_cpu_rowop_view *v, int64_t r, float eps, const float *next)
{
    (void)eps;
    softmax_row(v->x + r * v->cols, v->out + r * v->cols, v->cols, next);
}

static xpb_status softmax_launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)ctx;
    (void)state;
    return xpb_cpu_rowop_run(args, false, false, softmax_one, softmax_split, err);
}

const xpb_kernel xpb_cpu_softmax = {
    .op = XPB_OP_SOFTMAX,
    .variant = "default",
    .precision = "fp32",
    .launch = softmax_launch,
};
