/* layernorm.c - layernorm per row: out = (x - mean) / sqrt(var + eps) * w[col] + b[col], with
 * the population variance.
 *
 * Three passes over a row: the mean, then the variance as the mean of (x - mean)^2 (no
 * E[x^2] - E[x]^2 cancellation), both summed in double; then the output, in float.
 * Rows go to threads whole, or are split over the team when there are few long ones. */
#include "cpu_internal.h"

#include <math.h>
#include <omp.h>

/* Sums in double over [0, n) of x and of (x - mean)^2, in XPB_CPU_ACC independent lanes. */
static double part_sum(const float *x, int64_t n)
{
    double acc[XPB_CPU_ACC] = {0.0};
    int64_t i = 0;
    for (; i + XPB_CPU_ACC <= n; i += XPB_CPU_ACC)
#pragma omp simd
        for (int j = 0; j < XPB_CPU_ACC; j++)
            acc[j] += (double)x[i + j];
    double s = 0.0;
    for (; i < n; i++)
        s += (double)x[i];
    for (int j = 0; j < XPB_CPU_ACC; j++)
        s += acc[j];
    return s;
}

static double part_sumsq_dev(const float *x, int64_t n, double mean)
{
    double acc[XPB_CPU_ACC] = {0.0};
    int64_t i = 0;
    for (; i + XPB_CPU_ACC <= n; i += XPB_CPU_ACC)
#pragma omp simd
        for (int j = 0; j < XPB_CPU_ACC; j++) {
            double d = (double)x[i + j] - mean;
            acc[j] += d * d;
        }
    double s = 0.0;
    for (; i < n; i++) {
        double d = (double)x[i] - mean;
        s += d * d;
    }
    for (int j = 0; j < XPB_CPU_ACC; j++)
        s += acc[j];
    return s;
}

/* out = (x - mean) * rstd * w + b in float (mean and rstd rounded once from double),
 * prefetching the next row (or NULL) as it goes. */
static void part_norm(const float *x, const float *w, const float *b, float *out, int64_t n,
                      double mean, double rstd, const float *next)
{
    const float mean_f = (float)mean, rstd_f = (float)rstd;
    for (int64_t k = 0; k < n; k += XPB_CPU_BLOCK) {
        int64_t e = k + XPB_CPU_BLOCK < n ? k + XPB_CPU_BLOCK : n;
        xpb_cpu_prefetch_next(next, k, e, n);
#pragma omp simd
        for (int64_t i = k; i < e; i++)
            out[i] = (x[i] - mean_f) * rstd_f * w[i] + b[i];
    }
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
                      inv_std(q, v->cols, eps), NULL);
            /* sums and devs are rewritten only after a barrier every thread has passed once it
             * has read them, so no barrier is needed here. */
        }
    }
}

static void layernorm_row(const xpb_cpu_rowop_view *v, int64_t r, float eps, const float *next)
{
    const float *x = v->x + r * v->cols;
    double mean = part_sum(x, v->cols) / (double)v->cols;
    double rstd = inv_std(part_sumsq_dev(x, v->cols, mean), v->cols, eps);
    part_norm(x, v->w, v->b, v->out + r * v->cols, v->cols, mean, rstd, next);
}

static xpb_status layernorm_launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)ctx;
    (void)state;
    return xpb_cpu_rowop_run(args, true, true, layernorm_row, layernorm_split, err);
}

const xpb_kernel xpb_cpu_layernorm = {
    .op = XPB_OP_LAYERNORM,
    .variant = "default",
    .precision = "fp32",
    .launch = layernorm_launch,
};
