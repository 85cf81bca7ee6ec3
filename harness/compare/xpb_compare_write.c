/* xpb_compare_write.c - a comparison as a console table, Markdown, JSON and JUnit XML
 * (xpb_compare.h). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_atomic_file.h"
#include "xpb_compare.h"
#include "xpb_json.h"

const char *xpb_format_seconds(double s, char *buf, size_t n)
{
    if (!isfinite(s))
        snprintf(buf, n, "-");
    else if (s >= 1)
        snprintf(buf, n, "%.3f s", s);
    else if (s >= 1e-3)
        snprintf(buf, n, "%.3f ms", s * 1e3);
    else if (s >= 1e-6)
        snprintf(buf, n, "%.3f us", s * 1e6);
    else
        snprintf(buf, n, "%.1f ns", s * 1e9);
    return buf;
}

static const char *fmt_p(double p, char *buf, size_t n)
{
    if (!isfinite(p))
        snprintf(buf, n, "-");
    else if (p < 1e-4)
        snprintf(buf, n, "<1e-4");
    else
        snprintf(buf, n, "%.2g", p);
    return buf;
}

static const char *fmt_ratio(const xpb_shift *s, char *buf, size_t n)
{
    if (isfinite(s->ratio_lo))
        snprintf(buf, n, "%.3f [%.3f, %.3f]", s->ratio, s->ratio_lo, s->ratio_hi);
    else
        snprintf(buf, n, "%.3f", s->ratio);
    return buf;
}

static const xpb_rcase *any_side(const xpb_compare_row *r) { return r->next ? r->next : r->base; }

/* An op's verdict as printed: its verdict when tested, else "info-only". */
static const char *op_verdict_name(const xpb_compare_op *o)
{
    return o->tested ? xpb_verdict_name(o->shift.verdict) : "info-only";
}

static bool op_slower(const xpb_compare_op *o) { return o->tested && o->shift.verdict == XPB_VERDICT_SLOWER; }

/* "18 slower, 0 faster, 2 same, 0 noisy" (+ ", 1 incomparable" when some are) into buf; em
 * around the slower count ("**" in Markdown). Returns buf. */
static const char *counts_text(const size_t counts[XPB_VERDICT_COUNT], const char *em, char *buf, size_t n)
{
    int len = snprintf(buf, n, "%s%zu slower%s, %zu faster, %zu same, %zu noisy", em, counts[XPB_VERDICT_SLOWER], em,
                       counts[XPB_VERDICT_FASTER], counts[XPB_VERDICT_SAME], counts[XPB_VERDICT_NOISY]);
    if (counts[XPB_VERDICT_INCOMPARABLE] && len > 0 && (size_t)len < n)
        snprintf(buf + len, n - (size_t)len, ", %zu incomparable", counts[XPB_VERDICT_INCOMPARABLE]);
    return buf;
}

/* The ops' counts for a summary ("; ops of stateful cases: ..."), or "" without stateful cases. */
static const char *op_counts_text(const xpb_comparison *c, const char *em, char *buf, size_t n)
{
    char counts[160];
    buf[0] = '\0';
    if (c->n_stateful)
        snprintf(buf, n, "; ops of stateful cases: %s, %zu info-only", counts_text(c->n_op_verdict, em, counts,
                 sizeof counts), c->n_op_info);
    return buf;
}

/* base, new, ratio [CI], p, verdict (why): the cells of a shift in the console tables. */
static void print_shift_cells(FILE *f, const xpb_shift *s, const char *verdict)
{
    char tb[32], tn[32], rt[64], pv[16];
    fprintf(f, "%11s %11s  %-24s %6s  %s (%s)\n", xpb_format_seconds(s->median_base, tb, sizeof tb),
            xpb_format_seconds(s->median_new, tn, sizeof tn), fmt_ratio(s, rt, sizeof rt),
            fmt_p(s->p_value, pv, sizeof pv), verdict, s->why);
}

/* Shown in the main table: a shift that is not `same` (or every shift when all). */
static bool shown(const xpb_compare_row *r, bool all)
{
    return r->has_shift && (all || r->shift.verdict != XPB_VERDICT_SAME);
}

static void print_shift_table(FILE *f, const xpb_comparison *c, bool all)
{
    int w = 8;
    for (size_t i = 0; i < c->n_rows; i++)
        if (shown(&c->rows[i], all) && (int)strlen(any_side(&c->rows[i])->id) > w)
            w = (int)strlen(any_side(&c->rows[i])->id);
    fprintf(f, "%-*s %-9s %-10s %11s %11s  %-24s %6s  %s\n", w, "case", "device", "variant", "base", "new",
            "new/base [95% CI]", "p", "verdict");
    static const xpb_verdict order[] = {XPB_VERDICT_SLOWER, XPB_VERDICT_FASTER, XPB_VERDICT_NOISY,
                                        XPB_VERDICT_INCOMPARABLE, XPB_VERDICT_SAME};
    for (size_t o = 0; o < sizeof order / sizeof order[0]; o++)
        for (size_t i = 0; i < c->n_rows; i++) {
            const xpb_compare_row *r = &c->rows[i];
            if (!shown(r, all) || r->shift.verdict != order[o])
                continue;
            fprintf(f, "%-*s %-9s %-10s ", w, r->next->id, r->next->device, r->next->variant);
            print_shift_cells(f, &r->shift, xpb_verdict_name(r->shift.verdict));
        }
}

/* Every stateful case: its iteration counts and the run's figures that have a direction (the
 * workload's metrics: energy, recall, events/s), then the total and each op. */
static void print_stateful(FILE *f, const xpb_comparison *c)
{
    if (!c->n_stateful)
        return;
    fputs("stateful cases: total = the whole run (timing.kernel); an op = its device time in a breakdown run; "
          "a unit is one round's median (files without rounds: one run)\n", f);
    for (size_t i = 0; i < c->n_rows; i++) {
        const xpb_compare_row *r = &c->rows[i];
        if (!r->stateful)
            continue;
        const xpb_rcase *b = r->base, *n = r->next;
        fprintf(f, "%s %s %s: iterations %.0f -> %.0f%s", n->id, n->device, n->variant, b->iterations, n->iterations,
                r->iterations_differ ? " (differ: per-run times not comparable)" : "");
        for (int k = 0; k < n->report.n_metrics; k++) { /* the run's figures that have a direction */
            const xpb_report_metric *m = &n->report.metrics[k], *bm = xpb_run_report_find_metric(&b->report, m->name);
            if (m->better != XPB_BETTER_INFO && bm)
                fprintf(f, ", %s %.4g -> %.4g", m->name, bm->value, m->value);
        }
        fputc('\n', f);
        fprintf(f, "  %-10s %11s %11s  %-24s %6s  %s\n", "part", "base", "new", "new/base [95% CI]", "p", "verdict");
        fprintf(f, "  %-10s ", "total");
        print_shift_cells(f, &r->shift, xpb_verdict_name(r->shift.verdict));
        for (size_t k = 0; k < r->n_ops; k++) {
            fprintf(f, "  %-10s ", r->ops[k].op);
            print_shift_cells(f, &r->ops[k].shift, op_verdict_name(&r->ops[k]));
        }
    }
}

void xpb_comparison_print(FILE *f, const xpb_comparison *c, bool all_rows)
{
    fprintf(f, "compare: base %s (%s, %s) -> new %s (%s, %s); threshold %.3g%%, alpha %.3g\n",
            c->base->path, c->base->run_id, c->base->git_commit, c->next->path, c->next->run_id,
            c->next->git_commit, c->opts.threshold * 100, c->opts.alpha);
    for (int i = 0; i < c->n_warnings; i++)
        fprintf(f, "warning: %s\n", c->warnings[i]);
    if (c->base_runs > 1 || c->new_runs > 1)
        fprintf(f, "units pool the rounds of %zu base and %zu new runs, each its own process; the noise holds the "
                "spread of the run medians, its band Student's t over their degrees of freedom\n", c->base_runs,
                c->new_runs);
    else if (!c->n_history)
        fputs("note: no --history: a band covers the spread between the rounds of one process; a shift between two "
              "processes (buffer or thread placement, a busy neighbour) can pass for a change. Give earlier runs of "
              "this machine with --history F (scripts/nightly.sh passes its last 10), or more runs of each build with "
              "--rerun-base F and --rerun-new F\n", f);
    print_shift_table(f, c, all_rows);
    print_stateful(f, c);
    for (size_t i = 0; i < c->n_rows; i++) {
        const xpb_compare_row *r = &c->rows[i];
        const xpb_rcase *x = any_side(r);
        if (!r->base || !r->next)
            fprintf(f, "%s: %s %s %s (%s%s%s)\n", r->base ? "removed" : "added", x->id, x->device, x->variant,
                    x->status, r->failing ? ": " : "", r->failing ? r->next->message : "");
        else if (r->status_changed)
            fprintf(f, "status changed: %s %s %s: %s -> %s%s%s\n", x->id, x->device, x->variant, r->base->status,
                    r->next->status, r->next->message[0] ? ": " : "", r->next->message);
    }
    char counts[160], ops[200];
    fprintf(f, "summary: %s%s; %zu added, %zu removed, %zu status changes; %zu new validation failures or "
               "errors -> %s\n", counts_text(c->n_verdict, "", counts, sizeof counts),
            op_counts_text(c, "", ops, sizeof ops), c->n_added, c->n_removed, c->n_status_changed,
            c->n_new_failures, xpb_comparison_regressed(c) ? "REGRESSION" : "ok");
}

/* ---- Markdown --------------------------------------------------------------------------------- */

/* Text with the characters that break a Markdown table cell escaped. */
static void md_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|' || *s == '*' || *s == '_' || *s == '`' || *s == '<' || *s == '>')
            fputc('\\', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
}

/* "| id | device | variant |" of a case. */
static void md_case_cells(FILE *f, const xpb_rcase *x)
{
    fputs("| ", f);
    md_text(f, x->id);
    fprintf(f, " | %s | ", x->device);
    md_text(f, x->variant);
    fputs(" |", f);
}

/* " base | new | ratio | p | **verdict** |" and the end of the row. */
static void md_shift_cells(FILE *f, const xpb_shift *s, const char *verdict)
{
    char tb[32], tn[32], rt[64], pv[16];
    fprintf(f, " %s | %s | %s | %s | **%s** |\n", xpb_format_seconds(s->median_base, tb, sizeof tb),
            xpb_format_seconds(s->median_new, tn, sizeof tn), fmt_ratio(s, rt, sizeof rt),
            fmt_p(s->p_value, pv, sizeof pv), verdict);
}

static void md_row(FILE *f, const xpb_compare_row *r)
{
    md_case_cells(f, r->next);
    md_shift_cells(f, &r->shift, xpb_verdict_name(r->shift.verdict));
}

/* Every stateful case: total and ops, with the iteration counts of both sides. */
static void md_stateful(FILE *f, const xpb_comparison *c)
{
    if (!c->n_stateful)
        return;
    fputs("\n### Stateful cases: the whole run and each op\n\nA sample is one run: the total is the whole run's "
          "time, an op its device time in a breakdown run. A different iteration count makes per-run times "
          "incomparable; *info-only* ops come from a file without per-run samples (one breakdown run) and are "
          "never a verdict.\n\n| case | device | variant | iterations | part | base | new | new/base [95% CI] | "
          "p | verdict |\n| --- | --- | --- | --- | --- | ---: | ---: | --- | ---: | --- |\n", f);
    for (size_t i = 0; i < c->n_rows; i++) {
        const xpb_compare_row *r = &c->rows[i];
        if (!r->stateful)
            continue;
        md_case_cells(f, r->next);
        fprintf(f, " %.0f -> %.0f | total |", r->base->iterations, r->next->iterations);
        md_shift_cells(f, &r->shift, xpb_verdict_name(r->shift.verdict));
        for (size_t k = 0; k < r->n_ops; k++) {
            md_case_cells(f, r->next);
            fputs(" | ", f);
            md_text(f, r->ops[k].op);
            fputs(" |", f);
            md_shift_cells(f, &r->ops[k].shift, op_verdict_name(&r->ops[k]));
        }
    }
}

static void md_table(FILE *f, const xpb_comparison *c, bool same)
{
    fputs("| case | device | variant | base | new | new/base [95% CI] | p | verdict |\n"
          "| --- | --- | --- | ---: | ---: | --- | ---: | --- |\n", f);
    for (size_t i = 0; i < c->n_rows; i++)
        if (c->rows[i].has_shift && (c->rows[i].shift.verdict == XPB_VERDICT_SAME) == same)
            md_row(f, &c->rows[i]);
}

xpb_status xpb_comparison_write_markdown(const char *path, const xpb_comparison *c, xpb_error *err)
{
    char tmp[4096];
    FILE *f = xpb_file_begin(path, tmp, sizeof tmp, err);
    if (!f)
        return XPB_ERR_IO;
    bool bad = xpb_comparison_regressed(c);
    fprintf(f, "## xpubench compare: %s\n\n", bad ? "regression" : "no regression");
    fprintf(f, "Base `%s` (%s) vs new `%s` (%s); minimum effect %.3g%%, alpha %.3g.\n\n", c->base->run_id,
            c->base->git_commit, c->next->run_id, c->next->git_commit, c->opts.threshold * 100, c->opts.alpha);
    char counts[200], ops[240];
    fprintf(f, "%s%s; %zu added, %zu removed; %zu status changes, %zu new validation failures or errors.\n\n",
            counts_text(c->n_verdict, "**", counts, sizeof counts), op_counts_text(c, "**", ops, sizeof ops),
            c->n_added, c->n_removed, c->n_status_changed, c->n_new_failures);
    for (int i = 0; i < c->n_warnings; i++) {
        fputs("> **Warning:** ", f);
        md_text(f, c->warnings[i]);
        fputs("\n>\n", f);
    }
    if (c->n_warnings)
        fputc('\n', f);
    md_table(f, c, false);
    md_stateful(f, c);
    if (c->n_status_changed || c->n_added || c->n_removed) {
        fputs("\n| case | device | variant | base | new | message |\n| --- | --- | --- | --- | --- | --- |\n", f);
        for (size_t i = 0; i < c->n_rows; i++) {
            const xpb_compare_row *r = &c->rows[i];
            if (r->base && r->next && !r->status_changed)
                continue;
            md_case_cells(f, any_side(r));
            fprintf(f, " %s | %s | ", r->base ? r->base->status : "(added)", r->next ? r->next->status : "(removed)");
            md_text(f, r->next ? r->next->message : "");
            fputs(" |\n", f);
        }
    }
    fputs("\n<details><summary>unchanged cases</summary>\n\n", f);
    md_table(f, c, true);
    fputs("\n</details>\n", f);
    return xpb_file_commit(f, tmp, path, err);
}

/* ---- JSON ------------------------------------------------------------------------------------- */

static cJSON *file_json(const xpb_results_file *f)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "path", f->path);
    cJSON_AddStringToObject(o, "run_id", f->run_id);
    cJSON_AddStringToObject(o, "git_commit", f->git_commit);
    cJSON_AddStringToObject(o, "hostname", f->hostname);
    return o;
}

/* The fields of a shift, into o. */
static void shift_json(cJSON *o, const xpb_shift *s, const char *verdict)
{
    xpb_json_add_number(o, "base_median_s", s->median_base);
    xpb_json_add_number(o, "new_median_s", s->median_new);
    cJSON_AddNumberToObject(o, "base_n", (double)s->n_base);
    cJSON_AddNumberToObject(o, "new_n", (double)s->n_new);
    xpb_json_add_number(o, "base_cv", s->cv_base);
    xpb_json_add_number(o, "new_cv", s->cv_new);
    xpb_json_add_number(o, "ratio", s->ratio);
    /* a confidence interval only from the samples method; units give their range of ratios */
    xpb_json_add_number(o, "ratio_ci_lo", s->units_base ? NAN : s->ratio_lo);
    xpb_json_add_number(o, "ratio_ci_hi", s->units_base ? NAN : s->ratio_hi);
    if (s->units_base) {
        xpb_json_add_number(o, "unit_ratio_min", s->ratio_lo);
        xpb_json_add_number(o, "unit_ratio_max", s->ratio_hi);
    }
    xpb_json_add_number(o, "p_value", s->p_value);
    cJSON_AddNumberToObject(o, "base_units", (double)s->units_base);
    cJSON_AddNumberToObject(o, "new_units", (double)s->units_new);
    xpb_json_add_number(o, "noise", s->noise);
    xpb_json_add_number(o, "band", s->band);
    if (s->noise_source)
        cJSON_AddStringToObject(o, "noise_source", s->noise_source);
    cJSON_AddStringToObject(o, "method", s->units_base ? XPB_COMPARE_METHOD : XPB_COMPARE_METHOD_SAMPLES);
    cJSON_AddStringToObject(o, "verdict", verdict);
    cJSON_AddStringToObject(o, "why", s->why);
}

static cJSON *row_json(const xpb_compare_row *r)
{
    const xpb_rcase *x = any_side(r);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", x->id);
    cJSON_AddStringToObject(o, "device", x->device);
    cJSON_AddStringToObject(o, "variant", x->variant);
    cJSON_AddStringToObject(o, "change", !r->base ? "added" : !r->next ? "removed" : "both");
    if (r->base)
        cJSON_AddStringToObject(o, "base_status", r->base->status);
    if (r->next)
        cJSON_AddStringToObject(o, "new_status", r->next->status);
    if (r->next && r->next->message[0])
        cJSON_AddStringToObject(o, "new_message", r->next->message);
    cJSON_AddBoolToObject(o, "new_failure", r->new_failure);
    if (r->has_shift)
        shift_json(o, &r->shift, xpb_verdict_name(r->shift.verdict));
    if (r->conditions[0])
        cJSON_AddStringToObject(o, "conditions", r->conditions);
    if (r->drift_base != 1.0 || r->drift_next != 1.0) { /* rounds that move one way (xpb_stats_drift) */
        cJSON_AddNumberToObject(o, "drift_base", r->drift_base);
        cJSON_AddNumberToObject(o, "drift_next", r->drift_next);
    }
    if (r->stateful) {
        cJSON *run = cJSON_AddObjectToObject(o, "run");
        xpb_json_add_number(run, "base_iterations", r->base->iterations);
        xpb_json_add_number(run, "new_iterations", r->next->iterations);
        cJSON_AddBoolToObject(run, "iterations_differ", r->iterations_differ);
        cJSON *ms = cJSON_AddArrayToObject(run, "metrics"); /* every metric in both files */
        for (int k = 0; k < r->next->report.n_metrics; k++) {
            const xpb_report_metric *m = &r->next->report.metrics[k];
            const xpb_report_metric *bm = xpb_run_report_find_metric(&r->base->report, m->name);
            if (!bm)
                continue;
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "name", m->name);
            xpb_json_add_number(e, "base", bm->value);
            xpb_json_add_number(e, "new", m->value);
            cJSON_AddStringToObject(e, "unit", m->unit);
            cJSON_AddStringToObject(e, "better", xpb_better_name(m->better));
            cJSON_AddItemToArray(ms, e);
        }
        cJSON *ops = cJSON_AddArrayToObject(run, "ops");
        for (size_t k = 0; k < r->n_ops; k++) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "op", r->ops[k].op);
            cJSON_AddBoolToObject(e, "tested", r->ops[k].tested);
            shift_json(e, &r->ops[k].shift, op_verdict_name(&r->ops[k]));
            cJSON_AddItemToArray(ops, e);
        }
    }
    return o;
}

static xpb_status write_text(const char *path, const char *text, xpb_error *err)
{
    char tmp[4096];
    FILE *f = xpb_file_begin(path, tmp, sizeof tmp, err);
    if (!f)
        return XPB_ERR_IO;
    fputs(text, f);
    fputc('\n', f);
    return xpb_file_commit(f, tmp, path, err);
}

/* The method that decided the verdicts: on units, unless no case had any (files from before
 * rounds); a mix says both, and each shift names its own ("method" below). */
static const char *method_of(const xpb_comparison *c)
{
    size_t decided = 0;
    for (int v = 0; v < XPB_VERDICT_COUNT; v++)
        decided += c->n_verdict[v] + c->n_op_verdict[v];
    if (c->n_samples_method == 0)
        return XPB_COMPARE_METHOD;
    return c->n_samples_method >= decided ? XPB_COMPARE_METHOD_SAMPLES
                                          : XPB_COMPARE_METHOD "," XPB_COMPARE_METHOD_SAMPLES;
}

xpb_status xpb_comparison_write_json(const char *path, const xpb_comparison *c, xpb_error *err)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "xpubench-compare");
    cJSON_AddNumberToObject(root, "schema_version", 1);
    cJSON_AddStringToObject(root, "method", method_of(c));
    cJSON_AddNumberToObject(root, "noise_k", c->opts.noise_k);
    cJSON_AddNumberToObject(root, "max_band", c->opts.max_band);
    cJSON_AddNumberToObject(root, "history_files", (double)c->n_history);
    cJSON_AddNumberToObject(root, "base_runs", (double)c->base_runs);
    cJSON_AddNumberToObject(root, "new_runs", (double)c->new_runs);
    cJSON_AddItemToObject(root, "base", file_json(c->base));
    cJSON_AddItemToObject(root, "new", file_json(c->next));
    cJSON_AddNumberToObject(root, "threshold", c->opts.threshold);
    cJSON_AddNumberToObject(root, "alpha", c->opts.alpha);
    cJSON_AddNumberToObject(root, "max_cv", c->opts.max_cv);
    cJSON *w = cJSON_AddArrayToObject(root, "warnings");
    for (int i = 0; i < c->n_warnings; i++)
        cJSON_AddItemToArray(w, cJSON_CreateString(c->warnings[i]));
    cJSON *s = cJSON_AddObjectToObject(root, "summary");
    cJSON *ops = cJSON_CreateObject();
    for (int v = 0; v < XPB_VERDICT_COUNT; v++) {
        cJSON_AddNumberToObject(s, xpb_verdict_name((xpb_verdict)v), (double)c->n_verdict[v]);
        cJSON_AddNumberToObject(ops, xpb_verdict_name((xpb_verdict)v), (double)c->n_op_verdict[v]);
    }
    cJSON_AddNumberToObject(ops, "info_only", (double)c->n_op_info);
    cJSON_AddItemToObject(s, "ops", ops);
    cJSON_AddNumberToObject(s, "added", (double)c->n_added);
    cJSON_AddNumberToObject(s, "removed", (double)c->n_removed);
    cJSON_AddNumberToObject(s, "status_changed", (double)c->n_status_changed);
    cJSON_AddNumberToObject(s, "new_failures", (double)c->n_new_failures);
    cJSON_AddBoolToObject(root, "regression", xpb_comparison_regressed(c));
    cJSON *rows = cJSON_AddArrayToObject(root, "cases");
    for (size_t i = 0; i < c->n_rows; i++)
        cJSON_AddItemToArray(rows, row_json(&c->rows[i]));
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of memory while building %s", path);
    xpb_status st = write_text(path, text, err);
    free(text);
    return st;
}

/* ---- JUnit XML -------------------------------------------------------------------------------- */

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '&') fputs("&amp;", f);
        else if (ch == '<') fputs("&lt;", f);
        else if (ch == '>') fputs("&gt;", f);
        else if (ch == '"') fputs("&quot;", f);
        else if (ch == '\'') fputs("&apos;", f);
        else if (ch < 0x20 && ch != '\t' && ch != '\n') fputc(' ', f);
        else fputc(ch, f);
    }
}

/* The case or one of its tested ops got slower. */
static bool row_slower(const xpb_compare_row *r)
{
    bool slower = r->has_shift && r->shift.verdict == XPB_VERDICT_SLOWER;
    for (size_t k = 0; k < r->n_ops; k++)
        slower = slower || op_slower(&r->ops[k]);
    return slower;
}

/* "[; ]PART slower: new/base RATIO, WHY" inside a failure message ("; " after the first). */
static void junit_slower(FILE *f, const char *part, const xpb_shift *s, bool *first)
{
    char rt[64];
    if (!*first)
        fputs("; ", f);
    *first = false;
    xml_text(f, part);
    fputs(part[0] ? " slower: new/base " : "slower: new/base ", f);
    xml_text(f, fmt_ratio(s, rt, sizeof rt));
    fputs(", ", f);
    xml_text(f, s->why);
}

static void junit_case(FILE *f, const xpb_compare_row *r)
{
    const xpb_rcase *x = any_side(r);
    fputs("    <testcase classname=\"", f);
    xml_text(f, x->device);
    fputc('.', f);
    xml_text(f, x->variant);
    fputs("\" name=\"", f);
    xml_text(f, x->id);
    fprintf(f, "\" time=\"%.9f\">", r->has_shift && isfinite(r->shift.median_new) ? r->shift.median_new : 0.0);
    if (r->failing) {
        fprintf(f, "<failure type=\"%s\" message=\"", r->next->status);
        xml_text(f, r->next->message);
        fputs("\"/>", f);
    } else if (row_slower(r)) {
        bool first = true;
        fputs("<failure type=\"regression\" message=\"", f);
        if (r->has_shift && r->shift.verdict == XPB_VERDICT_SLOWER)
            junit_slower(f, r->stateful ? "total" : "", &r->shift, &first);
        for (size_t k = 0; k < r->n_ops; k++)
            if (op_slower(&r->ops[k]))
                junit_slower(f, r->ops[k].op, &r->ops[k].shift, &first);
        fputs("\"/>", f);
    } else if (!r->next || !r->has_shift) {
        fputs("<skipped message=\"", f);
        xml_text(f, !r->next ? "removed: not in the new run" : r->next->message[0] ? r->next->message : r->next->status);
        fputs("\"/>", f);
    } else {
        fprintf(f, "<system-out>%s: ", xpb_verdict_name(r->shift.verdict));
        xml_text(f, r->shift.why);
        fputs("</system-out>", f);
    }
    fputs("</testcase>\n", f);
}

xpb_status xpb_comparison_write_junit(const char *path, const xpb_comparison *c, xpb_error *err)
{
    size_t failures = 0, skipped = 0;
    for (size_t i = 0; i < c->n_rows; i++) {
        const xpb_compare_row *r = &c->rows[i];
        if (r->failing || row_slower(r))
            failures++;
        else if (!r->next || !r->has_shift)
            skipped++;
    }
    char tmp[4096];
    FILE *f = xpb_file_begin(path, tmp, sizeof tmp, err);
    if (!f)
        return XPB_ERR_IO;
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"xpubench compare ", f);
    xml_text(f, c->base->run_id);
    fputs(" -> ", f);
    xml_text(f, c->next->run_id);
    fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n", c->n_rows, failures, skipped);
    fprintf(f, "    <properties><property name=\"method\" value=\"%s\"/><property name=\"threshold\" value=\"%g\"/>"
               "<property name=\"alpha\" value=\"%g\"/></properties>\n",
            method_of(c), c->opts.threshold, c->opts.alpha);
    for (size_t i = 0; i < c->n_rows; i++)
        junit_case(f, &c->rows[i]);
    fputs("  </testsuite>\n</testsuites>\n", f);
    return xpb_file_commit(f, tmp, path, err);
}
