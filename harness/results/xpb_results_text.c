/* xpb_results_text.c - CSV, Markdown and the console table: one row model, three renderings. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "xpb_atomic_file.h"
#include "xpb_names.h"
#include "xpb_results_write.h"

/* One rendered row; the same fields in every format. */
typedef struct row {
    char workload[32], op[32], params[96], device[64], variant[32], precision[32], status[32];
    char median_us[24], gbps[24], gflops[24], roof[24], lib[24], speedup[24], err_tol[24];
    const char *message;
} row;

static void fmt(char *b, size_t n, double v, const char *f, bool have)
{
    if (have)
        snprintf(b, n, f, v);
    else
        snprintf(b, n, "-");
}

static void make_row(const xpb_result *r, row *w)
{
    const char *p = strchr(r->c.id, '/');
    p = p ? strchr(p + 1, '/') : NULL;
    snprintf(w->workload, sizeof w->workload, "%s", r->c.workload->name);
    snprintf(w->op, sizeof w->op, "%s", xpb_op_get(r->c.op)->name);
    snprintf(w->params, sizeof w->params, "%.*s", p ? (int)strcspn(p + 1, "/") : 0, p ? p + 1 : "");
    snprintf(w->device, sizeof w->device, "%s", r->device->label);
    snprintf(w->variant, sizeof w->variant, "%s", r->variant);
    snprintf(w->precision, sizeof w->precision, "%s", r->precision);
    snprintf(w->status, sizeof w->status, "%s", xpb_case_status_name(r->status));
    bool t = r->timed && r->status == XPB_CASE_OK;
    fmt(w->median_us, sizeof w->median_us, r->kernel.median * 1e6, "%.2f", t);
    fmt(w->gbps, sizeof w->gbps, r->gbps, "%.1f", t && r->c.bytes_read + r->c.bytes_written > 0);
    fmt(w->gflops, sizeof w->gflops, r->gflops, "%.1f", t && r->c.flops > 0);
    if (r->implausible[0]) { /* a speed the hardware cannot reach is not shown as one (xpb_derive.c) */
        snprintf(w->gbps, sizeof w->gbps, "implausible");
        snprintf(w->gflops, sizeof w->gflops, "implausible");
    }
    /* roof: % of the bandwidth roof, except GEMM (compute-bound): % of the fp32 peak */
    bool gemm = r->c.op == XPB_OP_GEMM;
    double roof = gemm ? r->pct_of_peak : r->pct_of_roof;
    fmt(w->roof, sizeof w->roof, roof, "%.0f%%", t && roof > 0);
    fmt(w->lib, sizeof w->lib, r->pct_of_library, "%.0f%%", t && r->library_variant[0]);
    fmt(w->speedup, sizeof w->speedup, r->speedup_vs_cpu, "%.3gx", t && r->speedup_vs_cpu > 0);
    fmt(w->err_tol, sizeof w->err_tol, r->validation.max_err_over_tol, "%.3g", r->validated);
    w->message = r->implausible[0] && !r->message[0] ? r->implausible : r->message;
}

/* CSV field, quoted when it holds a separator or quote. */
static void csv_field(FILE *f, const char *s, bool last)
{
    if (strpbrk(s, ",\"\n")) {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', f);
            fputc(*s == '\n' ? ' ' : *s, f);
        }
        fputc('"', f);
    } else {
        fputs(s, f);
    }
    fputc(last ? '\n' : ',', f);
}

xpb_status xpb_results_write_csv(const char *path, const xpb_run *run, xpb_error *err)
{
    char tmp[4096];
    FILE *f = xpb_file_begin(path, tmp, sizeof tmp, err);
    if (!f)
        return XPB_ERR_IO;
    fputs("case_id,workload,op,params,device,device_name,variant,precision,status,median_us,"
          "gbps,gflops,pct_of_roof,pct_of_library,speedup_vs_cpu,max_err_over_tol,message\n", f);
    for (size_t i = 0; i < run->count; i++) {
        row w;
        make_row(&run->results[i], &w);
        const char *fields[] = {run->results[i].c.id, w.workload, w.op, w.params, w.device,
                                run->results[i].device->info.name, w.variant, w.precision, w.status,
                                w.median_us, w.gbps, w.gflops, w.roof, w.lib, w.speedup, w.err_tol, w.message};
        size_t n = sizeof fields / sizeof fields[0];
        for (size_t k = 0; k < n; k++)
            csv_field(f, fields[k], k + 1 == n);
    }
    return xpb_file_commit(f, tmp, path, err);
}

static void print_grouped(FILE *f, const xpb_run *run, bool markdown)
{
    const char *last_wl = "";
    for (size_t i = 0; i < run->count; i++) {
        row w;
        make_row(&run->results[i], &w);
        if (strcmp(w.workload, last_wl) != 0) {
            last_wl = run->results[i].c.workload->name;
            if (markdown)
                fprintf(f, "\n## %s\n\n| op | size | device | variant | median us | GB/s | GFLOP/s "
                           "| %% of roof | %% of lib | vs cpu | err/tol | status |\n|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|---|\n",
                        w.workload);
            else
                fprintf(f, "\n== %s ==\n%-10s %-42s %-9s %-11s %12s %9s %9s %6s %6s %8s %8s  %s\n", w.workload,
                        "op", "size", "device", "variant", "median us", "GB/s", "GFLOP/s", "roof", "lib",
                        "vs cpu", "err/tol", "status");
        }
        const char *status = w.status;
        char long_status[XPB_ERROR_MSG_LEN + 32];
        if (run->results[i].status != XPB_CASE_OK && w.message[0]) {
            snprintf(long_status, sizeof long_status, "%s: %s", w.status, w.message);
            status = long_status;
        }
        if (markdown)
            fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", w.op, w.params,
                    w.device, w.variant, w.median_us, w.gbps, w.gflops, w.roof, w.lib, w.speedup, w.err_tol,
                    status);
        else
            fprintf(f, "%-10s %-42s %-9s %-11s %12s %9s %9s %6s %6s %8s %8s  %s\n", w.op, w.params, w.device,
                    w.variant, w.median_us, w.gbps, w.gflops, w.roof, w.lib, w.speedup, w.err_tol, status);
    }
}

xpb_status xpb_results_write_markdown(const char *path, const xpb_run *run, xpb_error *err)
{
    char tmp[4096];
    FILE *f = xpb_file_begin(path, tmp, sizeof tmp, err);
    if (!f)
        return XPB_ERR_IO;
    fprintf(f, "# xpubench run %s (%s)\n\nDevices:\n\n", run->run_id, run->created_utc);
    for (size_t i = 0; i < run->n_devices; i++)
        fprintf(f, "- `%s`: %s%s\n", run->devices[i].label, run->devices[i].info.name,
                run->devices[i].info.is_software ? " (software device)" : "");
    print_grouped(f, run, true);
    return xpb_file_commit(f, tmp, path, err);
}

/* seconds with a unit that keeps the figure readable: "12.3 us", "4.56 ms", "1.23 s". */
static void print_seconds(FILE *f, double s)
{
    if (s < 1e-3)
        fprintf(f, "%.3g us", s * 1e6);
    else if (s < 1)
        fprintf(f, "%.3g ms", s * 1e3);
    else
        fprintf(f, "%.3g s", s);
}

/* Stateful cases: the headline figures of each run's report (xpb_run_report.h), which the table
 * has no column for, whatever the workload: "run ID DEVICE: name value unit, ...; timing median
 * (p05, p95)". Timings not measured (count 0) are left out. */
static void print_run_reports(FILE *f, const xpb_run *run)
{
    for (size_t i = 0; i < run->count; i++) {
        const xpb_result *r = &run->results[i];
        const xpb_run_report *rep = &r->run.report;
        if (!r->run.present)
            continue;
        const char *sep = ": ";
        bool any = false;
        for (int k = 0; k < rep->n_metrics; k++) {
            const xpb_report_metric *m = &rep->metrics[k];
            if (!(m->flags & XPB_REPORT_HEADLINE))
                continue;
            if (!any)
                fprintf(f, "run %s %s", r->c.id, r->device ? r->device->label : "-");
            fprintf(f, "%s%s %.4g%s%s", sep, m->name, m->value, m->unit[0] ? " " : "", m->unit);
            sep = ", ", any = true;
        }
        for (int k = 0; k < rep->n_timings; k++) {
            const xpb_report_timing *t = &rep->timings[k];
            if (!(t->flags & XPB_REPORT_HEADLINE) || t->count <= 0)
                continue;
            if (!any)
                fprintf(f, "run %s %s", r->c.id, r->device ? r->device->label : "-");
            fprintf(f, "%s%s ", any ? "; " : ": ", t->name);
            print_seconds(f, t->median);
            fprintf(f, " (p05 ");
            print_seconds(f, t->p05);
            fprintf(f, ", p95 ");
            print_seconds(f, t->p95);
            fprintf(f, ")");
            any = true;
        }
        if (any)
            fprintf(f, "\n");
    }
}

/* The timed results whose SM clock fell under XPB_CLOCK_LOW_FRACTION of its highest, the lowest
 * of them named: one line after the counts, so that no figure read off the table hides it. */
static void print_clock_note(FILE *f, const xpb_run *run)
{
    size_t n = 0;
    const xpb_result *worst = NULL;
    for (size_t i = 0; i < run->count; i++) {
        const xpb_result *r = &run->results[i];
        if (!r->timed || !xpb_result_clock_low(r))
            continue;
        n++;
        if (!worst || r->sm_low_mhz < worst->sm_low_mhz)
            worst = r;
    }
    if (!n)
        return;
    fprintf(f, "clocks: %zu timed result%s ran with the SM clock under %.0f%% of its highest (the lowest: %s %s, "
               "%.0f of %.0f MHz): their times hold that clock (results: conditions; a GPU that idled between "
               "rounds: XPB_WARMUP_CLOCK_S, docs/reports.md)\n",
            n, n == 1 ? "" : "s", XPB_CLOCK_LOW_FRACTION * 100, worst->device ? worst->device->label : "-",
            worst->c.id, worst->sm_low_mhz, xpb_result_sm_max(worst));
}

/* The timed results whose rounds drift one way (xpb_result_round_drift), the largest drift named. */
static void print_drift_note(FILE *f, const xpb_run *run)
{
    size_t n = 0;
    const xpb_result *worst = NULL;
    double wd = 1.0;
    for (size_t i = 0; i < run->count; i++) {
        const xpb_result *r = &run->results[i];
        const double d = r->timed ? xpb_result_round_drift(r) : 1.0;
        if (d == 1.0)
            continue;
        n++;
        if (!worst || fabs(log(d)) > fabs(log(wd)))
            worst = r, wd = d;
    }
    if (!n)
        return;
    fprintf(f, "drift: the rounds of %zu timed result%s moved one way, round after round, by more than %.0f%% from "
               "the first to the last (the most: %s %s, %.2fx): they are not repetitions of one figure (docs/reports.md)\n",
            n, n == 1 ? "" : "s", (XPB_DRIFT_FACTOR - 1) * 100, worst->device ? worst->device->label : "-",
            worst->c.id, wd);
}

void xpb_results_print_table(FILE *f, const xpb_run *run)
{
    print_grouped(f, run, false);
    print_run_reports(f, run);
    size_t counts[XPB_CASE_SKIPPED + 1] = {0};
    for (size_t i = 0; i < run->count; i++)
        counts[run->results[i].status]++;
    fprintf(f, "\n%zu results: %zu ok, %zu failed-validation, %zu unsupported, %zu error, %zu skipped\n",
            run->count, counts[XPB_CASE_OK], counts[XPB_CASE_FAILED_VALIDATION],
            counts[XPB_CASE_UNSUPPORTED], counts[XPB_CASE_ERROR], counts[XPB_CASE_SKIPPED]);
    print_clock_note(f, run);
    print_drift_note(f, run);
}
