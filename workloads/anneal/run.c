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
    xpb_session_free(s, &g->var), xpb_session_free(s, &g->scratch);
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

xpb_status anneal_run(const xpb_case *c, const xpb_case_data *d, xpb_session *s, int inject, xpb_validation *v,
                      xpb_run_outcome *out, xpb_error *err)
{
    const float *x = d->in[0];
    anneal_config cfg = anneal_case_config(c);
    dev_state g = {.n = xpb_case_param(c, "n", 1), .d = xpb_case_param(c, "d", 1), .m = cfg.m, .cap = cfg.m};
    int64_t n = g.n, dim = g.d;
    anneal_checks chk = {.v = v};
    host_copy h = {0};
    bool validating = s->validating && v;
    memset(out, 0, sizeof *out);

    xpb_status st = alloc_all(s, &g, err);
    double h2d0 = s->h2d_s;
    if (!st)
        st = xpb_session_upload(s, g.x, 0, x, d->in_bytes[0], err);
    out->upload_s = s->h2d_s - h2d0;
    out->upload_bytes = d->in_bytes[0];

    /* the ops' arguments; anchor-sized views are refreshed after a growth */
    xpb_anneal_init_args ia = {g.x, g.anchors, g.chosen, g.scratch, n, dim, g.m};
    if (!st)
        st = xpb_session_supports(s, XPB_OP_ANNEAL_INIT, &ia, err);
    double t_start = xpb_clock_now(); /* the run's time: from here to the result read back */
    if (!st)
        st = xpb_session_launch(s, XPB_OP_ANNEAL_INIT, &ia, err);
    if (!st && validating) {
        size_t ab = (size_t)(g.m * dim) * sizeof(float);
        h.chosen = alloc_host((size_t)g.m * sizeof(uint32_t), &st, err);
        h.anchors0 = alloc_host(ab, &st, err);
        if (!st)
            st = download(s, g.chosen, h.chosen, (size_t)g.m * sizeof(uint32_t), err);
        if (!st)
            st = download(s, g.anchors, h.anchors0, ab, err);
        if (!st) {
            double per_step = (double)n * (double)dim;
            int64_t steps = per_step * (double)g.m > CHECK_MAX_NMD ? (int64_t)(CHECK_MAX_NMD / per_step) + 1 : g.m;
            anneal_check_init(&chk, x, n, dim, g.m, steps, h.chosen, h.anchors0);
        }
    }

    xpb_run_step *steps = alloc_host((size_t)cfg.max_iter * sizeof *steps, &st, err);
    double t = cfg.t0, e_prev = 0;
    int streak = 0, cur = 0;
    for (int it = 0; !st && it < cfg.max_iter; it++) {
        xpb_anneal_assign_args aa = {g.x, g.anchors, g.asg[cur], g.dist, g.scratch, n, dim, g.m};
        xpb_anneal_stats_args sa = {g.x, g.asg[cur], g.dist, g.counts, g.mean, g.var, g.scratch, n, dim, g.m, cfg.trim};
        float lr_t = (float)(cfg.lr * t / (1.0 + t));
        xpb_anneal_update_args ua = {g.anchors, g.counts, g.mean, g.m, dim, lr_t};
        if (it == 0 && !(st = xpb_session_supports(s, XPB_OP_ANNEAL_ASSIGN, &aa, err)) &&
            !(st = xpb_session_supports(s, XPB_OP_ANNEAL_STATS, &sa, err)))
            st = xpb_session_supports(s, XPB_OP_ANNEAL_UPDATE, &ua, err);
        if (!st)
            st = xpb_session_launch(s, XPB_OP_ANNEAL_ASSIGN, &aa, err);
        bool check_ops = validating && it == 0;
        if (!st && check_ops) {
            h.asg0 = alloc_host((size_t)n * sizeof(uint32_t), &st, err);
            h.dist = alloc_host((size_t)n * sizeof(float), &st, err);
            if (!st)
                st = download(s, g.asg[cur], h.asg0, (size_t)n * sizeof(uint32_t), err);
            if (!st)
                st = download(s, g.dist, h.dist, (size_t)n * sizeof(float), err);
            if (!st) {
                double nmd = (double)n * (double)g.m * (double)dim;
                int64_t stride = nmd > CHECK_MAX_NMD ? (int64_t)ceil(nmd / CHECK_MAX_NMD) : 1;
                anneal_check_assign(&chk, x, n, dim, g.m, stride, h.anchors0, h.asg0, h.dist);
            }
        }
        if (!st)
            st = xpb_session_launch(s, XPB_OP_ANNEAL_STATS, &sa, err);
        if (!st && check_ops) {
            size_t ab = (size_t)(g.m * dim) * sizeof(float);
            h.counts = alloc_host((size_t)g.m * sizeof(uint32_t), &st, err);
            h.mean = alloc_host(ab, &st, err);
            h.var = alloc_host(ab, &st, err);
            if (!st)
                st = download(s, g.counts, h.counts, (size_t)g.m * sizeof(uint32_t), err);
            if (!st)
                st = download(s, g.mean, h.mean, ab, err);
            if (!st)
                st = download(s, g.var, h.var, ab, err);
            if (!st && inject) { /* --inject-fault: a broken stats kernel */
                size_t mid = (size_t)(g.m * dim) / 2;
                if (inject == 2) {
                    uint32_t p = XPB_POISON_BITS;
                    memcpy(&h.mean[mid], &p, sizeof p);
                } else {
                    h.mean[mid] = h.mean[mid] * 1.001f + 0.001f;
                }
            }
            if (!st)
                anneal_check_stats(&chk, x, n, dim, g.m, cfg.trim, h.asg0, h.dist, h.counts, h.mean, h.var);
        }
        if (!st)
            st = xpb_session_launch(s, XPB_OP_ANNEAL_UPDATE, &ua, err);
        if (!st && check_ops) {
            h.anchors1 = alloc_host((size_t)(g.m * dim) * sizeof(float), &st, err);
            if (!st)
                st = download(s, g.anchors, h.anchors1, (size_t)(g.m * dim) * sizeof(float), err);
            if (!st)
                anneal_check_update(&chk, g.m, dim, lr_t, h.anchors0, h.counts, h.mean, h.anchors1);
        }
        /* maintenance on the host, with this iteration's counts and T */
        if (!st && anneal_maintenance_due(&cfg, it)) {
            anneal_state a = {.x = x, .n = n, .d = dim, .m = g.m, .cap = g.m};
            float *af = alloc_host((size_t)(g.m * dim) * sizeof(float), &st, err);
            uint32_t *cnt = alloc_host((size_t)g.m * sizeof(uint32_t), &st, err);
            a.a = alloc_host((size_t)(g.m * dim) * sizeof(double), &st, err);
            a.count = alloc_host((size_t)g.m * sizeof(int64_t), &st, err);
            a.asg = alloc_host((size_t)n * sizeof(uint32_t), &st, err);
            if (!st)
                st = download(s, g.anchors, af, (size_t)(g.m * dim) * sizeof(float), err);
            if (!st)
                st = download(s, g.counts, cnt, (size_t)g.m * sizeof(uint32_t), err);
            if (!st)
                st = download(s, g.asg[cur], a.asg, (size_t)n * sizeof(uint32_t), err);
            if (!st) {
                for (int64_t i = 0; i < g.m * dim; i++)
                    a.a[i] = af[i];
                for (int64_t j = 0; j < g.m; j++)
                    a.count[j] = cnt[j];
                if (!anneal_maintenance(&a, t))
                    st = xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "anneal: out of host memory in maintenance");
            }
            free(af), free(cnt);
            float *an = !st ? alloc_host((size_t)(a.m * dim) * sizeof(float), &st, err) : NULL;
            if (!st) {
                for (int64_t i = 0; i < a.m * dim; i++)
                    an[i] = (float)a.a[i];
                st = grow(s, &g, a.m, err);
            }
            g.m = a.m;
            if (!st)
                st = xpb_session_upload(s, g.anchors, 0, an, (size_t)(g.m * dim) * sizeof(float), err);
            if (!st)
                st = xpb_session_upload(s, g.asg[cur], 0, a.asg, (size_t)n * sizeof(uint32_t), err);
            free(an), free(a.a), free(a.count), free(a.asg);
        }
        /* energy and changes, after update and maintenance */
        xpb_anneal_changes_args ca = {g.x, g.anchors, g.asg[cur], g.asg[cur ^ 1], g.result, g.scratch, n, dim, g.m};
        if (!st && it == 0)
            st = xpb_session_supports(s, XPB_OP_ANNEAL_CHANGES, &ca, err);
        if (!st)
            st = xpb_session_launch(s, XPB_OP_ANNEAL_CHANGES, &ca, err);
        unsigned char res[8];
        if (!st)
            st = xpb_session_download(s, g.result, 0, res, sizeof res, err);
        if (st)
            break;
        float ef;
        uint32_t chf;
        memcpy(&ef, res, 4);
        memcpy(&chf, res + 4, 4);
        if (validating && it <= 1) { /* changes against real previous assignments on iteration 1 */
            float *ac = alloc_host((size_t)(g.m * dim) * sizeof(float), &st, err);
            uint32_t *as = alloc_host((size_t)n * sizeof(uint32_t), &st, err);
            if (!st)
                st = download(s, g.anchors, ac, (size_t)(g.m * dim) * sizeof(float), err);
            if (!st)
                st = download(s, g.asg[cur], as, (size_t)n * sizeof(uint32_t), err);
            if (!st)
                anneal_check_changes(&chk, x, n, dim, g.m, ac, as, it == 0 ? NULL : h.asg1, ef, it == 0 ? (uint32_t)n : chf);
            free(ac);
            free(h.asg1);
            h.asg1 = as; /* this iteration's assignments, as they stood after maintenance */
            if (st)
                break;
        }
        double e = ef;
        int64_t changes = it == 0 ? n : (int64_t)chf;
        steps[it] = (xpb_run_step){e, changes, g.m, t};
        out->iterations = it + 1;
        out->energy = e;
        streak = it > 0 && fabs(e - e_prev) < cfg.energy_tol && changes < cfg.min_changes ? streak + 1 : 0;
        e_prev = e;
        t *= 1.0 - cfg.cooling;
        cur ^= 1;
        if (streak == 3) {
            out->converged = true;
            break;
        }
    }
    out->steps = steps;
    out->anchors = g.m;
    out->ratio = ((double)g.m * (double)dim * 2.0 + (double)n * 4.0) / ((double)n * (double)dim * 4.0);
    /* the result: final anchors and assignments come back once */
    if (!st) {
        float *af = alloc_host((size_t)(g.m * dim) * sizeof(float), &st, err);
        uint32_t *as = alloc_host((size_t)n * sizeof(uint32_t), &st, err);
        if (!st)
            st = download(s, g.anchors, af, (size_t)(g.m * dim) * sizeof(float), err);
        if (!st)
            st = download(s, g.asg[cur ^ 1], as, (size_t)n * sizeof(uint32_t), err);
        if (!st && validating) { /* kept for the dump and the retrieval report */
            out->final_anchors = af, out->final_assign = as;
            af = NULL, as = NULL;
        }
        free(af), free(as);
    }
    if (validating) {
        out->init_anchors = h.anchors0, out->init_anchor_count = cfg.m;
        h.anchors0 = NULL;
    }
    out->run_s = xpb_clock_now() - t_start;
    host_copy_free(&h);
    if (st || !validating)
        return st;
    /* the retrieval report: held-out queries against the compressed store (retrieval.c) */
    int64_t nq = d->n_in > 1 ? (int64_t)(d->in_bytes[1] / ((size_t)dim * sizeof(float))) : 0;
    if (nq > 0) {
        anneal_retrieval_in ri = {x, n, dim, d->in[1], nq, out->final_anchors, g.m, out->final_assign, g.x};
        if ((st = anneal_retrieval(s, &ri, &chk, inject, &out->retrieval, err)))
            return st;
    }

    /* level 1 */
    out->near_ties = chk.near_ties;
    out->ops_passed = chk.first_fail[0] == 0;
    /* level 2: the whole run against the reference */
    const anneal_result *ref = d->host;
    char runmsg[400] = "";
    if (ref) {
        double e = inject ? out->energy * 1.01 : out->energy;
        out->run_checked = true;
        out->ref_iterations = ref->iterations;
        out->ref_energy = ref->energy;
        out->ref_ratio = ref->ratio;
        out->ref_anchors = ref->m;
        out->energy_rel_tol = ENERGY_REL_TOL;
        out->energy_rel_err = ref->energy > 0 ? fabs(e - ref->energy) / ref->energy : fabs(e);
        out->iteration_band = ref->iterations / 10 > 2 ? ref->iterations / 10 : 2;
        out->parted_at = -1;
        for (int i = 0; i < out->iterations && i < ref->iterations; i++) {
            const anneal_step *r = &ref->steps[i];
            if (steps[i].anchors != r->anchors || steps[i].changes != r->changes ||
                fabs(steps[i].energy - r->energy) > PART_REL * r->energy) {
                out->parted_at = i;
                break;
            }
        }
        if (out->parted_at < 0 && out->iterations != ref->iterations)
            out->parted_at = out->iterations < ref->iterations ? out->iterations : ref->iterations;
        bool e_ok = out->energy_rel_err <= ENERGY_REL_TOL;
        bool it_ok = abs(out->iterations - ref->iterations) <= out->iteration_band;
        bool r_ok = out->anchors == ref->m;
        out->run_passed = e_ok && it_ok && r_ok;
        char part[96] = "trajectories agree";
        if (out->parted_at >= 0)
            snprintf(part, sizeof part, "trajectories part at iteration %d", out->parted_at);
        snprintf(runmsg, sizeof runmsg,
                 "run: energy %.6g vs %.6g (rel %.2g, %s %.0e), iterations %d vs %d (%s band %d), anchors %lld vs "
                 "%lld (%s), %s", e, ref->energy, out->energy_rel_err, e_ok ? "<=" : "FAILS", ENERGY_REL_TOL,
                 out->iterations, ref->iterations, it_ok ? "within" : "OUTSIDE", out->iteration_band,
                 (long long)out->anchors, (long long)ref->m, r_ok ? "ratio equal" : "RATIO DIFFERS", part);
    } else {
        snprintf(runmsg, sizeof runmsg, "run: not checked (the fp64 reference run of n*m*d = %.2g per iteration "
                 "is not computed past %.2g)", (double)n * (double)cfg.m * (double)dim, 4.5e10);
    }
    char ops[400];
    if (chk.first_fail[0])
        snprintf(ops, sizeof ops, "ops FAIL: %s", chk.first_fail);
    else
        snprintf(ops, sizeof ops, "ops: init, assign, stats, update, changes%s within bounds (%lld near ties)",
                 nq > 0 && !isnan(out->retrieval.recall[0]) ? ", search" : "", (long long)chk.near_ties);
    bool run_first = ref && !out->run_passed && !chk.first_fail[0];
    snprintf(out->summary, sizeof out->summary, "%.380s; %.380s", run_first ? runmsg : ops, run_first ? ops : runmsg);
    return XPB_OK;
}
