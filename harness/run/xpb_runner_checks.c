/* xpb_runner_checks.c - the checks after a case's timed launches (docs/validation.md, "After
 * timing"; xpb_runner_internal.h): the timed launches' own output, and the recheck with inputs
 * made from a fresh seed, so that a kernel cannot pass by doing less when timed than when
 * validated: replaying an output it kept, or working on its first call only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_clock.h"
#include "xpb_rng.h"
#include "xpb_runner_internal.h"
#include "xpb_sysinfo.h"

#define G XPB_GUARD_BYTES

xpb_status xpb_runner_check_output(xpb_case_buffers *cb, const xpb_case *c, const xpb_case_data *d,
                                   const xpb_kernel *k, const xpb_run_config *cfg, uint64_t seed,
                                   xpb_after_check *check, xpb_error *err)
{
    double t0 = xpb_clock_now();
    xpb_status st = cb->dev->backend->buffer_download(cb->dev->ctx, cb->out[0], 0, cb->out_host,
                                                      d->out_bytes[0] + 2 * G, err);
    cb->download_s += xpb_clock_now() - t0;
    xpb_validation v;
    if (!st)
        st = xpb_validate_output(c, d, k->precision, (const float *)((char *)cb->out_host + G), cfg->sampled,
                                 cfg->sample_units, seed, &v, err);
    if (st)
        return st;
    xpb_validation_finish(&v, xpb_guard_violations(cb->out_host, G) +
                                  xpb_guard_violations((char *)cb->out_host + G + d->out_bytes[0], G));
    check->state = v.passed ? XPB_CHECK_PASSED : XPB_CHECK_FAILED;
    if (!v.passed)
        xpb_validation_summary(&v, check->reason, sizeof check->reason);
    return XPB_OK;
}

const char *xpb_runner_after_timing_skip(const xpb_device *dev)
{
    if (dev->n_group)
        return "device group: its outputs are every rank's (gigabytes at the large collectives) and its "
               "rounds run back to back on the same buffers; the validation launch checks it";
    return NULL;
}

/* The recheck's input seed: made from the run's, never equal to it, and below 2^53 so that the
 * results' JSON number holds it exactly. */
static uint64_t recheck_seed(uint64_t seed)
{
    uint64_t s = xpb_rng_hash(seed, 0x5EC0DEu, 0) >> 11;
    return s == seed ? s ^ 1 : s;
}

void xpb_recheck_inputs_free(xpb_recheck_inputs *ri)
{
    if (ri->made)
        xpb_case_data_free(&ri->d);
    memset(ri, 0, sizeof *ri);
}

/* ri's inputs, made from seed unless an earlier variant made them; they must match the case's in
 * size. */
static xpb_status recheck_inputs(const xpb_case *c, const xpb_case_data *kept, uint64_t seed, xpb_recheck_inputs *ri,
                                 xpb_error *err)
{
    if (ri->made)
        return XPB_OK;
    memset(&ri->d, 0, sizeof ri->d);
    xpb_status st = c->workload->make_data(c, seed, &ri->d, err);
    if (st)
        return st;
    ri->made = true;
    for (int i = 0; i < XPB_MAX_ARRAYS; i++)
        if (ri->d.n_in != kept->n_in || ri->d.n_out != kept->n_out || ri->d.in_bytes[i] != kept->in_bytes[i] ||
            ri->d.out_bytes[i] != kept->out_bytes[i]) {
            xpb_recheck_inputs_free(ri);
            return xpb_fail(err, XPB_ERR_RUNTIME, "the recheck's inputs (seed %llu) differ in size from the case's",
                            (unsigned long long)seed);
        }
    return XPB_OK;
}

xpb_status xpb_runner_recheck(xpb_case_buffers *cb, const xpb_kernel *k, const xpb_case *c, const void *args,
                              void **state, bool *prepared, xpb_recheck_inputs *ri, const xpb_run_config *cfg,
                              xpb_result *r, xpb_error *err)
{
    r->recheck_seed = recheck_seed(cfg->seed);
    if (c->input) {
        r->recheck.state = XPB_CHECK_SKIPPED;
        snprintf(r->recheck.reason, sizeof r->recheck.reason,
                 "the inputs come from --input FILE: another seed makes the same inputs");
        return XPB_OK;
    }
    uint64_t avail = xpb_sysinfo_mem_available(); /* the case's inputs are held, a second set made */
    if (avail && c->bytes_read > avail / 10 * 9) {
        r->recheck.state = XPB_CHECK_SKIPPED;
        snprintf(r->recheck.reason, sizeof r->recheck.reason,
                 "a second set of inputs needs %.2f GiB of host memory; %.2f GiB available",
                 (double)c->bytes_read / 1073741824.0, (double)avail / 1073741824.0);
        return XPB_OK;
    }
    const xpb_case_data *kept = cb->data;
    xpb_status st = recheck_inputs(c, kept, r->recheck_seed, ri, err);
    if (st)
        return st;
    const xpb_case_data *fresh = &ri->d;
    cb->data = fresh;
    st = xpb_runner_upload_inputs(cb, c, err);
    if (!st)
        st = xpb_runner_poison_outputs(cb, err);
    if (!st && k->prepare) {
        if (*prepared && k->release)
            k->release(cb->dev->ctx, *state);
        *prepared = false;
        *state = NULL;
        if (!(st = k->prepare(cb->dev->ctx, args, state, err)))
            *prepared = true;
    }
    if (!st)
        st = k->launch(cb->dev->ctx, args, *state, err);
    if (!st)
        st = cb->dev->backend->synchronize(cb->dev->ctx, err);
    if (!st)
        st = xpb_runner_check_output(cb, c, fresh, k, cfg, r->recheck_seed, &r->recheck, err);
    cb->data = kept;
    return st;
}

void xpb_runner_fail_after_timing(xpb_result *r)
{
    if (r->timed_output.state == XPB_CHECK_FAILED)
        snprintf(r->message, sizeof r->message, "the timed launches' output: %s", r->timed_output.reason);
    else if (r->recheck.state == XPB_CHECK_FAILED)
        snprintf(r->message, sizeof r->message, "the fresh-seed recheck (seed %llu, after timing): %s",
                 (unsigned long long)r->recheck_seed, r->recheck.reason);
    else
        return;
    r->status = XPB_CASE_FAILED_VALIDATION;
    r->validation.passed = false;
    r->timed = false;
}

