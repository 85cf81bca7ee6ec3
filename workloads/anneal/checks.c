/* checks.c - level 1 of the annealing validation: each op's output against fp64 on the op's own
 * inputs (anneal_case.h). The bounds are those of docs/validation.md, "Stateful workloads", with
 * u = 2^-24 and gamma_k = k u / (1 - k u), the classic bound on a k-term fp32 sum or dot product
 * in any order:
 *   direct distance sum_k (x_k - a_k)^2     |err| <= gamma_{d+2} D                (all terms >= 0)
 *   GEMM-form ||x||^2 - 2 x.a + ||a||^2      |err| <= gamma_{d+2} (||x||^2 + 2 sum|x_k a_k| + ||a||^2)
 *   trimmed mean of q points                 |err| <= gamma_{q+1} sum|x| / q
 *   variance around the kernel's mean        |err| <= gamma_{c+3} var + 2 FLT_MIN  (terms >= 0; a
 *                                            square below FLT_MIN may flush to 0: c of them / (c-1))
 *   update (three fp32 operations)           |err| <= u |ref| + 2.01 u |step|
 *   energy (fp64 accumulation, one rounding) |err| <= (gamma_{d+2} + 3u) E
 *   search (GEMM form, as assign)            |err| <= gamma_{d+2} (||q||^2 + 2 sum|q_k a_k| + ||a||^2)
 * A choice (init's farthest point, assign's nearest anchor) passes when its fp64 distance is
 * within the two distances' bounds of the best one; such a choice that differs from fp64's is a
 * near tie, counted and reported, never an error. Exact things (counts, changes, chosen[0], the
 * copied anchor rows) must be equal. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anneal_case.h"

#define U 0x1p-24

static double gamma_k(double k) { return k * U / (1.0 - k * U); }

/* Adds one element; describes the first failure of the run. True when it failed. */
static bool add(anneal_checks *k, const char *what, int64_t index, double out, bool unwritten, double ref, double tol)
{
    xpb_validation_add_f64(k->v, index, out, unwritten, ref, tol);
    bool bad = unwritten || isnan(out) || !(fabs(out - ref) <= tol);
    if (bad && !k->first_fail[0])
        snprintf(k->first_fail, sizeof k->first_fail, "%s[%lld] = %.9g%s, reference %.9g, tolerance %.3g", what,
                 (long long)index, out, unwritten ? " (unwritten)" : "", ref, tol);
    return bad;
}

static bool poisoned_f(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b == XPB_POISON_BITS;
}

static double dist2(const float *p, const float *a, int64_t d)
{
    double s = 0;
    for (int64_t k = 0; k < d; k++) {
        double t = (double)p[k] - (double)a[k];
        s += t * t;
    }
    return s;
}

void anneal_check_init(anneal_checks *k, const float *x, int64_t n, int64_t d, int64_t m, int64_t steps,
                       const uint32_t *chosen, const float *anchors)
{
    double *mind = malloc((size_t)n * sizeof *mind);
    if (!mind) {
        add(k, "init: out of host memory for the check; chosen", 0, 1, false, 0, 0);
        return;
    }
    add(k, "init: chosen", 0, chosen[0], chosen[0] == XPB_POISON_BITS, 0, 0);
    double g = gamma_k((double)d + 2);
    bool ok = chosen[0] == 0;
    for (int64_t j = 0; j < steps && j < m; j++) {
        uint32_t c = chosen[j];
        if (c >= (uint64_t)n) {
            add(k, "init: chosen", j, c, c == XPB_POISON_BITS, 0, (double)n - 1);
            ok = false;
            break;
        }
        if (j > 0) { /* the choice is a farthest point of the distances so far, within the bound */
            int64_t best = 0;
            for (int64_t i = 1; i < n; i++)
                if (mind[i] > mind[best])
                    best = i;
            add(k, "init: distance of chosen point", j, mind[c], false, mind[best], 2 * g * mind[best]);
            k->near_ties += (int64_t)c != best && mind[c] != mind[best];
        }
        const float *a = x + (int64_t)c * d;
        int64_t diff = memcmp(anchors + j * d, a, (size_t)d * sizeof *a) != 0;
        add(k, "init: anchors[j] differs from x[chosen[j]]; anchor", j, (double)diff,
            poisoned_f(anchors[j * d]), 0, 0);
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < n; i++) {
            double t = dist2(x + i * d, a, d);
            mind[i] = j == 0 || t < mind[i] ? t : mind[i];
        }
    }
    (void)ok;
    free(mind);
}

double anneal_sqnorm64(const float *v, int64_t d)
{
    double s = 0;
    for (int64_t q = 0; q < d; q++)
        s += (double)v[q] * v[q];
    return s;
}

double anneal_assign_dist(const float *xi, const float *a, int64_t d, double xn, double an, double *bound)
{
    double dd = 0, ax = 0;
    for (int64_t q = 0; q < d; q++) {
        double t = (double)xi[q] - a[q];
        dd += t * t;
        ax += fabs((double)xi[q] * a[q]);
    }
    *bound = gamma_k((double)d + 2) * (xn + 2 * ax + an);
    return dd;
}

void anneal_check_assign(anneal_checks *k, const float *x, int64_t n, int64_t d, int64_t m, int64_t stride,
                         const float *anchors, const uint32_t *asg, const float *dist)
{
    int64_t cnt = (n + stride - 1) / stride;
    double *got = malloc((size_t)cnt * 4 * sizeof *got), *anorm = malloc((size_t)m * sizeof *anorm);
    if (!got || !anorm) {
        free(got), free(anorm);
        add(k, "assign: out of host memory for the check; point", 0, 1, false, 0, 0);
        return;
    }
    for (int64_t j = 0; j < m; j++)
        anorm[j] = anneal_sqnorm64(anchors + j * d, d);
    int64_t ties = 0;
    /* per checked point: the chosen anchor's distance, the best distance, the bound, dist's bound */
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : ties)
    for (int64_t p = 0; p < cnt; p++) {
        int64_t i = p * stride;
        const float *xi = x + i * d;
        double xn = anneal_sqnorm64(xi, d);
        double best = INFINITY, best_e = 0, chosen = NAN, chosen_e = 0;
        int64_t bj = 0;
        for (int64_t j = 0; j < m; j++) {
            double e, dd = anneal_assign_dist(xi, anchors + j * d, d, xn, anorm[j], &e);
            if (dd < best)
                best = dd, best_e = e, bj = j;
            if ((uint32_t)j == asg[i])
                chosen = dd, chosen_e = e;
        }
        ties += asg[i] < (uint32_t)m && (int64_t)asg[i] != bj;
        got[4 * p] = chosen, got[4 * p + 1] = best, got[4 * p + 2] = chosen_e + best_e, got[4 * p + 3] = chosen_e;
    }
    k->near_ties += ties;
    for (int64_t p = 0; p < cnt; p++) {
        int64_t i = p * stride;
        if (asg[i] >= (uint32_t)m) {
            add(k, "assign: anchor index of point", i, asg[i], asg[i] == XPB_POISON_BITS, 0, (double)m - 1);
            continue;
        }
        /* |chosen - best| <= chosen_e + best_e: anneal_assign_acceptable, as the sharded assign's */
        add(k, "assign: distance to the chosen anchor, point", i, got[4 * p], false, got[4 * p + 1], got[4 * p + 2]);
        bool neg = signbit(dist[i]);
        add(k, neg ? "assign: dist is negative (or -0), point" : "assign: dist of point", i, dist[i],
            poisoned_f(dist[i]), neg ? INFINITY : got[4 * p], got[4 * p + 3]);
    }
    free(got), free(anorm);
}

void anneal_check_stats(anneal_checks *k, const float *x, int64_t n, int64_t d, int64_t m, double trim,
                        const uint32_t *asg, const float *dist, const uint32_t *counts, const float *mean,
                        const float *var)
{
    int64_t *start = calloc((size_t)m + 1, sizeof *start), *fill = calloc((size_t)m, sizeof *fill);
    uint32_t *members = malloc((size_t)n * sizeof *members);
    double *md = malloc((size_t)n * sizeof *md), *mu = malloc((size_t)d * sizeof *mu);
    if (!start || !fill || !members || !md || !mu) {
        add(k, "stats: out of host memory for the check; anchor", 0, 1, false, 0, 0);
        goto done;
    }
    for (int64_t i = 0; i < n; i++)
        if (asg[i] < (uint32_t)m)
            start[asg[i] + 1]++;
    for (int64_t j = 0; j < m; j++)
        start[j + 1] += start[j];
    for (int64_t i = 0; i < n; i++) {
        if (asg[i] >= (uint32_t)m)
            continue;
        int64_t p = start[asg[i]] + fill[asg[i]]++;
        members[p] = (uint32_t)i;
        md[p] = dist[i]; /* the kernel's own keys: the selection must match exactly */
    }
    for (int64_t j = 0; j < m; j++) {
        int64_t c = start[j + 1] - start[j];
        add(k, "stats: counts", j, counts[j], counts[j] == XPB_POISON_BITS, (double)c, 0);
        anneal_trimmed_mean(x, d, members + start[j], md + start[j], c, trim, mu);
        int64_t t = (int64_t)floor((double)c * trim), q = c - 2 * t < 1 ? c : c - 2 * t;
        /* sum |x| over the kept points, per dimension: the same selection again, by rank */
        for (int64_t e = 0; e < d; e++) {
            double sabs = 0, v = 0;
            for (int64_t p = start[j]; p < start[j + 1]; p++) {
                const float *xi = x + (int64_t)members[p] * d;
                sabs += fabs((double)xi[e]);
                double dv = (double)xi[e] - (double)mean[j * d + e];
                v += dv * dv;
            }
            /* sabs over all c points bounds the kept points' sum: a looser, still tight bound */
            double tol_mu = q ? gamma_k((double)q + 1) * sabs / (double)q : 0;
            add(k, "stats: mean", j * d + e, mean[j * d + e], poisoned_f(mean[j * d + e]), mu[e], tol_mu);
            double ref_var = c >= 2 ? v / (double)(c - 1) : 0;
            add(k, "stats: var", j * d + e, var[j * d + e], poisoned_f(var[j * d + e]), ref_var,
                gamma_k((double)c + 3) * ref_var + 2 * FLT_MIN); /* squares below FLT_MIN may flush */
        }
    }
done:
    free(start), free(fill), free(members), free(md), free(mu);
}

void anneal_check_update(anneal_checks *k, int64_t m, int64_t d, float lr_t, const float *before,
                         const uint32_t *counts, const float *mean, const float *after)
{
    const double lim = (double)0.1f;
    for (int64_t i = 0; i < m * d; i++) {
        double a = before[i], step = 0;
        if (counts[i / d] > 0) {
            step = ((double)mean[i] - a) * (double)lr_t;
            step = step < -lim ? -lim : step > lim ? lim : step;
        }
        double ref = a + step;
        add(k, "update: anchors", i, after[i], poisoned_f(after[i]), ref, U * fabs(ref) + 2.01 * U * fabs(step));
    }
}

void anneal_check_changes(anneal_checks *k, const float *x, int64_t n, int64_t d, int64_t m, const float *anchors,
                          const uint32_t *asg, const uint32_t *prev, float energy, uint32_t changes)
{
    double e = 0;
    int64_t ch = 0, bad = 0;
#pragma omp parallel for schedule(static) reduction(+ : e, ch, bad)
    for (int64_t i = 0; i < n; i++) {
        if (asg[i] >= (uint32_t)m) {
            bad++;
            continue;
        }
        e += dist2(x + i * d, anchors + (int64_t)asg[i] * d, d);
        ch += !prev || asg[i] != prev[i];
    }
    e /= (double)n;
    add(k, "changes: assignments out of range before the energy; count", 0, (double)bad, false, 0, 0);
    add(k, "changes: energy", 0, energy, poisoned_f(energy), e, (gamma_k((double)d + 2) + 3 * U) * e);
    add(k, "changes: count", 1, changes, changes == XPB_POISON_BITS, (double)ch, 0);
}

bool anneal_check_search(anneal_checks *k, const float *queries, int64_t nq, int64_t d, const float *anchors,
                         int64_t m, int64_t stride, const float *dist)
{
    double *ref = malloc((size_t)m * 2 * sizeof *ref);
    if (!ref) {
        add(k, "search: out of host memory for the check; query", 0, 1, false, 0, 0);
        return false;
    }
    double g = gamma_k((double)d + 2);
    int64_t bad = 0;
    for (int64_t i = 0; i < nq; i += stride) {
        const float *q = queries + i * d;
        double qn = 0;
        for (int64_t e = 0; e < d; e++)
            qn += (double)q[e] * q[e];
#pragma omp parallel for schedule(static)
        for (int64_t j = 0; j < m; j++) {
            const float *a = anchors + j * d;
            double dd = 0, qa = 0, an = 0;
            for (int64_t e = 0; e < d; e++) {
                double t = (double)q[e] - a[e];
                dd += t * t;
                qa += fabs((double)q[e] * a[e]);
                an += (double)a[e] * a[e];
            }
            ref[2 * j] = dd, ref[2 * j + 1] = g * (qn + 2 * qa + an);
        }
        for (int64_t j = 0; j < m; j++) {
            float v = dist[i * m + j];
            bool neg = signbit(v);
            bad += add(k, neg ? "search: dist is negative (or -0), query * m + anchor" : "search: dist, query * m + anchor",
                       i * m + j, v, poisoned_f(v), neg ? INFINITY : ref[2 * j], ref[2 * j + 1]);
        }
    }
    free(ref);
    return bad == 0;
}
