/* xpb_tune_sweep.c - one knob's sweep for `xpubench tune` (xpb_tune.h): the cases it applies to
 * (xpb_tune_ops.h: a per-op candidate's runs only its ops'), the base and candidate runs (each a child `xpubench run --tuning` of a one-entry tuning file, so
 * that validation, timing and the knobs' tuned layer are a plain run's; their order, the
 * warm-up and the base's A/A check: xpb_tune_order.h), and the decision by compare's verdicts
 * on the pooled runs. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xpb_clock.h"
#include "xpb_results_loaded.h"
#include "xpb_spawn.h"
#include "xpb_tune.h"
#include "xpb_tune_ops.h"
#include "xpb_tune_order.h"

#define MAX_FILTER 65536

/* A one-entry tuning file for the runs: config with knob id at value (NULL: left out). */
static xpb_status write_config(const xpb_tune_opts *o, const char *path, const xpb_tuning_value *config, int n,
                               xpb_knob_id id, const char *value, xpb_error *err)
{
    xpb_tuning_value v[XPB_KNOB_COUNT];
    int k = 0;
    for (int i = 0; i < n; i++)
        if (config[i].id != id)
            v[k++] = config[i];
    if (value) {
        v[k].id = id;
        snprintf(v[k++].value, XPB_KNOB_VALUE_LEN, "%s", value);
    }
    unlink(path);
    return xpb_tuning_save_entry(path, xpb_tuning_entry_json(&o->fp, v, k), &o->fp, err);
}

/* One child run: `xpubench run` of the cases on the device with the tuning file cfg. */
static int child_run(const xpb_tune_opts *o, const char *cfg, const char *filter, const char *variants,
                     int n_rounds, const char *out, const char *log)
{
    char rounds[16];
    snprintf(rounds, sizeof rounds, "%d", n_rounds);
    char *argv[24];
    int a = 0;
    argv[a++] = (char *)o->self;
    argv[a++] = "run";
    argv[a++] = "--backend", argv[a++] = (char *)o->device;
    argv[a++] = "--preset", argv[a++] = (char *)o->preset;
    argv[a++] = "--filter", argv[a++] = (char *)filter;
    argv[a++] = "--variant", argv[a++] = (char *)variants;
    argv[a++] = "--tuning", argv[a++] = (char *)cfg;
    argv[a++] = "--rounds", argv[a++] = rounds;
    argv[a++] = "--out", argv[a++] = (char *)out;
    if (o->validate)
        argv[a++] = "--validate", argv[a++] = (char *)o->validate;
    if (o->warmup)
        argv[a++] = "--warmup", argv[a++] = (char *)o->warmup;
    argv[a] = NULL;
    unlink(out);
    xpb_error err = {{0}};
    int rc = xpb_spawn_wait_log(argv, log, &err);
    if (rc < 0)
        fprintf(stderr, "xpubench: tune: %s\n", err.msg);
    return rc < 0 ? 3 : rc;
}

/* The runs' results files out[0..n) pooled into *f (compare --rerun's pooling); false with why. */
static bool load_pooled(char out[][1100], int n, xpb_results_file *f, char *why, size_t wn)
{
    xpb_error err = {{0}};
    if (xpb_results_load(out[0], f, &err)) {
        snprintf(why, wn, "%s", err.msg);
        return false;
    }
    for (int i = 1; i < n; i++) {
        xpb_results_file r;
        if (xpb_results_load(out[i], &r, &err) || xpb_results_add_rerun(f, &r, &err)) {
            snprintf(why, wn, "%s", err.msg);
            xpb_results_file_free(f);
            return false;
        }
        xpb_results_file_free(&r);
    }
    return true;
}

void xpb_tune_judge(const xpb_compare_opts *opts, const xpb_results_file *base, const xpb_results_file *next,
                    const char *ops, xpb_tune_candidate *c)
{
    xpb_comparison cmp;
    xpb_error err = {{0}};
    c->geomean = NAN;
    if (xpb_compare_files(base, next, opts, &cmp, &err)) {
        c->outcome = XPB_TUNE_REJECTED;
        snprintf(c->why, sizeof c->why, "%.*s", (int)sizeof c->why - 1, err.msg); /* cut to fit */
        return;
    }
    double log_sum = 0;
    size_t shifts = 0;
    c->outcome = XPB_TUNE_NOT_FASTER;
    for (size_t i = 0; i < cmp.n_rows; i++) {
        const xpb_compare_row *r = &cmp.rows[i];
        if (!xpb_tune_op_listed(ops, r->base ? r->base->op : r->next->op))
            continue; /* another op's case: the candidate did not run it, and does not change it */
        bool base_ok = r->base && strcmp(r->base->status, "ok") == 0;
        if (base_ok && (!r->next || strcmp(r->next->status, "ok") != 0)) {
            c->outcome = XPB_TUNE_REJECTED;
            snprintf(c->why, sizeof c->why, "%.32s on %.160s: %.180s", r->next ? r->next->status : "missing", r->base->id,
                     r->next ? r->next->message : "no result");
            break;
        }
        if (!r->has_shift)
            continue;
        c->verdicts[r->shift.verdict]++;
        log_sum += log(r->shift.ratio);
        shifts++;
    }
    if (c->outcome != XPB_TUNE_REJECTED) {
        c->geomean = shifts ? exp(log_sum / (double)shifts) : NAN;
        size_t fast = c->verdicts[XPB_VERDICT_FASTER], slow = c->verdicts[XPB_VERDICT_SLOWER];
        if (fast > 0 && slow == 0 && c->geomean < 1)
            c->outcome = XPB_TUNE_FASTER;
        snprintf(c->why, sizeof c->why, "%zu faster, %zu slower, %zu same, %zu noisy of %zu timed cases; "
                 "geometric mean of time ratios %.4f", fast, slow, c->verdicts[XPB_VERDICT_SAME],
                 c->verdicts[XPB_VERDICT_NOISY], shifts, c->geomean);
    }
    xpb_comparison_free(&cmp);
}

int xpb_tune_choose(const xpb_tune_knob *k)
{
    int best = -1;
    for (int c = 0; c < k->n && !k->drift.found; c++)
        if (k->cand[c].outcome == XPB_TUNE_FASTER && (best < 0 || k->cand[c].geomean < k->cand[best].geomean))
            best = c;
    return best;
}

/* The tune's warm-up: *warmups runs of the base's tuning file cfg (label names it), one round
 * each, their results deleted unread; then *warmups is 0. The first timed run of a tune reads a
 * GPU idle until then and a first process: on an H200 the base, run first, read 14-24% slower
 * than every candidate, one of them the base's own value on two ops of three. Later knobs follow
 * runs back to back, so once a tune is enough. Returns 128 + N when interrupted, else 0 (a run that fails here fails timed too). */
static int warm_up(const xpb_tune_opts *o, const char *cfg, const char *filter, const char *variants,
                   const char *label, const char *log, int *warmups)
{
    for (int i = 0; i < *warmups; i++) {
        char out[1100];
        snprintf(out, sizeof out, "%s/warm-up-%d.json", o->work, i + 1);
        fprintf(stderr, "xpubench: tune: warm-up %d of %d: %s, 1 round, discarded\n", i + 1, *warmups, label);
        int rc = child_run(o, cfg, filter, variants, 1, out, log);
        unlink(out);
        if (rc >= 128)
            return rc;
    }
    *warmups = 0;
    return 0;
}

/* The base's A/A check (xpb_tune_order.h) on its runs' files out[0..o->runs): the first against
 * the last; a drift into k->drift and one warning line. */
static void check_drift(const xpb_tune_opts *o, char out[][1100], const char *name, xpb_tune_knob *k)
{
    xpb_results_file first, last;
    char why[600];
    if (!load_pooled(out, 1, &first, why, sizeof why)) {
        fprintf(stderr, "xpubench: warning: tune: %s: no A/A check of the base: %s\n", name, why);
        return;
    }
    if (!load_pooled(out + o->runs - 1, 1, &last, why, sizeof why)) {
        fprintf(stderr, "xpubench: warning: tune: %s: no A/A check of the base: %s\n", name, why);
        xpb_results_file_free(&first);
        return;
    }
    if (xpb_tune_base_drift(&o->compare, &first, &last, o->runs, &k->drift))
        fprintf(stderr, "xpubench: warning: tune: %s: the base drifted: %s\n", name, k->drift.why);
    xpb_results_file_free(&first);
    xpb_results_file_free(&last);
}

/* The failure of a run (exit rc, log) as a candidate's reason. */
static void run_failed(xpb_tune_candidate *c, int rc, const char *log)
{
    c->outcome = XPB_TUNE_REJECTED;
    snprintf(c->why, sizeof c->why, "the run exited %d (%.240s): %s", rc, log,
             rc == 1   ? "a case failed validation"
             : rc == 2 ? "a usage error (a value the knob's reader does not accept?)"
                       : "a case errored or the run could not start");
}

/* The candidate values of k: o->candidates' (--candidates) or the XPB_KNOB_TUNE row's, without the
 * value the base already has; into k->cand[0..k->n). */
static void list_candidates(const xpb_tune_opts *o, const xpb_knob_tune *t, const char *current, xpb_tune_knob *k)
{
    char all[XPB_KNOB_MAX_CANDIDATES][XPB_KNOB_VALUE_LEN];
    xpb_knob_tune row = *t;
    if (o->candidates[k->id])
        row.candidates = o->candidates[k->id];
    int na = xpb_knob_candidates(&row, all);
    k->n = 0;
    for (int i = 0; i < na; i++)
        if (strcmp(all[i], current) != 0)
            snprintf(k->cand[k->n++].value, XPB_KNOB_VALUE_LEN, "%.*s", XPB_KNOB_VALUE_LEN - 1, all[i]);
}

int xpb_tune_sweep(const xpb_tune_opts *o, xpb_tuning_value *config, int *n_config, xpb_tune_knob *k,
                   int *warmups)
{
    const xpb_knob_tune *t = xpb_knob_tune_of(k->id);
    const xpb_knob_decl *d = xpb_knob_decl_of(k->id);
    /* the cases: the knob's ops' for the base and a value of every op, a per-op value's own */
    static char filter[MAX_FILTER], own[XPB_KNOB_MAX_CANDIDATES][MAX_FILTER];
    const char *filters[XPB_KNOB_MAX_CANDIDATES];
    k->chosen = -1;
    k->cases = xpb_tune_case_filter(o->preset, o->filter, t->ops, filter, sizeof filter);
    if (k->cases <= 0) {
        snprintf(k->skipped, sizeof k->skipped, k->cases < 0 ? "too many cases (narrow them with --filter)"
                 : "no case of preset %s is one of its ops (%s)%s", o->preset, t->ops, o->filter ? " and --filter" : "");
        return 0;
    }
    char variants[128];
    snprintf(variants, sizeof variants, "%s", t->variants);
    for (char *p = variants; (p = strchr(p, '|'));)
        *p = ',';
    k->base[0] = '\0';
    for (int i = 0; i < *n_config; i++)
        if (config[i].id == k->id)
            snprintf(k->base, sizeof k->base, "%s", config[i].value);
    list_candidates(o, t, k->base[0] ? k->base : d->def, k);
    for (int c = 0; c < k->n; c++) {
        xpb_tune_candidate *cd = &k->cand[c];
        filters[c] = filter;
        cd->cases = k->cases;
        /* per op only against the defaults: a candidate replaces the base's value whole, so with
         * a base value set (a tuning so far) it may change the other ops' cases too */
        if (!k->base[0] && xpb_tune_value_ops(t->ops, cd->value, cd->ops, sizeof cd->ops) > 0) {
            int m = xpb_tune_case_filter(o->preset, o->filter, cd->ops, own[c], sizeof own[c]);
            if (m >= 0) /* a subset of filter's cases: it fits */
                cd->cases = m, filters[c] = own[c];
            else
                cd->ops[0] = '\0';
        }
        if (cd->cases == 0) {
            cd->outcome = XPB_TUNE_NOT_RUN;
            cd->geomean = NAN;
            snprintf(cd->why, sizeof cd->why, "not run: none of the cases swept is of its ops (%s)", cd->ops);
        }
    }
    /* the runs, interleaved in alternating order: base, c0..cn, then cn..c0, base, ... (a drift
     * hits every side alike, and each side runs early and late: xpb_tune_order.h) */
    static char out[XPB_KNOB_MAX_CANDIDATES + 1][8][1100];
    char cfg[1100], log[1100];
    snprintf(log, sizeof log, "%s/%s.log", o->work, d->name);
    int stop = 0; /* interrupted (128 + N), or a base run refused its arguments (2): every run would */
    int base_rc = 0, cand_rc[XPB_KNOB_MAX_CANDIDATES] = {0};
    int sides = 1; /* the base and every candidate that runs: for the time this knob takes */
    for (int c = 0; c < k->n; c++)
        sides += k->cand[c].outcome != XPB_TUNE_NOT_RUN;
    bool estimated = false;
    if (*warmups > 0) {
        char label[XPB_KNOB_VALUE_LEN + 160];
        xpb_error err = {{0}};
        snprintf(cfg, sizeof cfg, "%s/%s-0.tuning.json", o->work, d->name);
        snprintf(label, sizeof label, "%s=%s (base)", d->name, k->base[0] ? k->base : d->def);
        if (write_config(o, cfg, config, *n_config, k->id, k->base[0] ? k->base : NULL, &err)) {
            fprintf(stderr, "xpubench: tune: %s\n", err.msg);
            return 3;
        }
        stop = warm_up(o, cfg, filter, variants, label, log, warmups);
    }
    for (int r = 0; r < o->runs && !stop; r++) {
        for (int pos = 0; pos <= k->n && !stop; pos++) {
            int c = xpb_tune_order_side(r, pos, k->n);
            /* a candidate not run, or whose value a run refused (exit 2): not run again */
            if (c >= 0 && (k->cand[c].outcome == XPB_TUNE_NOT_RUN || cand_rc[c] == 2))
                continue;
            const char *value = c < 0 ? (k->base[0] ? k->base : NULL) : k->cand[c].value;
            snprintf(cfg, sizeof cfg, "%s/%s-%d.tuning.json", o->work, d->name, c + 1);
            snprintf(out[c + 1][r], sizeof out[0][0], "%s/%s-%d-%d.json", o->work, d->name, c + 1, r);
            xpb_error err = {{0}};
            if (write_config(o, cfg, config, *n_config, k->id, value, &err)) {
                fprintf(stderr, "xpubench: tune: %s\n", err.msg);
                return 3;
            }
            fprintf(stderr, "xpubench: tune: %s=%s%s, run %d of %d", d->name, value ? value : d->def,
                    c < 0 ? " (base)" : "", r + 1, o->runs);
            if (c >= 0 && k->cand[c].ops[0])
                fprintf(stderr, " (%d case(s) of %s)", k->cand[c].cases, k->cand[c].ops);
            fprintf(stderr, "\n");
            double t0 = xpb_clock_now();
            int rc = child_run(o, cfg, c < 0 ? filter : filters[c], variants, o->rounds, out[c + 1][r], log);
            if (!estimated && rc < 128) { /* how long the rest takes, to size a time limit by */
                double run_s = xpb_clock_now() - t0;
                fprintf(stderr, "xpubench: tune: a run took %.1f s: %d runs of %s, at most about %.0f s in all\n",
                        run_s, sides * o->runs, d->name, ceil(run_s * sides * o->runs));
                estimated = true;
            }
            if (rc >= 128 || (c < 0 && rc == 2))
                stop = rc;
            if (c < 0 && rc && !base_rc)
                base_rc = rc;
            if (c >= 0 && rc && !cand_rc[c])
                cand_rc[c] = rc;
        }
    }
    if (stop) {
        fprintf(stderr, "xpubench: tune: a run of %s exited %d (%s): stopping\n", d->name, stop, log);
        return stop;
    }
    xpb_results_file base;
    char why[600];
    if (base_rc == 1 || !load_pooled(out[0], o->runs, &base, why, sizeof why)) {
        fprintf(stderr, "xpubench: tune: the base values of %s %s (%s): not tuned\n", d->name,
                base_rc == 1 ? "fail validation" : "gave no results", base_rc == 1 ? log : why);
        snprintf(k->skipped, sizeof k->skipped, "the base values %s", base_rc == 1 ? "fail validation" : "gave no results");
        return base_rc == 1 ? 1 : 0;
    }
    int timed = 0;
    for (size_t i = 0; i < base.n_cases; i++)
        timed += xpb_rcase_is_timed_ok(&base.cases[i]);
    if (!timed)
        snprintf(k->skipped, sizeof k->skipped, "no case timed with the base values (variants %s unsupported here?)",
                 variants);
    if (timed && o->runs >= 2)
        check_drift(o, out[0], d->name, k);
    for (int c = 0; c < k->n && timed; c++) {
        xpb_tune_candidate *cd = &k->cand[c];
        if (cd->outcome == XPB_TUNE_NOT_RUN)
            continue;
        xpb_results_file next;
        if (cand_rc[c] == 1 || cand_rc[c] == 2 || !load_pooled(out[c + 1], o->runs, &next, cd->why, sizeof cd->why)) {
            run_failed(cd, cand_rc[c], log);
            continue;
        }
        xpb_tune_judge(&o->compare, &base, &next, cd->ops, cd);
        xpb_results_file_free(&next);
    }
    xpb_results_file_free(&base);
    k->chosen = xpb_tune_choose(k);
    if (k->chosen >= 0) { /* the winner replaces the knob's value in the tuning so far */
        int i = 0;
        while (i < *n_config && config[i].id != k->id)
            i++;
        config[i].id = k->id;
        snprintf(config[i].value, XPB_KNOB_VALUE_LEN, "%s", k->cand[k->chosen].value);
        if (i == *n_config)
            (*n_config)++;
    }
    return 0;
}
