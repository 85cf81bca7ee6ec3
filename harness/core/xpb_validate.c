/* xpb_validate.c - see xpb_validate.h. */
#include "xpb_validate.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_rng.h"

#define CHUNK_ELEMENTS (1u << 16)

void xpb_poison_fill(void *p, size_t bytes)
{
    uint32_t *w = p;
    for (size_t i = 0; i < bytes / 4; i++)
        w[i] = XPB_POISON_BITS;
}

uint64_t xpb_guard_violations(const void *guard, size_t bytes)
{
    const uint32_t *w = guard;
    uint64_t bad = 0;
    for (size_t i = 0; i < bytes / 4; i++)
        bad += w[i] != XPB_POISON_BITS;
    return bad;
}

/* Maps float bits to integers that are ordered like the floats, for ULP distances. */
static int64_t ordered_bits(float f)
{
    int32_t i;
    memcpy(&i, &f, sizeof i);
    return i < 0 ? (int64_t)INT32_MIN - i : i;
}

/* Accumulates one element into a (thread-local) validation record. */
typedef struct acc {
    xpb_validation v;
    double err2, ref2;
} acc;

/* out64: the value compared (the fp32 output widened, or a value a stateful check derives in
 * fp64); unwritten: the output still holds the poison. */
static void check_value(xpb_validation *v, double *err2, double *ref2, int64_t index, double out64,
                        bool unwritten, double ref, double tol)
{
    v->checked++;
    bool bad = false;
    double err = fabs(out64 - ref), ratio;
    if (unwritten) {
        v->unwritten++;
        bad = true;
        ratio = INFINITY;
    } else if (isnan(out64)) {
        v->nan_count++;
        bad = true;
        ratio = INFINITY;
    } else {
        if (isinf(out64))
            v->inf_count++;
        ratio = err == 0 ? 0 : (tol > 0 ? err / tol : INFINITY);
        bad = !(err <= tol);
        *err2 += err * err;
        *ref2 += ref * ref;
        if (err > v->max_abs_err)
            v->max_abs_err = err;
        if (ref != 0 && err / fabs(ref) > v->max_rel_err)
            v->max_rel_err = err / fabs(ref);
        double ulp = (double)llabs(ordered_bits((float)out64) - ordered_bits((float)ref));
        if (ulp > v->max_ulp)
            v->max_ulp = ulp;
    }
    if (bad)
        v->out_of_tolerance++;
    if (ratio > v->max_err_over_tol || v->worst_index < 0) {
        v->max_err_over_tol = ratio > v->max_err_over_tol ? ratio : v->max_err_over_tol;
        v->worst_index = index;
        v->worst_value = out64;
        v->worst_reference = ref;
        v->worst_tolerance = tol;
    }
    if (bad && v->n_mismatches < XPB_MAX_MISMATCHES)
        v->mismatches[v->n_mismatches++] = (xpb_mismatch){index, out64, ref, tol};
}

static void check_element(acc *a, int64_t index, float out, double ref, double tol)
{
    uint32_t bits;
    memcpy(&bits, &out, sizeof bits);
    double o = (double)out;
    /* An exact finite match once the worst index is set changes nothing but the counts and
     * ||ref||: what check_value would do, without its ULP and ratio arithmetic (a 1 GiB
     * all_gather checks 2^30 exact elements; 12 s on 2 cores through check_value). */
    if (o == ref && isfinite(o) && tol >= 0 && a->v.worst_index >= 0 && bits != XPB_POISON_BITS) {
        a->v.checked++;
        a->ref2 += ref * ref;
        return;
    }
    check_value(&a->v, &a->err2, &a->ref2, index, o, bits == XPB_POISON_BITS, ref, tol);
}

void xpb_validation_add(xpb_validation *v, int64_t index, float out, double ref, double tol)
{
    double e2 = 0, r2 = 0;
    uint32_t bits;
    memcpy(&bits, &out, sizeof bits);
    check_value(v, &e2, &r2, index, (double)out, bits == XPB_POISON_BITS, ref, tol);
}

void xpb_validation_add_f64(xpb_validation *v, int64_t index, double out, bool unwritten, double ref, double tol)
{
    double e2 = 0, r2 = 0;
    check_value(v, &e2, &r2, index, out, unwritten, ref, tol);
}

static int cmp_mismatch(const void *a, const void *b)
{
    int64_t x = ((const xpb_mismatch *)a)->index, y = ((const xpb_mismatch *)b)->index;
    return (x > y) - (x < y);
}

/* Folds a thread's record into the total. */
static void merge(acc *t, const acc *a)
{
    xpb_validation *v = &t->v;
    const xpb_validation *w = &a->v;
    v->checked += w->checked;
    v->out_of_tolerance += w->out_of_tolerance;
    v->nan_count += w->nan_count;
    v->inf_count += w->inf_count;
    v->unwritten += w->unwritten;
    v->max_abs_err = fmax(v->max_abs_err, w->max_abs_err);
    v->max_rel_err = fmax(v->max_rel_err, w->max_rel_err);
    v->max_ulp = fmax(v->max_ulp, w->max_ulp);
    if (w->worst_index >= 0 &&
        (v->worst_index < 0 || w->max_err_over_tol > v->max_err_over_tol)) {
        v->max_err_over_tol = w->max_err_over_tol;
        v->worst_index = w->worst_index;
        v->worst_value = w->worst_value;
        v->worst_reference = w->worst_reference;
        v->worst_tolerance = w->worst_tolerance;
    }
    for (int i = 0; i < w->n_mismatches; i++) {
        if (v->n_mismatches < XPB_MAX_MISMATCHES) {
            v->mismatches[v->n_mismatches++] = w->mismatches[i];
        } else { /* keep the lowest indices */
            qsort(v->mismatches, XPB_MAX_MISMATCHES, sizeof v->mismatches[0], cmp_mismatch);
            if (w->mismatches[i].index < v->mismatches[XPB_MAX_MISMATCHES - 1].index)
                v->mismatches[XPB_MAX_MISMATCHES - 1] = w->mismatches[i];
        }
    }
    t->err2 += a->err2;
    t->ref2 += a->ref2;
}

size_t xpb_validate_sample_count(size_t sample_units, size_t unit_elements)
{
    size_t cap = unit_elements ? XPB_VALIDATE_SAMPLED_ELEMENTS / unit_elements : sample_units;
    cap = cap < 16 ? 16 : cap;
    return sample_units < cap ? sample_units : cap;
}

/* Which units to check: all, or first + last + a seeded random sample. */
static size_t pick_units(size_t n_units, bool sampled, size_t k, uint64_t seed, size_t **list)
{
    *list = NULL;
    if (!sampled || n_units <= k + 2)
        return n_units;
    size_t *l = malloc((k + 2) * sizeof *l);
    if (!l)
        return n_units;
    l[0] = 0;
    l[1] = n_units - 1;
    for (size_t i = 0; i < k; i++)
        l[i + 2] = (size_t)(xpb_rng_hash(seed, 0xC0FFEE, i) % n_units);
    *list = l;
    return k + 2;
}

xpb_status xpb_validate_units(const xpb_case *c, const xpb_case_data *d, const char *precision, const float *out,
                              size_t unit_first, size_t unit_last, bool sampled, size_t sample_units, uint64_t seed,
                              xpb_validation_part *part, xpb_error *err)
{
    memset(part, 0, sizeof *part);
    part->v.worst_index = -1;
    size_t forced = c->workload->sampled_units ? c->workload->sampled_units(c) : 0;
    if (forced) {
        sampled = true;
        sample_units = sample_units && sample_units < forced ? sample_units : forced;
    }
    size_t unit = c->workload->unit_elements(c);
    size_t n_units = unit ? d->out_elements / unit : 0;
    if (!forced) /* a workload's own sample keeps its own budget (GEMM: ~2^30 multiply-adds) */
        sample_units = xpb_validate_sample_count(sample_units, unit);
    unit_last = unit_last < n_units ? unit_last : n_units;
    unit_first = unit_first < unit_last ? unit_first : unit_last;
    size_t *units;
    size_t n_pick = pick_units(n_units, sampled, sample_units, seed, &units);
    size_t n_check = n_pick;
    if (units) { /* the sample's units in [unit_first, unit_last), in the sample's order */
        n_check = 0;
        for (size_t i = 0; i < n_pick; i++)
            if (units[i] >= unit_first && units[i] < unit_last)
                units[n_check++] = units[i];
    } else {
        n_check = unit_last - unit_first;
    }
    part->n_units = n_units;
    part->units_picked = n_pick;
    part->units_checked = n_check;
    size_t per_chunk = unit >= CHUNK_ELEMENTS ? 1 : CHUNK_ELEMENTS / unit;
    size_t n_chunks = (n_check + per_chunk - 1) / per_chunk;
    acc total;
    memset(&total, 0, sizeof total);
    total.v.worst_index = -1;
    int oom = 0;

#pragma omp parallel
    {
        acc mine;
        memset(&mine, 0, sizeof mine);
        mine.v.worst_index = -1;
        size_t cap = per_chunk * unit;
        double *ref = malloc(cap * sizeof *ref), *tol = malloc(cap * sizeof *tol);
        if (!ref || !tol) {
#pragma omp atomic write
            oom = 1;
        }
#pragma omp for schedule(dynamic, 1)
        for (size_t ch = 0; ch < n_chunks; ch++) {
            if (!ref || !tol)
                continue;
            size_t first = ch * per_chunk, last = first + per_chunk;
            last = last > n_check ? n_check : last;
            for (size_t i = first; i < last; i++) {
                size_t u = units ? units[i] : unit_first + i;
                /* consecutive units are computed together when checking everything */
                size_t run = 1;
                if (!units)
                    run = last - i;
                c->workload->reference(c, d, precision, u, u + run, ref, tol);
                for (size_t e = 0; e < run * unit; e++) {
                    size_t idx = u * unit + e;
                    check_element(&mine, (int64_t)idx, out[idx], ref[e], tol[e]);
                }
                i += run - 1;
            }
        }
#pragma omp critical
        merge(&total, &mine);
        free(ref);
        free(tol);
    }
    free(units);
    if (oom)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory while validating");
    part->v = total.v;
    part->err2 = total.err2;
    part->ref2 = total.ref2;
    return XPB_OK;
}

void xpb_validation_combine(const xpb_validation_part *parts, int n, const xpb_case *c, const char *precision,
                            xpb_validation *v)
{
    acc total;
    memset(&total, 0, sizeof total);
    total.v.worst_index = -1;
    size_t checked = 0, picked = 0, n_units = 0;
    uint64_t guards = 0;
    for (int i = 0; i < n; i++) {
        acc a = {parts[i].v, parts[i].err2, parts[i].ref2};
        merge(&total, &a);
        checked += parts[i].units_checked;
        picked = parts[i].units_picked;
        n_units = parts[i].n_units;
        guards += parts[i].v.guard_violations;
    }
    *v = total.v;
    v->guard_violations = guards;
    snprintf(v->tolerance, sizeof v->tolerance, "%s", c->workload->tolerance_text(c, precision));
    if (picked < n_units)
        snprintf(v->method, sizeof v->method, "sampled (%zu of %zu units)", checked, n_units);
    else
        snprintf(v->method, sizeof v->method, "full");
    v->rel_l2_err = total.ref2 > 0 ? sqrt(total.err2 / total.ref2) : sqrt(total.err2);
    if (v->worst_index < 0)
        v->max_err_over_tol = 0;
    qsort(v->mismatches, (size_t)v->n_mismatches, sizeof v->mismatches[0], cmp_mismatch);
}

xpb_status xpb_validate_output(const xpb_case *c, const xpb_case_data *d, const char *precision,
                               const float *out, bool sampled, size_t sample_units, uint64_t seed,
                               xpb_validation *v, xpb_error *err)
{
    memset(v, 0, sizeof *v);
    xpb_validation_part part;
    xpb_status st = xpb_validate_units(c, d, precision, out, 0, SIZE_MAX, sampled, sample_units, seed, &part, err);
    if (st)
        return st;
    xpb_validation_combine(&part, 1, c, precision, v);
    return XPB_OK;
}

void xpb_validation_finish(xpb_validation *v, uint64_t guard_violations)
{
    v->guard_violations = guard_violations;
    v->passed = v->out_of_tolerance == 0 && v->unwritten == 0 && v->nan_count == 0 &&
                guard_violations == 0;
}

const char *xpb_check_state_name(xpb_check_state s)
{
    return s == XPB_CHECK_PASSED ? "passed" : s == XPB_CHECK_FAILED ? "failed" : s == XPB_CHECK_SKIPPED ? "skipped" : "";
}

void xpb_validation_summary(const xpb_validation *v, char *buf, size_t size)
{
    snprintf(buf, size,
             "%llu of %llu elements out of tolerance (%llu unwritten, %llu NaN, %llu guard bytes "
             "overwritten); worst at [%lld]: %.9g, reference %.9g, tolerance %.3g",
             (unsigned long long)v->out_of_tolerance, (unsigned long long)v->checked,
             (unsigned long long)v->unwritten, (unsigned long long)v->nan_count,
             (unsigned long long)v->guard_violations, (long long)v->worst_index, v->worst_value,
             v->worst_reference, v->worst_tolerance);
}
