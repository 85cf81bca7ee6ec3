/* xpb_results_report.c - a stateful run's named figures read back (xpb_results_report.h). */
#include "xpb_results_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_workload.h"

typedef struct rctx {
    const char *file, *where;
    xpb_error *err;
} rctx;

static xpb_status bad(const rctx *c, const char *key, const char *what)
{
    return xpb_fail(c->err, XPB_ERR_USAGE, "%s: %s.%s: %s", c->file, c->where, key, what);
}

/* Number v as a double (null, absent: NaN; true/false: 1/0, as schema 2 wrote "batched"). */
static xpb_status number(const rctx *c, const char *key, const cJSON *v, double *out)
{
    *out = NAN;
    if (!v || cJSON_IsNull(v))
        return XPB_OK;
    if (cJSON_IsBool(v)) {
        *out = cJSON_IsTrue(v) ? 1 : 0;
        return XPB_OK;
    }
    if (!cJSON_IsNumber(v))
        return bad(c, key, "expected a number");
    *out = v->valuedouble;
    return XPB_OK;
}

static xpb_status string(const rctx *c, const char *key, const cJSON *v, const char **out)
{
    *out = "";
    if (!v || cJSON_IsNull(v))
        return XPB_OK;
    if (!cJSON_IsString(v) || !v->valuestring)
        return bad(c, key, "expected a string");
    *out = v->valuestring;
    return XPB_OK;
}

/* The {median, p05, p95} of a timing object, under the keys <k><suffix>. */
static xpb_status spread(const rctx *c, const char *key, const cJSON *t, const char *suffix, double v[3])
{
    static const char *const keys[3] = {"median", "p05", "p95"};
    xpb_status st = XPB_OK;
    for (int i = 0; i < 3 && !st; i++) {
        char k[16];
        snprintf(k, sizeof k, "%s%s", keys[i], suffix);
        st = number(c, key, cJSON_GetObjectItemCaseSensitive(t, k), &v[i]);
    }
    return st;
}

/* ---- schema 3: the named lists ---------------------------------------------------------------- */

/* One entry of run.<list>[]: its name and flags. */
static xpb_status entry(const rctx *c, const char *list, const cJSON *e, const char **name, unsigned *flags)
{
    if (!cJSON_IsObject(e))
        return bad(c, list, "expected an array of objects");
    xpb_status st = string(c, list, cJSON_GetObjectItemCaseSensitive(e, "name"), name);
    if (!st && !(*name)[0])
        st = bad(c, list, "an entry without a name");
    *flags = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "headline")) ? XPB_REPORT_HEADLINE : 0;
    return st;
}

static const cJSON *list(const rctx *c, const cJSON *run, const char *key, xpb_status *st)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(run, key);
    if (a && !cJSON_IsNull(a) && !cJSON_IsArray(a))
        *st = bad(c, key, "expected an array");
    return cJSON_IsArray(a) ? a : NULL;
}

static xpb_status read_lists(const rctx *c, const cJSON *run, xpb_run_report *out)
{
    xpb_status st = XPB_OK;
    const cJSON *e, *ms = list(c, run, "metrics", &st), *ts = list(c, run, "timings", &st),
                    *xs = list(c, run, "texts", &st);
    const char *name, *unit, *better;
    unsigned flags;
    cJSON_ArrayForEach(e, ms)
    {
        double v;
        xpb_better b;
        if (st || (st = entry(c, "metrics", e, &name, &flags)) ||
            (st = number(c, "metrics", cJSON_GetObjectItemCaseSensitive(e, "value"), &v)) ||
            (st = string(c, "metrics", cJSON_GetObjectItemCaseSensitive(e, "unit"), &unit)) ||
            (st = string(c, "metrics", cJSON_GetObjectItemCaseSensitive(e, "better"), &better)))
            break;
        if (!xpb_better_parse(better, &b))
            return bad(c, "metrics", "better: expected higher, lower or info");
        xpb_run_report_metric(out, name, v, unit, b, flags);
    }
    cJSON_ArrayForEach(e, ts)
    {
        double v[3], n;
        if (st || (st = entry(c, "timings", e, &name, &flags)) || (st = spread(c, "timings", e, "_s", v)) ||
            (st = number(c, "timings", cJSON_GetObjectItemCaseSensitive(e, "count"), &n)))
            break;
        xpb_run_report_timing(out, name, v[0], v[1], v[2], isfinite(n) ? (long long)n : 0, flags);
    }
    cJSON_ArrayForEach(e, xs)
    {
        const char *value;
        if (st || (st = entry(c, "texts", e, &name, &flags)) ||
            (st = string(c, "texts", cJSON_GetObjectItemCaseSensitive(e, "value"), &value)))
            break;
        xpb_run_report_text(out, name, value, flags);
    }
    return st;
}

/* ---- schemas 1 and 2: the workload's objects, by path ------------------------------------------ */

/* The item at path ("a.b[1]") under o, or NULL. */
static const cJSON *at_path(const cJSON *o, const char *path)
{
    char key[64];
    while (o && *path) {
        size_t len = strcspn(path, ".[");
        if (len >= sizeof key)
            return NULL;
        memcpy(key, path, len), key[len] = '\0';
        o = cJSON_GetObjectItemCaseSensitive(o, key);
        path += len;
        if (*path == '[') {
            o = cJSON_IsArray(o) ? cJSON_GetArrayItem(o, atoi(path + 1)) : NULL;
            path += strcspn(path, "]");
            path += *path == ']';
        }
        path += *path == '.';
    }
    return o;
}

static xpb_status read_legacy(const rctx *c, const cJSON *run, const xpb_legacy_field *f, size_t kernel_samples,
                              xpb_run_report *out)
{
    xpb_status st = XPB_OK;
    for (; f->path && !st; f++) {
        const cJSON *v = at_path(run, f->path);
        if (!v)
            continue; /* absent in this file (a case without queries, an older version 2) */
        if (f->kind == XPB_LEGACY_METRIC) {
            double x;
            if (!(st = number(c, f->path, v, &x)))
                xpb_run_report_metric(out, f->name, x, f->unit, f->better, f->flags);
        } else if (f->kind == XPB_LEGACY_TIMING) {
            double s[3] = {NAN, NAN, NAN}, n = (double)kernel_samples;
            if (!cJSON_IsNull(v) && !cJSON_IsObject(v))
                st = bad(c, f->path, "expected an object");
            else if (cJSON_IsObject(v))
                st = spread(c, f->path, v, "", s);
            if (!st && f->count_path)
                st = number(c, f->count_path, at_path(run, f->count_path), &n);
            if (!st)
                xpb_run_report_timing(out, f->name, s[0], s[1], s[2],
                                      cJSON_IsObject(v) && isfinite(n) ? (long long)n : 0, f->flags);
        } else {
            const char *x;
            if (!(st = string(c, f->path, v, &x)))
                xpb_run_report_text(out, f->name, x, f->flags);
        }
    }
    return st;
}

xpb_status xpb_results_read_report(const char *file, const char *where, const cJSON *run, const char *workload,
                                   size_t kernel_samples, xpb_run_report *out, xpb_error *err)
{
    rctx c = {file, where, err};
    memset(out, 0, sizeof *out);
    if (cJSON_GetObjectItemCaseSensitive(run, "metrics") || cJSON_GetObjectItemCaseSensitive(run, "timings"))
        return read_lists(&c, run, out);
    const xpb_workload_i *w = workload && workload[0] ? xpb_workload_find(workload) : NULL;
    return w && w->legacy_fields ? read_legacy(&c, run, w->legacy_fields, kernel_samples, out) : XPB_OK;
}
