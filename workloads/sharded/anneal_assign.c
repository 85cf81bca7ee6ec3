/* anneal_assign.c - the `sharded` workload's annealing assign (sharded.h; docs/multi-gpu.md,
 * "Sharded annealing assign"): each point's nearest anchor, the points split by group rank, the
 * anchors on every rank, the per-anchor counts summed over the group (NCCL all_reduce).
 *
 * A case is "sharded/anneal_assign_sharded/n=N,d=D,m=M,gpus=P/fp32". Inputs are the anneal
 * workload's blobs (workloads/anneal/blobs.c, k = m true centers): the points are blob points
 * 0 .. n-1 and the anchors blob points n .. n+m-1 of the same generator, so that most points have
 * an anchor of their own blob near them, as in a run's assign.
 *
 * Output 0, the array validated (the op's `dist`, 2n + m fp32: backends/cuda/anneal/anneal_assign_sharded.cu):
 *   [0, n)       dist[i]: within the bound of the anneal workload's assign check of the fp64
 *                distance to the nearest anchor (a near tie widens it by the gap to the chosen one);
 *   [n, 2n)      the chosen anchor j: the fp64 argmin exactly, or at a near tie any anchor that
 *                the assign check accepts (anneal_assign_acceptable: its fp64 distance within the
 *                two fp32 bounds of the best);
 *   [2n, 2n+m)   the group's count of anchor j: between the points that can only be j's and the
 *                points that can be j's (equal without near ties), from every point's fp64 pass,
 *                when n m d <= FULL_NMD; above it only 0 <= count <= n and the points are sampled.
 * The rule and the bounds are the anneal workload's (anneal_assign_dist, anneal_assign_acceptable
 * in workloads/anneal/checks.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anneal/anneal_case.h"
#include "sharded.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Every point's fp64 pass in make_data (the counts' reference) up to this many n m d: the
 * default preset's 1M x 128 x 1024 (1.3e11: seconds on a 16-core host); the 10M x 128 x 4096
 * case (5.4e12) would take minutes, so its points are sampled and its counts only bounded. */
#define FULL_NMD 1.4e11
#define SAMPLED_UNITS 4096
#define MAX_N (INT64_C(1) << 24) /* counts and indices travel as exact fp32 */

typedef struct shape {
    int64_t n, d, m;
} shape;

/* Awkward sizes: n = 1 and 3 below a group's rank count (ranks with no point), m = n, d 1, 3, 128. */
static const shape conformance[] = {{1, 1, 1},       {3, 3, 2},      {3, 128, 3},      {255, 128, 7},
                                    {257, 3, 257},  {4097, 1, 33},  {4097, 128, 129}};
static const shape quick[] = {{4097, 128, 129}, {65536, 128, 1024}};
static const shape standard[] = {{1000000, 128, 1024}, {10000000, 128, 4096}};
static const shape full[] = {{1000000, 128, 1024}, {1000000, 384, 2048}, {10000000, 128, 4096}, {16000000, 128, 8192}};

static xpb_status push(const shape *s, int ranks, xpb_case_list *l, xpb_error *e)
{
    xpb_case c;
    memset(&c, 0, sizeof c);
    c.workload = &xpb_workload_sharded;
    c.op = XPB_OP_ANNEAL_ASSIGN_SHARDED;
    c.dtype = XPB_DTYPE_F32;
    xpb_case_set_param(&c, "n", s->n);
    xpb_case_set_param(&c, "d", s->d);
    xpb_case_set_param(&c, "m", s->m);
    xpb_case_set_param(&c, "gpus", ranks);
    uint64_t n = (uint64_t)s->n, d = (uint64_t)s->d, m = (uint64_t)s->m;
    c.elements = n;
    c.bytes_read = 4 * (n * d + m * d);     /* the points once, the anchors (cached) */
    c.bytes_written = 4 * (2 * n + 2 * m); /* assign, dist; the counts */
    c.flops = 2.0 * (double)n * (double)m * (double)d;
    xpb_case_make_id(&c);
    return xpb_case_list_push(l, &c, e);
}

static xpb_status add_cases(const char *preset, const xpb_sizes *sizes, xpb_case_list *l, xpb_error *err)
{
    int ranks = sizes && sizes->ranks > 0 ? sizes->ranks : 1;
    if (sizes && sizes->count > 0) {
        shape s = {0, 0, 0};
        if (!xpb_sizes_get(sizes, "n", &s.n) || !xpb_sizes_get(sizes, "d", &s.d) || !xpb_sizes_get(sizes, "m", &s.m))
            return XPB_OK; /* not an assign size */
        if (s.n < 1 || s.n > MAX_N || s.d < 1 || s.d > 4096 || s.m < 1 || s.m > s.n)
            return xpb_fail(err, XPB_ERR_USAGE,
                            "bad anneal_assign_sharded size n=%lld,d=%lld,m=%lld (needs 1 <= n <= 2^24, "
                            "1 <= d <= 4096, 1 <= m <= n)",
                            (long long)s.n, (long long)s.d, (long long)s.m);
        return push(&s, ranks, l, err);
    }
    static const shape *const sets[] = {conformance, quick, standard, full};
    static const size_t counts[] = {COUNT(conformance), COUNT(quick), COUNT(standard), COUNT(full)};
    int p = sharded_preset(preset, err);
    if (p < 0)
        return XPB_ERR_USAGE;
    xpb_status st = XPB_OK;
    for (size_t i = 0; i < counts[p] && !st; i++)
        st = push(&sets[p][i], ranks, l, err);
    return st;
}

static bool knows_size_key(const char *k) { return strcmp(k, "n") == 0 || strcmp(k, "d") == 0 || strcmp(k, "m") == 0; }

/* ---- the fp64 reference ------------------------------------------------------------------------ */

/* What an assign of one point is judged by: the nearest anchor, the dist bound and the index
 * bound (both widened at a near tie), and the anchors it may be given. */
typedef struct point_ref {
    double best, dist_tol;
    int64_t best_j, index_tol;
} point_ref;

/* The host state of a case small enough for every point's pass: each point's judgement and
 * each anchor's count interval [lo, hi]. */
typedef struct assign_ref {
    point_ref *pt;
    int64_t *lo, *hi;
} assign_ref;

static void assign_ref_free(void *p)
{
    assign_ref *r = p;
    if (r)
        free(r->pt), free(r->lo), free(r->hi);
    free(r);
}

/* Point i's judgement; work: 2m doubles. With lo/hi (each m, shared), also counts it: hi for
 * every anchor it may be given, lo too when that is its nearest alone. */
static point_ref judge(const float *x, const float *anchors, const double *anorm, int64_t d, int64_t m, int64_t i,
                       double *work, int64_t *lo, int64_t *hi)
{
    const float *xi = x + i * d;
    double xn = anneal_sqnorm64(xi, d), *dd = work, *e = work + m;
    point_ref r = {INFINITY, 0, 0, 0};
    for (int64_t j = 0; j < m; j++) {
        dd[j] = anneal_assign_dist(xi, anchors + j * d, d, xn, anorm[j], &e[j]);
        if (dd[j] < r.best) /* ties to the lowest j, as the contract's */
            r.best = dd[j], r.best_j = j;
    }
    double best_e = e[r.best_j];
    int64_t choices = 0;
    for (int64_t j = 0; j < m; j++) {
        if (!anneal_assign_acceptable(dd[j], e[j], r.best, best_e))
            continue;
        choices++;
        double t = dd[j] - r.best + e[j]; /* the chosen one's fp32 dist may be this far from best */
        r.dist_tol = t > r.dist_tol ? t : r.dist_tol;
        int64_t g = llabs(j - r.best_j);
        r.index_tol = g > r.index_tol ? g : r.index_tol;
        if (hi) {
#pragma omp atomic
            hi[j]++;
        }
    }
    if (lo && choices == 1) {
#pragma omp atomic
        lo[r.best_j]++;
    }
    return r;
}

static double *anchor_norms(const float *anchors, int64_t m, int64_t d)
{
    double *a = malloc((size_t)m * sizeof *a);
    for (int64_t j = 0; a && j < m; j++)
        a[j] = anneal_sqnorm64(anchors + j * d, d);
    return a;
}

/* Every point's pass (FULL_NMD allows it): d->host. */
static xpb_status full_reference(const xpb_case *c, xpb_case_data *d, xpb_error *err)
{
    int64_t n = xpb_case_param(c, "n", 1), dim = xpb_case_param(c, "d", 1), m = xpb_case_param(c, "m", 1);
    assign_ref *r = calloc(1, sizeof *r);
    double *anorm = anchor_norms(d->in[1], m, dim);
    if (r) {
        r->pt = malloc((size_t)n * sizeof *r->pt);
        r->lo = calloc((size_t)m, sizeof *r->lo);
        r->hi = calloc((size_t)m, sizeof *r->hi);
    }
    if (!r || !r->pt || !r->lo || !r->hi || !anorm) {
        assign_ref_free(r), free(anorm);
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory for the anneal_assign_sharded reference");
    }
    int oom = 0;
#pragma omp parallel
    {
        double *work = malloc(2 * (size_t)m * sizeof *work);
        if (!work) {
#pragma omp atomic write
            oom = 1;
        }
#pragma omp for schedule(dynamic, 256)
        for (int64_t i = 0; i < n; i++)
            if (work)
                r->pt[i] = judge(d->in[0], d->in[1], anorm, dim, m, i, work, r->lo, r->hi);
        free(work);
    }
    free(anorm);
    if (oom) {
        assign_ref_free(r);
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory for the anneal_assign_sharded reference");
    }
    d->host = r;
    d->host_free = assign_ref_free;
    return XPB_OK;
}

/* The blobs: points 0 .. n-1, anchors n .. n+m-1; outputs: dist (2n + m), assign, scratch. */
static xpb_status make_data(const xpb_case *c, uint64_t seed, xpb_case_data *d, xpb_error *err)
{
    memset(d, 0, sizeof *d);
    int64_t n = xpb_case_param(c, "n", 1), dim = xpb_case_param(c, "d", 1), m = xpb_case_param(c, "m", 1);
    size_t xbytes = (size_t)n * (size_t)dim * sizeof(float), abytes = (size_t)m * (size_t)dim * sizeof(float);
    float *x = malloc(xbytes + abytes), *a = malloc(abytes);
    if (!x || !a) {
        free(x), free(a);
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "cannot allocate %zu bytes of host memory for the points",
                        xbytes + 2 * abytes);
    }
    anneal_blobs(x, n + m, dim, m, seed);
    memcpy(a, x + n * dim, abytes);
    d->n_in = 2;
    d->in_name[0] = "x", d->in[0] = x, d->in_bytes[0] = xbytes;
    d->in_name[1] = "anchors", d->in[1] = a, d->in_bytes[1] = abytes;
    d->n_out = 3;
    d->out_name[0] = "dist", d->out_bytes[0] = (2 * (size_t)n + (size_t)m) * sizeof(float);
    d->out_elements = 2 * (size_t)n + (size_t)m;
    d->out_name[1] = "assign", d->out_bytes[1] = (size_t)n * sizeof(uint32_t);
    d->out_name[2] = "scratch", d->out_bytes[2] = XPB_ANNEAL_SCRATCH_BYTES(n, m);
    if ((double)n * (double)m * (double)dim > FULL_NMD)
        return XPB_OK;
    xpb_status st = full_reference(c, d, err);
    if (st)
        xpb_case_data_free(d);
    return st;
}

static void make_args(const xpb_case *c, const xpb_view *in, const xpb_view *out, void *args)
{
    xpb_anneal_assign_args *a = args;
    memset(a, 0, sizeof *a);
    a->x = in[0], a->anchors = in[1];
    a->dist = out[0], a->assign = out[1], a->scratch = out[2];
    a->n = xpb_case_param(c, "n", 1), a->d = xpb_case_param(c, "d", 1), a->m = xpb_case_param(c, "m", 1);
}

static size_t unit_elements(const xpb_case *c)
{
    (void)c;
    return 1;
}

static void reference(const xpb_case *c, const xpb_case_data *d, const char *precision, size_t u0, size_t u1,
                      double *ref, double *tol)
{
    (void)precision;
    const assign_ref *r = d->host;
    int64_t n = xpb_case_param(c, "n", 1), dim = xpb_case_param(c, "d", 1), m = xpb_case_param(c, "m", 1);
    double *anorm = NULL, *work = NULL;
    if (!r && u0 < 2 * (size_t)n) { /* sampled points of a large case: each one's pass here */
        anorm = anchor_norms(d->in[1], m, dim);
        work = malloc(2 * (size_t)m * sizeof *work);
    }
    for (size_t u = u0; u < u1; u++) {
        double *o = ref + (u - u0), *t = tol + (u - u0);
        if (u >= 2 * (size_t)n) { /* a count: [lo, hi] as a midpoint and a half width */
            size_t j = u - 2 * (size_t)n;
            double lo = r ? (double)r->lo[j] : 0, hi = r ? (double)r->hi[j] : (double)n;
            *o = (lo + hi) / 2, *t = (hi - lo) / 2;
            continue;
        }
        int64_t i = (int64_t)(u % (size_t)n);
        point_ref p;
        if (r)
            p = r->pt[i];
        else if (anorm && work)
            p = judge(d->in[0], d->in[1], anorm, dim, m, i, work, NULL, NULL);
        else { /* out of host memory: a reference no output meets, so the case fails rather than passes */
            *o = NAN, *t = 0;
            continue;
        }
        if (u < (size_t)n)
            *o = p.best, *t = p.dist_tol;
        else
            *o = (double)p.best_j, *t = (double)p.index_tol;
    }
    free(anorm), free(work);
}

static const char *tolerance_text(const xpb_case *c, const char *precision)
{
    (void)precision;
    int64_t n = xpb_case_param(c, "n", 1), dim = xpb_case_param(c, "d", 1), m = xpb_case_param(c, "m", 1);
    if ((double)n * (double)m * (double)dim > FULL_NMD)
        return "dist[0,n): |d - D_min| <= gamma_{d+2}(||x||^2 + 2 sum|x_k a_k| + ||a||^2) (+ the gap to a near-tie "
               "anchor); anchor[n,2n): the fp64 argmin, or a near tie within both bounds; counts[2n,2n+m): only "
               "0 <= c <= n at this size (points sampled)";
    return "dist[0,n): |d - D_min| <= gamma_{d+2}(||x||^2 + 2 sum|x_k a_k| + ||a||^2) (+ the gap to a near-tie "
           "anchor); anchor[n,2n): the fp64 argmin, or a near tie within both bounds; counts[2n,2n+m): exact "
           "between the points only j can take and those j may take";
}

static size_t sampled_units(const xpb_case *c)
{
    int64_t n = xpb_case_param(c, "n", 1), dim = xpb_case_param(c, "d", 1), m = xpb_case_param(c, "m", 1);
    return (double)n * (double)m * (double)dim > FULL_NMD ? SAMPLED_UNITS : 0;
}

const sharded_op_i sharded_anneal_assign = {
    .op = XPB_OP_ANNEAL_ASSIGN_SHARDED,
    .add_cases = add_cases,
    .knows_size_key = knows_size_key,
    .make_data = make_data,
    .make_args = make_args,
    .unit_elements = unit_elements,
    .reference = reference,
    .tolerance_text = tolerance_text,
    .sampled_units = sampled_units,
};
