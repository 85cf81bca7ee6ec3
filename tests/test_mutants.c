/* test_mutants.c - the mutation test of the checker (docs/validation.md, "What the checker
 * catches"). Every mutant of mutants/ runs as the only kernel of a copy of the CPU backend over
 * the conformance and default sizes of its op, with every input class; the test fails unless
 * each mutant fails validation at every size (some class catching it), except where it is
 * declared uncatchable with a reason, and unless each control passes everywhere.
 *
 *   test_mutants [--preset conformance,default] [--only NAME] [--markdown FILE]
 *
 * Output: a line per (mutant, size); --markdown writes one table per op (sizes x mutants, each
 * cell the class that caught the mutant and its err/tol) for docs/validation.md. */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mutants/mutants.h"
#include "xpb_input.h"
#include "xpb_runner.h"

#define MAX_SIZES 64

typedef struct cell {
    char size[XPB_CASE_ID_LEN]; /* the case id without its input class */
    char text[64];              /* "exact 12.3", "MISSED", "n/a", "pass 0.31" */
    const char *why_na;         /* declared uncatchable here, and why         */
    bool caught;                /* a class failed validation                 */
    double worst;               /* control: the largest err/tol of any class */
    bool ok;                    /* as the test wants it                      */
} cell;

typedef struct column {
    const xpb_mutant *m;
    cell cells[MAX_SIZES];
    int n;
} column;

static column columns[64];
static int n_columns;

/* The id of c without ",input=NAME": cases of one size share it. */
static void size_key(const xpb_case *c, char *out, size_t n)
{
    snprintf(out, n, "%s", c->id);
    char *p = strstr(out, ",input=");
    if (p) {
        char *end = strchr(p + 1, '/');
        memmove(p, end, strlen(end) + 1);
    }
}

static void ratio_text(double r, char *buf, size_t n)
{
    if (isinf(r) || isnan(r))
        snprintf(buf, n, "inf");
    else
        snprintf(buf, n, "%.3g", r);
}

/* Runs one case on dev, stderr silenced (a failing case prints its mismatches). */
static xpb_status run_case(xpb_device *dev, const xpb_case *c, xpb_result *out, xpb_error *err)
{
    xpb_run run = {0};
    run.devices = dev;
    run.n_devices = 1;
    xpb_case_list one = {(xpb_case *)c, 1, 1};
    xpb_run_config cfg = {0};
    cfg.preset = "conformance";
    cfg.seed = 1;
    cfg.validate_only = true;
    cfg.progress_tty = true;
    fflush(stderr);
    int saved = dup(2), null = open("/dev/null", O_WRONLY);
    if (null >= 0)
        dup2(null, 2);
    xpb_status st = xpb_runner_run(&run, &one, &cfg, err);
    fflush(stderr);
    if (saved >= 0)
        dup2(saved, 2), close(saved);
    if (null >= 0)
        close(null);
    if (!st && run.count == 1)
        *out = run.results[0];
    else if (!st)
        st = xpb_fail(err, XPB_ERR_USAGE, "expected one result, got %zu", run.count);
    out->kernel_samples = (xpb_samples){0};
    out->e2e_samples = (xpb_samples){0};
    xpb_run_free(&run);
    return st;
}

/* An op of a stateful workload (anneal stats) has no cases of its own: it runs inside the
 * workload's runs, which validate it op by op. Its mutant runs in every case of the workload. */
static bool case_runs(const xpb_case *c, xpb_op op, bool stateful)
{
    return stateful || c->op == op;
}

/* Cases of op in the presets, grouped by size: the random-input case last, so that a mutant
 * stops at the first class that catches it. */
static xpb_status collect(xpb_op op, bool stateful, const char *presets, xpb_case_list *out, xpb_error *err)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", presets);
    char *save = NULL;
    for (char *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        xpb_case_list all = {0};
        const xpb_workload_i *w = xpb_workload_find(xpb_op_get(op)->workload);
        xpb_status st = w->add_cases(p, NULL, &all, err);
        for (size_t i = 0; i < all.count && !st; i++)
            if (case_runs(&all.items[i], op, stateful) &&
                xpb_case_param(&all.items[i], XPB_INPUT_KEY, 0) != XPB_INPUT_RANDOM)
                st = xpb_case_list_push(out, &all.items[i], err);
        for (size_t i = 0; i < all.count && !st; i++)
            if (case_runs(&all.items[i], op, stateful) &&
                xpb_case_param(&all.items[i], XPB_INPUT_KEY, 0) == XPB_INPUT_RANDOM)
                st = xpb_case_list_push(out, &all.items[i], err);
        xpb_case_list_free(&all);
        if (st)
            return st;
    }
    return XPB_OK;
}

static cell *cell_for(column *col, const char *size)
{
    for (int i = 0; i < col->n; i++)
        if (strcmp(col->cells[i].size, size) == 0)
            return &col->cells[i];
    if (col->n == MAX_SIZES)
        return NULL;
    cell *c = &col->cells[col->n++];
    memset(c, 0, sizeof *c);
    snprintf(c->size, sizeof c->size, "%s", size);
    return c;
}

static int run_mutant(const xpb_mutant *m, const char *presets, column *col)
{
    xpb_backend_i backend = *xpb_backend_find("cpu");
    /* A stateful op's mutant goes first among the CPU kernels (the run takes the first kernel of
     * each op); the runs use the conformance preset only (the default one's fp64 reference runs
     * take minutes). */
    const xpb_workload_i *w = xpb_workload_find(xpb_op_get(m->kernel->op)->workload);
    bool stateful = w->run != NULL;
    const xpb_kernel *list[128] = {m->kernel, NULL};
    size_t nk = 1;
    for (const xpb_kernel *const *k = backend.kernels; stateful && *k && nk + 1 < 128; k++)
        list[nk++] = *k;
    list[nk] = NULL;
    backend.kernels = list;
    xpb_device dev;
    xpb_error err = {{0}};
    xpb_case_list cases = {0};
    if (xpb_device_open(&backend, 0, &dev, &err) ||
        collect(m->kernel->op, stateful, stateful ? "conformance" : presets, &cases, &err)) {
        fprintf(stderr, "test_mutants: %s: %s\n", m->name, err.msg);
        return 1;
    }
    col->m = m;
    for (size_t i = 0; i < cases.count; i++) {
        const xpb_case *cs = &cases.items[i];
        char key[XPB_CASE_ID_LEN];
        size_key(cs, key, sizeof key);
        cell *c = cell_for(col, key);
        if (!c || (!m->control && c->caught))
            continue; /* a mutant is done with a size once a class caught it */
        const char *why;
        if (!m->control && m->uncatchable && m->uncatchable(cs, &why))
            c->why_na = why;
        xpb_result r;
        if (run_case(&dev, cs, &r, &err)) {
            fprintf(stderr, "test_mutants: %s on %s: %s\n", m->name, cs->id, err.msg);
            return 1;
        }
        if (r.status != XPB_CASE_OK && r.status != XPB_CASE_FAILED_VALIDATION) {
            fprintf(stderr, "test_mutants: %s on %s: %s: %s\n", m->name, cs->id, xpb_case_status_name(r.status),
                    r.message);
            return 1;
        }
        double ratio = r.validation.max_err_over_tol;
        char rt[16];
        ratio_text(ratio, rt, sizeof rt);
        const char *cls = xpb_input_name((xpb_input_class)xpb_case_param(cs, XPB_INPUT_KEY, 0));
        if (r.status == XPB_CASE_FAILED_VALIDATION && !c->caught) {
            c->caught = true;
            snprintf(c->text, sizeof c->text, "%s%s %s", m->control ? "FAILED " : "", cls, rt);
        }
        if (!(ratio <= c->worst))
            c->worst = ratio;
    }
    int failures = 0;
    for (int i = 0; i < col->n; i++) {
        cell *c = &col->cells[i];
        char rt[16];
        ratio_text(c->worst, rt, sizeof rt);
        if (m->control) {
            c->ok = !c->caught;
            if (c->ok)
                snprintf(c->text, sizeof c->text, "pass %s", rt);
        } else if (c->why_na) { /* caught where declared uncatchable: the declaration is wrong */
            c->ok = !c->caught;
            if (c->ok)
                snprintf(c->text, sizeof c->text, "n/a");
        } else {
            c->ok = c->caught;
            if (!c->ok)
                snprintf(c->text, sizeof c->text, "MISSED (worst err/tol %s)", rt);
        }
        failures += !c->ok;
        printf("%-4s %-27s %-62s %s%s%s\n", c->ok ? "ok" : "FAIL", m->name, c->size, c->text,
               c->why_na ? ": " : "", c->why_na ? c->why_na : "");
    }
    xpb_case_list_free(&cases);
    xpb_device_close(&dev);
    return failures;
}

/* One table per op: a row per size, a column per mutant (the control first). */
static void write_markdown(FILE *f)
{
    for (int a = 0; a < n_columns; a++) {
        if (a > 0 && columns[a - 1].m->kernel->op == columns[a].m->kernel->op)
            continue;
        int b = a;
        while (b + 1 < n_columns && columns[b + 1].m->kernel->op == columns[a].m->kernel->op)
            b++;
        fprintf(f, "\n**%s**: the class that caught each mutant at each size, with its err/tol\n\n| size |",
                xpb_op_get(columns[a].m->kernel->op)->name);
        for (int k = a; k <= b; k++)
            fprintf(f, " %s |", columns[k].m->name);
        fprintf(f, "\n| --- |");
        for (int k = a; k <= b; k++)
            fprintf(f, " --- |");
        for (int i = 0; i < columns[a].n; i++) {
            const char *s = strchr(columns[a].cells[i].size, '/');
            s = s ? strchr(s + 1, '/') : NULL;
            fprintf(f, "\n| %.*s |", s ? (int)strcspn(s + 1, "/") : 0, s ? s + 1 : "");
            for (int k = a; k <= b; k++)
                fprintf(f, " %s |", i < columns[k].n ? columns[k].cells[i].text : "");
        }
        fputc('\n', f);
    }
}

int main(int argc, char **argv)
{
    const char *presets = "conformance,default", *only = NULL, *md = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--preset") == 0)
            presets = argv[i + 1];
        else if (strcmp(argv[i], "--only") == 0)
            only = argv[i + 1];
        else if (strcmp(argv[i], "--markdown") == 0)
            md = argv[i + 1];
    }
    int failures = 0;
    for (const xpb_mutant *const *m = xpb_mutants; *m; m++) {
        if (only && !strstr((*m)->name, only))
            continue;
        column *col = &columns[n_columns++];
        failures += run_mutant(*m, presets, col);
        fflush(stdout);
    }
    if (md) {
        FILE *f = fopen(md, "w");
        if (f) {
            write_markdown(f);
            fclose(f);
        }
    }
    printf("%d mutants and controls over the %s sizes: %d size(s) not as required\n", n_columns, presets, failures);
    return failures ? 1 : 0;
}
