/* rmsnorm.c - rmsnorm per row: out = x / sqrt(mean(x^2) + eps) * w[col].
 *
 * Two passes over a row: the sum of squares (in double), then the scaling. Rows go to threads
 * whole, or are split over the team when there are few long ones (as in softmax.c). */
#include "cpu_internal.h"

#include <math.h>
#include <omp.h>

/* Sum in double of x^2 over [0, n), in XPB_CPU_ACC independent lanes. */
static double part_sumsq(const float *x, int64_t n)
{
    double acc[XPB_CPU_ACC] = {0.0};
    int64_t i = 0;
    for (; i + XPB_CPU_ACC <= n; i += XPB_CPU_ACC)
#pragma omp simd
        for (int j = 0; j < XPB_CPU_ACC; j++)
            acc[j] += (double)x[i + j] * (double)x[i + j];
    double s = 0.0;
    for (; i < n; i++)
        s += (double)x[i] * (double)x[i];
    for (int j = 0; j < XPB_CPU_ACC; j++)
        s += acc[j];
    return s;
}

/* out = x * r * w, prefetching the next row (or NULL) as it goes. */
static void part_scale(const float *x, const float *w, float *out, int64_t n, float r,
                       const float *next)
{
    for (int64_t b = 0; b < n; b += XPB_CPU_BLOCK) {
        int64_t e = b + XPB_CPU_BLOCK < n ? b + XPB_CPU_BLOCK : n;
        xpb_cpu_prefetch_next(next, b, e, n);
#pragma omp simd
        for (int64_t i = b; i < e; i++)
            out[i] = x[i] * r * w[i];
    }
}

/* 1 / sqrt(mean + eps), rounded once to float */
static float inv_rms(double sumsq, int64_t cols, float eps)
{
    return (float)(1.0 / sqrt(sumsq / (double)cols + (double)eps));
}

static void rmsnorm_split(const xpb_cpu_rowop_view *v, float eps, int nt)
{
    double sums[XPB_CPU_MAX_SPLIT];
#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num(), team = omp_get_num_threads();
        int64_t b, e;
        xpb_cpu_chunk(v->cols, t, team, &b, &e);
        for (int64_t r = 0; r < v->rows; r++) {
            const float *x = v->x + r * v->cols + b;
            sums[t] = part_sumsq(x, e - b);
#pragma omp barrier
            double s = 0.0;
            for (int i = 0; i < team; i++)
                s += sums[i];
            part_scale(x, v->w + b, v->out + r * v->cols + b, e - b, inv_rms(s, v->cols, eps),
                       NULL);
            /* sums[] is rewritten only after this barrier, once every thread has read it */
#pragma omp barrier
        }
    }
}

static void rmsnorm_row(const xpb_cpu_rowop_view *v, int64_t r, float eps, const float *next)
{
    const float *x = v->x + r * v->cols;
    part_scale(x, v->w, v->out + r * v->cols, v->cols, inv_rms(part_sumsq(x, v->cols), v->cols, eps), next);
}

static xpb_status rmsnorm_launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)ctx;
    (void)state;
    return xpb_cpu_rowop_run(args, true, false, rmsnorm_row, rmsnorm_split, err);
}

const xpb_kernel xpb_cpu_rmsnorm = {
    .op = XPB_OP_RMSNORM,
    .variant = "default",
    .precision = "fp32",
    .launch = rmsnorm_launch,
};
