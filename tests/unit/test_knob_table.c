/* test_knob_table.c - the declared knobs (harness/core/xpb_knobs.def, read by id through xpb_knob.h):
 * every knob is declared sensibly (a name XPB_*, unique, sorted within its backend, a reader and a
 * sentence); unset, each reads as its declared default; set to its declared default, each reads
 * the same value; set to a value it does not accept, each typed knob is a usage error whose
 * message names the knob and what it accepts, and *out keeps the default. The CUDA knobs that
 * once fell back to their default silently (XPB_CUDA_TILED_BK, XPB_CUDA_CLUSTER_LOAD) are tried
 * by name here, since CUDA tests skip on a machine without a GPU. The tune rows (XPB_KNOB_TUNE)
 * name ops that exist and candidates their knob accepts; the tuned layer sits under the
 * environment. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_knob.h"
#include "xpb_ops.h"
#include "xpb_test.h"

static bool is_int(xpb_knob_type t) { return t == XPB_KNOB_TYPE_INT || t == XPB_KNOB_TYPE_POW2; }

/* Reads id as its type does; *value = what it read (a number or a word's index). */
static xpb_status read_knob(xpb_knob_id id, double *value, xpb_error *err)
{
    const xpb_knob_decl *d = xpb_knob_decl_of(id);
    long l = -1;
    double x = -1;
    int w = -1;
    xpb_status st = XPB_OK;
    if (is_int(d->type))
        st = xpb_knob_get_long(id, &l, err), x = (double)l;
    else if (d->type == XPB_KNOB_TYPE_NUM)
        st = xpb_knob_get_double(id, &x, err);
    else if (d->type == XPB_KNOB_TYPE_WORD)
        st = xpb_knob_get_choice(id, &w, err), x = w;
    else
        x = 0;
    *value = x;
    return st;
}

/* One value id must reject: the message names the knob and what it accepts; the default stays. */
static void check_rejects(xpb_knob_id id, const char *value, double def)
{
    const xpb_knob_decl *d = xpb_knob_decl_of(id);
    char accepts[256];
    xpb_error err = {{0}};
    double got = -2;
    setenv(d->name, value, 1);
    xpb_status st = read_knob(id, &got, &err);
    CHECK(st == XPB_ERR_USAGE);
    CHECK(xpb_knob_check(id, &err) == XPB_ERR_USAGE);
    CHECK(got == def);
    CHECK(strstr(err.msg, d->name) != NULL && strstr(err.msg, xpb_knob_accepts(d, accepts, sizeof accepts)) != NULL);
    if (st != XPB_ERR_USAGE || !strstr(err.msg, d->name))
        fprintf(stderr, "  %s='%s' was not rejected as it should be: '%s'\n", d->name, value, err.msg);
    unsetenv(d->name);
}

static void check_declaration(xpb_knob_id id)
{
    const xpb_knob_decl *d = xpb_knob_decl_of(id);
    CHECK(strncmp(d->name, "XPB_", 4) == 0);
    CHECK(d->def && d->def[0] && d->reader && d->reader[0] && d->what && d->what[0]);
    CHECK(strcmp(d->backend, "cpu") == 0 || strcmp(d->backend, "cuda") == 0 || strcmp(d->backend, "vulkan") == 0 ||
          strcmp(d->backend, "harness") == 0);
    CHECK(!strchr(d->what, '|') && !strchr(d->reader, '|') && !strchr(d->def, '|')); /* Markdown cells */
    if (d->type == XPB_KNOB_TYPE_WORD || d->type == XPB_KNOB_TYPE_TEXT || d->type == XPB_KNOB_TYPE_ENV)
        CHECK(d->values && d->values[0]);
    if (is_int(d->type) || d->type == XPB_KNOB_TYPE_NUM)
        CHECK(d->lo < d->hi);
    if (d->type == XPB_KNOB_TYPE_WORD) { /* the default is one of the words */
        char bars[140];
        snprintf(bars, sizeof bars, "|%s|", d->values);
        char want[64];
        snprintf(want, sizeof want, "|%s|", d->def);
        CHECK(strstr(bars, want) != NULL);
    }
    if (id > 0) { /* sorted by backend as declared, then by name; names unique */
        const xpb_knob_decl *p = xpb_knob_decl_of((xpb_knob_id)(id - 1));
        CHECK(strcmp(p->backend, d->backend) != 0 || strcmp(p->name, d->name) < 0);
    }
}

static void check_values(xpb_knob_id id)
{
    const xpb_knob_decl *d = xpb_knob_decl_of(id);
    xpb_error err = {{0}};
    double unset = -3, set = -4;
    unsetenv(d->name);
    CHECK(read_knob(id, &unset, &err) == XPB_OK && xpb_knob_check(id, &err) == XPB_OK);
    CHECK(xpb_knob_value(id) == NULL);
    setenv(d->name, "", 1); /* empty is unset */
    CHECK(read_knob(id, &set, &err) == XPB_OK && set == unset && xpb_knob_value(id) == NULL);
    if (d->def[0] != '(') { /* a declared value: set to it, the same */
        setenv(d->name, d->def, 1);
        CHECK(read_knob(id, &set, &err) == XPB_OK && set == unset);
        CHECK(xpb_knob_value(id) && strcmp(xpb_knob_value(id), d->def) == 0);
    }
    unsetenv(d->name);
    if (d->type == XPB_KNOB_TYPE_TEXT || d->type == XPB_KNOB_TYPE_ENV)
        return; /* their readers check the form (tests: gemm_knob_bad_vulkan, rows_regs_bad_shape_cuda) */
    check_rejects(id, "not-a-value", unset);
    check_rejects(id, "1x", unset);
    if (is_int(d->type) || d->type == XPB_KNOB_TYPE_NUM) {
        char v[64];
        snprintf(v, sizeof v, "%.0f", d->hi + 1);
        check_rejects(id, v, unset);
        snprintf(v, sizeof v, "%.0f", d->lo - 1);
        check_rejects(id, v, unset);
    }
    if (d->type == XPB_KNOB_TYPE_POW2) {
        char v[64];
        long np2 = (long)d->lo + 1;
        while ((np2 & (np2 - 1)) == 0) /* the first value above lo that is not a power of two */
            np2++;
        snprintf(v, sizeof v, "%ld", np2);
        check_rejects(id, v, unset);
    }
}

/* A tune row (XPB_KNOB_TUNE): a typed knob, ops that exist, candidates it accepts. */
static void check_tune_row(xpb_knob_id id)
{
    const xpb_knob_tune *t = xpb_knob_tune_of(id);
    const xpb_knob_decl *d = xpb_knob_decl_of(id);
    if (!t)
        return;
    CHECK(d->type != XPB_KNOB_TYPE_ENV && t->variants[0]);
    char ops[160];
    snprintf(ops, sizeof ops, "%s", t->ops);
    for (char *s = ops, *bar; s; s = bar ? bar + 1 : NULL) {
        if ((bar = strchr(s, '|')))
            *bar = '\0';
        CHECK(xpb_op_from_name(s) != XPB_OP_COUNT);
    }
    char c[XPB_KNOB_MAX_CANDIDATES][XPB_KNOB_VALUE_LEN];
    int n = xpb_knob_candidates(t, c);
    CHECK(n >= 1);
    for (int i = 0; i < n; i++) {
        xpb_error err = {{0}};
        CHECK(xpb_knob_check_value(id, c[i], &err) == XPB_OK);
        if (err.msg[0])
            fprintf(stderr, "  %s: candidate '%s': %s\n", d->name, c[i], err.msg);
    }
}

/* The tuned layer: a tuned value reads as set; the environment overrides it; a knob without a
 * tune row, or a value it does not accept, is refused. */
static void check_tuned_layer(void)
{
    xpb_error err = {{0}};
    long l = 0;
    unsetenv("XPB_VULKAN_ROW_L2_CHUNK");
    CHECK(xpb_knob_set_tuned(XPB_KNOB_VULKAN_ROW_L2_CHUNK, "2048", &err) == XPB_OK);
    CHECK(xpb_knob_get_long(XPB_KNOB_VULKAN_ROW_L2_CHUNK, &l, &err) == XPB_OK && l == 2048);
    CHECK(strcmp(xpb_knob_value(XPB_KNOB_VULKAN_ROW_L2_CHUNK), "2048") == 0);
    setenv("XPB_VULKAN_ROW_L2_CHUNK", "1024", 1);
    CHECK(xpb_knob_get_long(XPB_KNOB_VULKAN_ROW_L2_CHUNK, &l, &err) == XPB_OK && l == 1024);
    CHECK(strcmp(xpb_knob_tuned(XPB_KNOB_VULKAN_ROW_L2_CHUNK), "2048") == 0);
    unsetenv("XPB_VULKAN_ROW_L2_CHUNK");
    CHECK(xpb_knob_set_tuned(XPB_KNOB_VULKAN_ROW_L2_CHUNK, "3000", &err) == XPB_ERR_USAGE);
    CHECK(xpb_knob_set_tuned(XPB_KNOB_VULKAN_MAX_GROUPS, "4", &err) == XPB_ERR_USAGE);
    CHECK(xpb_knob_set_tuned(XPB_KNOB_VULKAN_TILED_LANES, "rows", &err) == XPB_OK);
    int w = -1;
    CHECK(xpb_knob_get_choice(XPB_KNOB_VULKAN_TILED_LANES, &w, &err) == XPB_OK && w == 1);
    xpb_knob_clear_tuned();
    CHECK(xpb_knob_get_long(XPB_KNOB_VULKAN_ROW_L2_CHUNK, &l, &err) == XPB_OK && l == 4096);
    CHECK(xpb_knob_value(XPB_KNOB_VULKAN_TILED_LANES) == NULL);
    CHECK(xpb_knob_find("VULKAN_ROW_L2_CHUNK") == XPB_KNOB_VULKAN_ROW_L2_CHUNK &&
          xpb_knob_find("XPB_NOT_A_KNOB") == XPB_KNOB_COUNT);
}

int main(void)
{
    check_tuned_layer();
    for (int i = 0; i < XPB_KNOB_COUNT; i++)
        check_tune_row((xpb_knob_id)i);
    for (int i = 0; i < XPB_KNOB_COUNT; i++) {
        check_declaration((xpb_knob_id)i);
        check_values((xpb_knob_id)i);
    }
    /* the two CUDA knobs that were silent before issue 34: their values, and the errors */
    xpb_error err = {{0}};
    int w = -1;
    setenv("XPB_CUDA_TILED_BK", "16", 1);
    CHECK(xpb_knob_get_choice(XPB_KNOB_CUDA_TILED_BK, &w, &err) == XPB_OK && w == 1);
    setenv("XPB_CUDA_TILED_BK", "64", 1);
    CHECK(xpb_knob_get_choice(XPB_KNOB_CUDA_TILED_BK, &w, &err) == XPB_ERR_USAGE && w == 0);
    CHECK(strcmp(err.msg, "XPB_CUDA_TILED_BK='64': expected 32 or 16") == 0);
    unsetenv("XPB_CUDA_TILED_BK");
    setenv("XPB_CUDA_CLUSTER_LOAD", "thread", 1);
    CHECK(xpb_knob_get_choice(XPB_KNOB_CUDA_CLUSTER_LOAD, &w, &err) == XPB_ERR_USAGE && w == 0);
    CHECK(strcmp(err.msg, "XPB_CUDA_CLUSTER_LOAD='thread': expected bulk or threads") == 0);
    setenv("XPB_CUDA_CLUSTER_LOAD", "threads", 1);
    CHECK(xpb_knob_get_choice(XPB_KNOB_CUDA_CLUSTER_LOAD, &w, &err) == XPB_OK && w == 1);
    unsetenv("XPB_CUDA_CLUSTER_LOAD");
    /* the Vulkan switches that took any value but "0" as on: now 0 or 1 (VALIDATION: or sync) */
    setenv("XPB_VULKAN_PIPELINE_STATS", "yes", 1);
    CHECK(xpb_knob_check(XPB_KNOB_VULKAN_PIPELINE_STATS, &err) == XPB_ERR_USAGE);
    CHECK(xpb_knob_choice_or_default(XPB_KNOB_VULKAN_PIPELINE_STATS) == 0);
    CHECK(xpb_knob_check_backend("vulkan", &err) == XPB_ERR_USAGE && strstr(err.msg, "XPB_VULKAN_PIPELINE_STATS"));
    CHECK(xpb_knob_check_backend("cuda", &err) == XPB_OK);
    unsetenv("XPB_VULKAN_PIPELINE_STATS");
    setenv("XPB_VULKAN_VALIDATION", "sync", 1);
    CHECK(xpb_knob_choice_or_default(XPB_KNOB_VULKAN_VALIDATION) == 2);
    unsetenv("XPB_VULKAN_VALIDATION");
    CHECK(xpb_knob_check_backend(NULL, &err) == XPB_OK);
    /* a word by its index, as a kernel's description names the form it chose */
    char word[16];
    CHECK(strcmp(xpb_knob_word(XPB_KNOB_CUDA_ROW_EXP, 2, word, sizeof word), "once") == 0);
    CHECK(strcmp(xpb_knob_word(XPB_KNOB_CUDA_ROW_EXP, 3, word, sizeof word), "?") == 0);
    CHECK(strcmp(xpb_knob_word(XPB_KNOB_CUDA_TILED_BK, 1, word, sizeof word), "16") == 0);
    CHECK(strcmp(xpb_knob_word(XPB_KNOB_CUDA_REGS_SHAPE, 0, word, sizeof word), "?") == 0); /* TEXT */
    /* a reader of the wrong type is an error, never a value */
    long l = 7;
    CHECK(xpb_knob_get_long(XPB_KNOB_CUDA_TILED_BK, &l, &err) == XPB_ERR_USAGE);
    XPB_TEST_END();
}
