/* reference.c - the fp64 reference run of annealing compression (anneal.h), written for clarity
 * against docs/workloads.md section 3 and its pinned details, which it follows step by step;
 * the comments quote the rule each block implements. Anchors and sums in double, points fp32. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anneal.h"

anneal_config anneal_default_config(int64_t m)
{
    return (anneal_config){.m = m, .t0 = 1.0, .cooling = 0.01, .lr = 0.1, .trim = 0.1, .max_iter = 1000,
                           .energy_tol = 1e-4, .min_changes = 10, .interval = 50};
}

anneal_config anneal_original_test_config(int64_t m)
{
    return (anneal_config){.m = m, .t0 = 1.0, .cooling = 0.05, .lr = 0.2, .trim = 0.1, .max_iter = 50,
                           .energy_tol = 1e-3, .min_changes = 1, .interval = 20};
}

static double dist2_pa(const float *p, const double *a, int64_t d)
{
    double s = 0;
    for (int64_t k = 0; k < d; k++) {
        double t = (double)p[k] - a[k];
        s += t * t;
    }
    return s;
}

static double dist2_aa(const double *a, const double *b, int64_t d)
{
    double s = 0;
    for (int64_t k = 0; k < d; k++)
        s += (a[k] - b[k]) * (a[k] - b[k]);
    return s;
}

/* "anchor 0 = point 0; anchor j = the point with the largest squared distance to its nearest
 * already-chosen anchor, ties to the lowest point index", with a running min-distance. */
void anneal_init_farthest(const float *x, int64_t n, int64_t d, int64_t m, double *anchors)
{
    double *mind = malloc((size_t)n * sizeof *mind);
    if (!mind)
        return;
    int64_t pick = 0;
    for (int64_t j = 0; j < m; j++) {
        for (int64_t k = 0; k < d; k++)
            anchors[j * d + k] = x[pick * d + k];
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < n; i++) {
            double t = dist2_pa(x + i * d, anchors + j * d, d);
            mind[i] = j == 0 || t < mind[i] ? t : mind[i];
        }
        int64_t best = 0;
        for (int64_t i = 1; i < n; i++)
            if (mind[i] > mind[best])
                best = i;
        pick = best;
    }
    free(mind);
}

typedef struct keyed {
    double dist;
    uint32_t index;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *p = a, *q = b;
    if (p->dist != q->dist)
        return p->dist < q->dist ? -1 : 1;
    return (p->index > q->index) - (p->index < q->index);
}

/* "order its points by (d(x), point index) ascending; t = floor(c_j * trim) (in double); drop
 * the first t and the last t; the trimmed mean is the mean of the rest (if c_j - 2t < 1, of all
 * c_j points)". idx and dist: the anchor's points and their d(x). */
void anneal_trimmed_mean(const float *x, int64_t d, const uint32_t *idx, const double *dist, int64_t c,
                         double trim, double *mu)
{
    keyed *k = malloc((size_t)(c ? c : 1) * sizeof *k);
    for (int64_t j = 0; j < d; j++)
        mu[j] = 0;
    if (!k || c == 0) {
        free(k);
        return;
    }
    for (int64_t i = 0; i < c; i++)
        k[i] = (keyed){dist[i], idx[i]};
    qsort(k, (size_t)c, sizeof *k, cmp_keyed);
    int64_t t = (int64_t)floor((double)c * trim);
    int64_t lo = t, hi = c - t;
    if (c - 2 * t < 1)
        lo = 0, hi = c;
    for (int64_t i = lo; i < hi; i++)
        for (int64_t j = 0; j < d; j++)
            mu[j] += x[(int64_t)k[i].index * d + j];
    for (int64_t j = 0; j < d; j++)
        mu[j] /= (double)(hi - lo);
    free(k);
}

static bool grow(anneal_state *s)
{
    if (s->m < s->cap)
        return true;
    int64_t cap = s->cap * 2;
    double *a = realloc(s->a, (size_t)(cap * s->d) * sizeof *a);
    if (a)
        s->a = a;
    int64_t *c = realloc(s->count, (size_t)cap * sizeof *c);
    if (c)
        s->count = c;
    if (!a || !c)
        return false;
    s->cap = cap;
    return true;
}

/* "a(x) = argmin_j ||x - anchor_j||^2, ties to the lowest j. Also the min distance d(x)." */
static void assign(anneal_state *s)
{
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < s->n; i++) {
        uint32_t best = 0;
        double bd = INFINITY;
        for (int64_t j = 0; j < s->m; j++) {
            double t = dist2_pa(s->x + i * s->d, s->a + j * s->d, s->d);
            if (t < bd)
                bd = t, best = (uint32_t)j;
        }
        s->asg[i] = best;
        s->dist[i] = bd;
    }
}

static void count_points(anneal_state *s)
{
    memset(s->count, 0, (size_t)s->m * sizeof *s->count);
    for (int64_t i = 0; i < s->n; i++)
        s->count[s->asg[i]]++;
}

/* Stats and update: "each anchor with c_j > 0: lr_T = lr * T / (1 + T); step = clamp((mu_j -
 * a_j) * lr_T, -0.1, 0.1) per dimension; a_j += step". Points are listed per anchor by index. */
static bool stats_and_update(anneal_state *s, const anneal_config *cfg, double t)
{
    int64_t *start = calloc((size_t)s->m + 1, sizeof *start);
    uint32_t *members = malloc((size_t)s->n * sizeof *members);
    double *md = malloc((size_t)s->n * sizeof *md), *mu = malloc((size_t)s->d * sizeof *mu);
    if (!start || !members || !md || !mu) {
        free(start), free(members), free(md), free(mu);
        return false;
    }
    for (int64_t i = 0; i < s->n; i++)
        start[s->asg[i] + 1]++;
    for (int64_t j = 0; j < s->m; j++)
        start[j + 1] += start[j];
    int64_t *fill = calloc((size_t)s->m, sizeof *fill);
    if (!fill) {
        free(start), free(members), free(md), free(mu);
        return false;
    }
    for (int64_t i = 0; i < s->n; i++) {
        int64_t p = start[s->asg[i]] + fill[s->asg[i]]++;
        members[p] = (uint32_t)i;
        md[p] = s->dist[i];
    }
    double lr_t = cfg->lr * t / (1.0 + t);
    for (int64_t j = 0; j < s->m; j++) {
        int64_t c = start[j + 1] - start[j];
        if (c == 0)
            continue;
        anneal_trimmed_mean(s->x, s->d, members + start[j], md + start[j], c, cfg->trim, mu);
        for (int64_t k = 0; k < s->d; k++) {
            double step = (mu[k] - s->a[j * s->d + k]) * lr_t;
            s->a[j * s->d + k] += step < -0.1 ? -0.1 : step > 0.1 ? 0.1 : step;
        }
    }
    free(start), free(members), free(md), free(mu), free(fill);
    return true;
}

/* merge: "m = the current anchor count; skip if m < 2. P = min(100, m); the pairs are (i, (i +
 * floor(m/2)) mod m) for i < P, leaving out a pair whose two ends are equal; threshold = 0.1 * the
 * mean Euclidean distance over them. For j = 1 .. m-1 with c_j > 0, in order: the first i < j
 * with c_i > 0 and ||a_i - a_j|| < threshold absorbs j ... Later tests see a_i's new place." */
static void merge(anneal_state *s)
{
    int64_t m = s->m, d = s->d;
    if (m < 2)
        return;
    int64_t p = m < 100 ? m : 100, pairs = 0;
    double sum = 0;
    for (int64_t i = 0; i < p; i++) {
        int64_t k = (i + m / 2) % m;
        if (k == i)
            continue;
        sum += sqrt(dist2_aa(s->a + i * d, s->a + k * d, d));
        pairs++;
    }
    if (pairs == 0)
        return;
    double threshold = 0.1 * sum / (double)pairs;
    for (int64_t j = 1; j < m; j++) {
        if (s->count[j] == 0)
            continue;
        for (int64_t i = 0; i < j; i++) {
            if (s->count[i] == 0 || !(sqrt(dist2_aa(s->a + i * d, s->a + j * d, d)) < threshold))
                continue;
            double ci = (double)s->count[i], cj = (double)s->count[j];
            for (int64_t k = 0; k < d; k++)
                s->a[i * d + k] = (ci * s->a[i * d + k] + cj * s->a[j * d + k]) / (ci + cj);
            s->count[i] += s->count[j];
            s->count[j] = 0;
            for (int64_t q = 0; q < s->n; q++)
                if (s->asg[q] == (uint32_t)j)
                    s->asg[q] = (uint32_t)i;
            break;
        }
    }
}

/* split: "m0 = the anchor count after merging. For j = 0 .. m0-1 with c_j >= 2, in order: split
 * when c_j > 2 * floor(n / m0) or (sum of ||x - a_j||^2 over its points) / c_j > 2T. Seeds: its
 * points with the lowest and the highest index; 5 Lloyd iterations over its points (each to the
 * nearer seed, ties to the first; a centroid left with no point keeps its place); a_j = the first
 * centroid; the second is appended as a new anchor (count 0). Points stay assigned to j." */
static bool split(anneal_state *s, double t)
{
    int64_t m0 = s->m, d = s->d;
    double *cen = malloc((size_t)(2 * d) * sizeof *cen), *acc = malloc((size_t)(2 * d) * sizeof *acc);
    if (!cen || !acc) {
        free(cen), free(acc);
        return false;
    }
    bool ok = true;
    for (int64_t j = 0; j < m0 && ok; j++) {
        int64_t c = s->count[j];
        if (c < 2)
            continue;
        double spread = 0;
        int64_t first = -1, last = -1;
        for (int64_t q = 0; q < s->n; q++)
            if (s->asg[q] == (uint32_t)j) {
                spread += dist2_pa(s->x + q * d, s->a + j * d, d);
                first = first < 0 ? q : first;
                last = q;
            }
        if (!(c > 2 * (s->n / m0) || spread / (double)c > 2.0 * t))
            continue;
        for (int64_t k = 0; k < d; k++)
            cen[k] = s->x[first * d + k], cen[d + k] = s->x[last * d + k];
        for (int it = 0; it < 5; it++) {
            int64_t cnt[2] = {0, 0};
            memset(acc, 0, (size_t)(2 * d) * sizeof *acc);
            for (int64_t q = 0; q < s->n; q++) {
                if (s->asg[q] != (uint32_t)j)
                    continue;
                int h = dist2_pa(s->x + q * d, cen + d, d) < dist2_pa(s->x + q * d, cen, d);
                cnt[h]++;
                for (int64_t k = 0; k < d; k++)
                    acc[h * d + k] += s->x[q * d + k];
            }
            for (int h = 0; h < 2; h++)
                for (int64_t k = 0; cnt[h] && k < d; k++)
                    cen[h * d + k] = acc[h * d + k] / (double)cnt[h];
        }
        if (!(ok = grow(s)))
            break;
        memcpy(s->a + j * d, cen, (size_t)d * sizeof *cen);
        memcpy(s->a + s->m * d, cen + d, (size_t)d * sizeof *cen);
        s->count[s->m++] = 0;
    }
    free(cen), free(acc);
    return ok;
}

bool anneal_maintenance(anneal_state *s, double t)
{
    merge(s);
    return split(s, t);
}

xpb_status anneal_reference_run(const float *x, int64_t n, int64_t d, const anneal_config *cfg,
                                anneal_result *out, xpb_error *err)
{
    memset(out, 0, sizeof *out);
    if (n < 1 || d < 1 || cfg->m < 1 || cfg->max_iter < 1 || cfg->interval < 1 || n > UINT32_MAX)
        return xpb_fail(err, XPB_ERR_USAGE, "anneal: bad sizes n=%lld d=%lld m=%lld", (long long)n, (long long)d,
                        (long long)cfg->m);
    anneal_state s = {.x = x, .n = n, .d = d, .m = cfg->m, .cap = cfg->m};
    s.a = malloc((size_t)(s.cap * d) * sizeof *s.a);
    s.count = malloc((size_t)s.cap * sizeof *s.count);
    s.asg = malloc((size_t)n * sizeof *s.asg);
    s.dist = malloc((size_t)n * sizeof *s.dist);
    uint32_t *prev = malloc((size_t)n * sizeof *prev);
    out->steps = malloc((size_t)cfg->max_iter * sizeof *out->steps);
    xpb_status st = XPB_OK;
    if (!s.a || !s.count || !s.asg || !s.dist || !prev || !out->steps)
        st = xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "anneal: out of host memory");
    if (!st)
        anneal_init_farthest(x, n, d, s.m, s.a);
    double t = cfg->t0, e_prev = 0;
    int streak = 0;
    /* "Iterations count from 0. Within one: assign, stats, update, maintenance (when due),
     * energy and changes, convergence test, cooling. changes at iteration 0 is n." */
    for (int it = 0; !st && it < cfg->max_iter; it++) {
        assign(&s);
        count_points(&s);
        if (!stats_and_update(&s, cfg, t))
            st = xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "anneal: out of host memory");
        if (!st && anneal_maintenance_due(cfg, it) && !anneal_maintenance(&s, t))
            st = xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "anneal: out of host memory");
        if (st)
            break;
        /* "Energy is computed after update and maintenance, with the assignments as they then
         * stand"; changes against the previous iteration's assignments as they then stood. */
        double e = 0;
        int64_t changes = 0;
        for (int64_t i = 0; i < n; i++) {
            e += dist2_pa(x + i * d, s.a + (int64_t)s.asg[i] * d, d);
            changes += it == 0 || s.asg[i] != prev[i];
        }
        e /= (double)n;
        memcpy(prev, s.asg, (size_t)n * sizeof *prev);
        out->steps[it] = (anneal_step){e, changes, s.m, t};
        out->iterations = it + 1;
        out->energy = e;
        /* "a streak counter grows by one when iter > 0 and |E - E_prev| < energy_tol and changes
         * < min_changes, and drops to 0 otherwise; the run stops after the iteration in which it
         * reaches 3" */
        streak = it > 0 && fabs(e - e_prev) < cfg->energy_tol && changes < cfg->min_changes ? streak + 1 : 0;
        e_prev = e;
        t *= 1.0 - cfg->cooling;
        if (streak == 3) {
            out->converged = true;
            break;
        }
    }
    free(prev), free(s.count), free(s.dist);
    if (st) {
        free(s.a), free(s.asg), free(out->steps);
        memset(out, 0, sizeof *out);
        return st;
    }
    out->n = n, out->d = d, out->m = s.m;
    out->anchors = s.a;
    out->assignment = s.asg;
    /* "The compression ratio uses the final anchor count, empty anchors included." */
    out->ratio = ((double)s.m * (double)d * 2.0 + (double)n * 4.0) / ((double)n * (double)d * 4.0);
    return XPB_OK;
}

void anneal_result_free(anneal_result *r)
{
    free(r->anchors), free(r->assignment), free(r->steps);
    memset(r, 0, sizeof *r);
}
