/* xpb_case.c - case lists, ids and params (xpb_workload.h). */
#include "xpb_workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_input.h"

xpb_status xpb_case_list_push(xpb_case_list *list, const xpb_case *c, xpb_error *err)
{
    if (list->count == list->capacity) {
        size_t cap = list->capacity ? list->capacity * 2 : 64;
        xpb_case *items = realloc(list->items, cap * sizeof *items);
        if (!items)
            return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory for the case list");
        list->items = items;
        list->capacity = cap;
    }
    list->items[list->count++] = *c;
    return XPB_OK;
}

void xpb_case_list_free(xpb_case_list *list)
{
    free(list->items);
    memset(list, 0, sizeof *list);
}

void xpb_case_make_id(xpb_case *c)
{
    char params[128] = "";
    size_t used = 0;
    for (int i = 0; i < c->n_params && used < sizeof params; i++) {
        if (i)
            used += (size_t)snprintf(params + used, sizeof params - used, ",");
        if (used < sizeof params)
            used += (size_t)xpb_param_format(&c->params[i], params + used, sizeof params - used);
    }
    snprintf(c->id, sizeof c->id, "%s/%s/%s/%s", c->workload->name, xpb_op_get(c->op)->name, params,
             xpb_dtype_name(c->dtype));
}

void xpb_case_set_param(xpb_case *c, const char *key, int64_t value)
{
    for (int i = 0; i < c->n_params; i++)
        if (strcmp(c->params[i].key, key) == 0) {
            c->params[i].value = value;
            return;
        }
    if (c->n_params < XPB_MAX_PARAMS) {
        snprintf(c->params[c->n_params].key, sizeof c->params[0].key, "%s", key);
        c->params[c->n_params++].value = value;
    }
}

int64_t xpb_case_param(const xpb_case *c, const char *key, int64_t fallback)
{
    for (int i = 0; i < c->n_params; i++)
        if (strcmp(c->params[i].key, key) == 0)
            return c->params[i].value;
    return fallback;
}

bool xpb_name_in_list(const char *list, const char *name)
{
    if (!list)
        return true;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)); p += n)
        if ((p == list || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
            return true;
    return false;
}

bool xpb_sizes_get(const xpb_sizes *s, const char *key, int64_t *value)
{
    for (int i = 0; s && i < s->count; i++)
        if (strcmp(s->kv[i].key, key) == 0) {
            *value = s->kv[i].value;
            return true;
        }
    return false;
}

void xpb_case_data_free(xpb_case_data *d)
{
    for (int i = 0; i < d->n_in; i++)
        free(d->in[i]);
    if (d->host && d->host_free)
        d->host_free(d->host);
    memset(d, 0, sizeof *d);
}

const char *xpb_dtype_name(xpb_dtype t)
{
    switch (t) {
    case XPB_DTYPE_F32: return "fp32";
    case XPB_DTYPE_F16: return "fp16";
    case XPB_DTYPE_I32: return "i32";
    case XPB_DTYPE_U8: return "u8";
    }
    return "?";
}

size_t xpb_dtype_size(xpb_dtype t)
{
    switch (t) {
    case XPB_DTYPE_F32: case XPB_DTYPE_I32: return 4;
    case XPB_DTYPE_F16: return 2;
    case XPB_DTYPE_U8: return 1;
    }
    return 0;
}
