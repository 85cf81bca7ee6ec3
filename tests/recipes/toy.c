/* toy.c - a toy stateful workload, an accumulator: x starts as small integers and each of `steps`
 * steps adds y to it through the backends' add op, ping-ponging between two device buffers.
 * Every value stays a small integer, exact in fp32, so the reference after step s, x0 + s y, is
 * exact and the run is checked bit for bit.
 *
 * Not part of the build: tests/recipes.sh copies it to workloads/toy/ of a scratch copy of the
 * tree, following README.md's "Adding a workload" (stateful), and builds and runs it there. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_clock.h"
#include "xpb_rng.h"
#include "xpb_session.h"
#include "xpb_validate.h"
#include "xpb_workload.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

extern const xpb_workload_i xpb_workload_toy;

typedef struct shape {
    int64_t n, steps;
} shape;

static const shape conformance[] = {{1, 3}, {255, 4}, {4097, 5}}; /* awkward sizes */
static const shape timed[] = {{1 << 16, 16}};                     /* quick, default, full */

static xpb_status push(const shape *s, xpb_case_list *l, xpb_error *err)
{
    if (s->n < 1 || s->n > (1 << 28) || s->steps < 1 || s->steps > 1000)
        return xpb_fail(err, XPB_ERR_USAGE, "bad toy size n=%lld,steps=%lld (1 <= n <= 2^28, 1 <= steps <= 1000)",
                        (long long)s->n, (long long)s->steps);
    xpb_case c;
    memset(&c, 0, sizeof c);
    c.workload = &xpb_workload_toy;
    c.op = XPB_OP_ADD; /* the op it runs, named in the id: toy/add/n=N,steps=S/fp32 */
    c.dtype = XPB_DTYPE_F32;
    xpb_case_set_param(&c, "n", s->n);
    xpb_case_set_param(&c, "steps", s->steps);
    c.elements = (uint64_t)s->n * (uint64_t)s->steps;
    c.bytes_read = 8 * c.elements;
    c.bytes_written = 4 * c.elements;
    c.flops = (double)c.elements;
    xpb_case_make_id(&c);
    return xpb_case_list_push(l, &c, err);
}

static xpb_status add_cases(const char *preset, const xpb_sizes *sizes, xpb_case_list *l, xpb_error *err)
{
    if (sizes && sizes->count > 0) {
        shape s = {0, 0};
        if (!xpb_sizes_get(sizes, "n", &s.n) || !xpb_sizes_get(sizes, "steps", &s.steps))
            return XPB_OK; /* another workload's size */
        return push(&s, l, err);
    }
    bool conf = strcmp(preset, "conformance") == 0;
    const shape *set = conf ? conformance : timed;
    size_t n = conf ? COUNT(conformance) : COUNT(timed);
    xpb_status st = XPB_OK;
    for (size_t i = 0; i < n && !st; i++)
        st = push(&set[i], l, err);
    return st;
}

static bool knows_size_key(const char *k) { return strcmp(k, "n") == 0 || strcmp(k, "steps") == 0; }

/* x0 in [-8, 8], y in [-3, 3], integers drawn from the seed. */
static xpb_status make_data(const xpb_case *c, uint64_t seed, xpb_case_data *d, xpb_error *err)
{
    size_t n = (size_t)xpb_case_param(c, "n", 1);
    memset(d, 0, sizeof *d);
    d->n_in = 2;
    d->in_name[0] = "x0", d->in_name[1] = "y";
    for (int k = 0; k < 2; k++) {
        float *v = malloc(n * sizeof *v);
        if (!v)
            return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "toy: out of host memory");
        for (size_t i = 0; i < n; i++)
            v[i] = (float)((int)(xpb_rng_hash(seed, (uint64_t)k, i) % (k ? 7u : 17u)) - (k ? 3 : 8));
        d->in[k] = v;
        d->in_bytes[k] = n * sizeof *v;
    }
    return XPB_OK;
}

static const char *tolerance_text(const xpb_case *c, const char *precision)
{
    (void)c, (void)precision;
    return "exact: add at step 1 element by element, and x after every step bit for bit against x0 + s y";
}

static xpb_status toy_run(const xpb_case *c, const xpb_case_data *d, xpb_session *s, int inject, xpb_validation *v,
                          xpb_run_outcome *out, xpb_error *err)
{
    const int64_t n = xpb_case_param(c, "n", 1), steps = xpb_case_param(c, "steps", 1);
    const size_t bytes = (size_t)n * sizeof(float);
    const float *x0 = d->in[0], *y = d->in[1];
    const bool validating = s->validating && v;
    float *host = malloc(bytes);
    if (!host)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "toy: out of host memory");
    xpb_view x[2], yv;
    xpb_eltwise_args a;
    memset(&a, 0, sizeof a);
    double h2d0 = s->h2d_s;
    uint64_t b2d0 = s->h2d_bytes;
    xpb_status st = xpb_session_alloc(s, bytes, &x[0], err);
    if (!st)
        st = xpb_session_alloc(s, bytes, &x[1], err);
    if (!st)
        st = xpb_session_alloc(s, bytes, &yv, err);
    if (!st)
        st = xpb_session_upload(s, x[0], 0, x0, bytes, err);
    if (!st)
        st = xpb_session_upload(s, yv, 0, y, bytes, err);
    out->upload_s = s->h2d_s - h2d0;
    out->upload_bytes = s->h2d_bytes - b2d0;
    a.x = x[0], a.y = yv, a.out = x[1], a.n = n;
    if (!st)
        st = xpb_session_supports(s, XPB_OP_ADD, &a, err);

    int parted_at = -1;
    double t0 = xpb_clock_now();
    for (int64_t k = 0; k < steps && !st; k++) {
        a.x = x[k % 2], a.out = x[(k + 1) % 2];
        st = xpb_session_launch(s, XPB_OP_ADD, &a, err);
        if (st || !validating)
            continue;
        /* validating: every step's x read back, step 1 also checked as an op */
        st = xpb_session_download(s, a.out, 0, host, bytes, err);
        if (!st && inject)
            host[0] += 1.0f; /* as a broken kernel would */
        for (int64_t i = 0; !st && i < n; i++) {
            double ref = (double)x0[i] + (double)(k + 1) * (double)y[i];
            if (k == 0)
                xpb_validation_add(v, i, host[i], ref, 0.0);
            if (parted_at < 0 && !((double)host[i] == ref))
                parted_at = (int)k;
        }
    }
    if (!st && !validating) /* the result read back: what a host would wait for */
        st = xpb_session_download(s, x[steps % 2], 0, host, bytes, err);
    out->run_s = xpb_clock_now() - t0;
    out->iterations = (int)steps;
    out->converged = true;

    double total = 0.0; /* sum of the final x: integers well below 2^53, exact */
    for (int64_t i = 0; !st && i < n; i++)
        total += host[i];
    free(host);
    if (!st && validating) {
        out->ops_passed = v->out_of_tolerance == 0 && v->unwritten == 0 && v->nan_count == 0;
        out->run_checked = true;
        out->run_passed = parted_at < 0;
        out->ref_iterations = (int)steps;
        out->parted_at = parted_at;
        char run_msg[96] = "x exact after every step";
        if (parted_at >= 0)
            snprintf(run_msg, sizeof run_msg, "x differs from x0 + s y at step %d", parted_at + 1);
        snprintf(out->summary, sizeof out->summary, "ops: add %s at step 1; run: %s",
                 out->ops_passed ? "exact" : "FAILS", run_msg);
    }
    xpb_run_report_metric(&out->report, "total", st ? NAN : total, "", XPB_BETTER_INFO, XPB_REPORT_HEADLINE);
    xpb_run_report_timing(&out->report, "per_step", NAN, NAN, NAN, 0, XPB_REPORT_PER_ITERATION | XPB_REPORT_HEADLINE);
    return st;
}

const xpb_workload_i xpb_workload_toy = {
    .name = "toy",
    .description = "a toy accumulator (stateful: x += y for `steps` steps through add, exact)",
    .add_cases = add_cases,
    .knows_size_key = knows_size_key,
    .make_data = make_data,
    .tolerance_text = tolerance_text,
    .run = toy_run,
    .variant_op = XPB_OP_ADD,
};
