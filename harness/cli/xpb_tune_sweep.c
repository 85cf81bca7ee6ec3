/* xpb_tune_sweep.c - one knob's sweep for `xpubench tune` (xpb_tune.h): the cases it applies to,
 * the base and candidate runs (each a child `xpubench run --tuning` of a one-entry tuning file, so
 * that validation, timing and the knobs' tuned layer are a plain run's), and the decision by
 * compare's verdicts on the pooled runs. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xpb_results_loaded.h"
#include "xpb_spawn.h"
#include "xpb_tune.h"

#define MAX_FILTER 65536

/* Appends s to dst[*o..n) with the characters special to a POSIX extended regex escaped. */
static void append_escaped(char *dst, size_t n, size_t *o, const char *s)
{
    for (; *s && *o + 3 < n; s++) {
        if (strchr(".[]()*+?{}|^$\\", *s))
            dst[(*o)++] = '\\';
        dst[(*o)++] = *s;
    }
    dst[*o] = '\0';
}

/* The ids of the cases of o's preset that k applies to (its ops) and o->filter keeps, as the
 * regex ^(id|id|...)$ into dst; returns how many (0: none, or -1 when dst is too small). */
static int case_filter(const xpb_tune_opts *o, const xpb_knob_tune *t, char *dst, size_t n)
{
    regex_t re;
    if (o->filter && regcomp(&re, o->filter, REG_EXTENDED | REG_NOSUB) != 0)
        return 0; /* checked by cmd_tune */
    char ops[160];
    snprintf(ops, sizeof ops, "|%s|", t->ops);
    size_t used = (size_t)snprintf(dst, n, "^(");
    int count = 0;
    for (const xpb_workload_i *const *w = xpb_workloads(); *w; w++) {
        xpb_case_list l = {0};
        xpb_error err = {{0}};
        xpb_sizes sizes;
        memset(&sizes, 0, sizeof sizes);
        if ((*w)->group || (*w)->add_cases(o->preset, &sizes, &l, &err) != XPB_OK) {
            xpb_case_list_free(&l);
            continue;
        }
        for (size_t i = 0; i < l.count; i++) {
            char op[64];
            snprintf(op, sizeof op, "|%s|", xpb_op_get(l.items[i].op)->name);
            if (!strstr(ops, op) || (o->filter && regexec(&re, l.items[i].id, 0, NULL, 0) != 0))
                continue;
            if (count++)
                dst[used++] = '|';
            append_escaped(dst, n, &used, l.items[i].id);
        }
        xpb_case_list_free(&l);
    }
    if (o->filter)
        regfree(&re);
    if (used + 3 >= n)
        return -1;
    snprintf(dst + used, n - used, ")$");
    return count;
}

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
                     const char *out, const char *log)
{
    char rounds[16];
    snprintf(rounds, sizeof rounds, "%d", o->rounds);
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
                    xpb_tune_candidate *c)
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

/* The failure of a run (exit rc, log) as a candidate's reason. */
static void run_failed(xpb_tune_candidate *c, int rc, const char *log)
{
    c->outcome = XPB_TUNE_REJECTED;
    snprintf(c->why, sizeof c->why, "the run exited %d (%.240s): %s", rc, log,
             rc == 1 ? "a case failed validation" : "a case errored or the run could not start");
}

int xpb_tune_sweep(const xpb_tune_opts *o, xpb_tuning_value *config, int *n_config, xpb_tune_knob *k)
{
    const xpb_knob_tune *t = xpb_knob_tune_of(k->id);
    const xpb_knob_decl *d = xpb_knob_decl_of(k->id);
    static char filter[MAX_FILTER];
    k->chosen = -1;
    k->cases = case_filter(o, t, filter, sizeof filter);
    if (k->cases <= 0) {
        snprintf(k->skipped, sizeof k->skipped, k->cases < 0 ? "too many cases (narrow them with --filter)"
                 : "no case of preset %s is one of its ops (%s)%s", o->preset, t->ops, o->filter ? " and --filter" : "");
        return 0;
    }
    char variants[128], all[XPB_KNOB_MAX_CANDIDATES][XPB_KNOB_VALUE_LEN];
    snprintf(variants, sizeof variants, "%s", t->variants);
    for (char *p = variants; (p = strchr(p, '|'));)
        *p = ',';
    k->base[0] = '\0';
    for (int i = 0; i < *n_config; i++)
        if (config[i].id == k->id)
            snprintf(k->base, sizeof k->base, "%s", config[i].value);
    const char *current = k->base[0] ? k->base : d->def;
    int na = xpb_knob_candidates(t, all);
    k->n = 0;
    for (int i = 0; i < na; i++)
        if (strcmp(all[i], current) != 0)
            snprintf(k->cand[k->n++].value, XPB_KNOB_VALUE_LEN, "%.*s", XPB_KNOB_VALUE_LEN - 1, all[i]);
    /* the runs, interleaved: base, every candidate, base, ... (a drift hits every side alike) */
    static char out[XPB_KNOB_MAX_CANDIDATES + 1][8][1100];
    char cfg[1100], log[1100];
    snprintf(log, sizeof log, "%s/%s.log", o->work, d->name);
    int rc = 0;
    int base_rc = 0, cand_rc[XPB_KNOB_MAX_CANDIDATES] = {0};
    for (int r = 0; r < o->runs && rc < 128; r++) {
        for (int c = -1; c < k->n && rc < 128 && rc != 2; c++) {
            const char *value = c < 0 ? (k->base[0] ? k->base : NULL) : k->cand[c].value;
            snprintf(cfg, sizeof cfg, "%s/%s-%d.tuning.json", o->work, d->name, c + 1);
            snprintf(out[c + 1][r], sizeof out[0][0], "%s/%s-%d-%d.json", o->work, d->name, c + 1, r);
            xpb_error err = {{0}};
            if (write_config(o, cfg, config, *n_config, k->id, value, &err)) {
                fprintf(stderr, "xpubench: tune: %s\n", err.msg);
                return 3;
            }
            fprintf(stderr, "xpubench: tune: %s=%s%s, run %d of %d\n", d->name, value ? value : d->def,
                    c < 0 ? " (base)" : "", r + 1, o->runs);
            rc = child_run(o, cfg, filter, variants, out[c + 1][r], log);
            if (c < 0 && rc && !base_rc)
                base_rc = rc;
            if (c >= 0 && rc && !cand_rc[c])
                cand_rc[c] = rc;
        }
    }
    if (rc >= 128 || rc == 2) {
        fprintf(stderr, "xpubench: tune: a run of %s exited %d (%s): stopping\n", d->name, rc, log);
        return rc;
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
    for (int c = 0; c < k->n && timed; c++) {
        xpb_tune_candidate *cd = &k->cand[c];
        xpb_results_file next;
        if (cand_rc[c] == 1 || !load_pooled(out[c + 1], o->runs, &next, cd->why, sizeof cd->why)) {
            run_failed(cd, cand_rc[c], log);
            continue;
        }
        xpb_tune_judge(&o->compare, &base, &next, cd);
        if (cd->outcome == XPB_TUNE_FASTER && (k->chosen < 0 || cd->geomean < k->cand[k->chosen].geomean))
            k->chosen = c;
        xpb_results_file_free(&next);
    }
    xpb_results_file_free(&base);
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
