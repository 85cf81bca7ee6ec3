/* xpb_runner_stateful.c - how the runner runs a case of a stateful workload (xpb_workload_i.run)
 * on one device and kernel variant. The same steps as a one-shot kernel (xpb_runner.c), with a
 * whole run in place of a launch:
 *   1. validated run: fresh guarded, poisoned buffers; the workload checks each op on the first
 *      iteration and the whole run against its reference; then every guard is checked;
 *   2. warm-up runs, then Google Benchmark over whole runs: a sample is one run's host-clock time
 *      from its first op to its result read back (run_s), with the inputs already on the device:
 *      buffer set-up and the initial upload are outside it (end to end includes them); the host
 *      logic and the per-iteration scalars the host needs are part of the run, as in real use;
 *   3. one more run with the device timer around every launch: the per-op breakdown. It syncs
 *      after every op, so its total is not the run's time; only its shares are used. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbench_shim.h"
#include "xpb_clock.h"
#include "xpb_runner_internal.h"
#include "xpb_session.h"

typedef struct stateful_ctx {
    xpb_device *dev;
    const xpb_case *c;
    const xpb_case_data *d;
    const xpb_kernel *k;
    xpb_result *r;
    xpb_samples *e2e;
} stateful_ctx;

static void outcome_free(xpb_run_outcome *o)
{
    free(o->steps), free(o->init_anchors), free(o->final_anchors), free(o->final_assign);
    o->steps = NULL, o->init_anchors = NULL, o->final_anchors = NULL, o->final_assign = NULL;
}

static void session_init(xpb_session *s, xpb_device *dev, const xpb_kernel *k)
{
    memset(s, 0, sizeof *s);
    s->dev = dev;
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

void xpb_run_stateful(xpb_device *dev, const xpb_kernel *k, const xpb_case *c, const xpb_case_data *d,
                      const xpb_run_config *cfg, xpb_result *r)
{
    xpb_error err = {{0}};
    stateful_ctx x = {dev, c, d, k, r, NULL};
    xpb_status st = validated_run(&x, cfg, &err);
    if (cfg->dump_dir) /* said, never silently skipped */
        snprintf(r->dump_note, sizeof r->dump_note, "  dump: not written: --dump of a stateful case (%s) is "
                 "not implemented yet (docs/workloads.md status)\n", c->workload->name);
    if (!st && r->validation.passed && !cfg->validate_only && !c->validate_only) {
        /* 2. warm-up (at least one run), then whole runs under Google Benchmark */
        double t0 = xpb_clock_now(), dt;
        do
            st = timed_run(&x, &dt, &err);
        while (!st && xpb_clock_now() - t0 < cfg->warmup_time);
        x.e2e = &r->e2e_samples;
        xpb_gbench_config gc = {cfg->repetitions, cfg->min_time, 1};
        r->launches_per_sample = 1;
        if (!st)
            st = xpb_gbench_measure(c->id, timed_run, &x, &gc, &r->kernel_samples, &err);
        x.e2e = NULL;
        r->kernel = xpb_stats_compute(r->kernel_samples.v, r->kernel_samples.n);
        r->e2e = xpb_stats_compute(r->e2e_samples.v, r->e2e_samples.n);
        /* 3. the per-op breakdown */
        xpb_run_outcome o = {0};
        if (!st && !(st = one_run(&x, true, &o, &dt, &err))) {
            memcpy(r->run.op_seconds, o.op_seconds, sizeof o.op_seconds);
            memcpy(r->run.op_launches, o.op_launches, sizeof o.op_launches);
            r->run.h2d_s = o.h2d_s, r->run.h2d_bytes = o.h2d_bytes;
            r->run.d2h_s = o.d2h_s, r->run.d2h_bytes = o.d2h_bytes;
            r->run.upload_s = o.upload_s, r->run.upload_bytes = o.upload_bytes;
            r->upload_s = o.upload_s;
            r->upload_bytes = o.upload_bytes;
            r->download_bytes = o.d2h_bytes;
            r->download_s = o.d2h_s;
        }
        outcome_free(&o);
        r->timed = st == XPB_OK;
    }
    if (st)
        xpb_runner_set_outcome(r, dev, st, &err);
}

void xpb_run_outcome_free(xpb_run_outcome *o)
{
    outcome_free(o);
}
