/* layernorm.c - layernorm per row: out = (x - mean) / sqrt(var + eps) * w[col] + b[col], with
 * the population variance.
 *
 * Three passes over a row: the mean, then the variance as the mean of (x - mean)^2 (no
 * E[x^2] - E[x]^2 cancellation), both summed in double; then the output, normalized in double.
 * Rows go to threads whole, or are split over the team when there are few long ones. */
#include "cpu_internal.h"

#include <math.h>
#include <omp.h>

static double part_sum(const float *x, int64_t n)
{
    double s = 0.0;
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; i++)
        s += (double)x[i];
    return s;
}

static double part_sumsq_dev(const float *x, int64_t n, double mean)
{
    double s = 0.0;
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; i++) {
        double d = (double)x[i] - mean;
        s += d * d;
    }
    return s;
}

static void part_norm(const float *x, const float *w, const float *b, float *out, int64_t n,
                      double mean, double rstd)
{
#pragma omp simd
    for (int64_t i = 0; i < n; i++)
        out[i] = (float)(((double)x[i] - mean) * rstd) * w[i] + b[i];
}

static double inv_std(double sumsq_dev, int64_t cols, float eps)
{
    return 1.0 / sqrt(sumsq_dev / (double)cols + (double)eps);
}

static void layernorm_split(const xpb_cpu_rowop_view *v, float eps, int nt)
{
    double sums[XPB_CPU_MAX_SPLIT], devs[XPB_CPU_MAX_SPLIT];
#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num(), team = omp_get_num_threads();
        int64_t b, e;
        xpb_cpu_chunk(v->cols, t, team, &b, &e);
        for (int64_t r = 0; r < v->rows; r++) {
            const float *x = v->x + r * v->cols + b;
            sums[t] = part_sum(x, e - b);
#pragma omp barrier
            double s = 0.0;
            for (int i = 0; i < team; i++)
                s += sums[i];
            double mean = s / (double)v->cols;
            devs[t] = part_sumsq_dev(x, e - b, mean);
#pragma omp barrier
            double q = 0.0;
            for (int i = 0; i < team; i++)
                q += devs[i];
            part_norm(x, v->w + b, v->b + b, v->out + r * v->cols + b, e - b, mean,
                      inv_std(q, v->cols, eps));
            /* sums and devs are rewritten only after a barrier every thread has passed once it
             * has read them, so no barrier is needed here. */
        }
    }
}

static xpb_status layernorm_launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)ctx;
    (void)state;
    const xpb_rowop_args *a = args;
    xpb_cpu_rowop_view v;
    xpb_status st = xpb_cpu_rowop_resolve(a, true, true, &v, err);
    if (st != XPB_OK || v.rows == 0 || v.cols == 0)
        return st;
    int nt = xpb_cpu_row_split_threads(v.rows, v.cols);
    if (nt > 0) {
        layernorm_split(&v, a->eps, nt);
        return XPB_OK;
    }
#pragma omp parallel for schedule(static) if (v.rows * v.cols >= XPB_CPU_PARALLEL_MIN)
    for (int64_t r = 0; r < v.rows; r++) {
        const float *x = v.x + r * v.cols;
        double mean = part_sum(x, v.cols) / (double)v.cols;
        double rstd = inv_std(part_sumsq_dev(x, v.cols, mean), v.cols, a->eps);
        part_norm(x, v.w, v.b, v.out + r * v.cols, v.cols, mean, rstd);
    }
    return XPB_OK;
}

const xpb_kernel xpb_cpu_layernorm = {
    .op = XPB_OP_LAYERNORM,
    .variant = "default",
    .precision = "fp32",
    .launch = layernorm_launch,
};
