/* xpb_tuning_apply.c - a run's tuning: for each opened device, the tuning file that holds its
 * entry (--tuning FILE, else the user's cache by fingerprint, else a shipped one by name), its
 * values set into the knobs' tuned layer, and the record the results carry (xpb_tuning.h). */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_tuning.h"

/* A one-line warning: printed, and kept for the results. */
static void warn(xpb_tuning_state *st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void warn(xpb_tuning_state *st, const char *fmt, ...)
{
    char line[sizeof st->warnings[0]];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "xpubench: warning: %s\n", line);
    if (st->n_warnings < XPB_TUNING_MAX_WARNINGS)
        snprintf(st->warnings[st->n_warnings++], sizeof st->warnings[0], "%s", line);
}

/* The entry for d in f, recorded into u; false when f has none. */
static bool take(const xpb_tuning_file *f, const xpb_device *d, const xpb_tuning_fingerprint *fp,
                 xpb_tuning_match least, const char *origin, xpb_tuning_used *u, bool *same_backend)
{
    xpb_tuning_match how;
    const xpb_tuning_entry *e = xpb_tuning_entry_for(f, fp, &how, same_backend);
    if (!e || how < least)
        return false;
    memset(u, 0, sizeof *u);
    snprintf(u->device, sizeof u->device, "%s", d->label);
    snprintf(u->file, sizeof u->file, "%s", f->path);
    snprintf(u->sha256, sizeof u->sha256, "%s", f->sha256);
    u->origin = origin;
    u->match = how;
    u->entry = *e;
    return true;
}

/* The cache file of fp: its entry when it is this device's; a corrupt or foreign file warns, and
 * *present says a file was there (then the defaults, never a shipped tuning, as the warning says). */
static bool from_cache(xpb_tuning_state *st, const xpb_device *d, const xpb_tuning_fingerprint *fp, xpb_tuning_used *u,
                       bool *present)
{
    char path[1024], text[700];
    xpb_tuning_file f;
    bool missing = false, same = false, found = false;
    xpb_error err = {{0}};
    *present = false;
    if (!xpb_tuning_cache_path(fp, path, sizeof path))
        return false;
    *present = true;
    if (xpb_tuning_load(path, &f, &missing, &err)) {
        *present = !missing;
        if (!missing)
            warn(st, "%s: %s; running with the default knobs", d->label, err.msg);
        return false;
    }
    found = take(&f, d, fp, XPB_TUNING_MATCH_FINGERPRINT, "cache", u, &same);
    if (!found)
        warn(st, "%s: tuning file %s is not for this device (%s); running with the default knobs", d->label, path,
             xpb_tuning_fingerprint_text(fp, text, sizeof text));
    xpb_tuning_file_free(&f);
    return found;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The first shipped file (by file name) with an entry of d's backend and name. */
static bool from_shipped(xpb_tuning_state *st, const xpb_device *d, const xpb_tuning_fingerprint *fp, xpb_tuning_used *u)
{
    char dir[900];
    if (!xpb_tuning_shipped_dir(dir, sizeof dir))
        return false;
    DIR *dp = opendir(dir);
    if (!dp)
        return false;
    char *files[256];
    size_t n = 0;
    for (struct dirent *e; (e = readdir(dp)) && n < 256;) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0)
            files[n++] = strdup(e->d_name);
    }
    closedir(dp);
    qsort(files, n, sizeof files[0], by_name);
    bool found = false;
    for (size_t i = 0; i < n; i++) {
        char path[1200];
        xpb_tuning_file f;
        xpb_error err = {{0}};
        bool same = false;
        snprintf(path, sizeof path, "%s/%s", dir, files[i] ? files[i] : "");
        if (!found && files[i] && xpb_tuning_load(path, &f, NULL, &err) == XPB_OK) {
            found = take(&f, d, fp, XPB_TUNING_MATCH_NAME, "shipped", u, &same);
            xpb_tuning_file_free(&f);
        } else if (!found && files[i]) {
            warn(st, "%s: %s; skipped", d->label, err.msg);
        }
        free(files[i]);
    }
    return found;
}

/* Whether u's values agree with every tuning already set into the layer (another device of the
 * same backend): knobs are per process. */
static bool agrees(xpb_tuning_state *st, const xpb_tuning_used *u)
{
    for (int i = 0; i < st->n_used; i++) {
        const xpb_tuning_entry *a = &st->used[i].entry, *b = &u->entry;
        if (strcmp(a->device.backend, b->device.backend) != 0)
            continue;
        bool same = a->n_values == b->n_values;
        for (int k = 0; same && k < a->n_values; k++)
            same = a->values[k].id == b->values[k].id && strcmp(a->values[k].value, b->values[k].value) == 0;
        if (!same) {
            warn(st, "%s: tuning %s differs from %s's, and knobs are per process: %s runs with %s's (run the devices "
                 "separately to use both)", u->device, u->file, st->used[i].device, u->device, st->used[i].device);
            return false;
        }
    }
    return true;
}

/* Sets u's values into the tuned layer and says so, with the environment's overrides. */
static void set_values(xpb_tuning_used *u)
{
    char list[1024] = "";
    size_t used = 0;
    for (int k = 0; k < u->entry.n_values; k++) {
        const xpb_tuning_value *v = &u->entry.values[k];
        xpb_error ignored = {{0}};
        xpb_knob_set_tuned(v->id, v->value, &ignored); /* checked when the file was read */
        const char *env = xpb_knob_env(v->id), *name = xpb_knob_decl_of(v->id)->name;
        if (env) {
            snprintf(u->env[k], sizeof u->env[k], "%s", env);
            fprintf(stderr, "xpubench: %s=%s from the environment overrides the tuning's %s (%s)\n", name, env,
                    v->value, u->file);
        }
        if (used < sizeof list)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s=%s", k ? " " : "", name, v->value);
    }
    fprintf(stderr, "xpubench: %s tuned by %s (%s): %s\n", u->device, u->file, u->origin,
            u->entry.n_values ? list : "the defaults were best");
}

xpb_status xpb_tuning_apply(xpb_tuning_state *st, const xpb_device *devices, size_t n, const char *path, bool off,
                            xpb_error *err)
{
    memset(st, 0, sizeof *st);
    st->mode = off ? "off" : path ? "file" : "auto";
    xpb_knob_clear_tuned();
    if (off)
        return XPB_OK;
    xpb_tuning_file named;
    if (path) {
        snprintf(st->requested, sizeof st->requested, "%s", path);
        xpb_status s = xpb_tuning_load(path, &named, NULL, err);
        if (s)
            return XPB_ERR_USAGE; /* named on the command line: a usage error, never ignored */
    }
    bool any = false, other_backend_only = true;
    for (size_t i = 0; i < n && st->n_used < XPB_TUNING_MAX_DEVICES; i++) {
        const xpb_device *d = &devices[i];
        xpb_tuning_fingerprint fp;
        xpb_tuning_fingerprint_of(d->backend->name, &d->info, &fp);
        xpb_tuning_used *u = &st->used[st->n_used];
        bool same = false, got;
        char text[700];
        if (path) {
            got = take(&named, d, &fp, XPB_TUNING_MATCH_NAME, "option", u, &same);
            other_backend_only &= !same;
            if (!got && same)
                warn(st, "%s: tuning file %s has no entry for this device (%s); running with the default knobs",
                     d->label, path, xpb_tuning_fingerprint_text(&fp, text, sizeof text));
        } else {
            bool cached = false;
            got = from_cache(st, d, &fp, u, &cached) || (!cached && from_shipped(st, d, &fp, u));
        }
        if (got && agrees(st, u)) {
            set_values(u);
            st->n_used++;
            any = true;
        }
    }
    if (path) {
        if (!any && other_backend_only)
            warn(st, "tuning file %s has no entry for any device of this run; running with the default knobs", path);
        xpb_tuning_file_free(&named);
    }
    return XPB_OK;
}

void xpb_tuning_json(cJSON *root, const xpb_tuning_state *st)
{
    cJSON *t = cJSON_AddObjectToObject(root, "tuning");
    cJSON_AddStringToObject(t, "mode", st->mode ? st->mode : "auto");
    if (st->requested[0])
        cJSON_AddStringToObject(t, "requested", st->requested);
    cJSON *devs = cJSON_AddArrayToObject(t, "devices");
    for (int i = 0; i < st->n_used; i++) {
        const xpb_tuning_used *u = &st->used[i];
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "device", u->device);
        cJSON_AddStringToObject(d, "file", u->file);
        cJSON_AddStringToObject(d, "sha256", u->sha256);
        cJSON_AddStringToObject(d, "origin", u->origin);
        cJSON_AddStringToObject(d, "match", u->match == XPB_TUNING_MATCH_FINGERPRINT ? "fingerprint" : "name");
        cJSON *k = cJSON_AddObjectToObject(d, "knobs"), *env = NULL;
        for (int j = 0; j < u->entry.n_values; j++) {
            const char *name = xpb_knob_decl_of(u->entry.values[j].id)->name;
            cJSON_AddStringToObject(k, name, u->entry.values[j].value);
            if (u->env[j][0])
                cJSON_AddStringToObject(env ? env : (env = cJSON_AddObjectToObject(d, "environment")), name, u->env[j]);
        }
        cJSON_AddItemToArray(devs, d);
    }
    cJSON *w = cJSON_AddArrayToObject(t, "warnings");
    for (int i = 0; i < st->n_warnings; i++)
        cJSON_AddItemToArray(w, cJSON_CreateString(st->warnings[i]));
}
