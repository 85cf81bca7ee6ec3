/* xpb_results_read.c - results JSON into structs, with one-line errors (xpb_results_loaded.h). */
#include "xpb_results_loaded.h"
#include "xpb_results_report.h"
#include "xpb_results_write.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCHEMA_NAME "xpubench-results"
#define SCHEMA_VERSION XPB_RESULTS_SCHEMA_VERSION
#define MAX_FILE_BYTES ((size_t)1 << 30)

/* Where a field lives, for messages: "cases[3].timing.kernel". */
typedef struct ctx {
    const char *name;
    char where[96];
    xpb_error *err;
} ctx;

static xpb_status bad(ctx *c, const char *key, const char *what)
{
    return xpb_fail(c->err, XPB_ERR_USAGE, "%s: %s%s%s: %s", c->name, c->where, c->where[0] ? "." : "",
                    key, what);
}

/* Copies string field key into dst. Missing: error if required, else "". Wrong type: error. */
static xpb_status get_str(ctx *c, const cJSON *o, const char *key, char *dst, size_t n, bool required)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    dst[0] = '\0';
    if (!v || cJSON_IsNull(v))
        return required ? bad(c, key, "missing (required)") : XPB_OK;
    if (!cJSON_IsString(v) || !v->valuestring)
        return bad(c, key, "expected a string");
    snprintf(dst, n, "%s", v->valuestring);
    return XPB_OK;
}

/* Number field: missing or null gives NaN; another type is an error. */
static xpb_status get_num(ctx *c, const cJSON *o, const char *key, double *dst)
{
    const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    *dst = NAN;
    if (!v || cJSON_IsNull(v))
        return XPB_OK;
    if (!cJSON_IsNumber(v))
        return bad(c, key, "expected a number");
    *dst = v->valuedouble;
    return XPB_OK;
}

static xpb_status get_bool(ctx *c, const cJSON *o, const char *key, bool *dst)
{
    const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    *dst = false;
    if (!v || cJSON_IsNull(v))
        return XPB_OK;
    if (!cJSON_IsBool(v))
        return bad(c, key, "expected true or false");
    *dst = cJSON_IsTrue(v);
    return XPB_OK;
}

/* Optional object field: NULL when absent; error when present but not an object. */
static xpb_status get_obj(ctx *c, const cJSON *o, const char *key, const cJSON **dst)
{
    const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    *dst = NULL;
    if (!v || cJSON_IsNull(v))
        return XPB_OK;
    if (!cJSON_IsObject(v))
        return bad(c, key, "expected an object");
    *dst = v;
    return XPB_OK;
}

/* The array `key` of o (samples_s of timing.kernel and run.ops[].per_run, timing.units.medians_s)
 * into a new array *v of *n finite values (NULL and 0 when absent or empty). */
static xpb_status read_samples(ctx *c, const cJSON *o, const char *key, double **v, size_t *n)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!a || cJSON_IsNull(a))
        return XPB_OK;
    if (!cJSON_IsArray(a))
        return bad(c, key, "expected an array of numbers");
    int len = cJSON_GetArraySize(a);
    if (len == 0)
        return XPB_OK;
    *v = malloc((size_t)len * sizeof **v);
    if (!*v)
        return xpb_fail(c->err, XPB_ERR_OUT_OF_MEMORY, "%s: out of memory", c->name);
    const cJSON *e;
    cJSON_ArrayForEach(e, a)
    {
        if (cJSON_IsNumber(e) && isfinite(e->valuedouble))
            (*v)[(*n)++] = e->valuedouble;
        else if (!cJSON_IsNull(e))
            return bad(c, key, "expected an array of numbers");
    }
    return XPB_OK;
}

/* The median, cv and samples of the timing object `key` of o (as stats_json writes it), with
 * c->where extended to name it in messages. *found says whether o has it. */
static xpb_status read_stats(ctx *c, const cJSON *o, const char *key, bool *found, double *median, double *cv,
                             double **samples, size_t *n)
{
    const cJSON *t = NULL;
    xpb_status st = get_obj(c, o, key, &t);
    *found = t != NULL;
    if (st || !t)
        return st;
    size_t len = strlen(c->where);
    snprintf(c->where + len, sizeof c->where - len, "%s%s", len ? "." : "", key);
    if (!(st = get_num(c, t, "median_s", median)) && !(st = get_num(c, t, "cv", cv)))
        st = read_samples(c, t, "samples_s", samples, n);
    c->where[len] = '\0';
    return st;
}

static bool known_status(const char *s)
{
    static const char *const names[] = {"ok", "failed-validation", "unsupported", "error", "skipped"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i]) == 0)
            return true;
    return false;
}

static xpb_status read_timing(ctx *c, const cJSON *o, xpb_rcase *rc)
{
    const cJSON *t = NULL, *th = NULL, *pw = NULL;
    xpb_status st = get_obj(c, o, "timing", &t);
    if (!st && t) {
        size_t len = strlen(c->where);
        snprintf(c->where + len, sizeof c->where - len, ".timing");
        st = read_stats(c, t, "kernel", &rc->timed, &rc->median_s, &rc->cv, &rc->samples, &rc->n_samples);
        const cJSON *u = NULL;
        if (!st)
            st = get_obj(c, t, "units", &u);
        if (!st && u) {
            snprintf(c->where + len, sizeof c->where - len, ".timing.units");
            st = read_samples(c, u, "medians_s", &rc->units, &rc->n_units);
        }
        c->where[len] = '\0';
    }
    const cJSON *k = NULL;
    if (!st)
        st = get_obj(c, o, "conditions", &k);
    if (!st && k) {
        rc->has_conditions = true;
        if (!(st = get_num(c, k, "sm_mhz_before", &rc->sm_mhz_before)) &&
            !(st = get_num(c, k, "sm_mhz_after", &rc->sm_mhz_after)))
            st = get_str(c, k, "throttled", rc->throttled, sizeof rc->throttled, false);
    }
    if (!st)
        st = get_obj(c, o, "throughput", &th);
    if (!st && !(st = get_num(c, th, "gbps", &rc->gbps)) && !(st = get_num(c, th, "gflops", &rc->gflops)))
        st = get_num(c, th, "speedup_vs_cpu", &rc->speedup_vs_cpu);
    if (!st)
        st = get_obj(c, o, "power", &pw);
    if (!st)
        st = get_num(c, pw, "avg_w", &rc->avg_watts);
    return st;
}

static xpb_status read_array(ctx *c, const cJSON *o, const char *key, bool required, size_t size,
                             void **items, size_t *count,
                             xpb_status (*fn)(ctx *, const cJSON *, void *));

/* One entry of run.ops[]; per_run is absent in files written before the breakdown repeated. */
static xpb_status read_op(ctx *c, const cJSON *o, void *dst)
{
    xpb_rop *p = dst;
    double median;
    if (!cJSON_IsObject(o))
        return xpb_fail(c->err, XPB_ERR_USAGE, "%s: %s: expected an object", c->name, c->where);
    xpb_status st = get_str(c, o, "op", p->op, sizeof p->op, true);
    if (!st) st = get_num(c, o, "seconds", &p->seconds);
    if (!st) st = get_num(c, o, "share", &p->share);
    if (!st) st = get_num(c, o, "launches", &p->launches);
    if (!st) st = read_stats(c, o, "per_run", &p->has_runs, &median, &p->cv, &p->samples, &p->n_samples);
    if (!st) st = read_samples(c, o, "units_s", &p->units, &p->n_units);
    return st;
}

/* The run object of a stateful workload's case, when present. */
static xpb_status read_run(ctx *c, const cJSON *o, xpb_rcase *rc)
{
    const cJSON *r = NULL;
    xpb_status st = get_obj(c, o, "run", &r);
    rc->has_run = r != NULL;
    if (st || !r)
        return st;
    size_t len = strlen(c->where);
    snprintf(c->where + len, sizeof c->where - len, ".run");
    if (!st) st = get_num(c, r, "iterations", &rc->iterations);
    if (!st) st = get_bool(c, r, "converged", &rc->converged);
    const cJSON *x = NULL;
    char inputs[16] = "";
    if (!st) st = get_obj(c, r, "transfers", &x);
    if (!st && x) st = get_str(c, x, "inputs", inputs, sizeof inputs, false);
    rc->inputs_kept = strcmp(inputs, "kept") == 0;
    if (!st) /* the workload's figures: named (schema 3), or its older objects mapped to the names */
        st = xpb_results_read_report(c->name, c->where, r, rc->workload, rc->n_samples, &rc->report, c->err);
    if (!st) st = read_array(c, r, "ops", false, sizeof *rc->ops, (void **)&rc->ops, &rc->n_ops, read_op);
    c->where[len] = '\0';
    return st;
}

static xpb_status read_case(ctx *c, const cJSON *o, xpb_rcase *rc)
{
    const cJSON *w = NULL, *v = NULL;
    if (!cJSON_IsObject(o))
        return xpb_fail(c->err, XPB_ERR_USAGE, "%s: %s: expected an object", c->name, c->where);
    xpb_status st = XPB_OK;
    if (!st) st = get_str(c, o, "id", rc->id, sizeof rc->id, true);
    if (!st) st = get_str(c, o, "backend", rc->backend, sizeof rc->backend, true);
    if (!st) st = get_str(c, o, "device", rc->device, sizeof rc->device, true);
    if (!st) st = get_str(c, o, "variant", rc->variant, sizeof rc->variant, true);
    if (!st) st = get_str(c, o, "status", rc->status, sizeof rc->status, true);
    if (!st && !known_status(rc->status))
        st = bad(c, "status", "unknown value");
    if (!st) st = get_str(c, o, "workload", rc->workload, sizeof rc->workload, false);
    if (!st) st = get_str(c, o, "op", rc->op, sizeof rc->op, false);
    if (!st) st = get_str(c, o, "dtype", rc->dtype, sizeof rc->dtype, false);
    if (!st) st = get_str(c, o, "device_name", rc->device_name, sizeof rc->device_name, false);
    if (!st) st = get_str(c, o, "precision", rc->precision, sizeof rc->precision, false);
    if (!st) st = get_str(c, o, "kernel_config", rc->kernel_config, sizeof rc->kernel_config, false);
    if (!st) st = get_str(c, o, "message", rc->message, sizeof rc->message, false);
    if (!st) st = get_bool(c, o, "software_device", &rc->software_device);
    if (!st) st = get_obj(c, o, "work", &w);
    if (!st) st = get_num(c, w, "elements", &rc->elements);
    if (!st) st = get_num(c, w, "bytes_read", &rc->bytes_read);
    if (!st) st = get_num(c, w, "bytes_written", &rc->bytes_written);
    if (!st) st = get_num(c, w, "flops", &rc->flops);
    if (!st) st = get_obj(c, o, "validation", &v);
    rc->has_validation = v != NULL;
    if (!st) st = get_bool(c, v, "passed", &rc->passed);
    if (!st) st = get_num(c, v, "max_err_over_tol", &rc->max_err_over_tol);
    if (!st) st = read_timing(c, o, rc);
    if (!st) st = read_run(c, o, rc);
    return st;
}

static xpb_status read_device(ctx *c, const cJSON *o, xpb_rdevice *d)
{
    if (!cJSON_IsObject(o))
        return xpb_fail(c->err, XPB_ERR_USAGE, "%s: %s: expected an object", c->name, c->where);
    xpb_status st = get_str(c, o, "id", d->id, sizeof d->id, true);
    if (!st) st = get_str(c, o, "backend", d->backend, sizeof d->backend, false);
    if (!st) st = get_str(c, o, "name", d->name, sizeof d->name, false);
    if (!st) st = get_str(c, o, "driver", d->driver, sizeof d->driver, false);
    if (!st) st = get_str(c, o, "library", d->library, sizeof d->library, false);
    if (!st) st = get_str(c, o, "warning", d->warning, sizeof d->warning, false);
    if (!st) st = get_str(c, o, "runtime", d->runtime, sizeof d->runtime, false);
    if (!st) st = get_num(c, o, "peak_gflops_fp32", &d->peak_gflops_fp32);
    if (!st) st = get_num(c, o, "peak_gbps", &d->peak_gbps);
    if (!st) st = get_bool(c, o, "software_device", &d->software_device);
    return st;
}

/* Reads an array field of objects with fn into a new array of `size`-byte elements. */
static xpb_status read_array(ctx *c, const cJSON *o, const char *key, bool required, size_t size,
                             void **items, size_t *count,
                             xpb_status (*fn)(ctx *, const cJSON *, void *))
{
    const cJSON *a = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    if (!a || cJSON_IsNull(a))
        return required ? bad(c, key, "missing (required)") : XPB_OK;
    if (!cJSON_IsArray(a))
        return bad(c, key, "expected an array");
    int n = cJSON_GetArraySize(a);
    *items = calloc(n > 0 ? (size_t)n : 1, size);
    if (!*items)
        return xpb_fail(c->err, XPB_ERR_OUT_OF_MEMORY, "%s: out of memory", c->name);
    const cJSON *e;
    size_t i = 0;
    char saved[sizeof c->where];
    memcpy(saved, c->where, sizeof saved);
    cJSON_ArrayForEach(e, a)
    {
        if (snprintf(c->where, sizeof c->where, "%s%s%s[%zu]", saved, saved[0] ? "." : "", key, i) < 0)
            c->where[0] = '\0';
        *count = i + 1; /* so that the caller frees what this element allocated */
        xpb_status st = fn(c, e, (char *)*items + i * size);
        if (st)
            return st;
        i++;
    }
    memcpy(c->where, saved, sizeof saved);
    return XPB_OK;
}

static xpb_status case_fn(ctx *c, const cJSON *o, void *dst) { return read_case(c, o, dst); }
static xpb_status device_fn(ctx *c, const cJSON *o, void *dst) { return read_device(c, o, dst); }

/* xpubench.build as "key=value key=value" for fingerprint comparisons. */
static void build_text(const cJSON *b, char *dst, size_t n)
{
    size_t used = 0;
    const cJSON *e;
    dst[0] = '\0';
    cJSON_ArrayForEach(e, b)
    {
        if (cJSON_IsString(e) && used < n)
            used += (size_t)snprintf(dst + used, n - used, "%s%s=%s", used ? " " : "", e->string,
                                     e->valuestring);
    }
}

/* "complete": false and its "interrupted" object (files before them are whole runs). */
static xpb_status read_partial(ctx *c, const cJSON *root, xpb_results_file *f)
{
    bool complete = true;
    const cJSON *in = NULL;
    char sig[32] = "a signal";
    double done = 0, planned = 0;
    if (!cJSON_GetObjectItemCaseSensitive(root, "complete"))
        return XPB_OK;
    xpb_status st = get_bool(c, root, "complete", &complete);
    if (st || complete)
        return st;
    if (!(st = get_obj(c, root, "interrupted", &in)) && in && !(st = get_str(c, in, "signal", sig, sizeof sig, false)) &&
        !(st = get_num(c, in, "cases_finished", &done)))
        st = get_num(c, in, "cases_planned", &planned);
    if (!st)
        snprintf(f->partial, sizeof f->partial, "interrupted by %s after %.0f of %.0f cases", sig, done, planned);
    return st;
}

/* "tuning" (files since tuning, docs/results-schema.md): each tuned device's knob values in effect
 * (an environment override in place of the tuned value) and the file, onto its device entry. */
static xpb_status read_tuning(ctx *c, const cJSON *root, xpb_results_file *f)
{
    const cJSON *t = NULL, *d;
    xpb_status st = get_obj(c, root, "tuning", &t);
    const cJSON *devs = t ? cJSON_GetObjectItemCaseSensitive(t, "devices") : NULL;
    if (st || !devs)
        return st;
    if (!cJSON_IsArray(devs))
        return bad(c, "tuning.devices", "expected an array");
    cJSON_ArrayForEach(d, devs)
    {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(d, "device"), *file = cJSON_GetObjectItemCaseSensitive(d, "file");
        const cJSON *sha = cJSON_GetObjectItemCaseSensitive(d, "sha256"), *k = cJSON_GetObjectItemCaseSensitive(d, "knobs");
        const cJSON *env = cJSON_GetObjectItemCaseSensitive(d, "environment"), *v;
        if (!cJSON_IsString(id) || !cJSON_IsString(file) || !cJSON_IsString(sha) || !cJSON_IsObject(k))
            return bad(c, "tuning.devices", "an entry lacks device, file, sha256 or knobs");
        xpb_rdevice *rd = NULL;
        for (size_t i = 0; i < f->n_devices; i++)
            if (strcmp(f->devices[i].id, id->valuestring) == 0)
                rd = &f->devices[i];
        if (!rd)
            continue;
        const char *base = strrchr(file->valuestring, '/');
        snprintf(rd->tuning_file, sizeof rd->tuning_file, "%.80s sha256:%.12s", base ? base + 1 : file->valuestring,
                 sha->valuestring);
        size_t used = 0;
        cJSON_ArrayForEach(v, k)
        {
            const cJSON *over = env ? cJSON_GetObjectItemCaseSensitive(env, v->string) : NULL;
            const cJSON *val = cJSON_IsString(over) ? over : v;
            if (cJSON_IsString(val) && used < sizeof rd->tuning)
                used += (size_t)snprintf(rd->tuning + used, sizeof rd->tuning - used, "%s%s=%s", used ? " " : "",
                                         v->string, val->valuestring);
        }
        rd->tuned = true;
    }
    return XPB_OK;
}

/* config.knobs (optional): the knobs set in the environment, as "NAME=VALUE NAME=VALUE". */
static xpb_status read_knobs(ctx *c, const cJSON *cfg, xpb_results_file *f)
{
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(cfg, "knobs"), *v;
    if (!k)
        return XPB_OK;
    if (!cJSON_IsObject(k))
        return bad(c, "config.knobs", "expected an object");
    size_t used = 0;
    cJSON_ArrayForEach(v, k)
    {
        if (!cJSON_IsString(v))
            return bad(c, "config.knobs", "expected string values");
        if (used < sizeof f->knobs)
            used += (size_t)snprintf(f->knobs + used, sizeof f->knobs - used, "%s%s=%s", used ? " " : "", v->string,
                                     v->valuestring);
    }
    return XPB_OK;
}

static xpb_status read_top(ctx *c, const cJSON *root, xpb_results_file *f)
{
    char schema[64];
    double ver;
    const cJSON *x = NULL, *sys = NULL, *cfg = NULL, *b = NULL;
    if (!cJSON_IsObject(root))
        return xpb_fail(c->err, XPB_ERR_USAGE, "%s: not an xpubench results file (not a JSON object)", c->name);
    xpb_status st = get_str(c, root, "schema", schema, sizeof schema, false);
    if (st || strcmp(schema, SCHEMA_NAME) != 0)
        return xpb_fail(c->err, XPB_ERR_USAGE, "%s: not an xpubench results file (schema is '%s', want '%s')",
                        c->name, schema, SCHEMA_NAME);
    if ((st = get_num(c, root, "schema_version", &ver)))
        return st;
    /* 2 adds the "run" object to 1; 3 names the workload's figures in it (xpb_results_report.h) */
    if (ver < 1 || ver > SCHEMA_VERSION || ver != (int)ver)
        return xpb_fail(c->err, XPB_ERR_USAGE,
                        "%s: results schema_version %g is not supported (this xpubench reads versions 1 to %d)",
                        c->name, ver, SCHEMA_VERSION);
    if (!st) st = get_str(c, root, "run_id", f->run_id, sizeof f->run_id, false);
    if (!st) st = get_str(c, root, "created_utc", f->created_utc, sizeof f->created_utc, false);
    if (!st) st = get_obj(c, root, "xpubench", &x);
    if (!st && x) st = get_str(c, x, "version", f->version, sizeof f->version, false);
    if (!st && x) st = get_str(c, x, "git_commit", f->git_commit, sizeof f->git_commit, false);
    if (!st && x && !(st = get_obj(c, x, "build", &b)) && b)
        build_text(b, f->build, sizeof f->build);
    if (!st) st = read_partial(c, root, f);
    if (!st) st = get_obj(c, root, "config", &cfg);
    if (!st && cfg) st = get_str(c, cfg, "preset", f->preset, sizeof f->preset, false);
    if (!st) st = get_num(c, cfg, "seed", &f->seed);
    if (!st && cfg) st = read_knobs(c, cfg, f);
    if (!st) st = get_obj(c, root, "system", &sys);
    if (!st && sys) st = get_str(c, sys, "hostname", f->hostname, sizeof f->hostname, false);
    if (!st && sys) st = get_str(c, sys, "cpu_model", f->cpu_model, sizeof f->cpu_model, false);
    if (!st && sys) st = get_str(c, sys, "os", f->os, sizeof f->os, false);
    if (!st && sys)
        st = read_array(c, sys, "devices", false, sizeof *f->devices, (void **)&f->devices, &f->n_devices,
                        device_fn);
    if (!st)
        st = read_tuning(c, root, f);
    if (!st)
        st = read_array(c, root, "cases", true, sizeof *f->cases, (void **)&f->cases, &f->n_cases, case_fn);
    return st;
}

/* True when text is a prefix of a JSON document: brackets match so far, but some are still
 * open (or a string is). A mismatched or extra closer means corrupt, not truncated. */
static bool looks_truncated(const char *text, size_t len)
{
    char open[1024];
    size_t depth = 0;
    bool in_string = false, escaped = false;
    for (size_t i = 0; i < len; i++) {
        char ch = text[i];
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (ch == '\\')
                escaped = true;
            else if (ch == '"')
                in_string = false;
        } else if (ch == '"') {
            in_string = true;
        } else if (ch == '{' || ch == '[') {
            if (depth == sizeof open)
                return false;
            open[depth++] = ch == '{' ? '}' : ']';
        } else if (ch == '}' || ch == ']') {
            if (depth == 0 || open[--depth] != ch)
                return false;
        }
    }
    return in_string || depth > 0;
}

static xpb_status parse_error(const char *name, const char *text, size_t len, xpb_error *err)
{
    if (looks_truncated(text, len))
        return xpb_fail(err, XPB_ERR_USAGE, "%s: truncated results file (the JSON ends early, at byte %zu)",
                        name, len);
    const char *at = cJSON_GetErrorPtr();
    size_t off = at && at >= text && at <= text + len ? (size_t)(at - text) : len;
    size_t line = 1;
    for (size_t i = 0; i < off; i++)
        line += text[i] == '\n';
    return xpb_fail(err, XPB_ERR_USAGE, "%s: corrupt results file (invalid JSON at line %zu, byte %zu)", name,
                    line, off);
}

xpb_status xpb_results_parse(const char *name, const char *text, size_t len, xpb_results_file *out,
                             xpb_error *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", name);
    size_t first = 0;
    while (first < len && isspace((unsigned char)text[first]))
        first++;
    if (first == len)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: empty results file", name);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root)
        return parse_error(name, text, len, err);
    size_t off = end ? (size_t)(end - text) : len;
    while (off < len && (isspace((unsigned char)text[off]) || text[off] == '\0'))
        off++;
    ctx c = {.name = name, .err = err};
    xpb_status st = off < len ? xpb_fail(err, XPB_ERR_USAGE, "%s: corrupt results file (data after the JSON "
                                         "document, at byte %zu)", name, off)
                              : read_top(&c, root, out);
    cJSON_Delete(root);
    if (st)
        xpb_results_file_free(out);
    return st;
}

xpb_status xpb_results_load(const char *path, xpb_results_file *out, xpb_error *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return xpb_fail(err, XPB_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap || cap >= MAX_FILE_BYTES)
            break;
        char *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    int rerr = ferror(f);
    fclose(f);
    if (!buf)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "%s: out of memory while reading", path);
    if (rerr || len >= MAX_FILE_BYTES) {
        free(buf);
        return xpb_fail(err, XPB_ERR_IO, "%s: cannot read: %s", path, rerr ? "read error" : "file over 1 GiB");
    }
    xpb_status st = xpb_results_parse(path, buf, len, out, err);
    free(buf);
    return st;
}

void xpb_results_file_free(xpb_results_file *f)
{
    for (size_t i = 0; f->cases && i < f->n_cases; i++) {
        for (size_t j = 0; f->cases[i].ops && j < f->cases[i].n_ops; j++)
            free(f->cases[i].ops[j].samples), free(f->cases[i].ops[j].units), free(f->cases[i].ops[j].run_units);
        free(f->cases[i].ops);
        free(f->cases[i].samples);
        free(f->cases[i].units);
        free(f->cases[i].run_units);
    }
    free(f->cases);
    free(f->devices);
    memset(f, 0, sizeof *f);
}

const xpb_rdevice *xpb_results_device(const xpb_results_file *f, const char *device)
{
    for (size_t i = 0; i < f->n_devices; i++)
        if (strcmp(f->devices[i].id, device) == 0)
            return &f->devices[i];
    return NULL;
}

bool xpb_rcase_is_timed_ok(const xpb_rcase *c)
{
    return strcmp(c->status, "ok") == 0 && c->timed && isfinite(c->median_s) && c->median_s > 0;
}

/* Appends n values of src to *dst (*n_dst of them); false when out of memory. */
static bool append_values(double **dst, size_t *n_dst, const double *src, size_t n)
{
    if (!n)
        return true;
    double *v = realloc(*dst, (*n_dst + n) * sizeof *v);
    if (!v)
        return false;
    memcpy(v + *n_dst, src, n * sizeof *v);
    *dst = v;
    *n_dst += n;
    return true;
}

/* Appends rerun's n units to *units (*n_units of them) and records the run's count in *run_units
 * (*n_runs entries; the first call records the existing units as the first run); false when out
 * of memory. */
static bool pool_units(double **units, size_t *n_units, size_t **run_units, size_t *n_runs, const double *add,
                       size_t n)
{
    size_t *r = realloc(*run_units, (*n_runs ? *n_runs + 1 : 2) * sizeof *r);
    if (!r)
        return false;
    *run_units = r;
    if (!*n_runs)
        r[(*n_runs)++] = *n_units;
    if (!append_values(units, n_units, add, n))
        return false;
    r[(*n_runs)++] = n;
    return true;
}

xpb_status xpb_results_add_rerun(xpb_results_file *into, const xpb_results_file *rerun, xpb_error *err)
{
    for (size_t i = 0; i < into->n_cases; i++) {
        xpb_rcase *c = &into->cases[i];
        if (!c->n_units)
            continue; /* a case without rounds (an older file, or untimed) has nothing to pool */
        const xpb_rcase *r = NULL;
        for (size_t j = 0; j < rerun->n_cases && !r; j++)
            if (!strcmp(rerun->cases[j].id, c->id) && !strcmp(rerun->cases[j].device, c->device) &&
                !strcmp(rerun->cases[j].variant, c->variant))
                r = &rerun->cases[j];
        if (!r || !r->n_units)
            continue;
        bool ok = pool_units(&c->units, &c->n_units, &c->run_units, &c->n_runs, r->units, r->n_units);
        for (size_t k = 0; ok && k < c->n_ops; k++) {
            xpb_rop *o = &c->ops[k];
            for (size_t m = 0; ok && m < r->n_ops; m++)
                if (!strcmp(o->op, r->ops[m].op) && o->n_units && r->ops[m].n_units)
                    ok = pool_units(&o->units, &o->n_units, &o->run_units, &o->n_runs, r->ops[m].units,
                                    r->ops[m].n_units);
        }
        if (!ok)
            return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of memory pooling the rounds of %s", rerun->path);
        c->reruns++;
    }
    return XPB_OK;
}
