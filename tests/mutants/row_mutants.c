/* row_mutants.c - plain softmax, rmsnorm and layernorm (sums in double, one row per iteration)
 * with one bug switched on by mutant_bug; BUG_NONE is the control. Test-only (mutants.h). */
#include <math.h>

#include "cpu_internal.h"
#include "mutants.h"

static void softmax_row(const float *x, float *y, int64_t n, mutant_bug bug)
{
    float m = -INFINITY;
    for (int64_t j = 0; j < n; j++)
        m = x[j] > m ? x[j] : m;
    if (bug == BUG_SOFTMAX_NO_MAX)
        m = 0;
    /* each exp once, kept in y (the same bits as computing it again for the output) */
    for (int64_t j = 0; j < n; j++)
        y[j] = expf(x[j] - m);
    double s = 0;
    for (int64_t j = 0; j < n - (bug == BUG_SOFTMAX_SUM_SKIPS_LAST); j++)
        s += y[j];
    for (int64_t j = 0; j < n; j++)
        y[j] = (float)(y[j] / s);
}

static void rmsnorm_row(const float *x, const float *w, float *y, int64_t n, float eps, mutant_bug bug)
{
    double ss = 0;
    for (int64_t j = 0; j < n; j++)
        ss += (double)x[j] * x[j];
    double ms = ss / (double)(n - (bug == BUG_RMSNORM_MEAN_N_MINUS_1));
    double r = 1.0 / sqrt(ms + (bug == BUG_RMSNORM_NO_EPS ? 0.0 : (double)eps));
    for (int64_t j = 0; j < n; j++)
        y[j] = (float)(x[j] * r * w[j]);
}

static void layernorm_row(const float *x, const float *g, const float *b, float *y, int64_t n, float eps,
                          mutant_bug bug)
{
    double mean = 0, var = 0;
    if (bug == BUG_LAYERNORM_ONE_PASS) {
        float s1 = 0, s2 = 0;
        for (int64_t j = 0; j < n; j++)
            s1 += x[j], s2 += x[j] * x[j];
        float mf = s1 / (float)n;
        mean = mf;
        var = s2 / (float)n - mf * mf;
    } else if (bug == BUG_LAYERNORM_SHIFTED_FP32) { /* the fp64 folds' sums, in fp32 */
        float s1 = 0, s2 = 0;
        for (int64_t j = 0; j < n; j++) {
            float d = x[j] - x[0];
            s1 += d, s2 += d * d;
        }
        float c1 = s1 / (float)n;
        mean = (double)(x[0] + c1);
        var = s2 / (float)n - c1 * c1;
    } else {
        for (int64_t j = 0; j < n; j++)
            mean += x[j];
        mean /= (double)n;
        for (int64_t j = 0; j < n; j++)
            var += (x[j] - mean) * (x[j] - mean);
        var /= (double)(n - (bug == BUG_LAYERNORM_SAMPLE_VAR));
    }
    double rstd = bug == BUG_LAYERNORM_EPS_OUTSIDE ? 1.0 / (sqrt(var) + eps) : 1.0 / sqrt(var + eps);
    for (int64_t j = 0; j < n; j++)
        y[j] = (float)((x[j] - mean) * rstd * g[j] + b[j]);
}

static xpb_status rows_launch(const void *args, xpb_op op, mutant_bug bug, xpb_error *err)
{
    xpb_cpu_rowop_view v;
    xpb_status st = xpb_cpu_rowop_resolve(args, op != XPB_OP_SOFTMAX, op == XPB_OP_LAYERNORM, &v, err);
    if (st)
        return st;
    float eps = ((const xpb_rowop_args *)args)->eps;
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t r = 0; r < v.rows; r++) {
        const float *x = v.x + r * v.cols;
        float *y = v.out + r * v.cols;
        if (op == XPB_OP_SOFTMAX)
            softmax_row(x, y, v.cols, bug);
        else if (op == XPB_OP_RMSNORM)
            rmsnorm_row(x, v.w, y, v.cols, eps, bug);
        else
            layernorm_row(x, v.w, v.b, y, v.cols, eps, bug);
    }
    return XPB_OK;
}

static xpb_status softmax_launch(const void *a, mutant_bug bug, xpb_error *e) { return rows_launch(a, XPB_OP_SOFTMAX, bug, e); }
static xpb_status rmsnorm_launch(const void *a, mutant_bug bug, xpb_error *e) { return rows_launch(a, XPB_OP_RMSNORM, bug, e); }
static xpb_status layernorm_launch(const void *a, mutant_bug bug, xpb_error *e) { return rows_launch(a, XPB_OP_LAYERNORM, bug, e); }

XPB_MUTANT_KERNEL(softmax_control, XPB_OP_SOFTMAX, softmax_launch, BUG_NONE)
XPB_MUTANT_KERNEL(softmax_sum_skips_last, XPB_OP_SOFTMAX, softmax_launch, BUG_SOFTMAX_SUM_SKIPS_LAST)
XPB_MUTANT_KERNEL(softmax_no_max, XPB_OP_SOFTMAX, softmax_launch, BUG_SOFTMAX_NO_MAX)
XPB_MUTANT_KERNEL(rmsnorm_control, XPB_OP_RMSNORM, rmsnorm_launch, BUG_NONE)
XPB_MUTANT_KERNEL(rmsnorm_mean_n_minus_1, XPB_OP_RMSNORM, rmsnorm_launch, BUG_RMSNORM_MEAN_N_MINUS_1)
XPB_MUTANT_KERNEL(rmsnorm_no_eps, XPB_OP_RMSNORM, rmsnorm_launch, BUG_RMSNORM_NO_EPS)
XPB_MUTANT_KERNEL(layernorm_control, XPB_OP_LAYERNORM, layernorm_launch, BUG_NONE)
XPB_MUTANT_KERNEL(layernorm_sample_var, XPB_OP_LAYERNORM, layernorm_launch, BUG_LAYERNORM_SAMPLE_VAR)
XPB_MUTANT_KERNEL(layernorm_eps_outside_sqrt, XPB_OP_LAYERNORM, layernorm_launch, BUG_LAYERNORM_EPS_OUTSIDE)
XPB_MUTANT_KERNEL(layernorm_one_pass_fp32, XPB_OP_LAYERNORM, layernorm_launch, BUG_LAYERNORM_ONE_PASS)
XPB_MUTANT_KERNEL(layernorm_shifted_fp32, XPB_OP_LAYERNORM, layernorm_launch, BUG_LAYERNORM_SHIFTED_FP32)
