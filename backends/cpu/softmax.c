/* softmax.c - softmax per row: out = e^(x - max) / sum(e^(x - max)).
 *
 * Three passes over a row (max; exponentials stored and summed in double; scale by 1/sum). Many
 * rows: each thread takes whole rows. Few long rows: every row is split over the team, which
 * combines its partial maxima and sums in thread order (so results do not depend on timing). */
#include "cpu_internal.h"
#include "cpu_math.h"

#include <omp.h>

static float part_max(const float *x, int64_t n)
{
    float m = -INFINITY;
#pragma omp simd reduction(max : m)
    for (int64_t i = 0; i < n; i++)
        m = x[i] > m ? x[i] : m;
    return m;
}

/* out = e^(x - m), with x - m formed exactly in double (in float it would cost up to
 * |x - m| 2^-24 of relative error); returns the sum of the stored values. */
static double part_exp(const float *x, float *out, int64_t n, float m)
{
    double s = 0.0;
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; i++) {
        float e = xpb_cpu_expf_d((double)x[i] - (double)m);
        out[i] = e;
        s += (double)e;
    }
    return s;
}

static void part_scale(float *out, int64_t n, float r)
{
#pragma omp simd
    for (int64_t i = 0; i < n; i++)
        out[i] *= r;
}

static void softmax_row(const float *x, float *out, int64_t cols)
{
    float m = part_max(x, cols);
    double s = part_exp(x, out, cols, m);
    part_scale(out, cols, (float)(1.0 / s));
}

static void softmax_split(const xpb_cpu_rowop_view *v, int nt)
{
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
            sums[t] = part_exp(x, out, e - b, m);
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

static xpb_status softmax_launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)ctx;
    (void)state;
    xpb_cpu_rowop_view v;
    xpb_status st = xpb_cpu_rowop_resolve(args, false, false, &v, err);
    if (st != XPB_OK || v.rows == 0 || v.cols == 0)
        return st;
    int nt = xpb_cpu_row_split_threads(v.rows, v.cols);
    if (nt > 0) {
        softmax_split(&v, nt);
        return XPB_OK;
    }
#pragma omp parallel for schedule(static) if (v.rows * v.cols >= XPB_CPU_PARALLEL_MIN)
    for (int64_t r = 0; r < v.rows; r++)
        softmax_row(v.x + r * v.cols, v.out + r * v.cols, v.cols);
    return XPB_OK;
}

const xpb_kernel xpb_cpu_softmax = {
    .op = XPB_OP_SOFTMAX,
    .variant = "default",
    .precision = "fp32",
    .launch = softmax_launch,
};
