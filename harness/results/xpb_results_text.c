/* xpb_results_text.c - CSV, Markdown and the console table: one row model, three renderings. */
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

/* Stateful cases with held-out queries: the retrieval figures the table has no column for. */
static void print_retrieval(FILE *f, const xpb_run *run)
{
    for (size_t i = 0; i < run->count; i++) {
        const xpb_result *r = &run->results[i];
        const struct xpb_run_retrieval *q = &r->run.retrieval;
        if (!r->run.present || q->queries <= 0)
            continue;
        fprintf(f, "retrieval %s %s: %lld queries, recall@%d %.3f, recall@%d %.3f (anchor level %.3f, %.3f)",
                r->c.id, r->device ? r->device->label : "-", (long long)q->queries, q->k[0], q->recall[0], q->k[1], q->recall[1],
                q->anchor_recall[0], q->anchor_recall[1]);
        if (q->timed)
            fprintf(f, "; batch %.3g ms compressed", q->compressed.median * 1e3);
        if (q->exact_timed)
            fprintf(f, " vs %.3g ms exact", q->exact.median * 1e3);
        fprintf(f, "\n");
    }
}

/* Burst cases: time per burst and events/s, which the table's columns (per run) do not show. */
static void print_burst(FILE *f, const xpb_run *run)
{
    for (size_t i = 0; i < run->count; i++) {
        const xpb_result *r = &run->results[i];
        const struct xpb_run_burst *b = &r->run.burst;
        if (!r->run.present || !b->present || r->run.iterations <= 0)
            continue;
        double nb = r->run.iterations;
        fprintf(f, "burst %s %s: %.3g events/burst, fired %.3f%%", r->c.id, r->device ? r->device->label : "-",
                (double)b->events / nb, b->neurons > 0 ? 100.0 * (double)b->fired / ((double)b->neurons * nb) : 0.0);
        if (r->timed && r->status == XPB_CASE_OK)
            fprintf(f, "; %.2f us/burst (p05 %.2f, p95 %.2f), %.3g events/s", r->kernel.median / nb * 1e6,
                    r->kernel.p05 / nb * 1e6, r->kernel.p95 / nb * 1e6,
                    r->kernel.median > 0 ? (double)b->events / r->kernel.median : 0.0);
        fprintf(f, "\n");
    }
}

void xpb_results_print_table(FILE *f, const xpb_run *run)
{
    print_grouped(f, run, false);
    print_retrieval(f, run);
    print_burst(f, run);
    size_t counts[XPB_CASE_SKIPPED + 1] = {0};
    for (size_t i = 0; i < run->count; i++)
        counts[run->results[i].status]++;
    fprintf(f, "\n%zu results: %zu ok, %zu failed-validation, %zu unsupported, %zu error, %zu skipped\n",
            run->count, counts[XPB_CASE_OK], counts[XPB_CASE_FAILED_VALIDATION],
            counts[XPB_CASE_UNSUPPORTED], counts[XPB_CASE_ERROR], counts[XPB_CASE_SKIPPED]);
}
