/* run.c - one annealing run through a backend's ops (xpb_workload_i.run of the anneal workload),
 * following docs/workloads.md section 3 and its pinned details step by step, like the fp64
 * reference (reference.c) does on the host.
 *
 * Device-resident: the points are uploaded once; per iteration only the energy and the changes
 * (8 bytes) come back, plus, at maintenance, the anchors, counts and assignments, which the host
 * code shared with the reference (anneal_maintenance) edits and sends back. Two assignment
 * buffers take turns as this iteration's and the previous one's, for `changes`.
 *
 * When the runner validates (s->validating), the first iteration's ops are read back and checked
 * (checks.c), `changes` again on the second iteration (real changes), and at the end the whole
 * run is compared with the reference run of workload.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anneal_case.h"
#include "xpb_clock.h"
#include "xpb_session.h"

/* Past this many multiply-adds a check replays or scans a part: init's first choices, every
 * stride-th point of assign (the full preset's 1M-point cases). */
#define CHECK_MAX_NMD 4.0e9
#define ENERGY_REL_TOL 1e-3 /* whole run: docs/validation.md, "Stateful workloads" */
#define PART_REL 1e-4 /* trajectories "part": changes or anchors differ, or energy past this (fp32 noise ~1e-6) */

typedef struct dev_state {
    int64_t n, d, m, cap;
    xpb_view x, anchors, chosen, asg[2], dist, counts, mean, var, result, scratch;
    xpb_view sums; /* a device group's: the moments' per-rank fp64 sums (cap x d) */
} dev_state;

typedef struct host_copy { /* the first iteration's outputs, kept for the checks */
    float *anchors0, *anchors1, *dist, *mean, *var;
    uint32_t *chosen, *asg0, *asg1, *counts;
} host_copy;

static void host_copy_free(host_copy *h)
{
    free(h->anchors0), free(h->anchors1), free(h->dist), free(h->mean), free(h->var);
    free(h->chosen), free(h->asg0), free(h->asg1), free(h->counts);
}

/* Buffers sized for cap anchors. */
static xpb_status alloc_anchor_buffers(xpb_session *s, dev_state *g, xpb_error *err)
{
    size_t md = (size_t)g->cap * (size_t)g->d * sizeof(float);
    xpb_status st = xpb_session_alloc(s, md, &g->anchors, err);
    if (!st)
        st = xpb_session_alloc(s, (size_t)g->cap * sizeof(uint32_t), &g->counts, err);
    if (!st)
        st = xpb_session_alloc(s, md, &g->mean, err);
    if (!st)
        st = xpb_session_alloc(s, md, &g->var, err);
    if (!st)
        st = xpb_session_alloc(s, XPB_ANNEAL_SCRATCH_BYTES(g->n, g->cap), &g->scratch, err);
    if (!st && s->ranks)
        st = xpb_session_alloc(s, (size_t)g->cap * (size_t)g->d * sizeof(double), &g->sums, err);
    return st;
}

static xpb_status alloc_all(xpb_session *s, dev_state *g, xpb_error *err)
{
    size_t nb = (size_t)g->n * sizeof(uint32_t);
    xpb_status st = xpb_session_alloc(s, (size_t)g->n * (size_t)g->d * sizeof(float), &g->x, err);
    if (!st)
        st = xpb_session_alloc(s, (size_t)g->m * sizeof(uint32_t), &g->chosen, err);
    for (int i = 0; i < 2 && !st; i++)
        st = xpb_session_alloc(s, nb, &g->asg[i], err);
    if (!st)
        st = xpb_session_alloc(s, nb, &g->dist, err);
    if (!st)
        st = xpb_session_alloc(s, 8, &g->result, err);
    return st ? st : alloc_anchor_buffers(s, g, err);
}

/* A split grew the anchors past cap: new buffers (the anchors are uploaded by the caller). */
static xpb_status grow(xpb_session *s, dev_state *g, int64_t m, xpb_error *err)
{
    if (m <= g->cap)
        return XPB_OK;
    xpb_session_free(s, &g->anchors), xpb_session_free(s, &g->counts), xpb_session_free(s, &g->mean);
    xpb_session_free(s, &g->var), xpb_session_free(s, &g->scratch), xpb_session_free(s, &g->sums);
    g->cap = m * 2 < g->n ? m * 2 : (m > g->n ? m : g->n);
    return alloc_anchor_buffers(s, g, err);
}

static xpb_status download(xpb_session *s, xpb_view v, void *dst, size_t bytes, xpb_error *err)
{
    return xpb_session_download(s, v, 0, dst, bytes, err);
}

static void *alloc_host(size_t bytes, xpb_status *st, xpb_error *err)
{
    void *p = *st ? NULL : malloc(bytes ? bytes : 1);
    if (!p && !*st)
        *st = xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "anneal: out of host memory (%zu bytes)", bytes);
    return p;
}

/* What the parts of a run share. */
typedef struct run_ctx {
    xpb_session *s;
    const float *x;
    int64_t n, dim;
    anneal_config cfg;
    dev_state g;
    host_copy h;
    anneal_checks chk;
    bool validating;
    int inject;
    xpb_error *err;
} run_ctx;

/* init's chosen points and anchors read back and checked (the first choices past CHECK_MAX_NMD). */
static xpb_status check_init(run_ctx *r)
{
    xpb_status st = XPB_OK;
    size_t ab = (size_t)(r->g.m * r->dim) * sizeof(float);
    r->h.chosen = alloc_host((size_t)r->g.m * sizeof(uint32_t), &st, r->err);
    r->h.anchors0 = alloc_host(ab, &st, r->err);
    if (!st)
        st = download(r->s, r->g.chosen, r->h.chosen, (size_t)r->g.m * sizeof(uint32_t), r->err);
    if (!st)
        st = download(r->s, r->g.anchors, r->h.anchors0, ab, r->err);
    if (!st) {
        double per_step = (double)r->n * (double)r->dim;
        int64_t steps = per_step * (double)r->g.m > CHECK_MAX_NMD ? (int64_t)(CHECK_MAX_NMD / per_step) + 1 : r->g.m;
        anneal_check_init(&r->chk, r->x, r->n, r->dim, r->g.m, steps, r->h.chosen, r->h.anchors0);
    }
    return st;
}

/* The first iteration's assign read back and checked (every stride-th point past CHECK_MAX_NMD). */
static xpb_status check_assign(run_ctx *r, int cur)
{
    xpb_status st = XPB_OK;
    const int64_t n = r->n;
    r->h.asg0 = alloc_host((size_t)n * sizeof(uint32_t), &st, r->err);
    r->h.dist = alloc_host((size_t)n * sizeof(float), &st, r->err);
    if (!st)
        st = download(r->s, r->g.asg[cur], r->h.asg0, (size_t)n * sizeof(uint32_t), r->err);
    if (!st)
        st = download(r->s, r->g.dist, r->h.dist, (size_t)n * sizeof(float), r->err);
    if (!st) {
        double nmd = (double)n * (double)r->g.m * (double)r->dim;
        int64_t stride = nmd > CHECK_MAX_NMD ? (int64_t)ceil(nmd / CHECK_MAX_NMD) : 1;
        anneal_check_assign(&r->chk, r->x, n, r->dim, r->g.m, stride, r->h.anchors0, r->h.asg0, r->h.dist);
    }
    return st;
}

/* The first iteration's stats read back and checked; --inject-fault damages the means first. */
static xpb_status check_stats(run_ctx *r)
{
    xpb_status st = XPB_OK;
    const int64_t m = r->g.m, dim = r->dim;
    size_t ab = (size_t)(m * dim) * sizeof(float);
    r->h.counts = alloc_host((size_t)m * sizeof(uint32_t), &st, r->err);
    r->h.mean = alloc_host(ab, &st, r->err);
    r->h.var = alloc_host(ab, &st, r->err);
    if (!st)
        st = download(r->s, r->g.counts, r->h.counts, (size_t)m * sizeof(uint32_t), r->err);
    if (!st)
        st = download(r->s, r->g.mean, r->h.mean, ab, r->err);
    if (!st)
        st = download(r->s, r->g.var, r->h.var, ab, r->err);
    if (!st && r->inject) { /* --inject-fault: a broken stats kernel */
        size_t mid = (size_t)(m * dim) / 2;
        if (r->inject == 2) {
            uint32_t p = XPB_POISON_BITS;
            memcpy(&r->h.mean[mid], &p, sizeof p);
        } else {
            r->h.mean[mid] = r->h.mean[mid] * 1.001f + 0.001f;
        }
    }
    if (!st)
        anneal_check_stats(&r->chk, r->x, r->n, dim, m, r->cfg.trim, r->h.asg0, r->h.dist, r->h.counts, r->h.mean,
                           r->h.var);
    return st;
}

/* The first iteration's update read back and checked. */
static xpb_status check_update(run_ctx *r, float lr_t)
{
    xpb_status st = XPB_OK;
    const int64_t m = r->g.m, dim = r->dim;
    r->h.anchors1 = alloc_host((size_t)(m * dim) * sizeof(float), &st, r->err);
    if (!st)
        st = download(r->s, r->g.anchors, r->h.anchors1, (size_t)(m * dim) * sizeof(float), r->err);
    if (!st)
        anneal_check_update(&r->chk, m, dim, lr_t, r->h.anchors0, r->h.counts, r->h.mean, r->h.anchors1);
    return st;
}

/* Maintenance on the host (anneal_maintenance, shared with the reference) with this iteration's
 * anchors, counts and assignments at temperature t; the edited anchors and assignments go back,
 * into grown buffers when a split passed their capacity. */
static xpb_status maintain(run_ctx *r, int cur, double t)
{
    xpb_status st = XPB_OK;
    xpb_session *s = r->s;
    dev_state *g = &r->g;
    const int64_t n = r->n, dim = r->dim;
    anneal_state a = {.x = r->x, .n = n, .d = dim, .m = g->m, .cap = g->m};
    float *af = alloc_host((size_t)(g->m * dim) * sizeof(float), &st, r->err);
    uint32_t *cnt = alloc_host((size_t)g->m * sizeof(uint32_t), &st, r->err);
    a.a = alloc_host((size_t)(g->m * dim) * sizeof(double), &st, r->err);
    a.count = alloc_host((size_t)g->m * sizeof(int64_t), &st, r->err);
    a.asg = alloc_host((size_t)n * sizeof(uint32_t), &st, r->err);
    if (!st)
        st = download(s, g->anchors, af, (size_t)(g->m * dim) * sizeof(float), r->err);
    if (!st)
        st = download(s, g->counts, cnt, (size_t)g->m * sizeof(uint32_t), r->err);
    if (!st)
        st = download(s, g->asg[cur], a.asg, (size_t)n * sizeof(uint32_t), r->err);
    if (!st) {
        for (int64_t i = 0; i < g->m * dim; i++)
            a.a[i] = af[i];
        for (int64_t j = 0; j < g->m; j++)
            a.count[j] = cnt[j];
        if (!anneal_maintenance(&a, t))
            st = xpb_fail(r->err, XPB_ERR_OUT_OF_MEMORY, "anneal: out of host memory in maintenance");
    }
    free(af), free(cnt);
    float *an = !st ? alloc_host((size_t)(a.m * dim) * sizeof(float), &st, r->err) : NULL;
    if (!st) {
        for (int64_t i = 0; i < a.m * dim; i++)
            an[i] = (float)a.a[i];
        st = grow(s, g, a.m, r->err);
    }
    g->m = a.m;
    if (!st)
        st = xpb_session_upload(s, g->anchors, 0, an, (size_t)(g->m * dim) * sizeof(float), r->err);
    if (!st)
        st = xpb_session_upload(s, g->asg[cur], 0, a.asg, (size_t)n * sizeof(uint32_t), r->err);
    free(an), free(a.a), free(a.count), free(a.asg);
    return st;
}

/* changes on iterations 0 and 1 checked (on 1 against the real previous assignments). */
static xpb_status check_changes(run_ctx *r, int it, int cur, float ef, uint32_t chf)
{
    xpb_status st = XPB_OK;
    const int64_t n = r->n, dim = r->dim, m = r->g.m;
    float *ac = alloc_host((size_t)(m * dim) * sizeof(float), &st, r->err);
    uint32_t *as = alloc_host((size_t)n * sizeof(uint32_t), &st, r->err);
    if (!st)
        st = download(r->s, r->g.anchors, ac, (size_t)(m * dim) * sizeof(float), r->err);
    if (!st)
        st = download(r->s, r->g.asg[cur], as, (size_t)n * sizeof(uint32_t), r->err);
    if (!st)
        anneal_check_changes(&r->chk, r->x, n, dim, m, ac, as, it == 0 ? NULL : r->h.asg1, ef,
                             it == 0 ? (uint32_t)n : chf);
    free(ac);
    free(r->h.asg1);
    r->h.asg1 = as; /* this iteration's assignments, as they stood after maintenance */
    return st;
}

/* The sharded run's op (a device group; docs/multi-gpu.md, "Sharded annealing run") in phase
 * `phase` on this iteration's buffers. */
static xpb_status sharded(run_ctx *r, int phase, int cur, float lr_t)
{
    dev_state *g = &r->g;
    xpb_anneal_sharded_args a = {phase, g->x, g->anchors, g->chosen, g->asg[cur], g->asg[cur ^ 1], g->dist,
                                 g->counts, g->mean, g->var, g->result, g->sums, g->scratch, r->n, r->dim, g->m,
                                 r->cfg.trim, lr_t};
    xpb_status st = xpb_session_supports(r->s, XPB_OP_ANNEAL_SHARDED, &a, r->err);
    return st ? st : xpb_session_launch(r->s, XPB_OP_ANNEAL_SHARDED, &a, r->err);
}

/* One iteration on a device group: assign, stats and update in one launch of the sharded op
 * (checked on iteration 0 from rank 0's copies, which every rank shares), maintenance when due
 * (the host code of one device; it uploads the same anchors and assignments to every rank), then
 * energy and changes. */
static xpb_status iteration_group(run_ctx *r, int it, int cur, double t, float *ef, uint32_t *chf)
{
    float lr_t = (float)(r->cfg.lr * t / (1.0 + t));
    xpb_status st = sharded(r, XPB_ANNEAL_SHARDED_STEP, cur, lr_t);
    if (!st && r->validating && it == 0 && !(st = check_assign(r, cur)) && !(st = check_stats(r)))
        st = check_update(r, lr_t);
    if (!st && anneal_maintenance_due(&r->cfg, it))
        st = maintain(r, cur, t);
    if (!st)
        st = sharded(r, XPB_ANNEAL_SHARDED_CHANGES, cur, lr_t);
    unsigned char res[8];
    if (!st)
        st = xpb_session_download(r->s, r->g.result, 0, res, sizeof res, r->err);
    if (st)
        return st;
    memcpy(ef, res, 4);
    memcpy(chf, res + 4, 4);
    return r->validating && it <= 1 ? check_changes(r, it, cur, *ef, *chf) : XPB_OK;
}

/* One iteration `it` at temperature t: assign, stats, update (each checked on iteration 0),
 * maintenance when due, then changes: *ef the energy, *chf the changes read back. */
static xpb_status iteration(run_ctx *r, int it, int cur, double t, float *ef, uint32_t *chf)
{
    if (r->s->ranks)
        return iteration_group(r, it, cur, t, ef, chf);
    xpb_session *s = r->s;
    dev_state *g = &r->g;
    const int64_t n = r->n, dim = r->dim;
    xpb_anneal_assign_args aa = {g->x, g->anchors, g->asg[cur], g->dist, g->scratch, n, dim, g->m};
    xpb_anneal_stats_args sa = {g->x, g->asg[cur], g->dist, g->counts, g->mean, g->var, g->scratch, n, dim, g->m,
                                r->cfg.trim};
    float lr_t = (float)(r->cfg.lr * t / (1.0 + t));
    xpb_anneal_update_args ua = {g->anchors, g->counts, g->mean, g->m, dim, lr_t};
    xpb_status st = XPB_OK;
    if (it == 0 && !(st = xpb_session_supports(s, XPB_OP_ANNEAL_ASSIGN, &aa, r->err)) &&
        !(st = xpb_session_supports(s, XPB_OP_ANNEAL_STATS, &sa, r->err)))
        st = xpb_session_supports(s, XPB_OP_ANNEAL_UPDATE, &ua, r->err);
    const bool check_ops = r->validating && it == 0;
    if (!st)
        st = xpb_session_launch(s, XPB_OP_ANNEAL_ASSIGN, &aa, r->err);
    if (!st && check_ops)
        st = check_assign(r, cur);
    if (!st)
        st = xpb_session_launch(s, XPB_OP_ANNEAL_STATS, &sa, r->err);
    if (!st && check_ops)
        st = check_stats(r);
    if (!st)
        st = xpb_session_launch(s, XPB_OP_ANNEAL_UPDATE, &ua, r->err);
    if (!st && check_ops)
        st = check_update(r, lr_t);
    if (!st && anneal_maintenance_due(&r->cfg, it)) /* with this iteration's counts and T */
        st = maintain(r, cur, t);
    /* energy and changes, after update and maintenance */
    xpb_anneal_changes_args ca = {g->x, g->anchors, g->asg[cur], g->asg[cur ^ 1], g->result, g->scratch, n, dim, g->m};
    if (!st && it == 0)
        st = xpb_session_supports(s, XPB_OP_ANNEAL_CHANGES, &ca, r->err);
    if (!st)
        st = xpb_session_launch(s, XPB_OP_ANNEAL_CHANGES, &ca, r->err);
    unsigned char res[8];
    if (!st)
        st = xpb_session_download(s, g->result, 0, res, sizeof res, r->err);
    if (st)
        return st;
    memcpy(ef, res, 4);
    memcpy(chf, res + 4, 4);
    return r->validating && it <= 1 ? check_changes(r, it, cur, *ef, *chf) : XPB_OK;
}

/* The final anchors and the assignments of the last iteration (in asg[last]) read back once,
 * kept in out when validating (for the dump and the retrieval report). */
static xpb_status read_result(run_ctx *r, int last, anneal_outcome *out)
{
    xpb_status st = XPB_OK;
    const int64_t n = r->n, dim = r->dim, m = r->g.m;
    float *af = alloc_host((size_t)(m * dim) * sizeof(float), &st, r->err);
    uint32_t *as = alloc_host((size_t)n * sizeof(uint32_t), &st, r->err);
    if (!st)
        st = download(r->s, r->g.anchors, af, (size_t)(m * dim) * sizeof(float), r->err);
    if (!st)
        st = download(r->s, r->g.asg[last], as, (size_t)n * sizeof(uint32_t), r->err);
    if (!st && r->validating) {
        out->final_anchors = af, out->final_assign = as;
        af = NULL, as = NULL;
    }
    free(af), free(as);
    return st;
}

/* Level 2: the whole run against the fp64 reference (or why it was not), into out, its report
 * and runmsg. */
static void check_run(const anneal_result *ref, const anneal_outcome *ao, int inject, const run_ctx *r,
                      xpb_run_outcome *out, char *runmsg, size_t len)
{
    if (!ref) {
        snprintf(runmsg, len, "run: not checked (the fp64 reference run of n*m*d = %.2g per iteration "
                 "is not computed past %.2g)", (double)r->n * (double)r->cfg.m * (double)r->dim, 4.5e10);
        return;
    }
    double e = inject ? ao->energy * 1.01 : ao->energy;
    const double rel_err = ref->energy > 0 ? fabs(e - ref->energy) / ref->energy : fabs(e);
    const int band = ref->iterations / 10 > 2 ? ref->iterations / 10 : 2;
    out->run_checked = true;
    out->ref_iterations = ref->iterations;
    xpb_run_report *rep = &out->report;
    xpb_run_report_metric(rep, "reference_energy", ref->energy, "", XPB_BETTER_INFO, 0);
    xpb_run_report_metric(rep, "reference_compression_ratio", ref->ratio, "", XPB_BETTER_INFO, 0);
    xpb_run_report_metric(rep, "reference_anchors", (double)ref->m, "", XPB_BETTER_INFO, 0);
    xpb_run_report_metric(rep, "energy_rel_err", rel_err, "", XPB_BETTER_INFO, 0);
    xpb_run_report_metric(rep, "energy_rel_tol", ENERGY_REL_TOL, "", XPB_BETTER_INFO, 0);
    xpb_run_report_metric(rep, "iteration_band", band, "iterations", XPB_BETTER_INFO, 0);
    out->parted_at = -1;
    for (int i = 0; i < out->iterations && i < ref->iterations; i++) {
        const anneal_step *rs = &ref->steps[i], *st = &ao->steps[i];
        if (st->anchors != rs->anchors || st->changes != rs->changes ||
            fabs(st->energy - rs->energy) > PART_REL * rs->energy) {
            out->parted_at = i;
            break;
        }
    }
    if (out->parted_at < 0 && out->iterations != ref->iterations)
        out->parted_at = out->iterations < ref->iterations ? out->iterations : ref->iterations;
    bool e_ok = rel_err <= ENERGY_REL_TOL;
    bool it_ok = abs(out->iterations - ref->iterations) <= band;
    bool r_ok = ao->anchors == ref->m;
    out->run_passed = e_ok && it_ok && r_ok;
    char part[96] = "trajectories agree";
    if (out->parted_at >= 0)
        snprintf(part, sizeof part, "trajectories part at iteration %d", out->parted_at);
    snprintf(runmsg, len,
             "run: energy %.6g vs %.6g (rel %.2g, %s %.0e), iterations %d vs %d (%s band %d), anchors %lld vs "
             "%lld (%s), %s", e, ref->energy, rel_err, e_ok ? "<=" : "FAILS", ENERGY_REL_TOL,
             out->iterations, ref->iterations, it_ok ? "within" : "OUTSIDE", band,
             (long long)ao->anchors, (long long)ref->m, r_ok ? "ratio equal" : "RATIO DIFFERS", part);
}

void anneal_outcome_free(void *outcome)
{
    anneal_outcome *ao = outcome;
    if (!ao)
        return;
    free(ao->steps), free(ao->init_anchors), free(ao->final_anchors), free(ao->final_assign);
    free(ao);
}

/* What the run reached, as the outcome's named metrics and trajectory (xpb_run_report.h); false
 * when out of memory. */
static bool publish(const anneal_outcome *ao, int iterations, xpb_run_report *rep)
{
    xpb_run_report_metric(rep, "energy", ao->energy, "", XPB_BETTER_LOWER, 0);
    xpb_run_report_metric(rep, "compression_ratio", ao->ratio, "", XPB_BETTER_LOWER, 0);
    xpb_run_report_metric(rep, "anchors", (double)ao->anchors, "", XPB_BETTER_INFO, 0);
    const char *names[4] = {"energy", "changes", "anchors", "temperature"};
    for (int k = 0; k < 4; k++) {
        double *v = malloc((size_t)(iterations > 0 ? iterations : 1) * sizeof *v);
        for (int i = 0; v && i < iterations; i++) {
            const anneal_step *st = &ao->steps[i];
            v[i] = k == 0 ? st->energy : k == 1 ? (double)st->changes : k == 2 ? (double)st->anchors : st->t;
        }
        if (!v || !xpb_run_report_series(rep, names[k], v, iterations))
            return false;
    }
    return true;
}

/* Publishes ao into out's report, and keeps it as out's state when the run is the validated
 * one (its dump), else frees it. */
static xpb_status finish(anneal_outcome *ao, bool keep, xpb_status st, xpb_run_outcome *out, xpb_error *err)
{
    if (!publish(ao, out->iterations, &out->report) && !st)
        st = xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "anneal: out of host memory for the trajectory");
    if (keep) {
        out->state = ao, out->state_free = anneal_outcome_free;
    } else {
        anneal_outcome_free(ao);
    }
    return st;
}

/* The run: init, then iterations until three in a row change little (or max_iter), then the
 * result; when validating, the retrieval report and both levels of checks. */
xpb_status anneal_run(const xpb_case *c, const xpb_case_data *d, xpb_session *s, int inject, xpb_validation *v,
                      xpb_run_outcome *out, xpb_error *err)
{
    run_ctx r = {.s = s, .x = d->in[0], .cfg = anneal_case_config(c), .inject = inject, .err = err};
    r.n = xpb_case_param(c, "n", 1), r.dim = xpb_case_param(c, "d", 1);
    r.g = (dev_state){.n = r.n, .d = r.dim, .m = r.cfg.m, .cap = r.cfg.m};
    r.chk = (anneal_checks){.v = v};
    r.validating = s->validating && v;
    const int64_t n = r.n, dim = r.dim;
    dev_state *g = &r.g;
    memset(out, 0, sizeof *out);
    xpb_status st = XPB_OK;
    anneal_outcome *ao = alloc_host(sizeof *ao, &st, err);
    if (st)
        return st;
    memset(ao, 0, sizeof *ao);

    st = alloc_all(s, g, err);
    double h2d0 = s->h2d_s;
    uint64_t b2d0 = s->h2d_bytes;
    if (!st) /* the points: no op writes them */
        st = xpb_session_upload_input(s, g->x, 0, r.x, d->in_bytes[0], err);
    out->upload_s = s->h2d_s - h2d0;
    out->upload_bytes = s->h2d_bytes - b2d0;

    xpb_anneal_init_args ia = {g->x, g->anchors, g->chosen, g->scratch, n, dim, g->m};
    if (!st && !s->ranks)
        st = xpb_session_supports(s, XPB_OP_ANNEAL_INIT, &ia, err);
    double t_start = xpb_clock_now(); /* the run's time: from here to the result read back */
    if (!st) /* a device group: the sharded op's INIT, split by points */
        st = s->ranks ? sharded(&r, XPB_ANNEAL_SHARDED_INIT, 0, 0.0f) : xpb_session_launch(s, XPB_OP_ANNEAL_INIT, &ia, err);
    if (!st && r.validating)
        st = check_init(&r);

    anneal_step *steps = ao->steps = alloc_host((size_t)r.cfg.max_iter * sizeof *steps, &st, err);
    double t = r.cfg.t0, e_prev = 0;
    int streak = 0, cur = 0;
    for (int it = 0; !st && it < r.cfg.max_iter; it++) {
        float ef;
        uint32_t chf;
        if ((st = iteration(&r, it, cur, t, &ef, &chf)))
            break;
        double e = ef;
        int64_t changes = it == 0 ? n : (int64_t)chf;
        steps[it] = (anneal_step){e, changes, g->m, t};
        out->iterations = it + 1;
        ao->energy = e;
        streak = it > 0 && fabs(e - e_prev) < r.cfg.energy_tol && changes < r.cfg.min_changes ? streak + 1 : 0;
        e_prev = e;
        t *= 1.0 - r.cfg.cooling;
        cur ^= 1;
        if (streak == 3) {
            out->converged = true;
            break;
        }
    }
    ao->anchors = g->m;
    ao->ratio = ((double)g->m * (double)dim * 2.0 + (double)n * 4.0) / ((double)n * (double)dim * 4.0);
    if (!st) /* the last iteration's assignments: cur was flipped after it */
        st = read_result(&r, cur ^ 1, ao);
    if (r.validating) {
        ao->init_anchors = r.h.anchors0, ao->init_anchor_count = r.cfg.m;
        r.h.anchors0 = NULL;
    }
    out->run_s = xpb_clock_now() - t_start;
    host_copy_free(&r.h);
    if (st || !r.validating)
        return finish(ao, false, st, out, err);
    /* the retrieval report: held-out queries against the compressed store (retrieval.c) */
    int64_t nq = d->n_in > 1 ? (int64_t)(d->in_bytes[1] / ((size_t)dim * sizeof(float))) : 0;
    anneal_retrieval_report q = {0};
    if (nq > 0 && s->ranks) { /* the search op runs on one device */
        xpb_run_report_text(&out->report, "retrieval_note", "retrieval: not measured on a device group (the search "
                            "op runs on one device: --backend cuda without --devices)", 0);
        nq = 0;
    } else if (nq > 0) {
        anneal_retrieval_in ri = {r.x, n, dim, d->in[1], nq, ao->final_anchors, g->m, ao->final_assign, g->x};
        if ((st = anneal_retrieval(s, &ri, &r.chk, inject, &q, err)))
            return finish(ao, false, st, out, err);
        anneal_retrieval_publish(&q, &out->report);
    }

    /* level 1: the ops; level 2: the whole run */
    out->near_ties = r.chk.near_ties;
    out->ops_passed = r.chk.first_fail[0] == 0;
    const anneal_result *ref = d->host;
    char runmsg[400] = "";
    check_run(ref, ao, inject, &r, out, runmsg, sizeof runmsg);
    char ops[400];
    if (r.chk.first_fail[0])
        snprintf(ops, sizeof ops, "ops FAIL: %s", r.chk.first_fail);
    else
        snprintf(ops, sizeof ops, "ops: init, assign, stats, update, changes%s within bounds (%lld near ties)",
                 nq > 0 && !isnan(q.recall[0]) ? ", search" : "", (long long)r.chk.near_ties);
    bool run_first = ref && !out->run_passed && !r.chk.first_fail[0];
    snprintf(out->summary, sizeof out->summary, "%.380s; %.380s", run_first ? runmsg : ops, run_first ? ops : runmsg);
    return finish(ao, true, XPB_OK, out, err);
}
