/* xpb_runner_stateful.c - how the runner runs a case of a stateful workload (xpb_workload_i.run)
 * on one device and kernel variant. The same steps as a one-shot kernel (xpb_runner.c), with a
 * whole run in place of a launch:
 *   1. validated run: fresh guarded, poisoned buffers; the workload checks each op on the first
 *      iteration and the whole run against its reference; then every guard is checked. With
 *      XPB_VALIDATE_WARM=1 (tests) an unvalidated run comes first, so that the validated one meets
 *      the backend's launch caches (a CUDA graph, a Vulkan capture on the buffers it kept) as the
 *      timed runs do: what they replay is then validated too;
 *   2. warm-up runs, then Google Benchmark over whole runs: a sample is one run's host-clock time
 *      from its first op to its result read back (run_s), with the inputs already on the device:
 *      buffer set-up and the initial upload are outside it (end to end includes them); the host
 *      logic and the per-iteration scalars the host needs are part of the run, as in real use;
 *   3. the per-op breakdown: runs with the device timer around every launch. They sync after
 *      every op, so their total is not the run's time (use the shares). Repeated, so that compare
 *      can test each op: as many runs as the timed phase took samples, at least
 *      BREAKDOWN_MIN_RUNS (compare's minimum for a verdict) and at most BREAKDOWN_MAX_RUNS,
 *      stopping early once it has spent as long as the timed phase (at least
 *      BREAKDOWN_MIN_BUDGET_S). Each run is independent (it starts from the uploaded initial state),
 *      so one run's total in an op is one sample; a launch is not (the iterations differ).
 * With XPB_STATEFUL_INPUTS=kept (the default on one device: inputs_kept), the runs of 2 and 3
 * (each round's) share their buffers instead (xpb_session_keep): the first allocates and
 * uploads, the next ones skip the inputs no op writes (the network, the points) and upload only
 * the state they start from; the end-to-end samples then leave the inputs' upload out (a round's
 * warm-up run, untimed, does it), and the results say so (run.transfers.inputs). Why: a run's
 * set-up can take ten times its GPU work (a 100K x 100 burst run: ~15 ms around 1.6 ms), and
 * NVIDIA's driver lowers a Vulkan process's SM clock while the GPU idles between runs: fresh, a
 * preset's Vulkan burst ran at 345-450 of 1980 MHz on an H200, kept at 1980 (docs/performance.md).
 * XPB_STATEFUL_INPUTS=fresh: each of those runs allocates and uploads everything, as the
 * validated run always does. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbench_shim.h"
#include "xpb_clock.h"
#include "xpb_dump.h"
#include "xpb_knob.h"
#include "xpb_runner_internal.h"
#include "xpb_session.h"

#define BREAKDOWN_MIN_RUNS 5
#define BREAKDOWN_MAX_RUNS 64
#define BREAKDOWN_MIN_BUDGET_S 1.0

typedef struct stateful_ctx {
    xpb_device *dev;
    const xpb_case *c;
    const xpb_case_data *d;
    const xpb_kernel *k;
    xpb_result *r;
    xpb_samples *e2e;
    xpb_session_keep *keep; /* XPB_STATEFUL_INPUTS=kept: the unvalidated runs' shared buffers */
} stateful_ctx;

static void outcome_free(xpb_run_outcome *o)
{
    free(o->op_samples);
    o->op_samples = NULL, o->op_runs = 0;
    free(o->op_units);
    o->op_units = NULL, o->op_rounds = 0;
    xpb_run_report_free(&o->report);
    if (o->state && o->state_free)
        o->state_free(o->state);
    o->state = NULL, o->state_free = NULL;
}

static void session_init(xpb_session *s, xpb_device *dev, const xpb_kernel *k)
{
    memset(s, 0, sizeof *s);
    s->dev = dev;
    s->ranks = dev->n_group;
    for (int op = 0; op < XPB_OP_COUNT; op++) {
        const xpb_kernel *first = NULL;
        xpb_backend_kernels_for(dev->backend, (xpb_op)op, &first, 1);
        s->kernel[op] = first;
    }
    s->kernel[k->op] = k;
}

/* One unvalidated run; its time without the initial upload. */
static xpb_status one_run(stateful_ctx *x, bool time_ops, xpb_run_outcome *o, double *seconds, xpb_error *err)
{
    xpb_session s;
    session_init(&s, x->dev, x->k);
    s.time_ops = time_ops;
    s.keep = x->keep;
    if (x->keep)
        x->keep->next = 0;
    memset(o, 0, sizeof *o);
    double t0 = xpb_clock_now();
    xpb_status st = x->c->workload->run(x->c, x->d, &s, 0, NULL, o, err);
    double wall = xpb_clock_now() - t0;
    xpb_session_free_all(&s);
    *seconds = o->run_s; /* the workload's own window: set-up and upload are not the run */
    if (!st && x->e2e && xpb_samples_push(x->e2e, wall))
        st = xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of memory for samples");
    if (time_ops) { /* the breakdown */
        memcpy(o->op_seconds, s.op_seconds, sizeof o->op_seconds);
        memcpy(o->op_launches, s.op_launches, sizeof o->op_launches);
    }
    o->h2d_s = s.h2d_s - o->upload_s;
    o->h2d_bytes = s.h2d_bytes - o->upload_bytes;
    o->d2h_s = s.d2h_s;
    o->d2h_bytes = s.d2h_bytes;
    o->inputs_kept = x->keep != NULL;
    o->inputs_kept_bytes = s.inputs_kept_bytes;
    return st;
}

static xpb_status timed_run(void *user, double *seconds, xpb_error *err)
{
    stateful_ctx *x = user;
    xpb_run_outcome o;
    xpb_status st = one_run(x, false, &o, seconds, err);
    outcome_free(&o);
    return st;
}

/* 1: the validated run. */
static xpb_status validated_run(stateful_ctx *x, const xpb_run_config *cfg, xpb_error *err)
{
    xpb_result *r = x->r;
    xpb_session s;
    session_init(&s, x->dev, x->k);
    s.validating = true;
    memset(&r->validation, 0, sizeof r->validation);
    r->validation.worst_index = -1;
    xpb_status st = x->c->workload->run(x->c, x->d, &s, cfg->inject_fault, &r->validation, &r->run, err);
    uint64_t guards = 0;
    if (!st)
        st = xpb_session_guard_violations(&s, &guards, err);
    xpb_session_free_all(&s);
    if (st)
        return st;
    if (cfg->inject_fault == XPB_FAULT_GUARD) /* the run hook cannot reach a guard: count one here */
        guards++;
    snprintf(r->validation.method, sizeof r->validation.method, "per op (first iterations), whole run");
    snprintf(r->validation.tolerance, sizeof r->validation.tolerance, "%s",
             x->c->workload->tolerance_text(x->c, x->k->precision));
    xpb_validation_finish(&r->validation, guards);
    r->validation.passed = r->validation.passed && r->run.ops_passed && (r->run.run_passed || !r->run.run_checked);
    r->validated = true;
    r->run.present = true;
    if (!r->validation.passed) {
        r->status = XPB_CASE_FAILED_VALIDATION;
        snprintf(r->message, sizeof r->message, "%.470s%s", r->run.summary,
                 guards ? " (and guard bytes overwritten)" : "");
    }
    return XPB_OK;
}

/* Median of v[0], v[stride], ... (n values, n <= BREAKDOWN_MAX_RUNS). */
static double median_strided(const double *v, int n, size_t stride)
{
    double col[BREAKDOWN_MAX_RUNS];
    for (int i = 0; i < n; i++)
        col[i] = v[(size_t)i * stride];
    return xpb_stats_compute(col, (size_t)n).median;
}

/* 3: the per-op breakdown, repeated (top of the file): up to `target` runs, no new one once
 * `budget` seconds have passed. Keeps every run's per-op times in x->r->run.op_samples, their
 * medians in op_seconds, the median transfers, and the launch counts of the first run. */
static xpb_status breakdown_runs(stateful_ctx *x, int target, double budget, xpb_error *err)
{
    xpb_run_outcome *ro = &x->r->run;
    double xfer[3][BREAKDOWN_MAX_RUNS]; /* h2d, d2h, upload of each run */
    ro->op_runs = 0;
    ro->op_samples = calloc((size_t)target * XPB_OP_COUNT, sizeof *ro->op_samples);
    if (!ro->op_samples)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of memory for the per-op samples");
    xpb_status st = XPB_OK;
    double t0 = xpb_clock_now(), dt;
    while (!st && ro->op_runs < target && (ro->op_runs == 0 || xpb_clock_now() - t0 < budget)) {
        xpb_run_outcome o;
        if (!(st = one_run(x, true, &o, &dt, err))) {
            int i = ro->op_runs++;
            memcpy(ro->op_samples + (size_t)i * XPB_OP_COUNT, o.op_seconds, sizeof o.op_seconds);
            xfer[0][i] = o.h2d_s, xfer[1][i] = o.d2h_s, xfer[2][i] = o.upload_s;
            if (i == 0) {
                memcpy(ro->op_launches, o.op_launches, sizeof o.op_launches);
                ro->h2d_bytes = o.h2d_bytes, ro->d2h_bytes = o.d2h_bytes, ro->upload_bytes = o.upload_bytes;
                ro->inputs_kept = o.inputs_kept, ro->inputs_kept_bytes = o.inputs_kept_bytes;
            }
        }
        outcome_free(&o);
    }
    if (st)
        return st;
    for (int op = 0; op < XPB_OP_COUNT; op++)
        ro->op_seconds[op] = median_strided(ro->op_samples + op, ro->op_runs, XPB_OP_COUNT);
    ro->h2d_s = median_strided(xfer[0], ro->op_runs, 1);
    ro->d2h_s = median_strided(xfer[1], ro->op_runs, 1);
    ro->upload_s = median_strided(xfer[2], ro->op_runs, 1);
    return XPB_OK;
}

/* Appends one round's per-op medians to ro->op_units. */
static xpb_status push_op_units(xpb_run_outcome *ro, const double *medians, xpb_error *err)
{
    double *u = realloc(ro->op_units, (size_t)(ro->op_rounds + 1) * XPB_OP_COUNT * sizeof *u);
    if (!u)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of memory for the per-op units");
    ro->op_units = u;
    memcpy(u + (size_t)ro->op_rounds++ * XPB_OP_COUNT, medians, XPB_OP_COUNT * sizeof *u);
    return XPB_OK;
}

/* One round's timing (2 at the top of the file): warm-up runs for cfg->warmup_time (at least one),
 * then Google Benchmark over whole runs; the round's median is a unit. */
static xpb_status time_runs(stateful_ctx *x, const xpb_run_config *cfg, double *timed_s, xpb_error *err)
{
    xpb_result *r = x->r;
    xpb_samples *e2e = x->e2e; /* end to end of the timed runs only */
    double t0 = xpb_clock_now(), dt;
    xpb_status st;
    x->e2e = NULL;
    do
        st = timed_run(x, &dt, err);
    while (!st && xpb_clock_now() - t0 < cfg->warmup_time);
    x->e2e = e2e;
    xpb_gbench_config gc = {cfg->repetitions, cfg->min_time, 1};
    r->launches_per_sample = 1;
    double timed_t0 = xpb_clock_now();
    size_t from = r->kernel_samples.n;
    xpb_runner_read_conditions(x->dev, r, true);
    if (!st)
        st = xpb_gbench_measure(x->c->id, timed_run, x, &gc, &r->kernel_samples, err);
    xpb_runner_read_conditions(x->dev, r, false);
    *timed_s = xpb_clock_now() - timed_t0;
    return st ? st : xpb_runner_close_round(r, from, err);
}

/* XPB_STATEFUL_INPUTS for dev: kept on one device; a device group's runs take fresh buffers
 * every run (kept buffers have not been run on a group of GPUs yet: the default stays fresh
 * there, and kept named in the environment is the case's unsupported status, never ignored). */
static xpb_status inputs_kept(const xpb_device *dev, int *kept, xpb_error *err)
{
    xpb_status st = xpb_knob_get_choice(XPB_KNOB_STATEFUL_INPUTS, kept, err);
    if (st || !*kept || dev->n_group == 0)
        return st;
    *kept = 0;
    if (xpb_knob_env(XPB_KNOB_STATEFUL_INPUTS))
        return xpb_fail(err, XPB_ERR_UNSUPPORTED,
                        "XPB_STATEFUL_INPUTS=kept: a device group's stateful runs take fresh buffers every run "
                        "(kept buffers are not yet proven on a group)");
    return XPB_OK;
}

void xpb_run_stateful_again(xpb_device *dev, const xpb_case *c, const xpb_case_data *d, const xpb_run_config *cfg,
                            xpb_result *r)
{
    xpb_error err = {{0}};
    stateful_ctx x = {dev, c, d, r->ran, r, NULL, NULL};
    xpb_session_keep shared = {0};
    double timed_s;
    int kept = 0;
    xpb_status st = inputs_kept(dev, &kept, &err);
    x.keep = kept ? &shared : NULL;
    if (!st)
        st = time_runs(&x, cfg, &timed_s, &err);
    if (!st) { /* this round's per-op medians, from a few breakdown runs; round 1's runs stay */
        xpb_run_outcome keep = r->run;
        r->run.op_samples = NULL;
        st = breakdown_runs(&x, BREAKDOWN_MIN_RUNS, fmin(timed_s, BREAKDOWN_MIN_BUDGET_S), &err);
        double medians[XPB_OP_COUNT];
        memcpy(medians, r->run.op_seconds, sizeof medians);
        free(r->run.op_samples);
        r->run = keep;
        if (!st)
            st = push_op_units(&r->run, medians, &err);
    }
    xpb_session_keep_release(dev, x.keep);
    if (st)
        xpb_runner_set_outcome(r, dev, st, &err);
}

void xpb_run_stateful(xpb_device *dev, const xpb_kernel *k, const xpb_case *c, const xpb_case_data *d,
                      const xpb_run_config *cfg, xpb_result *r)
{
    xpb_error err = {{0}};
    stateful_ctx x = {dev, c, d, k, r, NULL, NULL};
    xpb_session_keep shared = {0};
    int warm = 0, kept = 0;
    xpb_status st = xpb_knob_get_choice(XPB_KNOB_VALIDATE_WARM, &warm, &err);
    if (!st)
        st = inputs_kept(dev, &kept, &err);
    if (!st && warm) { /* the run the caches learn from (top of the file) */
        double seconds;
        xpb_run_outcome o;
        st = one_run(&x, false, &o, &seconds, &err);
        outcome_free(&o);
    }
    if (!st)
        st = validated_run(&x, cfg, &err);
    if (!st) /* --dump DIR, and the automatic dump of a case that failed validation (xpb_dump.h) */
        xpb_dump_run_after_validation(r->dump_note, sizeof r->dump_note, cfg->dump_dir, cfg->dump_fail_dir,
                                      !r->validation.passed, c, d, &r->run, k->precision, cfg->seed,
                                      dev->label, k->variant, cfg->dump_count);
    if (!st && r->validation.passed && !cfg->validate_only && !c->validate_only) {
        /* 2. warm-up (at least one run), then whole runs under Google Benchmark */
        double timed_s;
        x.e2e = &r->e2e_samples;
        x.keep = kept ? &shared : NULL; /* the validated run above had fresh buffers */
        st = time_runs(&x, cfg, &timed_s, &err);
        x.e2e = NULL;
        r->e2e = xpb_stats_compute(r->e2e_samples.v, r->e2e_samples.n);
        /* 3. the per-op breakdown, repeated */
        size_t n = r->kernel_samples.n;
        int target = n < BREAKDOWN_MIN_RUNS ? BREAKDOWN_MIN_RUNS
                     : n > BREAKDOWN_MAX_RUNS ? BREAKDOWN_MAX_RUNS : (int)n;
        if (!st && !(st = breakdown_runs(&x, target, fmax(timed_s, BREAKDOWN_MIN_BUDGET_S), &err)) &&
            !(st = push_op_units(&r->run, r->run.op_seconds, &err))) {
            r->upload_s = r->run.upload_s;
            r->upload_bytes = r->run.upload_bytes;
            r->download_bytes = r->run.d2h_bytes;
            r->download_s = r->run.d2h_s;
        }
        r->timed = st == XPB_OK;
        xpb_session_keep_release(dev, x.keep);
        x.keep = NULL;
    }
    if (r->timed) { /* the one-shot checks after timing (xpb_runner.c) do not apply: said why */
        r->timed_output.state = r->recheck.state = XPB_CHECK_SKIPPED;
        snprintf(r->timed_output.reason, sizeof r->timed_output.reason,
                 "stateful workload: not checked after timing; its validated run checks every op of the first "
                 "iteration and the whole run against the reference, and its timed runs repeat that run");
        snprintf(r->recheck.reason, sizeof r->recheck.reason, "%s", r->timed_output.reason);
    }
    if (st)
        xpb_runner_set_outcome(r, dev, st, &err);
}

void xpb_run_outcome_free(xpb_run_outcome *o)
{
    outcome_free(o);
}
