/* xpb_knob.c - knobs from the environment: unset means the default, invalid is an error; the
 * declared knobs (xpb_knobs.def) and their readers by id. */
#include "xpb_knob.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *lookup(const char *name);

/* The integer parse of xpb_knob_long, of a value v (NULL or empty: def). */
static xpb_status parse_long(const char *name, const char *v, long lo, long hi, bool pow2, long def, long *out,
                             xpb_error *err)
{
    *out = def;
    if (!v || !*v)
        return XPB_OK;
    char *end = NULL;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (end == v || *end != '\0' || errno == ERANGE || n < lo || n > hi || (pow2 && (n <= 0 || (n & (n - 1)))))
        return xpb_fail(err, XPB_ERR_USAGE, "%s='%s': expected an integer in [%ld, %ld]%s", name, v, lo, hi,
                        pow2 ? ", a power of two" : "");
    *out = n;
    return XPB_OK;
}

static xpb_status parse_double(const char *name, const char *v, double lo, double hi, double def, double *out,
                               xpb_error *err)
{
    *out = def;
    if (!v || !*v)
        return XPB_OK;
    char *end = NULL;
    double x = strtod(v, &end);
    if (end == v || *end != '\0' || !(x > lo && x < hi))
        return xpb_fail(err, XPB_ERR_USAGE, "%s='%s': expected a number above %g and below %g", name, v, lo, hi);
    *out = x;
    return XPB_OK;
}

static xpb_status parse_choice(const char *name, const char *v, const char *const *choices, int n, int def,
                               int *out, xpb_error *err)
{
    *out = def;
    if (!v || !*v)
        return XPB_OK;
    char list[256] = "";
    for (int i = 0; i < n; i++) {
        if (strcmp(v, choices[i]) == 0) {
            *out = i;
            return XPB_OK;
        }
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", i ? " or " : "", choices[i]);
    }
    return xpb_fail(err, XPB_ERR_USAGE, "%s='%s': expected %s", name, v, list);
}

xpb_status xpb_knob_long(const char *name, long lo, long hi, bool pow2, long def, long *out, xpb_error *err)
{
    return parse_long(name, lookup(name), lo, hi, pow2, def, out, err);
}

xpb_status xpb_knob_double(const char *name, double lo, double hi, double def, double *out, xpb_error *err)
{
    return parse_double(name, lookup(name), lo, hi, def, out, err);
}

xpb_status xpb_knob_choice(const char *name, const char *const *choices, int n, int def, int *out, xpb_error *err)
{
    return parse_choice(name, lookup(name), choices, n, def, out, err);
}

/* ---- the declared knobs (xpb_knobs.def) ---- */

static const xpb_knob_decl knobs[XPB_KNOB_COUNT] = {
#define XPB_KNOB(id, type, lo, hi, values, def, backend, reader, what) \
    {"XPB_" #id, XPB_KNOB_TYPE_##type, (double)(lo), (double)(hi), values, def, backend, reader, what},
#include "xpb_knobs.def"
#undef XPB_KNOB
};

const xpb_knob_decl *xpb_knob_decl_of(xpb_knob_id id) { return &knobs[id]; }

/* The tuned layer (xpb_knob_set_tuned): one value per knob, set before any case runs. */
static char tuned[XPB_KNOB_COUNT][XPB_KNOB_VALUE_LEN];
static bool has_tuned[XPB_KNOB_COUNT];

const char *xpb_knob_env(xpb_knob_id id)
{
    const char *v = getenv(knobs[id].name);
    return v && *v ? v : NULL;
}

const char *xpb_knob_tuned(xpb_knob_id id) { return has_tuned[id] ? tuned[id] : NULL; }

const char *xpb_knob_value(xpb_knob_id id)
{
    const char *v = xpb_knob_env(id);
    return v ? v : xpb_knob_tuned(id);
}

xpb_knob_id xpb_knob_find(const char *name)
{
    for (int i = 0; i < XPB_KNOB_COUNT; i++)
        if (strcmp(knobs[i].name, name) == 0 || strcmp(knobs[i].name + 4, name) == 0)
            return (xpb_knob_id)i;
    return XPB_KNOB_COUNT;
}

/* The environment's value of `name`, else the tuned value of the declared knob of that name. */
static const char *lookup(const char *name)
{
    const char *v = getenv(name);
    if (v && *v)
        return v;
    xpb_knob_id id = xpb_knob_find(name);
    return id < XPB_KNOB_COUNT && strncmp(name, "XPB_", 4) == 0 ? xpb_knob_tuned(id) : NULL;
}

#define MAX_WORDS 8

/* A WORD knob's values "a|b" as words[0..n) (copied into buf). */
static int split_words(const char *values, char buf[128], const char *words[MAX_WORDS])
{
    snprintf(buf, 128, "%s", values);
    int n = 0;
    for (char *s = buf; n < MAX_WORDS; n++) {
        words[n] = s;
        char *bar = strchr(s, '|');
        if (!bar) {
            n++;
            break;
        }
        *bar = '\0';
        s = bar + 1;
    }
    return n;
}

static int word_index(const char *const *words, int n, const char *w)
{
    for (int i = 0; i < n; i++)
        if (strcmp(words[i], w) == 0)
            return i;
    return -1;
}

/* The declared default of an INT/POW2/NUM knob; 0 for one declared "(...)" (its reader passes
 * its own through xpb_knob_get_long_or). */
static double default_number(const xpb_knob_decl *d) { return d->def[0] == '(' ? 0.0 : strtod(d->def, NULL); }

const char *xpb_knob_accepts(const xpb_knob_decl *d, char *buf, size_t n)
{
    switch (d->type) {
    case XPB_KNOB_TYPE_INT:
    case XPB_KNOB_TYPE_POW2:
        snprintf(buf, n, "an integer in [%ld, %ld]%s", (long)d->lo, (long)d->hi,
                 d->type == XPB_KNOB_TYPE_POW2 ? ", a power of two" : "");
        break;
    case XPB_KNOB_TYPE_NUM:
        snprintf(buf, n, "a number above %g and below %g", d->lo, d->hi);
        break;
    case XPB_KNOB_TYPE_WORD: {
        char tmp[128];
        const char *w[MAX_WORDS];
        int k = split_words(d->values, tmp, w);
        buf[0] = '\0';
        for (int i = 0; i < k; i++) {
            size_t used = strlen(buf);
            snprintf(buf + used, n - used, "%s%s", i ? " or " : "", w[i]);
        }
        break;
    }
    default:
        snprintf(buf, n, "%s", d->values);
    }
    return buf;
}

static xpb_status get_long(xpb_knob_id id, long def, long *out, xpb_error *err)
{
    const xpb_knob_decl *d = &knobs[id];
    if (d->type != XPB_KNOB_TYPE_INT && d->type != XPB_KNOB_TYPE_POW2) {
        *out = def;
        return xpb_fail(err, XPB_ERR_USAGE, "%s is not an integer knob (xpb_knobs.def)", d->name);
    }
    return xpb_knob_long(d->name, (long)d->lo, (long)d->hi, d->type == XPB_KNOB_TYPE_POW2, def, out, err);
}

xpb_status xpb_knob_get_long(xpb_knob_id id, long *out, xpb_error *err)
{
    return get_long(id, (long)default_number(&knobs[id]), out, err);
}

xpb_status xpb_knob_get_long_or(xpb_knob_id id, long def, long *out, xpb_error *err)
{
    return get_long(id, def, out, err);
}

xpb_status xpb_knob_get_double(xpb_knob_id id, double *out, xpb_error *err)
{
    const xpb_knob_decl *d = &knobs[id];
    double def = default_number(d);
    if (d->type != XPB_KNOB_TYPE_NUM) {
        *out = def;
        return xpb_fail(err, XPB_ERR_USAGE, "%s is not a number knob (xpb_knobs.def)", d->name);
    }
    return xpb_knob_double(d->name, d->lo, d->hi, def, out, err);
}

xpb_status xpb_knob_get_choice(xpb_knob_id id, int *out, xpb_error *err)
{
    const xpb_knob_decl *d = &knobs[id];
    *out = 0;
    if (d->type != XPB_KNOB_TYPE_WORD)
        return xpb_fail(err, XPB_ERR_USAGE, "%s is not a word knob (xpb_knobs.def)", d->name);
    char buf[128];
    const char *w[MAX_WORDS];
    int n = split_words(d->values, buf, w), def = word_index(w, n, d->def);
    return xpb_knob_choice(d->name, w, n, def < 0 ? 0 : def, out, err);
}

xpb_status xpb_knob_get_text(xpb_knob_id id, const char **out, xpb_error *err)
{
    (void)err;
    *out = xpb_knob_value(id);
    return XPB_OK;
}

xpb_status xpb_knob_get_long_for_op(xpb_knob_id id, const char *ops, const char *op, bool pow2, long def, long *out,
                                    xpb_error *err)
{
    const xpb_knob_decl *d = &knobs[id];
    const char *v = xpb_knob_value(id);
    *out = def;
    if (!v || !*v)
        return XPB_OK;
    if (!strchr(v, ':')) /* one value for every op */
        return parse_long(d->name, v, (long)d->lo, (long)d->hi, pow2, def, out, err);
    char buf[128];
    const char *w[MAX_WORDS];
    const int n = split_words(ops, buf, w);
    long mine = def;
    xpb_op_item it;
    for (const char *pos = v; xpb_op_item_next(&pos, &it);) {
        char name[XPB_KNOB_VALUE_LEN] = "", num[XPB_KNOB_VALUE_LEN] = "";
        if (it.val && it.op_len < sizeof name && it.val_len < sizeof num) {
            snprintf(name, sizeof name, "%.*s", (int)it.op_len, it.op);
            snprintf(num, sizeof num, "%.*s", (int)it.val_len, it.val);
        }
        if (!num[0] || word_index(w, n, name) < 0)
            return xpb_fail(err, XPB_ERR_USAGE, "%s='%s': expected %s, OP one of %s", d->name, v, d->values, ops);
        long x;
        xpb_status st = parse_long(d->name, num, (long)d->lo, (long)d->hi, pow2, def, &x, err);
        if (st)
            return st;
        if (strcmp(name, op) == 0)
            mine = x;
    }
    *out = mine;
    return XPB_OK;
}

const char *xpb_knob_word(xpb_knob_id id, int index, char *buf, size_t n)
{
    const xpb_knob_decl *d = &knobs[id];
    char tmp[128];
    const char *w[MAX_WORDS];
    const int k = d->type == XPB_KNOB_TYPE_WORD ? split_words(d->values, tmp, w) : 0;
    snprintf(buf, n, "%s", index >= 0 && index < k ? w[index] : "?");
    return buf;
}

int xpb_knob_choice_or_default(xpb_knob_id id)
{
    int i = 0;
    xpb_error ignored;
    xpb_knob_get_choice(id, &i, &ignored);
    return i;
}

xpb_status xpb_knob_check(xpb_knob_id id, xpb_error *err)
{
    long l;
    double x;
    int w;
    switch (knobs[id].type) {
    case XPB_KNOB_TYPE_INT:
    case XPB_KNOB_TYPE_POW2:
        return xpb_knob_get_long(id, &l, err);
    case XPB_KNOB_TYPE_NUM:
        return xpb_knob_get_double(id, &x, err);
    case XPB_KNOB_TYPE_WORD:
        return xpb_knob_get_choice(id, &w, err);
    default:
        return XPB_OK;
    }
}

xpb_status xpb_knob_check_backend(const char *backend, xpb_error *err)
{
    for (int i = 0; i < XPB_KNOB_COUNT; i++) {
        if (backend && strcmp(knobs[i].backend, backend) != 0)
            continue;
        xpb_status st = xpb_knob_check((xpb_knob_id)i, err);
        if (st)
            return st;
    }
    return XPB_OK;
}

/* ---- what the tuner sweeps, and the tuned layer ---- */

static const xpb_knob_tune tune_rows[] = {
#define XPB_KNOB(id, type, lo, hi, values, def, backend, reader, what)
#define XPB_KNOB_TUNE(id, ops, variants, candidates) {XPB_KNOB_##id, ops, variants, candidates},
#include "xpb_knobs.def"
#undef XPB_KNOB_TUNE
#undef XPB_KNOB
};

const xpb_knob_tune *xpb_knob_tune_of(xpb_knob_id id)
{
    for (size_t i = 0; i < sizeof tune_rows / sizeof tune_rows[0]; i++)
        if (tune_rows[i].id == id)
            return &tune_rows[i];
    return NULL;
}

int xpb_knob_candidates(const xpb_knob_tune *t, char out[XPB_KNOB_MAX_CANDIDATES][XPB_KNOB_VALUE_LEN])
{
    const xpb_knob_decl *d = &knobs[t->id];
    int n = 0;
    if (strcmp(t->candidates, "*") == 0 && d->type == XPB_KNOB_TYPE_POW2) {
        for (long v = 1; v <= (long)d->hi && n < XPB_KNOB_MAX_CANDIDATES; v *= 2)
            if (v >= (long)d->lo)
                snprintf(out[n++], XPB_KNOB_VALUE_LEN, "%ld", v);
        return n;
    }
    const char *list = strcmp(t->candidates, "*") == 0 && d->type == XPB_KNOB_TYPE_WORD ? d->values : t->candidates;
    if (strcmp(list, "*") == 0)
        return 0; /* "*" of an INT, NUM or TEXT knob: nothing to expand (test_knob_table refuses it) */
    char all[512];
    snprintf(all, sizeof all, "%s", list);
    for (char *s = all, *bar; s && n < XPB_KNOB_MAX_CANDIDATES; s = bar ? bar + 1 : NULL) {
        if ((bar = strchr(s, '|')))
            *bar = '\0';
        snprintf(out[n++], XPB_KNOB_VALUE_LEN, "%.*s", XPB_KNOB_VALUE_LEN - 1, s);
    }
    return n;
}

xpb_status xpb_knob_check_value(xpb_knob_id id, const char *value, xpb_error *err)
{
    const xpb_knob_decl *d = &knobs[id];
    long l;
    double x;
    int i;
    char buf[128];
    const char *w[MAX_WORDS];
    if (!value || !*value || strlen(value) >= XPB_KNOB_VALUE_LEN)
        return xpb_fail(err, XPB_ERR_USAGE, "%s='%s': expected a value of at most %d characters", d->name,
                        value ? value : "", XPB_KNOB_VALUE_LEN - 1);
    switch (d->type) {
    case XPB_KNOB_TYPE_INT:
    case XPB_KNOB_TYPE_POW2:
        return parse_long(d->name, value, (long)d->lo, (long)d->hi, d->type == XPB_KNOB_TYPE_POW2, 0, &l, err);
    case XPB_KNOB_TYPE_NUM:
        return parse_double(d->name, value, d->lo, d->hi, 0, &x, err);
    case XPB_KNOB_TYPE_WORD:
        return parse_choice(d->name, value, w, split_words(d->values, buf, w), 0, &i, err);
    case XPB_KNOB_TYPE_TEXT:
        return XPB_OK;
    default:
        return xpb_fail(err, XPB_ERR_USAGE, "%s is not a tuning knob (xpb_knobs.def)", d->name);
    }
}

xpb_status xpb_knob_set_tuned(xpb_knob_id id, const char *value, xpb_error *err)
{
    if (!value) {
        has_tuned[id] = false;
        return XPB_OK;
    }
    if (!xpb_knob_tune_of(id))
        return xpb_fail(err, XPB_ERR_USAGE, "%s is not a knob a tuning may set (no XPB_KNOB_TUNE row in xpb_knobs.def)",
                        knobs[id].name);
    xpb_status st = xpb_knob_check_value(id, value, err);
    if (st)
        return st;
    snprintf(tuned[id], sizeof tuned[id], "%s", value);
    has_tuned[id] = true;
    return XPB_OK;
}

void xpb_knob_clear_tuned(void) { memset(has_tuned, 0, sizeof has_tuned); }
