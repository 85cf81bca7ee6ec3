/* xpb_tune_ops.c - which cases a tune candidate is timed on (xpb_tune_ops.h): a per-op value's
 * ops, and the cases of some ops as a `run --filter` regex. Generic: the ops come from the knob's
 * XPB_KNOB_TUNE row and the value's syntax, never from a knob's name. */
#define _POSIX_C_SOURCE 200809L
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "xpb_knob.h" /* xpb_op_item_next */
#include "xpb_tune_ops.h"
#include "xpb_workload.h"

/* Whether the first len characters of s are one of the '|'-separated names of list. */
static bool listed(const char *list, const char *s, size_t len)
{
    for (const char *p = list; *p;) {
        size_t l = strcspn(p, "|");
        if (l == len && strncmp(p, s, len) == 0)
            return true;
        p += l;
        if (*p == '|')
            p++;
    }
    return false;
}

bool xpb_tune_op_listed(const char *ops, const char *op)
{
    return !ops || !*ops || listed(ops, op, strlen(op));
}

int xpb_tune_value_ops(const char *knob_ops, const char *value, char *out, size_t n)
{
    if (n)
        out[0] = '\0';
    if (!*value)
        return 0;
    /* every item OP:..., OP one of the knob's ops; any other item: the value is for every op */
    xpb_op_item it;
    for (const char *pos = value; xpb_op_item_next(&pos, &it);)
        if (!it.val || it.op_len == 0 || !listed(knob_ops, it.op, it.op_len))
            return 0;
    /* the knob's ops that some item names, in the knob's order (an op named twice counts once) */
    int count = 0;
    size_t used = 0;
    for (const char *op = knob_ops; *op;) {
        size_t l = strcspn(op, "|");
        bool named = false;
        for (const char *pos = value; !named && xpb_op_item_next(&pos, &it);)
            named = it.op_len == l && strncmp(it.op, op, l) == 0;
        if (named) {
            if (used + l + 2 > n) {
                if (n)
                    out[0] = '\0';
                return 0;
            }
            used += (size_t)snprintf(out + used, n - used, "%s%.*s", count ? "|" : "", (int)l, op);
            count++;
        }
        op += l;
        if (*op == '|')
            op++;
    }
    return count;
}

/* Appends s to dst[*o..n) with the characters special to a POSIX extended regex escaped; false
 * when it does not fit. */
static bool append_escaped(char *dst, size_t n, size_t *o, const char *s)
{
    for (; *s; s++) {
        if (*o + 3 >= n)
            return false;
        if (strchr(".[]()*+?{}|^$\\", *s))
            dst[(*o)++] = '\\';
        dst[(*o)++] = *s;
    }
    dst[*o] = '\0';
    return true;
}

int xpb_tune_case_filter(const char *preset, const char *filter, const char *ops, char *dst, size_t n)
{
    regex_t re;
    if (filter && regcomp(&re, filter, REG_EXTENDED | REG_NOSUB) != 0)
        return 0; /* checked by cmd_tune */
    size_t used = (size_t)snprintf(dst, n, "^(");
    int count = 0;
    bool fits = used + 3 < n;
    for (const xpb_workload_i *const *w = xpb_workloads(); *w && fits; w++) {
        xpb_case_list l = {0};
        xpb_error err = {{0}};
        xpb_sizes sizes;
        memset(&sizes, 0, sizeof sizes);
        if ((*w)->group || (*w)->add_cases(preset, &sizes, &l, &err) != XPB_OK) {
            xpb_case_list_free(&l);
            continue;
        }
        for (size_t i = 0; i < l.count && fits; i++) {
            if (!xpb_tune_op_listed(ops, xpb_op_get(l.items[i].op)->name) ||
                (filter && regexec(&re, l.items[i].id, 0, NULL, 0) != 0))
                continue;
            if (count++)
                dst[used++] = '|';
            fits = append_escaped(dst, n, &used, l.items[i].id);
        }
        xpb_case_list_free(&l);
    }
    if (filter)
        regfree(&re);
    if (!fits || used + 3 >= n)
        return -1;
    snprintf(dst + used, n - used, ")$");
    return count;
}
