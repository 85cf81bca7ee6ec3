/* xpb_run_report.c - a stateful run's named metrics, timings, texts and series (xpb_run_report.h). */
#include "xpb_run_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Index of name among n entries of `size` bytes whose first field is the name, or -1. */
static int find(const void *items, int n, size_t size, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp((const char *)items + (size_t)i * size, name) == 0)
            return i;
    return -1;
}

/* The slot for name: its entry, or a new one at the end; -1 when full. */
static int slot(const void *items, int *n, int cap, size_t size, const char *name)
{
    int i = find(items, *n, size, name);
    if (i >= 0)
        return i;
    return *n < cap ? (*n)++ : -1;
}

bool xpb_run_report_metric(xpb_run_report *r, const char *name, double value, const char *unit, xpb_better better,
                           unsigned flags)
{
    int i = slot(r->metrics, &r->n_metrics, XPB_REPORT_MAX_METRICS, sizeof r->metrics[0], name);
    if (i < 0)
        return false;
    xpb_report_metric *m = &r->metrics[i];
    snprintf(m->name, sizeof m->name, "%s", name);
    snprintf(m->unit, sizeof m->unit, "%s", unit ? unit : "");
    m->value = value, m->better = better, m->flags = flags;
    return true;
}

bool xpb_run_report_timing(xpb_run_report *r, const char *name, double median, double p05, double p95,
                           long long count, unsigned flags)
{
    int i = slot(r->timings, &r->n_timings, XPB_REPORT_MAX_TIMINGS, sizeof r->timings[0], name);
    if (i < 0)
        return false;
    xpb_report_timing *t = &r->timings[i];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->median = median, t->p05 = p05, t->p95 = p95, t->count = count, t->flags = flags;
    return true;
}

bool xpb_run_report_text(xpb_run_report *r, const char *name, const char *value, unsigned flags)
{
    int i = slot(r->texts, &r->n_texts, XPB_REPORT_MAX_TEXTS, sizeof r->texts[0], name);
    if (i < 0)
        return false;
    xpb_report_text *t = &r->texts[i];
    snprintf(t->name, sizeof t->name, "%s", name);
    snprintf(t->value, sizeof t->value, "%s", value ? value : "");
    t->flags = flags;
    return true;
}

bool xpb_run_report_series(xpb_run_report *r, const char *name, double *v, int n)
{
    int i = slot(r->series, &r->n_series, XPB_REPORT_MAX_SERIES, sizeof r->series[0], name);
    if (i < 0) {
        free(v);
        return false;
    }
    xpb_report_series *s = &r->series[i];
    if (s->v != v)
        free(s->v);
    snprintf(s->name, sizeof s->name, "%s", name);
    s->v = v, s->n = v ? n : 0;
    return true;
}

const xpb_report_metric *xpb_run_report_find_metric(const xpb_run_report *r, const char *name)
{
    int i = find(r->metrics, r->n_metrics, sizeof r->metrics[0], name);
    return i < 0 ? NULL : &r->metrics[i];
}

void xpb_run_report_derive(xpb_run_report *r, double median, double p05, double p95, long long count,
                           int iterations)
{
    double per = iterations > 0 ? iterations : 1;
    for (int i = 0; i < r->n_timings; i++) {
        xpb_report_timing *t = &r->timings[i];
        if (t->flags & XPB_REPORT_PER_ITERATION)
            t->median = median / per, t->p05 = p05 / per, t->p95 = p95 / per, t->count = count;
    }
    int n = r->n_metrics; /* not the siblings added below */
    for (int i = 0; i < n; i++) {
        const xpb_report_metric m = r->metrics[i];
        if (!(m.flags & XPB_REPORT_PER_SECOND))
            continue;
        char name[XPB_REPORT_NAME_LEN], unit[XPB_REPORT_UNIT_LEN];
        snprintf(name, sizeof name, "%.*s_per_s", XPB_REPORT_NAME_LEN - 7, m.name);
        snprintf(unit, sizeof unit, "%.*s/s", XPB_REPORT_UNIT_LEN - 3, m.unit[0] ? m.unit : "1");
        xpb_run_report_metric(r, name, median > 0 ? m.value / median : NAN, unit, XPB_BETTER_HIGHER,
                              XPB_REPORT_HEADLINE);
    }
}

void xpb_run_report_free(xpb_run_report *r)
{
    for (int i = 0; i < r->n_series; i++)
        free(r->series[i].v), r->series[i].v = NULL, r->series[i].n = 0;
    r->n_series = 0;
}

const char *xpb_better_name(xpb_better b)
{
    return b == XPB_BETTER_HIGHER ? "higher" : b == XPB_BETTER_LOWER ? "lower" : "info";
}

bool xpb_better_parse(const char *s, xpb_better *out)
{
    static const xpb_better all[] = {XPB_BETTER_INFO, XPB_BETTER_HIGHER, XPB_BETTER_LOWER};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(s, xpb_better_name(all[i])) == 0) {
            *out = all[i];
            return true;
        }
    return false;
}
