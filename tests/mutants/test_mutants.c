/* test_mutants.c - the mutation test of the checker (docs/validation.md, "What the checker
 * catches"). Every mutant of mutants/ runs as a kernel of a copy of the CPU backend over the
 * conformance and default sizes of its op, with every input class (at the largest sizes those
 * that show a mutant, below); the test fails unless each
 * mutant fails validation at every size (some class catching it), except where it is declared
 * uncatchable with a reason, and unless each control passes everywhere it runs.
 *
 *   test_mutants [--preset conformance,default] [--op LIST] [--only NAME] [--markdown FILE]
 *
 * --op LIST: only the mutants of these ops (softmax,rmsnorm,...; ctest runs the ops as separate
 * tests, which ctest -j spreads over the cores); --only NAME: only mutants whose name holds NAME.
 *
 * How it runs (the work is the fp64 validation of a few GiB of outputs; CI has 2 cores):
 * - One-shot ops: for each case (one size and one input class) one xpb_runner_run, whose
 *   backend's kernels are the op's control and every mutant not yet caught at that size, so the
 *   runner makes the case's inputs once and runs, validates and guard-checks each kernel on them
 *   as it runs the variants of an op; its validation is xpubench's own (xpb_validate_output).
 *   Classes run in the order exact, the others, random last: a mutant leaves a size once a class
 *   caught it, and the first class that caught it is its cell in the table.
 * - The cases that move a GiB or more (BIG_CASE_BYTES: the three largest default sizes of the
 *   row ops and gemv's 16384 x 16384, 96% of the elements) run only the classes that show a
 *   mutant (xpb_mutant.shown_by, from the table in docs/validation.md): each mutant the classes
 *   declared for it, in the same order, and the control those of every mutant of its op. A
 *   declaration that is wrong fails the test: the mutant is then MISSED there. Every class runs
 *   at every other size (all conformance sizes, and the smaller default ones), where the control
 *   passes all of them.
 * - A stateful op (anneal stats) has no cases of its own: each of its mutants runs alone as the
 *   first stats kernel inside whole anneal runs of the conformance preset.
 *
 * Output: a line per (mutant, size); --markdown writes one table per op (sizes x mutants, each
 * cell the class that caught the mutant and its err/tol) for docs/validation.md. */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mutants.h"
#include "xpb_input.h"
#include "xpb_runner.h"

#define MAX_SIZES 64
#define MAX_OP_KERNELS 16
/* A case moving this many bytes or more runs only the classes its op's mutants are shown by. */
#define BIG_CASE_BYTES ((uint64_t)1 << 30)

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

static xpb_input_class class_of(const xpb_case *c)
{
    return (xpb_input_class)xpb_case_param(c, XPB_INPUT_KEY, 0);
}

/* ---- the reference of a case, computed once for all its kernels ---------------------------------
 * The runner validates each kernel's output with xpb_validate_output, which asks the workload's
 * reference() for the fp64 reference and bound of each unit (row, element). That is a pure
 * function of the case, its inputs and the precision, and it is most of a validation's work: the
 * op's cases run with a copy of the workload whose make_data sets up a memo for the case's data
 * and whose reference() computes each unit once (while validating the first kernel, the control)
 * and hands out the same doubles for the others. The comparison, NaN, poison and guard checks run
 * for every kernel as they do in xpubench. Memory: 16 bytes per output element (4 GiB at the
 * largest case, 1024 x 262144), kept for the op's next case (its pages then need no fault). */
static struct {
    const xpb_workload_i *real; /* the workload the memo stands in for           */
    xpb_workload_i copy;        /* its copy, with make_data and reference below */
    const xpb_case_data *d;     /* the data of the case being run (NULL: none)  */
    const char *precision;      /* the precision of the op's kernels (all alike)  */
    size_t unit, n_units;
    double *ref, *tol;          /* kept from case to case (no page faults twice) */
    size_t capacity;            /* elements ref and tol hold                      */
    unsigned char *have;        /* per unit: ref and tol hold it                  */
} memo;

/* After a case: the memo holds nothing (the buffers stay for the next case). */
static void memo_forget(void)
{
    free(memo.have);
    memo.have = NULL;
    memo.d = NULL;
}

static void memo_free(void)
{
    memo_forget();
    free(memo.ref);
    free(memo.tol);
    memo.ref = memo.tol = NULL;
    memo.capacity = 0;
}

static xpb_status memo_make_data(const xpb_case *c, uint64_t seed, xpb_case_data *d, xpb_error *err)
{
    memo_forget();
    xpb_status st = memo.real->make_data(c, seed, d, err);
    if (st)
        return st;
    size_t unit = memo.real->unit_elements(c);
    memo.unit = unit;
    memo.n_units = unit ? d->out_elements / unit : 0;
    if (memo.n_units == 0)
        return XPB_OK;
    /* without the memory the kernels' validations compute the reference themselves */
    if (memo.capacity < d->out_elements) {
        memo_free();
        memo.ref = malloc(d->out_elements * sizeof(double));
        memo.tol = malloc(d->out_elements * sizeof(double));
        memo.capacity = memo.ref && memo.tol ? d->out_elements : 0;
    }
    memo.have = memo.capacity ? calloc(memo.n_units, 1) : NULL;
    if (memo.have)
        memo.d = d;
    return XPB_OK;
}

/* Called by the validation's threads, each for its own units. */
static void memo_reference(const xpb_case *c, const xpb_case_data *d, const char *precision, size_t u0,
                           size_t u1, double *ref, double *tol)
{
    if (!memo.d || d != memo.d || u1 > memo.n_units || strcmp(precision, memo.precision) != 0) {
        memo.real->reference(c, d, precision, u0, u1, ref, tol);
        return;
    }
    size_t n = memo.unit, at = u0 * n;
    bool all = true;
    for (size_t u = u0; u < u1 && all; u++)
        all = memo.have[u];
    if (all) {
        memcpy(ref, memo.ref + at, (u1 - u0) * n * sizeof(double));
        memcpy(tol, memo.tol + at, (u1 - u0) * n * sizeof(double));
        return;
    }
    memo.real->reference(c, d, precision, u0, u1, ref, tol);
    memcpy(memo.ref + at, ref, (u1 - u0) * n * sizeof(double));
    memcpy(memo.tol + at, tol, (u1 - u0) * n * sizeof(double));
    for (size_t u = u0; u < u1; u++)
        memo.have[u] = 1;
}

/* Runs case c on dev with every kernel of dev's backend for its op (validation only), stderr
 * silenced (a failing case prints its mismatches). The caller frees run (xpb_run_free). */
static xpb_status run_case(xpb_device *dev, const xpb_case *c, xpb_run *run, xpb_error *err)
{
    memset(run, 0, sizeof *run);
    run->devices = dev;
    run->n_devices = 1;
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
    xpb_status st = xpb_runner_run(run, &one, &cfg, err);
    fflush(stderr);
    if (saved >= 0)
        dup2(saved, 2), close(saved);
    if (null >= 0)
        close(null);
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
            if (case_runs(&all.items[i], op, stateful) && class_of(&all.items[i]) != XPB_INPUT_RANDOM)
                st = xpb_case_list_push(out, &all.items[i], err);
        for (size_t i = 0; i < all.count && !st; i++)
            if (case_runs(&all.items[i], op, stateful) && class_of(&all.items[i]) == XPB_INPUT_RANDOM)
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
    memset(c, 0, sizeof c[0]);
    snprintf(c->size, sizeof c->size, "%s", size);
    return c;
}

/* Adds one case's outcome for a mutant or control to its cell (r: its result). */
static void record(column *col, cell *c, const xpb_case *cs, const xpb_result *r)
{
    double ratio = r->validation.max_err_over_tol;
    char rt[16];
    ratio_text(ratio, rt, sizeof rt);
    if (r->status == XPB_CASE_FAILED_VALIDATION && !c->caught) {
        c->caught = true;
        snprintf(c->text, sizeof c->text, "%s%s %s", col->m->control ? "FAILED " : "",
                 xpb_input_name(class_of(cs)), rt);
    }
    if (!(ratio <= c->worst))
        c->worst = ratio;
}

/* After the runs: each cell as the test wants it, printed; returns the cells that are not. */
static int judge(column *col)
{
    const xpb_mutant *m = col->m;
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
    return failures;
}

/* True when name is in the comma-separated list (NULL: every name). */
static bool in_list(const char *list, const char *name)
{
    if (!list)
        return true;
    size_t len = strlen(name);
    for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
        if (strncmp(p, name, len) == 0 && (p[len] == ',' || p[len] == '\0'))
            return true;
    return false;
}

/* True when class k shows some mutant among ms[0..n) (xpb_mutant.shown_by, "exact,const"). */
static bool shows_some(const xpb_mutant *const *ms, int n, xpb_input_class k)
{
    for (int i = 0; i < n; i++)
        if (ms[i]->shown_by && in_list(ms[i]->shown_by, xpb_input_name(k)))
            return true;
    return false;
}

/* The mutants ms[0..n) of one one-shot op (its control first), run together (file comment). */
static int run_op(const xpb_mutant *const *ms, int n, const xpb_mutant *const *all, int n_all,
                  const char *presets)
{
    xpb_op op = ms[0]->kernel->op;
    xpb_backend_i backend = *xpb_backend_find("cpu");
    const xpb_kernel *list[MAX_OP_KERNELS + 1];
    backend.kernels = list;
    list[0] = NULL;
    xpb_device dev;
    xpb_error err = {{0}};
    xpb_case_list cases = {0};
    if (n > MAX_OP_KERNELS || xpb_device_open(&backend, 0, &dev, &err) ||
        collect(op, false, presets, &cases, &err)) {
        fprintf(stderr, "test_mutants: %s: %s\n", xpb_op_get(op)->name, n > MAX_OP_KERNELS ? "too many mutants" : err.msg);
        return 1;
    }
    memo.real = xpb_workload_find(xpb_op_get(op)->workload);
    memo.copy = *memo.real;
    memo.copy.make_data = memo_make_data;
    memo.copy.reference = memo_reference;
    memo.precision = ms[0]->kernel->precision;
    for (int k = 1; k < n; k++)
        if (strcmp(ms[k]->kernel->precision, memo.precision) != 0)
            memo.precision = ""; /* no memo: each kernel's validation computes its own */
    column *cols = &columns[n_columns];
    for (int k = 0; k < n; k++)
        cols[k] = (column){.m = ms[k]};
    n_columns += n;
    int failures = 0;
    for (size_t i = 0; i < cases.count && !failures; i++) {
        const xpb_case *cs = &cases.items[i];
        cases.items[i].workload = &memo.copy;
        char key[XPB_CASE_ID_LEN];
        size_key(cs, key, sizeof key);
        bool big = cs->bytes_read + cs->bytes_written >= BIG_CASE_BYTES;
        int nk = 0;
        column *ran[MAX_OP_KERNELS];
        cell *cells[MAX_OP_KERNELS];
        for (int k = 0; k < n; k++) {
            cell *c = cell_for(&cols[k], key);
            if (!c) {
                fprintf(stderr, "test_mutants: more than %d sizes\n", MAX_SIZES);
                return 1;
            }
            /* file comment: the largest cases run the classes declared to show a mutant, each
             * mutant its own, the control all of the op's */
            if (big && !(ms[k]->control ? shows_some(all, n_all, class_of(cs)) : shows_some(&ms[k], 1, class_of(cs))))
                continue;
            if (!ms[k]->control && c->caught)
                continue; /* a mutant is done with a size once a class caught it */
            const char *why;
            if (!ms[k]->control && ms[k]->uncatchable && ms[k]->uncatchable(cs, &why))
                c->why_na = why;
            ran[nk] = &cols[k];
            cells[nk] = c;
            list[nk++] = ms[k]->kernel;
        }
        list[nk] = NULL;
        if (nk == 0)
            continue;
        xpb_run run;
        xpb_status st = run_case(&dev, cs, &run, &err);
        memo_forget();
        if (st) {
            fprintf(stderr, "test_mutants: %s: %s\n", cs->id, err.msg);
            return 1;
        }
        if (run.count != (size_t)nk) {
            fprintf(stderr, "test_mutants: %s: %zu results for %d kernels\n", cs->id, run.count, nk);
            failures = 1;
        }
        for (size_t j = 0; j < run.count && !failures; j++) {
            const xpb_result *r = &run.results[j];
            int k = 0;
            while (k < nk && ran[k]->m->kernel != r->ran)
                k++;
            if (k == nk || (r->status != XPB_CASE_OK && r->status != XPB_CASE_FAILED_VALIDATION)) {
                fprintf(stderr, "test_mutants: %s on %s: %s: %s\n", k < nk ? ran[k]->m->name : r->variant, cs->id,
                        xpb_case_status_name(r->status), r->message);
                failures = 1;
                break;
            }
            record(ran[k], cells[k], cs, r);
        }
        xpb_run_free(&run);
    }
    for (int k = 0; k < n && !failures; k++) {
        failures += judge(&cols[k]);
        fflush(stdout);
    }
    memo_free();
    xpb_case_list_free(&cases);
    xpb_device_close(&dev);
    return failures;
}

/* One mutant of a stateful op (anneal stats), alone: it goes first among the CPU kernels (the
 * run takes the first kernel of each op), over whole runs of the conformance preset (the default
 * one's fp64 reference runs take minutes). */
static int run_stateful(const xpb_mutant *m)
{
    xpb_backend_i backend = *xpb_backend_find("cpu");
    const xpb_kernel *list[128] = {m->kernel, NULL};
    size_t nk = 1;
    for (const xpb_kernel *const *k = backend.kernels; *k && nk + 1 < 128; k++)
        list[nk++] = *k;
    list[nk] = NULL;
    backend.kernels = list;
    xpb_device dev;
    xpb_error err = {{0}};
    xpb_case_list cases = {0};
    if (xpb_device_open(&backend, 0, &dev, &err) || collect(m->kernel->op, true, "conformance", &cases, &err)) {
        fprintf(stderr, "test_mutants: %s: %s\n", m->name, err.msg);
        return 1;
    }
    column *col = &columns[n_columns++];
    *col = (column){.m = m};
    for (size_t i = 0; i < cases.count; i++) {
        const xpb_case *cs = &cases.items[i];
        char key[XPB_CASE_ID_LEN];
        size_key(cs, key, sizeof key);
        cell *c = cell_for(col, key);
        if (!c || (!m->control && c->caught))
            continue;
        const char *why;
        if (!m->control && m->uncatchable && m->uncatchable(cs, &why))
            c->why_na = why;
        xpb_run run;
        if (run_case(&dev, cs, &run, &err) || run.count != 1) {
            fprintf(stderr, "test_mutants: %s on %s: %s\n", m->name, cs->id, run.count != 1 ? "not one result" : err.msg);
            return 1;
        }
        const xpb_result *r = &run.results[0];
        if (r->status != XPB_CASE_OK && r->status != XPB_CASE_FAILED_VALIDATION) {
            fprintf(stderr, "test_mutants: %s on %s: %s: %s\n", m->name, cs->id, xpb_case_status_name(r->status),
                    r->message);
            return 1;
        }
        record(col, c, cs, r);
        xpb_run_free(&run);
    }
    int failures = judge(col);
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
    const char *presets = "conformance,default", *only = NULL, *ops = NULL, *md = NULL;
    for (int i = 1; i < argc; i += 2) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v && strcmp(argv[i], "--preset") == 0)
            presets = v;
        else if (v && strcmp(argv[i], "--only") == 0)
            only = v;
        else if (v && strcmp(argv[i], "--op") == 0)
            ops = v;
        else if (v && strcmp(argv[i], "--markdown") == 0)
            md = v;
        else {
            fprintf(stderr, "usage: test_mutants [--preset LIST] [--op LIST] [--only NAME] [--markdown FILE]\n");
            return 2;
        }
    }
    int failures = 0, selected = 0;
    for (const xpb_mutant *const *m = xpb_mutants; *m;) {
        /* the mutants of one op are consecutive in xpb_mutants, its control first */
        const xpb_mutant *const *end = m;
        while (*end && (*end)->kernel->op == (*m)->kernel->op)
            end++;
        const xpb_mutant *pick[MAX_OP_KERNELS];
        int n = 0;
        for (const xpb_mutant *const *k = m; k < end && n < MAX_OP_KERNELS; k++)
            if (in_list(ops, xpb_op_get((*k)->kernel->op)->name) && (!only || strstr((*k)->name, only)))
                pick[n++] = *k;
        const xpb_workload_i *w = xpb_workload_find(xpb_op_get((*m)->kernel->op)->workload);
        if (n > 0 && w->run) {
            for (int k = 0; k < n; k++)
                failures += run_stateful(pick[k]);
        } else if (n > 0) {
            failures += run_op(pick, n, m, (int)(end - m), presets);
        }
        selected += n;
        fflush(stdout);
        m = end;
    }
    if (selected == 0) {
        fprintf(stderr, "test_mutants: no mutant matches --op %s --only %s\n", ops ? ops : "(all)", only ? only : "(all)");
        return 2;
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
