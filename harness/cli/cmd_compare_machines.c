/* cmd_compare_machines.c - `xpubench compare --machines A.json B.json ...`: for every case and
 * precision class, the fastest validated variant on each machine (software devices left out),
 * relative to the first machine; geometric means per workload/op and overall; per dollar and per
 * watt when known. Like with like: a case's fp32 row holds fp32 (or exact) variants only, and
 * tf32 or fp16-input variants get rows of their own, so a lower precision never stands for a
 * case's fp32 figure. A machine is named by what it is (its GPUs, else its CPU), or --label. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_atomic_file.h"
#include "xpb_cli.h"
#include "xpb_cli_reporting.h"
#include "xpb_compare.h"

typedef struct machine {
    xpb_results_file f;
    char label[XPB_RTEXT], stem[XPB_RTEXT], gpus[256];
    double price; /* NaN when not given */
} machine;

#define ROW_ID_LEN (XPB_RID + 16)

typedef struct table {
    machine *m;
    int nm;
    char (*ids)[ROW_ID_LEN]; /* every case id and precision class ("<id> [tf32]"), first-seen order */
    char (*op)[XPB_RID]; /* workload/op of each id */
    size_t n_ids;
    const xpb_rcase **best; /* [id * nm + machine], NULL when none */
} table;

/* ---- geometric means ------------------------------------------------------------------------ */

typedef struct geo {
    double log_sum;
    size_t n;
} geo;

static void geo_add(geo *g, double v)
{
    if (isfinite(v) && v > 0) {
        g->log_sum += log(v);
        g->n++;
    }
}

static double geo_mean(const geo *g) { return g->n ? exp(g->log_sum / (double)g->n) : NAN; }

/* ---- building the table ------------------------------------------------------------------------ */

static bool usable(const xpb_rcase *c)
{
    return xpb_rcase_is_timed_ok(c) && !c->software_device && (!c->has_validation || c->passed);
}

/* The devices of a machine that are not the CPU nor software: "2x NVIDIA H100 80GB HBM3". */
static void gpu_names(const xpb_results_file *f, char *out, size_t n)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t d = 0; d < f->n_devices && used < n; d++) {
        const xpb_rdevice *v = &f->devices[d];
        if (!strcmp(v->backend, "cpu") || v->software_device)
            continue;
        bool seen = false; /* one entry per GPU model and count; the same GPU through CUDA and Vulkan is one */
        int count = 0;
        for (size_t e = 0; e < f->n_devices; e++) {
            const xpb_rdevice *w = &f->devices[e];
            if (!strcmp(w->backend, v->backend) && !strcmp(w->name, v->name))
                count += 1, seen = seen || e < d;
            if (e < d && strcmp(w->backend, "cpu") && !w->software_device && !strcmp(w->name, v->name) &&
                strcmp(w->backend, v->backend))
                seen = true;
        }
        if (seen)
            continue;
        if (count > 1)
            used += (size_t)snprintf(out + used, n - used, "%s%dx %s", used ? ", " : "", count, v->name);
        else
            used += (size_t)snprintf(out + used, n - used, "%s%s", used ? ", " : "", v->name);
    }
}

/* The machine's name: --label when given, else what it is (its GPUs, else its CPU model, else
 * its host name), with the file's name added when an earlier machine has the same one. */
static void label_machine(machine *m, int i, const machine *all, const char *label)
{
    const char *base = strrchr(m->f.path, '/');
    if (snprintf(m->stem, sizeof m->stem, "%s", base ? base + 1 : m->f.path) >= (int)sizeof m->stem)
        m->stem[sizeof m->stem - 1] = '\0'; /* a long file name: its start labels it */
    size_t len = strlen(m->stem);
    if (len > 5 && strcmp(m->stem + len - 5, ".json") == 0)
        m->stem[len - 5] = '\0';
    gpu_names(&m->f, m->gpus, sizeof m->gpus);
    bool has_gpu = m->gpus[0] != '\0';
    if (!has_gpu)
        snprintf(m->gpus, sizeof m->gpus, "%s", m->f.cpu_model[0] ? m->f.cpu_model : "no GPU");
    if (label) {
        snprintf(m->label, sizeof m->label, "%s", label);
        return;
    }
    if (has_gpu && m->f.cpu_model[0]) /* its CPU rows are the CPU's: name both */
        snprintf(m->label, sizeof m->label, "%.*s + %.*s", (int)sizeof m->label / 2 - 2, m->gpus,
                 (int)sizeof m->label / 2 - 2, m->f.cpu_model);
    else
        snprintf(m->label, sizeof m->label, "%.*s", (int)sizeof m->label - 1,
                 m->f.cpu_model[0] || has_gpu ? m->gpus : m->f.hostname[0] ? m->f.hostname : m->stem);
    for (int j = 0; j < i; j++)
        if (strcmp(all[j].label, m->label) == 0) { /* two runs of one kind of machine: add the file */
            char tmp[2 * XPB_RTEXT + 4];
            snprintf(tmp, sizeof tmp, "%s (%s)", m->label, m->stem);
            snprintf(m->label, sizeof m->label, "%.*s", (int)sizeof m->label - 1, tmp);
        }
}

/* The precision class a variant's figure belongs to: fp32 (exact counts as fp32), tf32, fp16, ... */
static const char *precision_class(const char *precision)
{
    if (!precision[0] || !strcmp(precision, "fp32") || !strcmp(precision, "exact"))
        return "fp32";
    if (!strncmp(precision, "tf32", 4))
        return "tf32";
    if (!strncmp(precision, "fp16", 4))
        return "fp16";
    if (!strncmp(precision, "bf16", 4))
        return "bf16";
    return precision;
}

/* "workload/op" of a case; from its id's first two parts when the fields are absent. */
static void op_of(const xpb_rcase *c, char *dst, size_t n)
{
    if (c->workload[0] && c->op[0]) {
        snprintf(dst, n, "%s/%s", c->workload, c->op);
        return;
    }
    const char *s = strchr(c->id, '/');
    s = s ? strchr(s + 1, '/') : NULL;
    snprintf(dst, n, "%.*s", s ? (int)(s - c->id) : (int)strlen(c->id), c->id);
}

static long find_id(const table *t, const char *id)
{
    for (size_t i = 0; i < t->n_ids; i++)
        if (strcmp(t->ids[i], id) == 0)
            return (long)i;
    return -1;
}

/* The row of a case: its id, and its precision class when that is not fp32. */
static void row_id(const xpb_rcase *c, char *dst, size_t n)
{
    const char *cls = precision_class(c->precision);
    if (!strcmp(cls, "fp32"))
        snprintf(dst, n, "%s", c->id);
    else
        snprintf(dst, n, "%s [%s]", c->id, cls);
}

static int build_table(table *t)
{
    size_t cap = 0;
    for (int m = 0; m < t->nm; m++)
        cap += t->m[m].f.n_cases;
    t->ids = calloc(cap + 1, sizeof *t->ids); /* the precision classes add rows: at most one per case */
    t->op = calloc(cap + 1, sizeof *t->op);
    t->best = t->nm > 0 ? calloc((cap + 1) * (size_t)t->nm, sizeof *t->best) : NULL;
    if (!t->ids || !t->op || !t->best)
        return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "compare --machines: out of memory");
    for (int m = 0; m < t->nm; m++)
        for (size_t i = 0; i < t->m[m].f.n_cases; i++) {
            const xpb_rcase *c = &t->m[m].f.cases[i];
            char id[ROW_ID_LEN];
            row_id(c, id, sizeof id);
            long k = find_id(t, id);
            if (k < 0) {
                k = (long)t->n_ids++;
                snprintf(t->ids[k], sizeof t->ids[k], "%s", id);
                op_of(c, t->op[k], sizeof t->op[k]);
                const char *cls = precision_class(c->precision);
                if (strcmp(cls, "fp32")) { /* geometric means per op and precision class */
                    size_t len = strlen(t->op[k]);
                    snprintf(t->op[k] + len, sizeof t->op[k] - len, " [%s]", cls);
                }
            }
            const xpb_rcase **b = &t->best[(size_t)k * (size_t)t->nm + (size_t)m];
            if (usable(c) && (!*b || c->median_s < (*b)->median_s))
                *b = c;
        }
    return 0;
}

static double speedup(const table *t, size_t k, int m)
{
    const xpb_rcase *a = t->best[k * (size_t)t->nm], *b = t->best[k * (size_t)t->nm + (size_t)m];
    return a && b ? a->median_s / b->median_s : NAN;
}

/* Energy efficiency relative to the first machine: speedup * watts(first) / watts(m). */
static double per_watt(const table *t, size_t k, int m)
{
    const xpb_rcase *a = t->best[k * (size_t)t->nm], *b = t->best[k * (size_t)t->nm + (size_t)m];
    return a && b && a->avg_watts > 0 && b->avg_watts > 0 ? speedup(t, k, m) * a->avg_watts / b->avg_watts : NAN;
}

/* Geometric means of speedup (what = 0) or per-watt (what = 1) over ids of op (NULL = all). */
static geo summary(const table *t, const char *op, int m, int what)
{
    geo g = {0};
    for (size_t k = 0; k < t->n_ids; k++)
        if (!op || strcmp(t->op[k], op) == 0)
            geo_add(&g, what ? per_watt(t, k, m) : speedup(t, k, m));
    return g;
}

/* ---- output ------------------------------------------------------------------------------------ */

static bool op_seen_before(const table *t, size_t k)
{
    for (size_t j = 0; j < k; j++)
        if (strcmp(t->op[j], t->op[k]) == 0)
            return true;
    return false;
}

/* A speedup with enough digits: "2.00x", "0.048x", and below 0.01 "830x slower". */
static void format_ratio(double s, char *buf, size_t n)
{
    if (!isfinite(s))
        snprintf(buf, n, "-");
    else if (s >= 0.1)
        snprintf(buf, n, "%.2fx", s);
    else if (s >= 0.01)
        snprintf(buf, n, "%.3fx", s);
    else
        snprintf(buf, n, 1.0 / s >= 1000 ? "%.0fx slower" : "%.3gx slower", 1.0 / s);
}

static void print_cell(FILE *f, const table *t, size_t k, int m, bool md)
{
    const xpb_rcase *b = t->best[k * (size_t)t->nm + (size_t)m];
    double s = speedup(t, k, m);
    char buf[192], ratio[32];
    format_ratio(s, ratio, sizeof ratio);
    if (!b)
        snprintf(buf, sizeof buf, "-");
    else if (isfinite(s))
        snprintf(buf, sizeof buf, "%s %s/%s", ratio, b->device, b->variant);
    else
        snprintf(buf, sizeof buf, "%s %s/%s", xpb_format_seconds(b->median_s, (char[32]){0}, 32), b->device, b->variant);
    fprintf(f, md ? " %s |" : "  %-28s", buf);
}

/* One geometric-mean cell: "2.00x over 9 cases", "-" when no case is common. */
static void print_geo(FILE *f, const geo *g, bool md)
{
    char ratio[32];
    format_ratio(geo_mean(g), ratio, sizeof ratio);
    if (g->n == 0)
        fprintf(f, md ? " - |" : "  %-26s", "-");
    else
        fprintf(f, md ? " %s (%zu) |" : "  %8s over %-4zu cases  ", ratio, g->n);
}

static void print_summary(FILE *f, const table *t, bool md)
{
    const char *row = md ? "| %s |" : "%-52s";
    for (size_t k = 0; k < t->n_ids; k++) {
        if (op_seen_before(t, k))
            continue;
        bool common = false; /* an op no other machine ran has no row */
        for (int m = 1; m < t->nm; m++)
            common = common || summary(t, t->op[k], m, 0).n > 0;
        if (!common && t->nm > 1)
            continue;
        fprintf(f, row, t->op[k]);
        for (int m = 0; m < t->nm; m++) {
            geo g = summary(t, t->op[k], m, 0);
            print_geo(f, &g, md);
        }
        fputc('\n', f);
    }
    fprintf(f, row, md ? "**all cases (geometric mean)**" : "all cases (geometric mean)");
    for (int m = 0; m < t->nm; m++) {
        geo g = summary(t, NULL, m, 0);
        print_geo(f, &g, md);
    }
    fputc('\n', f);
    if (!isnan(t->m[0].price)) {
        fprintf(f, row, "per dollar (relative)");
        for (int m = 0; m < t->nm; m++) {
            geo g = summary(t, NULL, m, 0);
            char ratio[32], cell[64];
            format_ratio(geo_mean(&g) * t->m[0].price / t->m[m].price, ratio, sizeof ratio);
            snprintf(cell, sizeof cell, "%s ($%.0f)", ratio, t->m[m].price);
            fprintf(f, md ? " %s |" : "  %-26s", cell);
        }
        fputc('\n', f);
    }
    if (summary(t, NULL, 0, 1).n) {
        fprintf(f, row, "per watt (relative, --power runs)");
        for (int m = 0; m < t->nm; m++) {
            geo g = summary(t, NULL, m, 1);
            if (g.n == 0) /* this machine's run sampled no power: no figure, never "nan" */
                fprintf(f, md ? " - |" : "  %-26s", "-  (no --power data)");
            else
                print_geo(f, &g, md);
        }
        fputc('\n', f);
    }
}

/* A table's header line: the first column's title, then one column per machine. */
static void print_header(FILE *f, const table *t, bool md, const char *title)
{
    fprintf(f, md ? "\n| %s |" : "\n%-52s", title);
    for (int m = 0; m < t->nm; m++)
        fprintf(f, md ? " %s |" : "  %-28s", t->m[m].label);
    fputs(md ? "\n| --- |" : "\n", f);
    for (int m = 0; md && m < t->nm; m++)
        fputs(" --- |", f);
    fputs(md ? "\n" : "", f);
}

/* ---- the buyer's table: absolute throughput per workload category ------------------------------ */

/* The figure a case is bought for, and its unit: GFLOP/s for GEMM and GEMV, GB/s for the
 * bandwidth-bound ops, whole runs per second for a stateful case (a run is the case's work). */
static double throughput(const xpb_rcase *c, const char **unit)
{
    if (!strcmp(c->workload, "gemm") && c->gflops > 0) {
        *unit = "GFLOP/s";
        return c->gflops;
    }
    if (c->gbps > 0 && !c->has_run) {
        *unit = "GB/s";
        return c->gbps;
    }
    *unit = "runs/s";
    return c->median_s > 0 ? 1.0 / c->median_s : NAN;
}

/* The category of row k: its workload, and the precision class when not fp32 ("gemm [fp16]"). */
static void category_of(const table *t, size_t k, char *dst, size_t n)
{
    const char *bracket = strchr(t->op[k], '[');
    snprintf(dst, n, "%.*s%s%s", (int)strcspn(t->op[k], "/"), t->op[k], bracket ? " " : "", bracket ? bracket : "");
}

/* Per workload category: each machine's geometric-mean throughput over the cases every machine
 * ran (like with like), then per watt where every machine sampled power, and per dollar. */
static void print_buyer(FILE *f, const table *t, bool md)
{
    print_header(f, t, md, "workload (geometric mean over the cases all machines ran)");
    char done[64][96];
    int n_done = 0;
    for (size_t k0 = 0; k0 < t->n_ids && n_done < 64; k0++) {
        char cat[96];
        category_of(t, k0, cat, sizeof cat);
        bool seen = false;
        for (int i = 0; i < n_done; i++)
            seen = seen || !strcmp(done[i], cat);
        if (seen)
            continue;
        snprintf(done[n_done++], sizeof done[0], "%s", cat);
        geo g[64] = {{0}}, gw[64] = {{0}};
        const char *unit = "";
        bool watts = true;
        for (size_t k = 0; k < t->n_ids; k++) {
            char c2[96];
            category_of(t, k, c2, sizeof c2);
            bool all = strcmp(c2, cat) == 0;
            for (int m = 0; all && m < t->nm; m++)
                all = t->best[k * (size_t)t->nm + (size_t)m] != NULL;
            for (int m = 0; all && m < t->nm && m < 64; m++) {
                const xpb_rcase *b = t->best[k * (size_t)t->nm + (size_t)m];
                double v = throughput(b, &unit);
                geo_add(&g[m], v);
                if (b->avg_watts > 0)
                    geo_add(&gw[m], v / b->avg_watts);
                else
                    watts = false;
            }
        }
        if (g[0].n == 0)
            continue; /* no case of this category on every machine */
        struct {
            const char *what;
            bool show;
        } lines[3] = {{"", true}, {" per watt", watts && gw[0].n > 0}, {" per $1000", !isnan(t->m[0].price)}};
        for (int l = 0; l < 3; l++) {
            if (!lines[l].show)
                continue;
            char head[160];
            snprintf(head, sizeof head, "%s: %s%s", cat, unit, lines[l].what);
            fprintf(f, md ? "| %s |" : "%-52s", head);
            for (int m = 0; m < t->nm && m < 64; m++) {
                double v = l == 1 ? geo_mean(&gw[m]) : geo_mean(&g[m]);
                if (l == 2)
                    v = v / t->m[m].price * 1000.0;
                char cell[64];
                snprintf(cell, sizeof cell, "%.4g over %zu cases", v, g[m].n);
                fprintf(f, md ? " %s |" : "  %-28s", cell);
            }
            fputc('\n', f);
        }
    }
}

static void print_tables(FILE *f, const table *t, bool md)
{
    for (int m = 0; m < t->nm; m++) {
        fprintf(f, md ? "- **%s**: `%s` (%s)%s\n" : "machine %s: %s (%s)%s\n", t->m[m].label, t->m[m].f.path,
                t->m[m].gpus, m == 0 ? ", the reference" : "");
        for (size_t d = 0; d < t->m[m].f.n_devices; d++) { /* the BLAS of the CPU rows, and any fallback */
            const xpb_rdevice *v = &t->m[m].f.devices[d];
            if (v->library[0])
                fprintf(f, md ? "  - %s: %s\n" : "  %s: %s\n", v->id, v->library);
            if (v->warning[0])
                fprintf(f, md ? "  - **warning** %s: %s\n" : "  WARNING %s: %s\n", v->id, v->warning);
        }
    }
    print_header(f, t, md, "case (speedup of the fastest validated variant)");
    for (size_t k = 0; k < t->n_ids; k++) {
        fprintf(f, md ? "| %s |" : "%-52s", t->ids[k]);
        for (int m = 0; m < t->nm; m++)
            print_cell(f, t, k, m, md);
        fputc('\n', f);
    }
    print_header(f, t, md, "workload/op (geometric mean of speedups)");
    print_summary(f, t, md);
    print_buyer(f, t, md);
    fputs("(cases with no validated, timed result on a machine show '-'; a machine without the first\n"
          " machine's result shows its own time; a case's tf32 or fp16-input variants have rows of their own,\n"
          " marked [tf32] or [fp16], so each row compares one precision)\n", f);
}

static cJSON *json_report(const table *t)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "xpubench-machines");
    cJSON_AddNumberToObject(root, "schema_version", 1);
    cJSON *ms = cJSON_AddArrayToObject(root, "machines");
    for (int m = 0; m < t->nm; m++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "label", t->m[m].label);
        cJSON_AddStringToObject(o, "path", t->m[m].f.path);
        cJSON_AddStringToObject(o, "devices", t->m[m].gpus);
        geo g = summary(t, NULL, m, 0);
        cJSON_AddNumberToObject(o, "geomean_speedup", g.n ? geo_mean(&g) : 0);
        cJSON_AddNumberToObject(o, "cases_compared", (double)g.n);
        if (!isnan(t->m[m].price))
            cJSON_AddNumberToObject(o, "price_usd", t->m[m].price);
        cJSON_AddItemToArray(ms, o);
    }
    cJSON *cs = cJSON_AddArrayToObject(root, "cases");
    for (size_t k = 0; k < t->n_ids; k++) {
        cJSON *o = cJSON_CreateObject(), *per = NULL;
        cJSON_AddStringToObject(o, "id", t->ids[k]);
        cJSON_AddStringToObject(o, "op", t->op[k]);
        per = cJSON_AddArrayToObject(o, "best");
        for (int m = 0; m < t->nm; m++) {
            const xpb_rcase *b = t->best[k * (size_t)t->nm + (size_t)m];
            cJSON *e = b ? cJSON_CreateObject() : cJSON_CreateNull();
            if (b) {
                cJSON_AddStringToObject(e, "device", b->device);
                cJSON_AddStringToObject(e, "variant", b->variant);
                cJSON_AddNumberToObject(e, "median_s", b->median_s);
                double s = speedup(t, k, m);
                if (isfinite(s))
                    cJSON_AddNumberToObject(e, "speedup", s);
            }
            cJSON_AddItemToArray(per, e);
        }
        cJSON_AddItemToArray(cs, o);
    }
    return root;
}

static int write_outputs(const table *t, const char *md, const char *json)
{
    xpb_error err = {{0}};
    char tmp[4096];
    if (md) {
        FILE *f = xpb_file_begin(md, tmp, sizeof tmp, &err);
        if (f) {
            fputs("## xpubench: machines compared\n\n", f);
            print_tables(f, t, true);
        }
        if (!f || xpb_file_commit(f, tmp, md, &err))
            return xpb_cli_error(XPB_EXIT_USAGE, "compare: %s", err.msg);
    }
    if (json) {
        cJSON *root = json_report(t);
        char *text = cJSON_Print(root);
        cJSON_Delete(root);
        FILE *f = text ? xpb_file_begin(json, tmp, sizeof tmp, &err) : NULL;
        if (f)
            fprintf(f, "%s\n", text);
        free(text);
        if (!f || xpb_file_commit(f, tmp, json, &err))
            return xpb_cli_error(XPB_EXIT_USAGE, "compare: %s", err.msg[0] ? err.msg : "out of memory");
    }
    return 0;
}

static int apply_prices(machine *ms, int n, const xpb_price *prices, int n_prices)
{
    for (int p = 0; p < n_prices; p++) {
        bool used = false;
        for (int m = 0; m < n; m++)
            if (!strcmp(prices[p].name, ms[m].label) || !strcmp(prices[p].name, ms[m].stem) ||
                !strcmp(prices[p].name, ms[m].f.hostname)) {
                ms[m].price = prices[p].usd;
                used = true;
            }
        if (!used)
            return xpb_cli_error(XPB_EXIT_USAGE, "compare: --price %s matches no machine (use a hostname or a "
                                                 "file name without .json)", prices[p].name);
    }
    for (int m = 0; n_prices && m < n; m++)
        if (isnan(ms[m].price))
            return xpb_cli_error(XPB_EXIT_USAGE, "compare: --price given for some machines but not for %s", ms[m].label);
    return 0;
}

int xpb_compare_machines(char **files, int n_files, const xpb_price *prices, int n_prices,
                         const char *const *labels, int n_labels, const char *md, const char *json)
{
    if (n_labels > n_files)
        return xpb_cli_error(XPB_EXIT_USAGE, "compare --machines: %d --label for %d results files", n_labels, n_files);
    if (n_files < 1)
        return xpb_cli_error(XPB_EXIT_USAGE, "compare --machines: no results files");
    table t = {.m = calloc((size_t)n_files, sizeof(machine)), .nm = 0};
    int rc = t.m ? 0 : xpb_cli_error(XPB_EXIT_UNAVAILABLE, "compare --machines: out of memory");
    for (int i = 0; !rc && i < n_files; i++) {
        xpb_error err = {{0}};
        if (xpb_results_load(files[i], &t.m[i].f, &err))
            rc = xpb_cli_error(XPB_EXIT_USAGE, "%s", err.msg);
        else {
            t.nm++;
            t.m[i].price = NAN;
            label_machine(&t.m[i], i, t.m, i < n_labels ? labels[i] : NULL);
        }
    }
    if (!rc)
        rc = apply_prices(t.m, t.nm, prices, n_prices);
    if (!rc)
        rc = build_table(&t);
    if (!rc) {
        print_tables(stdout, &t, false);
        fflush(stdout);
        rc = write_outputs(&t, md, json);
    }
    for (int i = 0; i < t.nm; i++)
        xpb_results_file_free(&t.m[i].f);
    free(t.m);
    free(t.ids);
    free(t.op);
    free(t.best);
    return rc;
}
