/* retrieval.c - what the compressed store is for: top-k search over it (docs/workloads.md
 * section 3, "Retrieval"). From the validated run's end state, for held-out queries:
 *   - exact search: each query's k nearest points by fp64 squared distance, ties to the lowest
 *     point index (host);
 *   - compressed search: every point replaced by its anchor rounded to fp16 (as the compression
 *     ratio stores it), ranked by the fp32 GEMM-form distance of the query to that anchor, ties to
 *     the lowest point index (so one anchor's points come in index order). The distances are the
 *     search op's (XPB_OP_ANNEAL_SEARCH) on the session's device, validated per element;
 *   - recall@k = mean over queries of |compressed top-k and exact top-k| / k, for k = 10 and 20,
 *     and the anchor-level figure: the share of exact top-k points whose anchor holds one of the
 *     compressed top-k points (the right cluster found, its order within lost to the ties);
 *   - latency per batch of all queries, host clock: upload of the queries, the op, download of the
 *     nq x m distances, ranking on the host; the op's device time apart. The same for the exact
 *     baseline (the op over the points themselves, m = n) while it stays under a cap. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "anneal_case.h"
#include "xpb_clock.h"
#include "xpb_session.h"
#include "xpb_stats.h"

#define BATCHES 20            /* timed batches, after one warm-up batch                           */
#define BATCH_BUDGET_S 5.0    /* ... fewer (at least MIN_BATCHES) once the timed ones took this long */
#define MIN_BATCHES 5
#define EXACT_MAX_NQD 4.0e9   /* exact baseline only while n * nq * d multiply-adds per batch ...   */
#define EXACT_MAX_NQ 0x1p27   /* ... and n * nq distances (512 MiB) stay under these               */
#define CHECK_MAX_QMD 4.0e8   /* the search check takes every stride-th query past this many        */

#define RANK_PARALLEL_MIN (1 << 18) /* distances per batch from which the ranking uses every thread */

#ifdef _OPENMP /* the host ranking runs one query per thread, like the rest of the host code */
static int thread_id(void) { return omp_get_thread_num(); }
static int threads(void) { return omp_get_max_threads(); }
#else
static int thread_id(void) { return 0; }
static int threads(void) { return 1; }
#endif

/* ---- fp16 --------------------------------------------------------------------------------------- */

static uint16_t f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7FFFFFFFu;
    if (ax >= 0x7F800000u) /* inf, NaN */
        return (uint16_t)(sign | (ax > 0x7F800000u ? 0x7E00u : 0x7C00u));
    if (ax >= 0x477FF000u) /* >= 65520 rounds to inf */
        return (uint16_t)(sign | 0x7C00u);
    if (ax < 0x38800000u) { /* below 2^-14: a subnormal half, in units of 2^-24 (exact scaling) */
        float a;
        memcpy(&a, &ax, sizeof a);
        return (uint16_t)(sign | (uint32_t)lrintf(a * 0x1p24f)); /* ties to even; 0x400 is 2^-14 */
    }
    uint32_t h = (ax >> 13) - ((127u - 15u) << 10), rem = ax & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
        h++; /* a carry moves into the exponent, as it should */
    return (uint16_t)(sign | h);
}

static float f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
    if (e == 0) {
        float v = (float)mant * 0x1p-24f;
        return sign ? -v : v;
    }
    uint32_t bits = sign | (e == 31 ? 0x7F800000u | mant << 13 : (e + 112u) << 23 | mant << 13);
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

float anneal_fp16_round(float f) { return f16_to_f32(f32_to_f16(f)); }

/* ---- the host half: rankings and recall ---------------------------------------------------------- */

bool anneal_csr_build(anneal_csr *c, const uint32_t *assign, int64_t n, int64_t m)
{
    c->m = m;
    c->start = calloc((size_t)m + 1, sizeof *c->start);
    c->pts = malloc((size_t)n * sizeof *c->pts);
    int64_t *fill = calloc((size_t)m, sizeof *fill);
    if (!c->start || !c->pts || !fill) {
        free(fill);
        anneal_csr_free(c);
        return false;
    }
    for (int64_t i = 0; i < n; i++)
        if (assign[i] < (uint64_t)m)
            c->start[assign[i] + 1]++;
    for (int64_t j = 0; j < m; j++)
        c->start[j + 1] += c->start[j];
    for (int64_t i = 0; i < n; i++) /* in index order: each anchor's list is sorted */
        if (assign[i] < (uint64_t)m)
            c->pts[c->start[assign[i]] + fill[assign[i]]++] = (uint32_t)i;
    free(fill);
    return true;
}

void anneal_csr_free(anneal_csr *c)
{
    free(c->start), free(c->pts);
    c->start = NULL, c->pts = NULL;
}

/* Keeps the k smallest (v, i) seen so far, sorted, in kd/ki (*have of them). Candidates come in
 * increasing i, so an equal v never displaces an earlier one: ties go to the lowest index. */
static void topk_push(double *kd, uint32_t *ki, int64_t *have, int64_t k, double v, uint32_t i)
{
    if (*have == k && !(v < kd[k - 1]))
        return;
    int64_t p = *have < k ? (*have)++ : k - 1;
    while (p > 0 && kd[p - 1] > v) {
        kd[p] = kd[p - 1], ki[p] = ki[p - 1];
        p--;
    }
    kd[p] = v, ki[p] = i;
}

void anneal_exact_topk(const float *x, int64_t n, int64_t d, const float *queries, int64_t nq, int64_t k,
                       uint32_t *idx)
{
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t q = 0; q < nq; q++) {
        double kd[ANNEAL_TOPK_MAX];
        int64_t have = 0;
        const float *qv = queries + q * d;
        for (int64_t i = 0; i < n; i++) {
            const float *p = x + i * d;
            double s = 0;
            for (int64_t e = 0; e < d; e++) {
                double t = (double)p[e] - (double)qv[e];
                s += t * t;
            }
            topk_push(kd, idx + q * k, &have, k, s, (uint32_t)i);
        }
    }
}

void anneal_row_topk(const float *row, int64_t n, int64_t k, uint32_t *idx)
{
    double kd[ANNEAL_TOPK_MAX];
    int64_t have = 0;
    for (int64_t i = 0; i < n; i++)
        if (!isnan(row[i]) && (have < k || row[i] < kd[k - 1])) /* the common case skips the call */
            topk_push(kd, idx, &have, k, row[i], (uint32_t)i);
    while (have < k) /* NaN never ranks (only a broken row has one) */
        idx[have++] = UINT32_MAX;
}

/* The first point of anchor j's list with an index above `after`, or INT64_MAX. */
static int64_t first_after(const anneal_csr *c, int64_t j, int64_t *cur, int64_t after)
{
    while (*cur < c->start[j + 1] && (int64_t)c->pts[*cur] <= after)
        (*cur)++;
    return *cur < c->start[j + 1] ? (int64_t)c->pts[*cur] : INT64_MAX;
}

void anneal_compressed_topk(const float *dist, const anneal_csr *c, int64_t k, int64_t *work, uint32_t *idx)
{
    int64_t have = 0, *group = work, *cur = work + c->m;
    float last = -1.0f; /* below every distance (>= +0) */
    while (have < k) {
        /* the next distance among anchors with points, then every anchor at exactly that distance */
        float best = INFINITY;
        for (int64_t j = 0; j < c->m; j++)
            if (c->start[j + 1] > c->start[j] && dist[j] > last && dist[j] < best)
                best = dist[j];
        if (!(best < INFINITY))
            break;
        int64_t ng = 0;
        for (int64_t j = 0; j < c->m; j++)
            if (dist[j] == best && c->start[j + 1] > c->start[j])
                group[ng] = j, cur[ng++] = c->start[j];
        /* their points merged by index (one anchor: its list as it is) */
        for (int64_t after = -1; have < k;) {
            int64_t next = INT64_MAX;
            for (int64_t g = 0; g < ng; g++) {
                int64_t p = first_after(c, group[g], &cur[g], after);
                next = p < next ? p : next;
            }
            if (next == INT64_MAX)
                break;
            idx[have++] = (uint32_t)next;
            after = next;
        }
        last = best;
    }
    while (have < k)
        idx[have++] = UINT32_MAX;
}

void anneal_recall(const uint32_t *got, const uint32_t *exact, const uint32_t *assign, int64_t nq, int64_t kmax,
                   int64_t k, double *recall, double *anchor_recall)
{
    double hits = 0, anchor_hits = 0;
    for (int64_t q = 0; q < nq; q++) {
        const uint32_t *g = got + q * kmax, *e = exact + q * kmax;
        for (int64_t a = 0; a < k; a++) {
            bool hit = false, anchor_hit = false;
            for (int64_t b = 0; b < k && g[b] != UINT32_MAX; b++) {
                hit = hit || g[b] == e[a];
                anchor_hit = anchor_hit || assign[g[b]] == assign[e[a]];
            }
            hits += hit, anchor_hits += anchor_hit;
        }
    }
    *recall = nq && k ? hits / ((double)nq * (double)k) : NAN;
    *anchor_recall = nq && k ? anchor_hits / ((double)nq * (double)k) : NAN;
}

/* ---- the device half: the search op, its check, and the latency ----------------------------------- */

/* One search setup: the op's arguments, where its output comes back, and how to rank it. */
typedef struct search_path {
    xpb_anneal_search_args args;
    float *dist;          /* nq x m, host                                  */
    const anneal_csr *csr; /* compressed: rank anchors; NULL: rank the row */
    int64_t *work;        /* 2m int64 per thread (compressed)              */
    uint32_t *top;        /* nq x kmax                                     */
    int64_t kmax;
} search_path;

static void rank_all(const search_path *p)
{
#pragma omp parallel for schedule(dynamic, 4) if (p->args.nq * p->args.m >= RANK_PARALLEL_MIN)
    for (int64_t q = 0; q < p->args.nq; q++) {
        const float *row = p->dist + q * p->args.m;
        if (p->csr)
            anneal_compressed_topk(row, p->csr, p->kmax, p->work + (size_t)thread_id() * 2 * (size_t)p->args.m,
                                   p->top + q * p->kmax);
        else
            anneal_row_topk(row, p->args.m, p->kmax, p->top + q * p->kmax);
    }
}

/* One batch: upload the queries, the op, download the distances, rank. *host_s: the host clock
 * over all of it; *op_s: the op's device time (op timing on). */
static xpb_status batch(xpb_session *s, const search_path *p, const float *queries, double *host_s, double *op_s,
                        xpb_error *err)
{
    size_t qb = (size_t)(p->args.nq * p->args.d) * sizeof(float), db = (size_t)(p->args.nq * p->args.m) * sizeof(float);
    double op0 = s->op_seconds[XPB_OP_ANNEAL_SEARCH], t0 = xpb_clock_now();
    xpb_status st = xpb_session_upload(s, p->args.queries, 0, queries, qb, err);
    if (!st)
        st = xpb_session_launch(s, XPB_OP_ANNEAL_SEARCH, &p->args, err);
    if (!st)
        st = xpb_session_download(s, p->args.dist, 0, p->dist, db, err);
    if (!st)
        rank_all(p);
    *host_s = xpb_clock_now() - t0;
    *op_s = s->op_seconds[XPB_OP_ANNEAL_SEARCH] - op0;
    return st;
}

static anneal_latency latency_of(const double *v, int n)
{
    xpb_stats st = xpb_stats_compute(v, (size_t)n);
    return (anneal_latency){st.median, st.p05, st.p95};
}

/* A warm-up batch, then up to BATCHES timed ones with op timing on. */
static xpb_status time_batches(xpb_session *s, const search_path *p, const float *queries, int *batches,
                               anneal_latency *host, anneal_latency *op, xpb_error *err)
{
    double hs[BATCHES], os[BATCHES], spent = 0;
    bool was = s->time_ops;
    s->time_ops = true;
    xpb_status st = batch(s, p, queries, &hs[0], &os[0], err);
    int b = 0;
    while (!st && b < BATCHES && (b < MIN_BATCHES || spent < BATCH_BUDGET_S)) {
        st = batch(s, p, queries, &hs[b], &os[b], err);
        spent += hs[b++];
    }
    s->time_ops = was;
    *batches = b;
    *host = latency_of(hs, b);
    *op = latency_of(os, b);
    return st;
}

/* The first launch of a path: validated per element (every stride-th query) against fp64. */
static xpb_status first_launch(xpb_session *s, const search_path *p, const float *queries, const float *anchors,
                               anneal_checks *k, int inject, bool *ok, xpb_error *err)
{
    const xpb_anneal_search_args *a = &p->args;
    xpb_status st = xpb_session_launch(s, XPB_OP_ANNEAL_SEARCH, a, err);
    if (!st)
        st = xpb_session_download(s, a->dist, 0, p->dist, (size_t)(a->nq * a->m) * sizeof(float), err);
    if (st)
        return st;
    if (inject) /* --inject-fault: a broken search kernel (query 0: checked at any stride) */
        p->dist[a->m / 2] = p->dist[a->m / 2] * 1.001f + 0.001f;
    double qmd = (double)a->nq * (double)a->m * (double)a->d;
    int64_t stride = qmd > CHECK_MAX_QMD ? (int64_t)ceil(qmd / CHECK_MAX_QMD) : 1;
    *ok = anneal_check_search(k, queries, a->nq, a->d, anchors, a->m, stride, p->dist);
    return XPB_OK;
}

static void note(anneal_retrieval_report *out, const char *what, const char *why)
{
    size_t used = strlen(out->note);
    snprintf(out->note + used, sizeof out->note - used, "%s%s: %.200s", used ? "; " : "", what, why);
}

/* The compressed search: the op over the fp16 anchors ah; recall from its validated first launch,
 * then the latency. pc: its path (dist, csr, work, top, kmax set); exact: the exact top-k. */
static xpb_status compressed(xpb_session *s, const anneal_retrieval_in *in, const float *ah, const uint32_t *exact,
                             search_path *pc, anneal_checks *k, int inject, anneal_retrieval_report *out,
                             xpb_error *err)
{
    const int64_t nq = in->nq, d = in->d, m = in->m, n = in->n;
    pc->args = (xpb_anneal_search_args){.nq = nq, .d = d, .m = m};
    xpb_error why = {{0}};
    if (xpb_session_supports(s, XPB_OP_ANNEAL_SEARCH, &pc->args, &why)) {
        note(out, "no retrieval report", why.msg);
        return XPB_OK;
    }
    xpb_status st;
    bool ok = false;
    if ((st = xpb_session_alloc(s, (size_t)(nq * d) * sizeof(float), &pc->args.queries, err)) ||
        (st = xpb_session_alloc(s, (size_t)(m * d) * sizeof(float), &pc->args.anchors, err)) ||
        (st = xpb_session_alloc(s, (size_t)(nq * m) * sizeof(float), &pc->args.dist, err)) ||
        (st = xpb_session_alloc(s, XPB_ANNEAL_SEARCH_SCRATCH_BYTES(nq, m > n ? m : n), &pc->args.scratch, err)) ||
        (st = xpb_session_upload(s, pc->args.queries, 0, in->queries, (size_t)(nq * d) * sizeof(float), err)) ||
        (st = xpb_session_upload(s, pc->args.anchors, 0, ah, (size_t)(m * d) * sizeof(float), err)) ||
        (st = first_launch(s, pc, in->queries, ah, k, inject, &ok, err)))
        return st;
    rank_all(pc);
    for (int i = 0; i < 2; i++)
        anneal_recall(pc->top, exact, in->assign, nq, pc->kmax, out->k[i], &out->recall[i], &out->anchor_recall[i]);
    if (!ok) {
        note(out, "latency", "not measured: the search op failed validation");
        return XPB_OK;
    }
    st = time_batches(s, pc, in->queries, &out->batches, &out->compressed, &out->compressed_op, err);
    out->timed = st == XPB_OK;
    return st;
}

/* The exact baseline: the same op over the points themselves (m = n), under the cap; pc: the
 * compressed path (its queries and scratch are reused). */
static xpb_status exact_baseline(xpb_session *s, const anneal_retrieval_in *in, const search_path *pc, anneal_checks *k,
                                 anneal_retrieval_report *out, xpb_error *err)
{
    const int64_t n = in->n, nq = in->nq;
    double nqd = (double)n * (double)nq * (double)in->d, nqn = (double)n * (double)nq;
    if (nqd > EXACT_MAX_NQD || nqn > EXACT_MAX_NQ) {
        char cap[160];
        snprintf(cap, sizeof cap, "not timed: n*nq*d = %.3g multiply-adds per batch (cap %.3g), n*nq = %.3g "
                 "distances (cap %.3g)", nqd, EXACT_MAX_NQD, nqn, EXACT_MAX_NQ);
        note(out, "exact search", cap);
        return XPB_OK;
    }
    search_path pe = *pc;
    pe.args.anchors = in->x_dev, pe.args.m = n, pe.csr = NULL;
    xpb_error why = {{0}};
    if (xpb_session_supports(s, XPB_OP_ANNEAL_SEARCH, &pe.args, &why)) {
        note(out, "exact search not timed", why.msg);
        return XPB_OK;
    }
    if (!(pe.dist = malloc((size_t)(nq * n) * sizeof *pe.dist)))
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "anneal retrieval: out of host memory for %lld x %lld distances",
                        (long long)nq, (long long)n);
    bool ok = false;
    xpb_status st = xpb_session_alloc(s, (size_t)(nq * n) * sizeof(float), &pe.args.dist, err);
    if (!st)
        st = first_launch(s, &pe, in->queries, in->x, k, 0, &ok, err);
    if (!st && !ok)
        note(out, "exact search", "not timed: the search op failed validation over the points");
    if (!st && ok && !(st = time_batches(s, &pe, in->queries, &out->exact_batches, &out->exact, &out->exact_op, err)))
        out->exact_timed = true;
    free(pe.dist);
    return st;
}

xpb_status anneal_retrieval(xpb_session *s, const anneal_retrieval_in *in, anneal_checks *k, int inject,
                            anneal_retrieval_report *out, xpb_error *err)
{
    const int64_t n = in->n, d = in->d, nq = in->nq, m = in->m;
    memset(out, 0, sizeof *out);
    out->queries = nq;
    out->anchors = m;
    out->k[0] = (int)(n < 10 ? n : 10), out->k[1] = (int)(n < ANNEAL_TOPK_MAX ? n : ANNEAL_TOPK_MAX);
    for (int i = 0; i < 2; i++)
        out->recall[i] = out->anchor_recall[i] = NAN;
    const int64_t kmax = out->k[1];
    anneal_csr csr = {0};
    float *ah = malloc((size_t)(m * d) * sizeof *ah), *dc = malloc((size_t)(nq * m) * sizeof *dc);
    uint32_t *exact = malloc((size_t)(nq * kmax) * sizeof *exact), *top = malloc((size_t)(nq * kmax) * sizeof *top);
    int64_t *work = malloc((size_t)threads() * (size_t)m * 2 * sizeof *work);
    xpb_status st = XPB_OK;
    if (!ah || !dc || !exact || !top || !work || !anneal_csr_build(&csr, in->assign, n, m)) {
        st = xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "anneal retrieval: out of host memory");
    } else {
        for (int64_t i = 0; i < m * d; i++) /* the store: anchors as fp16 */
            ah[i] = anneal_fp16_round(in->anchors[i]);
        anneal_exact_topk(in->x, n, d, in->queries, nq, kmax, exact);
        search_path pc = {.dist = dc, .csr = &csr, .work = work, .top = top, .kmax = kmax};
        st = compressed(s, in, ah, exact, &pc, k, inject, out, err);
        if (!st && out->timed)
            st = exact_baseline(s, in, &pc, k, out, err);
    }
    anneal_csr_free(&csr);
    free(ah), free(dc), free(exact), free(top), free(work);
    return st;
}

void anneal_retrieval_publish(const anneal_retrieval_report *q, xpb_run_report *rep)
{
    if (q->queries <= 0)
        return;
    const unsigned H = XPB_REPORT_HEADLINE;
    xpb_run_report_metric(rep, "queries", (double)q->queries, "", XPB_BETTER_INFO, H);
    xpb_run_report_metric(rep, "store_anchors", (double)q->anchors, "", XPB_BETTER_INFO, 0);
    for (int i = 0; i < 2; i++) { /* k1 = 10 and k2 = 20, each at most the point count */
        char name[XPB_REPORT_NAME_LEN];
        snprintf(name, sizeof name, "k%d", i + 1);
        xpb_run_report_metric(rep, name, q->k[i], "", XPB_BETTER_INFO, H);
        snprintf(name, sizeof name, "recall@k%d", i + 1);
        xpb_run_report_metric(rep, name, q->recall[i], "", XPB_BETTER_HIGHER, H);
        snprintf(name, sizeof name, "anchor_recall@k%d", i + 1);
        xpb_run_report_metric(rep, name, q->anchor_recall[i], "", XPB_BETTER_HIGHER, H);
    }
    const anneal_latency *l[4] = {&q->compressed, &q->compressed_op, &q->exact, &q->exact_op};
    const char *names[4] = {"search_compressed_batch", "search_compressed_op", "search_exact_batch",
                            "search_exact_op"};
    const bool timed[4] = {q->timed, q->timed, q->exact_timed, q->exact_timed};
    for (int i = 0; i < 4; i++) /* the batches are on the console; the op alone in the file */
        xpb_run_report_timing(rep, names[i], timed[i] ? l[i]->median : NAN, timed[i] ? l[i]->p05 : NAN,
                              timed[i] ? l[i]->p95 : NAN, !timed[i] ? 0 : i < 2 ? q->batches : q->exact_batches, i % 2 ? 0 : H);
    xpb_run_report_metric(rep, "exact_over_compressed",
                          q->exact_timed && q->compressed.median > 0 ? q->exact.median / q->compressed.median : NAN,
                          "", XPB_BETTER_HIGHER, 0);
    if (q->note[0])
        xpb_run_report_text(rep, "retrieval_note", q->note, 0);
}
