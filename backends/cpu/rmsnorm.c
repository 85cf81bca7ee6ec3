/* rmsnorm.c - rmsnorm per row: out = x / sqrt(mean(x^2) + eps) * w[col].
 *
 * Two passes over a row: the sum of squares (in double), then the scaling. Rows go to threads
 * whole, or are split over the team when there are few long ones (as in softmax.c). */
#include "cpu_internal.h"

#include <math.h>
#include <omp.h>

static double part_sumsq(const float *x, int64_t n)
{
    double s = 0.0;
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; i++)
        s += (double)x[i] * (double)x[i];
    return s;
}

static void part_scale(const float *x, const float *w, float *out, int64_t n, float r)
{
#pragma omp simd
    for (int64_t i = 0; i < n; i++)
        out[i] = x[i] * r * w[i];
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
            part_scale(x, v->w + b, v->out + r * v->cols + b, e - b, inv_rms(s, v->cols, eps));
            /* sums[] is rewritten only after this barrier, once every thread has read it */
#pragma omp barrier
        }
    }
}

static xpb_status rmsnorm_launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)ctx;
    (void)state;
    const xpb_rowop_args *a = args;
    xpb_cpu_rowop_view v;
    xpb_status st = xpb_cpu_rowop_resolve(a, true, false, &v, err);
    if (st != XPB_OK || v.rows == 0 || v.cols == 0)
        return st;
    int nt = xpb_cpu_row_split_threads(v.rows, v.cols);
    if (nt > 0) {
        rmsnorm_split(&v, a->eps, nt);
        return XPB_OK;
    }
#pragma omp parallel for schedule(static) if (v.rows * v.cols >= XPB_CPU_PARALLEL_MIN)
    for (int64_t r = 0; r < v.rows; r++) {
        const float *x = v.x + r * v.cols;
        float rinv = inv_rms(part_sumsq(x, v.cols), v.cols, a->eps);
        part_scale(x, v.w, v.out + r * v.cols, v.cols, rinv);
    }
    return XPB_OK;
}

const xpb_kernel xpb_cpu_rmsnorm = {
    .op = XPB_OP_RMSNORM,
    .variant = "default",
    .precision = "fp32",
    .launch = rmsnorm_launch,
};
