/* xpb_compare_match.c - pairs the cases of two results files by (id, device, variant), compares
 * each pair, and notes where the two system fingerprints differ (xpb_compare.h). */
#include "xpb_compare.h"
#include "xpb_stats.h"

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

/* A run's time measures different work when the runs' iteration counts differ: no verdict on
 * it; the ratio per iteration (per launch, for an op) is given as information. */
static void not_comparable(xpb_shift *s, const xpb_compare_row *r, const char *per, double base_count,
                           double new_count)
{
    double scaled = s->ratio * base_count / new_count;
    s->verdict = XPB_VERDICT_INCOMPARABLE;
    int len = snprintf(s->why, sizeof s->why, "iterations differ (%.0f -> %.0f): per-run times are not comparable",
                       r->base->iterations, r->next->iterations);
    if (isfinite(scaled) && len > 0 && (size_t)len < sizeof s->why)
        snprintf(s->why + len, sizeof s->why - (size_t)len, "; per %s new/base %.3f", per, scaled);
}

static const xpb_rop *find_op(const xpb_rcase *c, const char *name)
{
    for (size_t i = 0; i < c->n_ops; i++)
        if (strcmp(c->ops[i].op, name) == 0)
            return &c->ops[i];
    return NULL;
}

static double history_noise(const xpb_comparison *cmp, const xpb_rcase *b, const char *op);

/* One op of a stateful case; b or n is NULL when the op is on one side only. */
static void compare_op(xpb_comparison *cmp, xpb_compare_row *r, const xpb_rop *b, const xpb_rop *n)
{
    xpb_compare_op *o = &r->ops[r->n_ops++];
    o->op = b ? b->op : n->op;
    o->tested = b && n && ((b->n_units && n->n_units) || (b->n_samples && n->n_samples));
    if (o->tested) {
        if (b->n_units && n->n_units) { /* the op's median in each round */
            o->shift = xpb_compare_units((xpb_units){b->units, b->n_units, b->run_units, b->n_runs},
                                         (xpb_units){n->units, n->n_units, n->run_units, n->n_runs},
                                         history_noise(cmp, r->base, o->op), &cmp->opts);
        } else { /* files from before rounds: the breakdown runs of one case, back to back */
            o->shift = xpb_compare_samples(b->samples, b->n_samples, b->seconds, b->cv, n->samples, n->n_samples,
                                           n->seconds, n->cv, &cmp->opts);
            cmp->n_samples_method++;
        }
        if (r->iterations_differ)
            not_comparable(&o->shift, r, "launch", b->launches, n->launches);
        cmp->n_op_verdict[o->shift.verdict]++;
        return;
    }
    o->shift = xpb_compare_samples(NULL, 0, b ? b->seconds : NAN, NAN, NULL, 0, n ? n->seconds : NAN, NAN,
                                   &cmp->opts);
    snprintf(o->shift.why, sizeof o->shift.why, "%s", !b ? "the op is only in the new run" : !n ?
             "the op is only in the base run" : "a side has no per-run samples (an older file): one run, no test");
    cmp->n_op_info++;
}

/* The ops of a stateful case, matched by name: base's in order, then those only in next. */
static xpb_status compare_ops(xpb_comparison *cmp, xpb_compare_row *r)
{
    const xpb_rcase *b = r->base, *n = r->next;
    r->ops = calloc(b->n_ops + n->n_ops + 1, sizeof *r->ops);
    if (!r->ops)
        return XPB_ERR_OUT_OF_MEMORY;
    r->stateful = true;
    cmp->n_stateful++;
    for (size_t i = 0; i < b->n_ops; i++)
        compare_op(cmp, r, &b->ops[i], find_op(n, b->ops[i].op));
    for (size_t j = 0; j < n->n_ops; j++)
        if (!find_op(b, n->ops[j].op))
            compare_op(cmp, r, NULL, &n->ops[j]);
    return XPB_OK;
}

/* One run's figure for a case, or for its op named op: the median of its rounds' units (the
 * median over all its samples in files from before rounds); NaN when the file lacks it. */
static double run_figure(const xpb_rcase *c, const char *op)
{
    if (!op)
        return c->n_units ? xpb_median_of(c->units, c->n_units) : c->median_s;
    for (size_t i = 0; i < c->n_ops; i++)
        if (strcmp(c->ops[i].op, op) == 0)
            return c->ops[i].n_units ? xpb_median_of(c->ops[i].units, c->ops[i].n_units) : c->ops[i].seconds;
    return NAN;
}

/* The relative sigma of a case's figure (op NULL) or of its op's over the history files and base:
 * each file is one process, so this is the spread between processes that rounds inside one
 * cannot see (xpb_compare.h). NaN with fewer than 3 figures. */
static double history_noise(const xpb_comparison *cmp, const xpb_rcase *b, const char *op)
{
    if (!cmp->n_history)
        return NAN;
    double *m = malloc((cmp->n_history + 1) * sizeof *m);
    size_t n = 0;
    if (!m)
        return NAN;
    double v = run_figure(b, op);
    if (isfinite(v) && v > 0)
        m[n++] = v;
    for (size_t h = 0; h < cmp->n_history; h++) {
        const xpb_results_file *f = &cmp->history[h];
        for (size_t i = 0; i < f->n_cases; i++)
            if (cmp_key(&f->cases[i], b) == 0 && xpb_rcase_is_timed_ok(&f->cases[i])) {
                v = run_figure(&f->cases[i], op);
                if (isfinite(v) && v > 0)
                    m[n++] = v;
                break;
            }
    }
    double sigma = n >= 3 ? xpb_history_sigma(m, n) : NAN;
    free(m);
    return sigma;
}

/* SM clocks after the timed rounds further apart than this are worth a warning. */
#define CLOCKS_APART 0.05

/* Throttling or different clocks in either run (results' conditions, NVML): a note on the row
 * and a count for the warnings. */
static void explain(xpb_comparison *cmp, xpb_compare_row *r)
{
    const xpb_rcase *b = r->base, *n = r->next;
    size_t len = 0;
    if (b->throttled[0] || n->throttled[0]) {
        len = (size_t)snprintf(r->conditions, sizeof r->conditions, "throttled: %s in base, %s in new",
                               b->throttled[0] ? b->throttled : "no", n->throttled[0] ? n->throttled : "no");
        cmp->n_throttled++;
    }
    double sb = b->sm_mhz_after, sn = n->sm_mhz_after;
    if (isfinite(sb) && isfinite(sn) && sb > 0 && fabs(sn / sb - 1) > CLOCKS_APART && len < sizeof r->conditions) {
        snprintf(r->conditions + len, sizeof r->conditions - len, "%sSM clock after the timed rounds %.0f MHz in base, "
                 "%.0f in new", len ? "; " : "", sb, sn);
        cmp->n_clocks_apart++;
    }
}

/* Both runs of the row say what the kernel chose by itself, and they say different things (a file
 * from before kernel_config, or a kernel without describe, says nothing: no warning). */
static bool config_differs(const xpb_compare_row *r)
{
    return r->base && r->next && r->base->kernel_config[0] && r->next->kernel_config[0] &&
           strcmp(r->base->kernel_config, r->next->kernel_config) != 0;
}

static xpb_status fill_row(xpb_comparison *cmp, xpb_compare_row *r)
{
    const xpb_rcase *b = r->base, *n = r->next;
    r->drift_base = r->drift_next = 1.0;
    if (!b) {
        cmp->n_added++;
    } else if (!n) {
        cmp->n_removed++;
    } else {
        r->status_changed = strcmp(b->status, n->status) != 0;
        cmp->n_status_changed += r->status_changed;
        cmp->n_config_differ += config_differs(r);
    }
    if (n && is_failure(n->status)) {
        r->failing = true;
        r->new_failure = !b || strcmp(b->status, n->status) != 0;
        cmp->n_new_failures += r->new_failure;
    }
    if (b && n && xpb_rcase_is_timed_ok(b) && xpb_rcase_is_timed_ok(n)) {
        r->has_shift = true;
        if (b->n_units || n->n_units) {
            r->shift = xpb_compare_units((xpb_units){b->units, b->n_units, b->run_units, b->n_runs},
                                         (xpb_units){n->units, n->n_units, n->run_units, n->n_runs},
                                         history_noise(cmp, b, NULL), &cmp->opts);
        } else { /* files from before rounds */
            r->shift = xpb_compare_samples(b->samples, b->n_samples, b->median_s, b->cv, n->samples,
                                           n->n_samples, n->median_s, n->cv, &cmp->opts);
            cmp->n_samples_method++;
        }
        bool stateful = b->has_run && n->has_run;
        r->iterations_differ = stateful && isfinite(b->iterations) && isfinite(n->iterations) &&
                               b->iterations != n->iterations;
        if (r->iterations_differ)
            not_comparable(&r->shift, r, "iteration", b->iterations, n->iterations);
        cmp->n_verdict[r->shift.verdict]++;
        /* rounds that move one way are not repetitions (one run's; pooled reruns are several runs) */
        r->drift_base = b->n_runs > 1 ? 1.0 : xpb_stats_drift(b->units, b->n_units);
        r->drift_next = n->n_runs > 1 ? 1.0 : xpb_stats_drift(n->units, n->n_units);
        if (r->drift_base != 1.0 || r->drift_next != 1.0)
            cmp->n_drifting++;
        if (b->has_conditions && n->has_conditions)
            explain(cmp, r);
        if (stateful && b->inputs_kept != n->inputs_kept)
            cmp->n_inputs_differ++;
        if (stateful)
            return compare_ops(cmp, r);
    }
    return XPB_OK;
}

/* A fingerprint difference: "fingerprints differ: " and fmt with what, a and b. */
static void warn(xpb_comparison *c, const char *fmt, const char *what, const char *a, const char *b)
{
    char msg[sizeof c->warnings[0]];
    if (c->n_warnings < XPB_COMPARE_MAX_WARNINGS && snprintf(msg, sizeof msg, fmt, what, a, b) >= 0 &&
        snprintf(c->warnings[c->n_warnings++], sizeof c->warnings[0], "fingerprints differ: %s", msg) < 0)
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
    if (strcmp(a->knobs, b->knobs)) /* XPB_* knobs set in the environment: two configurations */
        warn(c, f, "the set of XPB_ knobs in the environment", a->knobs[0] ? a->knobs : "none",
             b->knobs[0] ? b->knobs : "none");
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
        snprintf(what, sizeof what, "library of %s", da->id); /* a BLAS and its core */
        if (strcmp(da->library, db->library))
            warn(c, f, what, da->library, db->library);
        if (da->tuned != db->tuned || strcmp(da->tuning, db->tuning) != 0) { /* knob values differ (docs/tuning.md) */
            char ta[700], tb[700];
            snprintf(what, sizeof what, "tuning of %s", da->id);
            snprintf(ta, sizeof ta, "%s%s%s", da->tuned ? da->tuning_file : "untuned", da->tuning[0] ? ": " : "", da->tuning);
            snprintf(tb, sizeof tb, "%s%s%s", db->tuned ? db->tuning_file : "untuned", db->tuning[0] ? ": " : "", db->tuning);
            warn(c, f, what, ta, tb);
        }
        if (db->warning[0]) /* a generic fallback kernel in the new run: its figures understate */
            warn(c, "%s in the new run: %s%s", da->id, db->warning, "");
    }
    for (size_t i = 0; i < b->n_devices; i++)
        if (!xpb_results_device(a, b->devices[i].id))
            warn(c, "device %s is only in the new run ('%s')%s", b->devices[i].id, b->devices[i].name, "");
}

xpb_status xpb_compare_files(const xpb_results_file *base, const xpb_results_file *next,
                             const xpb_compare_opts *o, xpb_comparison *out, xpb_error *err)
{
    return xpb_compare_files_history(base, next, NULL, 0, o, out, err);
}

xpb_status xpb_compare_files_history(const xpb_results_file *base, const xpb_results_file *next,
                                     const xpb_results_file *history, size_t n_history, const xpb_compare_opts *o,
                                     xpb_comparison *out, xpb_error *err)
{
    memset(out, 0, sizeof *out);
    out->base = base;
    out->next = next;
    out->history = history;
    out->n_history = n_history;
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
    xpb_status st = XPB_OK;
    while (!st && (i < base->n_cases || j < next->n_cases)) {
        xpb_compare_row *r = &out->rows[out->n_rows++];
        int d = i == base->n_cases ? 1 : j == next->n_cases ? -1 : cmp_key(pb[i], pn[j]);
        r->base = d <= 0 ? pb[i++] : NULL;
        r->next = d >= 0 ? pn[j++] : NULL;
        st = fill_row(out, r);
    }
    free(pb);
    free(pn);
    if (st) {
        xpb_comparison_free(out);
        return xpb_fail(err, st, "compare: out of memory");
    }
    compare_fingerprints(out);
    for (int side = 0; side < 2; side++) { /* a partial run: its missing cases are not removals */
        const xpb_results_file *f = side ? next : base;
        if (f->partial[0] && out->n_warnings < XPB_COMPARE_MAX_WARNINGS &&
            snprintf(out->warnings[out->n_warnings++], sizeof out->warnings[0],
                     "%s is a partial run (%s): the cases it lacks show as %s", side ? "new" : "base", f->partial,
                     side ? "removed" : "added") < 0)
            out->warnings[out->n_warnings - 1][0] = '\0';
    }
    for (size_t i = 0; i < out->n_rows && out->n_warnings < XPB_COMPARE_MAX_WARNINGS - 1; i++)
        if (out->rows[i].conditions[0]) { /* the first such case named; every row's note in --json */
            const xpb_rcase *x = out->rows[i].next;
            char *w = out->warnings[out->n_warnings++];
            if (snprintf(w, sizeof out->warnings[0], "%zu cases ran throttled and %zu at SM clocks over %.0f%% "
                         "apart in one of the runs; first: %.80s %s: %.150s", out->n_throttled, out->n_clocks_apart,
                         CLOCKS_APART * 100, x->id, x->device, out->rows[i].conditions) < 0)
                w[0] = '\0';
            break;
        }
    for (size_t i = 0; i < out->n_rows && out->n_drifting && out->n_warnings < XPB_COMPARE_MAX_WARNINGS - 1; i++) {
        const xpb_compare_row *r = &out->rows[i];
        if (!r->base || !r->next || (r->drift_base == 1.0 && r->drift_next == 1.0))
            continue;
        const bool in_next = r->drift_next != 1.0;
        char *w = out->warnings[out->n_warnings++];
        if (snprintf(w, sizeof out->warnings[0], "%zu cases' rounds drift one way in one of the runs (every round a "
                     "step the same way, the last over %.0f%% from the first: a clock or state that moved, not noise; "
                     "docs/reports.md); first: %.80s %s: %.2fx in %s", out->n_drifting, (XPB_DRIFT_FACTOR - 1) * 100,
                     r->next->id, r->next->device, in_next ? r->drift_next : r->drift_base, in_next ? "new" : "base") < 0)
            w[0] = '\0';
        break;
    }
    for (size_t i = 0; i < out->n_rows && out->n_inputs_differ && out->n_warnings < XPB_COMPARE_MAX_WARNINGS; i++) {
        const xpb_compare_row *r = &out->rows[i];
        if (!r->base || !r->next || !r->base->has_run || !r->next->has_run || r->base->inputs_kept == r->next->inputs_kept)
            continue;
        char *w = out->warnings[out->n_warnings++];
        if (snprintf(w, sizeof out->warnings[0], "%zu stateful cases kept their inputs on the device between runs in "
                     "one run only (XPB_STATEFUL_INPUTS=kept in the %s): their uploads and end-to-end times differ by "
                     "that, and the GPU's clock may too; first: %.80s %s", out->n_inputs_differ,
                     r->next->inputs_kept ? "new" : "base", r->next->id, r->next->device) < 0)
            w[0] = '\0';
        break;
    }
    for (size_t i = 0; i < out->n_rows && out->n_config_differ && out->n_warnings < XPB_COMPARE_MAX_WARNINGS; i++) {
        const xpb_compare_row *r = &out->rows[i];
        if (!config_differs(r))
            continue;
        char *w = out->warnings[out->n_warnings++];
        if (snprintf(w, sizeof out->warnings[0], "%zu cases ran different code in the two runs (kernel_config: what "
                     "the kernel chose by itself); first: %.60s %s %s: base %.70s, new %.70s", out->n_config_differ,
                     r->next->id, r->next->device, r->next->variant, r->base->kernel_config, r->next->kernel_config) < 0)
            w[0] = '\0';
        break;
    }
    if (out->n_samples_method && out->n_warnings < XPB_COMPARE_MAX_WARNINGS)
        snprintf(out->warnings[out->n_warnings++], sizeof out->warnings[0],
                 "%zu cases compared on their within-run samples (%s): a file has no rounds (written before "
                 "run --rounds); such verdicts can flag run-to-run noise", out->n_samples_method,
                 XPB_COMPARE_METHOD_SAMPLES);
    return XPB_OK;
}

void xpb_comparison_free(xpb_comparison *c)
{
    for (size_t i = 0; c->rows && i < c->n_rows; i++)
        free(c->rows[i].ops);
    free(c->rows);
    c->rows = NULL;
    c->n_rows = 0;
}

bool xpb_comparison_regressed(const xpb_comparison *c)
{
    return c->n_verdict[XPB_VERDICT_SLOWER] > 0 || c->n_op_verdict[XPB_VERDICT_SLOWER] > 0 ||
           c->n_new_failures > 0;
}
