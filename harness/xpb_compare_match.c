/* xpb_compare_match.c - pairs the cases of two results files by (id, device, variant), compares
 * each pair, and notes where the two system fingerprints differ (xpb_compare.h). */
#include "xpb_compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_key(const xpb_rcase *a, const xpb_rcase *b)
{
    int d = strcmp(a->id, b->id);
    if (!d)
        d = strcmp(a->device, b->device);
    if (!d)
        d = strcmp(a->variant, b->variant);
    return d;
}

static int cmp_case_ptr(const void *a, const void *b)
{
    return cmp_key(*(const xpb_rcase *const *)a, *(const xpb_rcase *const *)b);
}

/* Pointers to f's cases, sorted by key. NULL when out of memory (or no cases). */
static const xpb_rcase **sorted_cases(const xpb_results_file *f)
{
    const xpb_rcase **p = malloc((f->n_cases ? f->n_cases : 1) * sizeof *p);
    if (!p)
        return NULL;
    for (size_t i = 0; i < f->n_cases; i++)
        p[i] = &f->cases[i];
    qsort(p, f->n_cases, sizeof *p, cmp_case_ptr);
    return p;
}

static bool is_failure(const char *status)
{
    return strcmp(status, "failed-validation") == 0 || strcmp(status, "error") == 0;
}

static void fill_row(xpb_comparison *cmp, xpb_compare_row *r)
{
    const xpb_rcase *b = r->base, *n = r->next;
    if (!b) {
        cmp->n_added++;
    } else if (!n) {
        cmp->n_removed++;
    } else {
        r->status_changed = strcmp(b->status, n->status) != 0;
        cmp->n_status_changed += r->status_changed;
    }
    if (n && is_failure(n->status)) {
        r->failing = true;
        r->new_failure = !b || strcmp(b->status, n->status) != 0;
        cmp->n_new_failures += r->new_failure;
    }
    if (b && n && xpb_rcase_is_timed_ok(b) && xpb_rcase_is_timed_ok(n)) {
        r->has_shift = true;
        r->shift = xpb_compare_samples(b->samples, b->n_samples, b->median_s, b->cv, n->samples,
                                       n->n_samples, n->median_s, n->cv, &cmp->opts);
        cmp->n_verdict[r->shift.verdict]++;
    }
}

static void warn(xpb_comparison *c, const char *fmt, const char *what, const char *a, const char *b)
{
    if (c->n_warnings < XPB_COMPARE_MAX_WARNINGS &&
        snprintf(c->warnings[c->n_warnings++], sizeof c->warnings[0], fmt, what, a, b) < 0)
        c->warnings[c->n_warnings - 1][0] = '\0';
}

/* Different GPU, driver, CPU, host or build: the comparison may measure the machine, not the code. */
static void compare_fingerprints(xpb_comparison *c)
{
    const xpb_results_file *a = c->base, *b = c->next;
    const char *f = "%s differs: '%s' (base) vs '%s' (new)";
    if (strcmp(a->hostname, b->hostname))
        warn(c, f, "host", a->hostname, b->hostname);
    if (strcmp(a->cpu_model, b->cpu_model))
        warn(c, f, "CPU", a->cpu_model, b->cpu_model);
    if (strcmp(a->build, b->build))
        warn(c, f, "build", a->build, b->build);
    for (size_t i = 0; i < a->n_devices; i++) {
        const xpb_rdevice *da = &a->devices[i], *db = xpb_results_device(b, da->id);
        char what[96];
        snprintf(what, sizeof what, "device %s", da->id);
        if (!db) {
            warn(c, "%s is only in the base run ('%s')%s", what, da->name, "");
            continue;
        }
        if (strcmp(da->name, db->name))
            warn(c, f, what, da->name, db->name);
        snprintf(what, sizeof what, "driver of %s", da->id);
        if (strcmp(da->driver, db->driver))
            warn(c, f, what, da->driver, db->driver);
        snprintf(what, sizeof what, "runtime of %s", da->id);
        if (strcmp(da->runtime, db->runtime))
            warn(c, f, what, da->runtime, db->runtime);
    }
    for (size_t i = 0; i < b->n_devices; i++)
        if (!xpb_results_device(a, b->devices[i].id))
            warn(c, "device %s is only in the new run ('%s')%s", b->devices[i].id, b->devices[i].name, "");
}

xpb_status xpb_compare_files(const xpb_results_file *base, const xpb_results_file *next,
                             const xpb_compare_opts *o, xpb_comparison *out, xpb_error *err)
{
    memset(out, 0, sizeof *out);
    out->base = base;
    out->next = next;
    out->opts = *o;
    const xpb_rcase **pb = sorted_cases(base), **pn = sorted_cases(next);
    out->rows = calloc(base->n_cases + next->n_cases + 1, sizeof *out->rows);
    if (!pb || !pn || !out->rows) {
        free(pb);
        free(pn);
        xpb_comparison_free(out);
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "compare: out of memory");
    }
    size_t i = 0, j = 0;
    while (i < base->n_cases || j < next->n_cases) {
        xpb_compare_row *r = &out->rows[out->n_rows++];
        int d = i == base->n_cases ? 1 : j == next->n_cases ? -1 : cmp_key(pb[i], pn[j]);
        r->base = d <= 0 ? pb[i++] : NULL;
        r->next = d >= 0 ? pn[j++] : NULL;
        fill_row(out, r);
    }
    free(pb);
    free(pn);
    compare_fingerprints(out);
    return XPB_OK;
}

void xpb_comparison_free(xpb_comparison *c)
{
    free(c->rows);
    c->rows = NULL;
    c->n_rows = 0;
}

bool xpb_comparison_regressed(const xpb_comparison *c)
{
    return c->n_verdict[XPB_VERDICT_SLOWER] > 0 || c->n_new_failures > 0;
}
