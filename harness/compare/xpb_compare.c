/* xpb_compare.c - statistics of one case's shift between two runs, and its verdict
 * (xpb_compare.h). */
#include "xpb_compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define Z95 1.959963984540054
#define PI 3.14159265358979323846

const char *xpb_verdict_name(xpb_verdict v)
{
    switch (v) {
    case XPB_VERDICT_SAME: return "same";
    case XPB_VERDICT_FASTER: return "faster";
    case XPB_VERDICT_SLOWER: return "slower";
    case XPB_VERDICT_NOISY: return "noisy";
    case XPB_VERDICT_INCOMPARABLE: return "incomparable";
    case XPB_VERDICT_COUNT: break;
    }
    return "?";
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A sorted copy of v (NULL when out of memory or n == 0). */
static double *sorted_copy(const double *v, size_t n)
{
    double *s = n ? malloc(n * sizeof *s) : NULL;
    if (!s)
        return NULL;
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    return s;
}

static double median_sorted(const double *s, size_t n)
{
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/* Linear interpolation between order statistics (numpy's default). */
static double quantile_sorted(const double *s, size_t n, double p)
{
    double h = (double)(n - 1) * p;
    size_t lo = (size_t)h;
    return lo + 1 < n ? s[lo] + (h - (double)lo) * (s[lo + 1] - s[lo]) : s[n - 1];
}

double xpb_median_of(const double *v, size_t n)
{
    double *s = sorted_copy(v, n);
    if (!s)
        return NAN;
    double m = median_sorted(s, n);
    free(s);
    return m;
}

int xpb_median_ci(const double *v, size_t n, double *median, double *lo, double *hi)
{
    double *s = sorted_copy(v, n);
    if (!s)
        return -1;
    /* 1-based ranks j <= k with P(x_(j) <= median <= x_(k)) ~ 95% (binomial, normal approx.) */
    double half = Z95 * sqrt((double)n) / 2.0;
    long j = (long)floor((double)n / 2.0 - half);
    long k = (long)ceil((double)n / 2.0 + 1.0 + half);
    if (j < 1)
        j = 1;
    if (k > (long)n)
        k = (long)n;
    *median = median_sorted(s, n);
    *lo = s[j - 1];
    *hi = s[k - 1];
    free(s);
    return 0;
}

typedef struct ranked {
    double v;
    int group; /* 0: a, 1: b */
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
    return cmp_double(&((const ranked *)a)->v, &((const ranked *)b)->v);
}

double xpb_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb, double *u)
{
    if (na == 0 || nb == 0)
        return NAN;
    size_t n = na + nb;
    ranked *r = malloc(n * sizeof *r);
    if (!r)
        return NAN;
    for (size_t i = 0; i < na; i++)
        r[i] = (ranked){a[i], 0};
    for (size_t i = 0; i < nb; i++)
        r[na + i] = (ranked){b[i], 1};
    qsort(r, n, sizeof *r, cmp_ranked);
    double rank_sum_a = 0, tie_term = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && r[j].v == r[i].v)
            j++;
        double t = (double)(j - i), avg_rank = (double)(i + j + 1) / 2.0; /* ranks i+1 .. j */
        for (size_t m = i; m < j; m++)
            if (r[m].group == 0)
                rank_sum_a += avg_rank;
        tie_term += t * t * t - t;
        i = j;
    }
    free(r);
    double dna = (double)na, dnb = (double)nb, dn = (double)n;
    double ua = rank_sum_a - dna * (dna + 1) / 2.0;
    if (u)
        *u = ua;
    double var = dna * dnb / 12.0 * ((dn + 1) - tie_term / (dn * (dn - 1)));
    if (!(var > 0))
        return 1.0;
    double z = (fabs(ua - dna * dnb / 2.0) - 0.5) / sqrt(var);
    if (z < 0)
        z = 0;
    return erfc(z / sqrt(2.0));
}

/* Robust coefficient of variation: the interquartile range scaled to a normal sigma (/1.349),
 * over the median. A few outliers (a preempted launch) barely move it, unlike stddev/mean. */
static double robust_cv(const double *v, size_t n)
{
    double *s = n >= 4 ? sorted_copy(v, n) : NULL;
    if (!s)
        return NAN;
    double q1 = quantile_sorted(s, n, 0.25), q3 = quantile_sorted(s, n, 0.75), med = median_sorted(s, n);
    free(s);
    return med > 0 ? (q3 - q1) / 1.349 / med : NAN;
}

/* Ratio interval from the two median intervals, combined in log space (independent runs). */
static void ratio_ci(xpb_shift *s, double lo_b, double hi_b, double lo_n, double hi_n)
{
    double lr = log(s->ratio);
    double dn_lo = log(s->median_new) - log(lo_n), dn_hi = log(hi_n) - log(s->median_new);
    double db_lo = log(s->median_base) - log(lo_b), db_hi = log(hi_b) - log(s->median_base);
    s->ratio_lo = exp(lr - sqrt(dn_lo * dn_lo + db_hi * db_hi));
    s->ratio_hi = exp(lr + sqrt(dn_hi * dn_hi + db_lo * db_lo));
}

static void decide(xpb_shift *s, const xpb_compare_opts *o)
{
    double up = 1.0 + o->threshold, down = 1.0 / (1.0 + o->threshold);
    bool in_band = s->ratio > down && s->ratio < up;
    double cv = fmax(isfinite(s->cv_base) ? s->cv_base : 0, isfinite(s->cv_new) ? s->cv_new : 0);
    if (!isfinite(s->p_value)) { /* no raw samples: the medians alone */
        s->verdict = in_band ? XPB_VERDICT_SAME : XPB_VERDICT_NOISY;
        snprintf(s->why, sizeof s->why, "no raw samples: %s", in_band ? "shift inside the band" : "significance unknown");
        return;
    }
    if (s->n_base < o->min_samples || s->n_new < o->min_samples) {
        s->verdict = XPB_VERDICT_NOISY;
        snprintf(s->why, sizeof s->why, "too few samples (%zu and %zu, need %zu)", s->n_base, s->n_new, o->min_samples);
    } else if (s->ratio_lo > down && s->ratio_hi < up) { /* sure the change is small, even if noisy */
        s->verdict = XPB_VERDICT_SAME;
        snprintf(s->why, sizeof s->why, "interval inside +-%.3g%%", o->threshold * 100);
    } else if (cv > o->max_cv) {
        s->verdict = XPB_VERDICT_NOISY;
        snprintf(s->why, sizeof s->why, "robust CV %.0f%% over %.0f%%", cv * 100, o->max_cv * 100);
    } else if (s->ratio_lo < down && s->ratio_hi > up) {
        s->verdict = XPB_VERDICT_NOISY;
        snprintf(s->why, sizeof s->why, "interval spans the whole +-%.3g%% band", o->threshold * 100);
    } else if (!in_band) {
        bool slower = s->ratio >= up;
        bool sure = s->p_value < o->alpha && (slower ? s->ratio_lo > 1.0 : s->ratio_hi < 1.0);
        s->verdict = !sure ? XPB_VERDICT_NOISY : slower ? XPB_VERDICT_SLOWER : XPB_VERDICT_FASTER;
        snprintf(s->why, sizeof s->why, sure ? "%.3g%% %s, p = %.2g" : "%.3g%% %s but not significant (p = %.2g)",
                 fabs(s->ratio - 1) * 100, slower ? "slower" : "faster", s->p_value);
    } else {
        s->verdict = XPB_VERDICT_SAME;
        snprintf(s->why, sizeof s->why, "shift %.2g%% inside +-%.3g%%", (s->ratio - 1) * 100, o->threshold * 100);
    }
}

xpb_shift xpb_compare_samples(const double *base, size_t nb, double base_median, double base_cv,
                              const double *next, size_t nn, double new_median, double new_cv,
                              const xpb_compare_opts *o)
{
    xpb_shift s = {.n_base = nb, .n_new = nn, .median_base = base_median, .median_new = new_median,
                   .cv_base = base_cv, .cv_new = new_cv, .ratio_lo = NAN, .ratio_hi = NAN, .p_value = NAN,
                   .noise = NAN, .band = NAN};
    double lo_b, hi_b, lo_n, hi_n;
    if (nb > 0 && nn > 0 && xpb_median_ci(base, nb, &s.median_base, &lo_b, &hi_b) == 0 &&
        xpb_median_ci(next, nn, &s.median_new, &lo_n, &hi_n) == 0 && s.median_base > 0 && lo_b > 0 &&
        lo_n > 0) {
        s.cv_base = robust_cv(base, nb);
        s.cv_new = robust_cv(next, nn);
        s.ratio = s.median_new / s.median_base;
        ratio_ci(&s, lo_b, hi_b, lo_n, hi_n);
        s.p_value = xpb_mann_whitney_p(next, nn, base, nb, NULL);
    } else {
        s.ratio = s.median_base > 0 ? s.median_new / s.median_base : NAN;
    }
    if (!isfinite(s.ratio)) {
        s.verdict = XPB_VERDICT_NOISY;
        snprintf(s.why, sizeof s.why, "no usable median");
        return s;
    }
    decide(&s, o);
    return s;
}

/* ---- units --------------------------------------------------------------------------------------- */

double xpb_relative_sigma(const double *v, size_t n)
{
    /* d2(n): the expected range of n standard normal values (control-chart tables). From 5 on,
     * the median absolute deviation instead: one stray round does not widen the band. */
    static const double d2[] = {0, 0, 1.128, 1.693, 2.059};
    double *s = n >= 2 ? sorted_copy(v, n) : NULL;
    if (!s)
        return NAN;
    double med = median_sorted(s, n), sigma;
    if (n < 5) { /* too few for a median of deviations */
        sigma = (s[n - 1] - s[0]) / d2[n];
    } else {
        for (size_t i = 0; i < n; i++)
            s[i] = fabs(s[i] - med);
        qsort(s, n, sizeof *s, cmp_double);
        sigma = 1.4826 * median_sorted(s, n);
    }
    free(s);
    return med > 0 ? sigma / med : NAN;
}

double xpb_history_sigma(const double *v, size_t n)
{
    /* d2(n) for n = 2..25 (control-chart tables); beyond, the MAD, as for rounds */
    static const double d2[] = {0,     0,     1.128, 1.693, 2.059, 2.326, 2.534, 2.704, 2.847,
                                2.970, 3.078, 3.173, 3.258, 3.336, 3.407, 3.472, 3.532, 3.588,
                                3.640, 3.689, 3.735, 3.778, 3.819, 3.858, 3.895, 3.931};
    if (n < 2 || n >= sizeof d2 / sizeof d2[0])
        return xpb_relative_sigma(v, n);
    double lo = INFINITY, hi = -INFINITY, med = xpb_median_of(v, n);
    for (size_t i = 0; i < n; i++)
        lo = v[i] < lo ? v[i] : lo, hi = v[i] > hi ? v[i] : hi;
    return med > 0 ? (hi - lo) / d2[n] / med : NAN;
}

static double min_of(const double *v, size_t n)
{
    double m = INFINITY;
    for (size_t i = 0; i < n; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

static double max_of(const double *v, size_t n)
{
    double m = -INFINITY;
    for (size_t i = 0; i < n; i++)
        m = v[i] > m ? v[i] : m;
    return m;
}

/* The log of each run's median of a side's units into m (room for u.n_runs); returns how many
 * runs gave units (0 for a side without a record of its runs). */
static size_t log_run_medians(xpb_units u, double *m)
{
    size_t at = 0, k = 0;
    if (!u.run_units)
        return 0;
    for (size_t r = 0; r < u.n_runs && at + u.run_units[r] <= u.n; at += u.run_units[r++]) {
        double med = u.run_units[r] ? xpb_median_of(u.v + at, u.run_units[r]) : NAN;
        if (med > 0)
            m[k++] = log(med);
    }
    return k;
}

double xpb_process_sigma(xpb_units b, xpb_units n, size_t *runs_base, size_t *runs_new, size_t *df)
{
    *runs_base = *runs_new = *df = 0;
    double *m = malloc((b.n_runs + n.n_runs + 1) * sizeof *m);
    if (!m)
        return NAN;
    size_t kb = log_run_medians(b, m), kn = log_run_medians(n, m + kb);
    double ss = 0;
    for (int side = 0; side < 2; side++) {
        const double *v = side ? m + kb : m;
        size_t k = side ? kn : kb;
        double mean = 0;
        for (size_t i = 0; i < k; i++)
            mean += v[i] / (double)k;
        for (size_t i = 0; i < k; i++)
            ss += (v[i] - mean) * (v[i] - mean);
    }
    free(m);
    /* a side without a record of its runs is one process */
    *runs_base = kb ? kb : 1;
    *runs_new = kn ? kn : 1;
    *df = (kb > 1 ? kb - 1 : 0) + (kn > 1 ? kn - 1 : 0);
    return *df ? sqrt(ss / (double)*df) : NAN;
}

/* P(|T| <= t) for Student's t with df degrees of freedom: the closed forms of Abramowitz and
 * Stegun 26.7.3-4 (finite sums for an integer df). */
static double t_central(double t, size_t df)
{
    double th = atan(t / sqrt((double)df)), c = cos(th), c2 = c * c, term = 1, sum = 1;
    if (df % 2 == 0) {
        for (size_t j = 2; j + 2 <= df; j += 2)
            sum += (term *= c2 * (double)(j - 1) / (double)j);
        return sin(th) * sum;
    }
    if (df == 1)
        return 2 * th / PI;
    for (size_t j = 3; j + 2 <= df; j += 2)
        sum += (term *= c2 * (double)(j - 1) / (double)j);
    return 2 / PI * (th + sin(th) * c * sum);
}

double xpb_t_for_z(double z, size_t df)
{
    if (df == 0 || !(z > 0))
        return NAN;
    double p = erf(z / sqrt(2.0)), lo = 0, hi = z; /* P(|Z| <= z); t > z for any finite df */
    while (t_central(hi, df) < p && hi < 1e12)
        hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        *(t_central(mid, df) < p ? &lo : &hi) = mid;
    }
    return 0.5 * (lo + hi);
}

xpb_shift xpb_compare_units(xpb_units b, xpb_units n, double history_noise, const xpb_compare_opts *o)
{
    const double *base = b.v, *next = n.v;
    size_t nb = b.n, nn = n.n;
    xpb_shift s = {.n_base = nb, .n_new = nn, .units_base = nb, .units_new = nn, .cv_base = NAN, .cv_new = NAN,
                   .ratio_lo = NAN, .ratio_hi = NAN, .p_value = NAN, .noise = NAN, .band = NAN};
    s.median_base = xpb_median_of(base, nb);
    s.median_new = xpb_median_of(next, nn);
    s.ratio = s.median_base > 0 ? s.median_new / s.median_base : NAN;
    if (nb < o->min_units || nn < o->min_units || !isfinite(s.ratio)) {
        s.verdict = XPB_VERDICT_NOISY;
        snprintf(s.why, sizeof s.why, "%zu and %zu rounds; a verdict needs %zu on each side (run --rounds)", nb, nn,
                 o->min_units);
        return s;
    }
    s.cv_base = xpb_relative_sigma(base, nb);
    s.cv_new = xpb_relative_sigma(next, nn);
    /* the source that asks for the widest band names the noise (xpb_compare.h) */
    size_t kb, kn, df;
    double procs = xpb_process_sigma(b, n, &kb, &kn, &df);
    double wide = o->noise_k * fmax(s.cv_base, s.cv_new); /* fmax ignores a NaN */
    s.noise = fmax(s.cv_base, s.cv_new);
    s.noise_source = "rounds";
    if (isfinite(procs)) {
        /* the runs' medians are the independent draws: their pooled sigma is an estimate over df
         * degrees of freedom, so the band takes Student's t for noise_k's coverage, and the
         * figures compared are medians over kb and kn runs */
        double w = xpb_t_for_z(o->noise_k, df) * procs * sqrt(1.0 / (double)kb + 1.0 / (double)kn);
        if (!(w < wide))
            wide = w, s.noise = procs, s.noise_source = "processes";
    }
    if (isfinite(history_noise) && !(o->noise_k * history_noise < wide))
        wide = o->noise_k * history_noise, s.noise = history_noise, s.noise_source = "history";
    s.band = fmax(o->threshold, isfinite(wide) ? wide : 0);
    s.ratio_lo = min_of(next, nn) / max_of(base, nb); /* the range of unit ratios */
    s.ratio_hi = max_of(next, nn) / min_of(base, nb);
    s.p_value = xpb_mann_whitney_p(next, nn, base, nb, NULL);
    double up = 1.0 + s.band, down = 1.0 / up;
    const char *src = s.noise_source;
    if (s.band > o->max_band) {
        s.verdict = XPB_VERDICT_NOISY;
        snprintf(s.why, sizeof s.why, "too noisy to judge: noise %.3g%% (%s), band +-%.3g%% over %.3g%%",
                 s.noise * 100, src, s.band * 100, o->max_band * 100);
    } else if (s.ratio >= up || s.ratio <= down) {
        bool slower = s.ratio >= up;
        bool apart = slower ? s.ratio_lo > 1.0 : s.ratio_hi < 1.0;
        s.verdict = !apart ? XPB_VERDICT_NOISY : slower ? XPB_VERDICT_SLOWER : XPB_VERDICT_FASTER;
        snprintf(s.why, sizeof s.why, "%.3g%% %s, outside +-%.3g%% (noise %.2g%%, %s); %s", fabs(s.ratio - 1) * 100,
                 slower ? "slower" : "faster", s.band * 100, s.noise * 100, src,
                 apart ? "every round agrees" : "but the rounds overlap");
    } else {
        s.verdict = XPB_VERDICT_SAME;
        snprintf(s.why, sizeof s.why, "shift %.2g%% inside +-%.3g%% (noise %.2g%%, %s)", (s.ratio - 1) * 100,
                 s.band * 100, s.noise * 100, src);
    }
    return s;
}
