/* xpb_runner_validate.c - the validation launch's output read back and checked (step 1 of a case,
 * xpb_runner.c), and where each process checks what under MPI.
 *
 * One process reads the whole output array (every rank's part on a device group) and checks it.
 * Under MPI (one process per rank) a process reads only its own rank's part and checks only the
 * units in it, the guards it holds (the leading one is rank 0's, the trailing one the last rank's),
 * and the processes' shares are combined into one verdict (xpb_validation_combine) that every
 * process holds alike: every element of every rank's output is checked once, by the process that
 * holds it. Before, every process received every rank's part over MPI and checked all of them:
 * 3 GiB received and 4 GiB checked by each of 4 processes at the 1 GiB all_gather on 4 GPUs
 * (docs/multi-gpu.md, "Where a sweep's time goes"). When the parts do not split on the workload's
 * units (column parts), or the whole array is needed (a dump), the whole is read as before. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_clock.h"
#include "xpb_dump.h"
#include "xpb_mpi.h"
#include "xpb_runner_internal.h"

#define G XPB_GUARD_BYTES

/* --inject-fault: damage the downloaded copy the way a buggy kernel would (under MPI each process
 * damages its copy alike; the process holding the spot sees it). */
static void inject_fault(int kind, unsigned char *host, size_t out_bytes)
{
    float *out = (float *)(host + G);
    size_t n = out_bytes / sizeof(float), mid = n / 2;
    uint32_t poison = XPB_POISON_BITS;
    if (kind == XPB_FAULT_VALUE && n > 0)
        out[mid] = out[mid] * 1.001f + 0.001f;
    else if (kind == XPB_FAULT_UNWRITTEN && n > 0)
        memcpy(&out[mid], &poison, sizeof poison);
    else if (kind != XPB_FAULT_NONE) /* guard, or nothing else to damage in an empty output */
        host[G + out_bytes] ^= 0x5A;
}

xpb_status xpb_runner_download_mine(xpb_case_buffers *cb, bool *local, size_t *lo, size_t *hi, xpb_error *err)
{
    const xpb_backend_i *b = cb->dev->backend;
    size_t bytes = cb->data->out_bytes[0] + 2 * G;
    *local = false;
    *lo = 0;
    *hi = bytes;
    if (cb->dev->n_group && xpb_mpi_active() && b->buffer_download_local) {
        xpb_status st = b->buffer_download_local(cb->dev->ctx, cb->out[0], 0, cb->out_host, bytes, lo, hi, err);
        /* every process takes the same path: a process whose parts are not one span makes all read the whole */
        if (!xpb_mpi_any(st == XPB_ERR_UNSUPPORTED)) {
            *local = true;
            return xpb_mpi_agree(st, err);
        }
        *lo = 0;
        *hi = bytes;
    }
    return b->buffer_download(cb->dev->ctx, cb->out[0], 0, cb->out_host, bytes, err);
}

/* Where the output's units [*u0, *u1) and guards lie in this process's bytes [lo, hi) of
 * guard + output + guard; false when the span cuts a unit (it would be checked by nobody). */
static bool span_units(size_t lo, size_t hi, size_t out_bytes, size_t unit, size_t *u0, size_t *u1)
{
    size_t n = out_bytes / 4;
    size_t e0 = lo <= G ? 0 : (lo - G) / 4, e1 = hi <= G ? 0 : (hi - G) / 4;
    e0 = e0 < n ? e0 : n;
    e1 = e1 < n ? e1 : n;
    bool whole_start = lo <= G || (lo - G) % 4 == 0, whole_end = hi >= G + out_bytes || (hi - G) % 4 == 0;
    if (!unit || !whole_start || !whole_end || e0 % unit || (e1 % unit && e1 != n))
        return false;
    *u0 = e0 / unit;
    *u1 = e1 == n ? n / unit : e1 / unit;
    return true;
}

/* Guard bytes in [lo, hi) that differ from the poison. */
static uint64_t guards_in(const unsigned char *host, size_t out_bytes, size_t lo, size_t hi)
{
    uint64_t bad = 0;
    size_t spans[2][2] = {{0, G}, {G + out_bytes, 2 * G + out_bytes}};
    for (int i = 0; i < 2; i++) {
        size_t a = spans[i][0] > lo ? spans[i][0] : lo, z = spans[i][1] < hi ? spans[i][1] : hi;
        if (a < z) /* the spans of the processes follow the parts: whole words, each held once */
            bad += xpb_guard_violations(host + a, z - a);
    }
    return bad;
}

/* This process's share: the units and guards in [lo, hi); combined over the processes. false in
 * *split when the span cuts a unit on any process (the caller then checks the whole). */
static xpb_status validate_share(xpb_case_buffers *cb, const xpb_case *c, const xpb_kernel *k,
                                 const xpb_run_config *cfg, size_t lo, size_t hi, bool *split, xpb_validation *v,
                                 xpb_error *err)
{
    const xpb_case_data *d = cb->data;
    size_t u0 = 0, u1 = 0;
    *split = !xpb_mpi_any(!span_units(lo, hi, d->out_bytes[0], c->workload->unit_elements(c), &u0, &u1));
    if (!*split)
        return XPB_OK;
    const float *out = (const float *)((char *)cb->out_host + G);
    xpb_validation_part mine;
    xpb_status st = xpb_validate_units(c, d, k->precision, out, u0, u1, cfg->sampled, cfg->sample_units, cfg->seed,
                                       &mine, err);
    if (!st)
        mine.v.guard_violations = guards_in(cb->out_host, d->out_bytes[0], lo, hi);
    st = xpb_mpi_agree(st, err);
    int n = xpb_mpi_size();
    xpb_validation_part *all = st ? NULL : malloc((size_t)n * sizeof *all);
    st = xpb_mpi_agree(st ? st : all ? XPB_OK : xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory"), err);
    if (!st)
        st = xpb_mpi_allgather(&mine, sizeof mine, all, err);
    if (!st) {
        xpb_validation_combine(all, n, c, k->precision, v);
        xpb_validation_finish(v, v->guard_violations);
    }
    free(all);
    return st;
}

xpb_status xpb_runner_validate_launch(xpb_case_buffers *cb, const xpb_case *c, const xpb_kernel *k,
                                      const xpb_run_config *cfg, xpb_result *r, xpb_error *err)
{
    const xpb_case_data *d = cb->data;
    bool local = false, split = false;
    size_t lo, hi;
    double t0 = xpb_clock_now();
    xpb_status st = xpb_runner_download_mine(cb, &local, &lo, &hi, err);
    cb->download_s += xpb_clock_now() - t0;
    if (st)
        return st;
    inject_fault(cfg->inject_fault, cb->out_host, d->out_bytes[0]);
    if (local && !(st = validate_share(cb, c, k, cfg, lo, hi, &split, &r->validation, err)) && split &&
        xpb_mpi_any(!r->validation.passed || cfg->dump_dir)) {
        /* a dump writes the whole array: read it whole (the verdict stays the shares') */
        if (!(st = cb->dev->backend->buffer_download(cb->dev->ctx, cb->out[0], 0, cb->out_host,
                                                     d->out_bytes[0] + 2 * G, err)))
            inject_fault(cfg->inject_fault, cb->out_host, d->out_bytes[0]);
    }
    if (st)
        return st;
    if (local && !split) { /* the parts cut the units: the whole, as one process reads it */
        if ((st = cb->dev->backend->buffer_download(cb->dev->ctx, cb->out[0], 0, cb->out_host,
                                                    d->out_bytes[0] + 2 * G, err)))
            return st;
        inject_fault(cfg->inject_fault, cb->out_host, d->out_bytes[0]);
    }
    const float *out = (const float *)((char *)cb->out_host + G);
    if (!split) {
        st = xpb_validate_output(c, d, k->precision, out, cfg->sampled, cfg->sample_units, cfg->seed, &r->validation,
                                 err);
        uint64_t guards = xpb_guard_violations(cb->out_host, G) +
                          xpb_guard_violations((char *)cb->out_host + G + d->out_bytes[0], G);
        xpb_validation_finish(&r->validation, guards);
    }
    r->validated = st == XPB_OK;
    if (r->validated)
        xpb_dump_after_validation(r->dump_note, sizeof r->dump_note, cfg->dump_dir, cfg->dump_fail_dir,
                                  !r->validation.passed, c, d, k->precision, out, cfg->seed, cb->dev->label,
                                  k->variant, cfg->dump_count);
    return st;
}
