/* reference.c - fp64 reference of the elementwise and row ops, with the per-element error bound
 * each fp32 implementation must meet. Written for clarity, not speed; it is the oracle for every
 * backend, the optimized CPU backend included. docs/validation.md explains each bound.
 *
 * Notation: u = 2^-24 (fp32 unit roundoff). Reductions over c terms may be done in any order
 * (sequential, tree, vectorized partial sums), so their error uses the probabilistic bound of
 * Higham & Mary (2019): |error| <= lambda * sqrt(c) * u * sum|terms| with lambda = 10, which holds
 * with probability >= 1 - 2 exp(-lambda^2 / 2) ~ 1 - 4e-22 per reduction. The transcendental
 * functions are budgeted at the Vulkan spec's precision (exp: 3 + 2|x| ulp), the loosest backend's
 * contract, plus a floor of FLT_MIN for results that an implementation may flush to zero. */
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "elementwise.h"

#define U 0x1p-24
#define LAMBDA 10.0

static double exp_ulps(double x) { return 3.0 + 2.0 * fabs(x); }

size_t ew_unit_elements(const xpb_case *c)
{
    switch (ew_family_of(c->op)) {
    case EW_ROWS: return (size_t)xpb_case_param(c, "cols", 1);
    case EW_ROPE: return (size_t)xpb_case_param(c, "head_dim", 2);
    case EW_POINTWISE: break;
    }
    return 1;
}

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

static void pointwise(const xpb_case *c, const xpb_case_data *d, size_t i0, size_t i1, double *ref,
                      double *tol)
{
    const float *x = d->in[EW_IN_X];
    const float *y = d->in[EW_IN_Y];
    const double a = (double)(float)c->scalar[0];
    for (size_t i = i0; i < i1; i++) {
        double xi = x[i], r = 0, t = 0;
        switch (c->op) {
        case XPB_OP_COPY: r = xi; break;                     /* exact */
        case XPB_OP_RELU: r = xi > 0 ? xi : 0.0; break;      /* exact */
        case XPB_OP_ADD: r = xi + y[i]; t = U * fabs(r); break; /* one correctly rounded op */
        case XPB_OP_MUL: r = xi * y[i]; t = U * fabs(r); break;
        case XPB_OP_SCALE: r = a * xi; t = U * fabs(r); break;
        case XPB_OP_SIGMOID: /* exp, one add, one divide */
            r = sigmoid(xi);
            t = (exp_ulps(xi) + 3.0) * U * fabs(r) + FLT_MIN;
            break;
        case XPB_OP_SILU: /* sigmoid, then one multiply */
            r = xi * sigmoid(xi);
            t = (exp_ulps(xi) + 4.0) * U * fabs(r) + FLT_MIN;
            break;
        default: break;
        }
        ref[i - i0] = r;
        tol[i - i0] = t;
    }
}

/* Exact-class rows (row_inputs.c) leave only the last steps to round, whatever the row length:
 * the sums are exact, so what remains is a divide by the row length and + eps (2.5 + 1 ulp
 * relative, halved by the square root), the square root or its inverse (2.5), the normalising
 * divide or multiply (2.5) and the weight (1): Vulkan's precision contract, the loosest. */
#define EXACT_NORM_ULPS (0.5 * 3.5 + 2.5 + 2.5 + 1.0)
/* Softmax on exact rows: the sum is the count of maxima, so only the divide (2.5 ulp) is left,
 * provided exp(0) = 1 exactly, as on every backend (a backend where it is not fails loudly). */
#define EXACT_SOFTMAX_ULPS 3.0

static void softmax_row(const float *x, size_t cols, bool exact, double *ref, double *tol)
{
    double m = -INFINITY, s = 0, dmax = 0;
    for (size_t j = 0; j < cols; j++)
        m = x[j] > m ? x[j] : m;
    for (size_t j = 0; j < cols; j++) { /* e_j kept in ref[j]: exp once per element (most of the time) */
        ref[j] = exp(x[j] - m);
        s += ref[j];
        dmax = fmax(dmax, m - x[j]);
    }
    /* e_j = exp(x_j - m): the fp32 subtraction (u|d|) and exp (3+2|d| ulp); the sum adds the
     * largest term error and the reduction bound; the divide one more rounding. */
    double sum_err = exp_ulps(dmax) + dmax + 1.0 + LAMBDA * sqrt((double)cols);
    for (size_t j = 0; j < cols; j++) {
        double dj = m - x[j];
        ref[j] = ref[j] / s; /* exp(-dj) / s: x_j - m = -(m - x_j) exactly, rounding being symmetric */
        tol[j] = (exact ? EXACT_SOFTMAX_ULPS : exp_ulps(dj) + dj + 2.0 + sum_err) * U * ref[j] + FLT_MIN;
    }
}

static void rmsnorm_row(const float *x, const float *w, size_t cols, double eps, bool exact, double *ref,
                        double *tol)
{
    double ss = 0;
    for (size_t j = 0; j < cols; j++)
        ss += (double)x[j] * x[j];
    double r = 1.0 / sqrt(ss / (double)cols + eps);
    /* mean of squares: squares (u), reduction, divide, + eps: rel (lambda sqrt(c) + 3) u;
     * (inverse) square root halves it and adds up to 2 ulp; then two multiplies. */
    double rel = (exact ? EXACT_NORM_ULPS : 0.5 * (LAMBDA * sqrt((double)cols) + 3.0) + 2.0 + 2.0) * U;
    for (size_t j = 0; j < cols; j++) {
        ref[j] = x[j] * r * w[j];
        tol[j] = rel * fabs(ref[j]) + FLT_MIN;
    }
}

static void layernorm_row(const float *x, const float *g, const float *b, size_t cols, double eps,
                          bool exact, double *ref, double *tol)
{
    double mean = 0, mean_abs = 0, var = 0;
    for (size_t j = 0; j < cols; j++) {
        mean += x[j];
        mean_abs += fabs((double)x[j]);
    }
    mean /= (double)cols;
    mean_abs /= (double)cols;
    for (size_t j = 0; j < cols; j++)
        var += (x[j] - mean) * (x[j] - mean);
    var /= (double)cols;
    double rstd = 1.0 / sqrt(var + eps);
    double red = LAMBDA * sqrt((double)cols) + 2.0;
    double mean_err = red * U * mean_abs;          /* |mean_hat - mean|                      */
    double rstd_rel = (0.5 * (red + 3.0) + 2.0) * U; /* variance reduction, sqrt, reciprocal */
    if (exact) { /* the mean and every centred value are exact; the variance's sum too */
        mean_err = 0;
        rstd_rel = (EXACT_NORM_ULPS - 3.5) * U; /* the normalising step and the weight come below */
    }
    for (size_t j = 0; j < cols; j++) {
        double centered = x[j] - mean;
        ref[j] = centered * rstd * g[j] + b[j];
        double scaled = fabs(centered) * rstd * fabs((double)g[j]);
        /* (x - mean_hat): the mean's error plus one rounding; times rstd_hat and g; plus b. */
        tol[j] = (mean_err + (exact ? 0 : U) * fabs(centered)) * rstd * fabs((double)g[j]) +
                 scaled * (rstd_rel + (exact ? 3.5 : 2.0) * U) + 2.0 * U * (fabs((double)b[j]) + fabs(ref[j])) +
                 FLT_MIN;
    }
}

/* One head_dim vector at sequence position p. */
static void rope_vector(const float *x, size_t dim, double p, double base, double *ref, double *tol)
{
    for (size_t i = 0; i < dim / 2; i++) {
        double inv_freq = pow(base, -2.0 * (double)i / (double)dim);
        double theta = p * inv_freq;
        double x0 = x[2 * i], x1 = x[2 * i + 1];
        double cs = cos(theta), sn = sin(theta);
        ref[2 * i] = x0 * cs - x1 * sn;
        ref[2 * i + 1] = x0 * sn + x1 * cs;
        /* fp32 angle: inv_freq from pow/exp2 (argument rounding scales with |log2 inv_freq|,
         * exp2 up to 3 + 2|arg| ulp), the product p * inv_freq, and the trig range reduction
         * (~|theta| u); then sin/cos (2 ulp) and the rotation (3 roundings). */
        double angle_err = fabs(theta) * U * (3.0 + 6.0 * fabs(log2(inv_freq)));
        double t = (fabs(x0) + fabs(x1)) * (angle_err + 6.0 * U) + FLT_MIN;
        tol[2 * i] = t;
        tol[2 * i + 1] = t;
    }
}

void ew_reference(const xpb_case *c, const xpb_case_data *d, const char *precision, size_t u0,
                  size_t u1, double *ref, double *tol)
{
    (void)precision;
    const float *x = d->in[EW_IN_X];
    size_t unit = ew_unit_elements(c);
    bool exact = ew_input_of(c) == XPB_INPUT_EXACT;
    double eps = (double)(float)c->scalar[1]; /* the kernels get eps in fp32 */
    for (size_t u = u0; u < u1 && ew_family_of(c->op) != EW_POINTWISE; u++) {
        const float *xr = x + u * unit;
        double *r = ref + (u - u0) * unit, *t = tol + (u - u0) * unit;
        if (c->op == XPB_OP_SOFTMAX)
            softmax_row(xr, unit, exact, r, t);
        else if (c->op == XPB_OP_RMSNORM)
            rmsnorm_row(xr, d->in[EW_IN_W], unit, eps, exact, r, t);
        else if (c->op == XPB_OP_LAYERNORM)
            layernorm_row(xr, d->in[EW_IN_W], d->in[EW_IN_B], unit, eps, exact, r, t);
        else {
            size_t seq = (size_t)xpb_case_param(c, "seq", 1);
            rope_vector(xr, unit, (double)(u % seq), (double)(float)c->scalar[2], r, t);
        }
    }
    if (ew_family_of(c->op) == EW_POINTWISE)
        pointwise(c, d, u0, u1, ref, tol);
}

const char *ew_tolerance_text(const xpb_case *c, const char *precision)
{
    (void)precision;
    if (ew_input_of(c) == XPB_INPUT_EXACT) {
        if (c->op == XPB_OP_SOFTMAX)
            return "exact input (sums exact): |err| <= 3u |ref| + FLT_MIN (the divide), u = 2^-24";
        if (c->op == XPB_OP_RMSNORM)
            return "exact input (sums exact): |err| <= 7.75u |ref| + FLT_MIN (/n, +eps, sqrt, divide, weight)";
        return "exact input (mean and sums exact): |err| <= 7.75u |(x-mean) rstd g| + 2u(|b|+|ref|) + FLT_MIN";
    }
    switch (c->op) {
    case XPB_OP_COPY:
    case XPB_OP_RELU: return "exact: |err| = 0";
    case XPB_OP_ADD:
    case XPB_OP_MUL:
    case XPB_OP_SCALE: return "correctly rounded: |err| <= u|ref|, u = 2^-24";
    case XPB_OP_SIGMOID: return "|err| <= (6 + 2|x|) u |ref| + FLT_MIN (exp at 3+2|x| ulp)";
    case XPB_OP_SILU: return "|err| <= (7 + 2|x|) u |ref| + FLT_MIN (exp at 3+2|x| ulp)";
    case XPB_OP_SOFTMAX:
        return "|err| <= (exp+sub error of the element + of the sum + 10 sqrt(cols) + 3) u |ref| + FLT_MIN";
    case XPB_OP_RMSNORM: return "|err| <= (5 sqrt(cols) + 5.5) u |ref| + FLT_MIN";
    case XPB_OP_LAYERNORM:
        return "|err| <= mean error (10 sqrt(cols)+2) u mean|x| scaled by rstd|g|, + rstd error on |y-b|, + 2u(|b|+|ref|)";
    case XPB_OP_ROPE:
        return "|err| <= (|x0|+|x1|) (|theta| u (3 + 6|log2 inv_freq|) + 6u) + FLT_MIN";
    default: break;
    }
    return "?";
}
