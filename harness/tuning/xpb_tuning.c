/* xpb_tuning.c - the tuning file: the device fingerprint, reading and checking a file, finding
 * the entry of a device, and writing an entry into a file (xpb_tuning.h, docs/tuning.md). */
#define _POSIX_C_SOURCE 200809L
#include "xpb_tuning.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "xpb_atomic_file.h"
#include "xpb_sha256.h"

#define MAX_FILE_BYTES (16u << 20) /* a tuning file is a few KiB; anything this large is not one */

void xpb_tuning_fingerprint_of(const char *backend, const xpb_device_info *info, xpb_tuning_fingerprint *fp)
{
    memset(fp, 0, sizeof *fp);
    snprintf(fp->backend, sizeof fp->backend, "%s", backend);
    snprintf(fp->name, sizeof fp->name, "%s", info->name);
    fp->compute_units = info->compute_units;
    fp->peak_gbps = lround(info->peak_gbps);
    snprintf(fp->driver, sizeof fp->driver, "%s", info->driver);
}

const char *xpb_tuning_fingerprint_text(const xpb_tuning_fingerprint *fp, char *buf, size_t n)
{
    char peak[32] = "peak bandwidth not reported"; /* Vulkan has no query for it: 0 in the file */
    if (fp->peak_gbps > 0)
        snprintf(peak, sizeof peak, "%ld GB/s", fp->peak_gbps);
    snprintf(buf, n, "%s '%s' %d CUs, %s, driver '%s'", fp->backend, fp->name, fp->compute_units, peak, fp->driver);
    return buf;
}

static bool same_fingerprint(const xpb_tuning_fingerprint *a, const xpb_tuning_fingerprint *b)
{
    return strcmp(a->backend, b->backend) == 0 && strcmp(a->name, b->name) == 0 &&
           a->compute_units == b->compute_units && a->peak_gbps == b->peak_gbps && strcmp(a->driver, b->driver) == 0;
}

/* ---- reading ---- */

/* The whole file into a new buffer (*len bytes, NUL-terminated); NULL with *st and err set. */
static char *read_all(const char *path, size_t *len, bool *missing, xpb_status *st, xpb_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (missing)
            *missing = errno == ENOENT;
        *st = xpb_fail(err, XPB_ERR_IO, "tuning file %s: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(MAX_FILE_BYTES + 1);
    size_t n = buf ? fread(buf, 1, MAX_FILE_BYTES + 1, f) : 0;
    bool bad = !buf || ferror(f);
    fclose(f);
    if (bad || n > MAX_FILE_BYTES) {
        free(buf);
        *st = xpb_fail(err, bad ? XPB_ERR_IO : XPB_ERR_USAGE, "tuning file %s: %s", path,
                 bad ? "cannot be read" : "larger than 16 MiB: not a tuning file");
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static xpb_status bad(const char *path, xpb_error *err, const char *what)
{
    return xpb_fail(err, XPB_ERR_USAGE, "tuning file %s is not valid: %s (docs/tuning.md)", path, what);
}

static xpb_status parse_device(const char *path, const cJSON *e, xpb_tuning_fingerprint *fp, xpb_error *err)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(e, "backend");
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(e, "device");
    if (!cJSON_IsString(b) || !xpb_backend_name_known(b->valuestring))
        return bad(path, err, "an entry's \"backend\" is not cpu, cuda or vulkan");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(d, "name"), *cu = cJSON_GetObjectItemCaseSensitive(d, "compute_units");
    const cJSON *gbps = cJSON_GetObjectItemCaseSensitive(d, "peak_gbps"), *drv = cJSON_GetObjectItemCaseSensitive(d, "driver");
    if (!cJSON_IsObject(d) || !cJSON_IsString(name) || !cJSON_IsNumber(cu) || !cJSON_IsNumber(gbps) || !cJSON_IsString(drv))
        return bad(path, err, "an entry's \"device\" lacks name, compute_units, peak_gbps or driver");
    memset(fp, 0, sizeof *fp);
    snprintf(fp->backend, sizeof fp->backend, "%s", b->valuestring);
    snprintf(fp->name, sizeof fp->name, "%s", name->valuestring);
    snprintf(fp->driver, sizeof fp->driver, "%s", drv->valuestring);
    fp->compute_units = (int)cu->valuedouble;
    fp->peak_gbps = lround(gbps->valuedouble);
    return XPB_OK;
}

/* An entry's "knobs": each a declared tunable knob of the entry's backend, with a value it accepts. */
static xpb_status parse_knobs(const char *path, const cJSON *e, xpb_tuning_entry *out, xpb_error *err)
{
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(e, "knobs"), *v;
    if (!cJSON_IsObject(k))
        return bad(path, err, "an entry has no \"knobs\" object");
    char what[400];
    cJSON_ArrayForEach(v, k)
    {
        xpb_knob_id id = xpb_knob_find(v->string);
        const xpb_knob_decl *d = id < XPB_KNOB_COUNT ? xpb_knob_decl_of(id) : NULL;
        xpb_error why = {{0}};
        if (!d || strncmp(v->string, "XPB_", 4) != 0)
            snprintf(what, sizeof what, "knob %.80s is not declared (xpubench list --knobs)", v->string);
        else if (!xpb_knob_tune_of(id) || strcmp(d->backend, out->device.backend) != 0)
            snprintf(what, sizeof what, "knob %s is not a tunable knob of %s (xpubench tune --list)", d->name,
                     out->device.backend);
        else if (!cJSON_IsString(v) || xpb_knob_check_value(id, v->valuestring, &why))
            snprintf(what, sizeof what, "%.*s", (int)sizeof what - 1,
                     cJSON_IsString(v) ? why.msg : "a knob's value is not a string"); /* cut to fit */
        else {
            out->values[out->n_values].id = id;
            snprintf(out->values[out->n_values++].value, XPB_KNOB_VALUE_LEN, "%s", v->valuestring);
            continue;
        }
        return bad(path, err, what);
    }
    return XPB_OK;
}

static xpb_status parse(const char *path, const cJSON *root, xpb_tuning_file *out, xpb_error *err)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(root, "schema");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "schema_version");
    const cJSON *entries = cJSON_GetObjectItemCaseSensitive(root, "entries"), *e;
    if (!cJSON_IsObject(root) || !cJSON_IsString(s) || strcmp(s->valuestring, XPB_TUNING_SCHEMA) != 0)
        return bad(path, err, "not an " XPB_TUNING_SCHEMA " file");
    if (!cJSON_IsNumber(v) || v->valuedouble != XPB_TUNING_SCHEMA_VERSION)
        return bad(path, err, "schema_version is not 1");
    if (!cJSON_IsArray(entries))
        return bad(path, err, "no \"entries\" array");
    int n = cJSON_GetArraySize(entries);
    out->entries = calloc(n > 0 ? (size_t)n : 1, sizeof *out->entries);
    if (!out->entries)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "tuning file %s: out of memory", path);
    cJSON_ArrayForEach(e, entries)
    {
        xpb_tuning_entry *t = &out->entries[out->n_entries++];
        xpb_status st = cJSON_IsObject(e) ? parse_device(path, e, &t->device, err) : bad(path, err, "an entry is not an object");
        if (st || (st = parse_knobs(path, e, t, err)))
            return st;
    }
    return XPB_OK;
}

xpb_status xpb_tuning_load(const char *path, xpb_tuning_file *out, bool *missing, xpb_error *err)
{
    memset(out, 0, sizeof *out);
    if (missing)
        *missing = false;
    size_t len = 0;
    xpb_status st = XPB_OK;
    char *text = read_all(path, &len, missing, &st, err);
    if (!text)
        return st;
    cJSON *root = cJSON_ParseWithLength(text, len);
    st = root ? parse(path, root, out, err) : bad(path, err, "not JSON");
    if (!st) {
        snprintf(out->path, sizeof out->path, "%s", path);
        xpb_sha256_hex(text, len, out->sha256);
    }
    cJSON_Delete(root);
    free(text);
    if (st)
        xpb_tuning_file_free(out);
    return st;
}

void xpb_tuning_file_free(xpb_tuning_file *f)
{
    free(f->entries);
    memset(f, 0, sizeof *f);
}

const xpb_tuning_entry *xpb_tuning_entry_for(const xpb_tuning_file *f, const xpb_tuning_fingerprint *fp,
                                             xpb_tuning_match *how, bool *same_backend)
{
    const xpb_tuning_entry *by_name = NULL;
    *same_backend = false;
    for (int i = 0; i < f->n_entries; i++) {
        const xpb_tuning_entry *e = &f->entries[i];
        if (strcmp(e->device.backend, fp->backend) != 0)
            continue;
        *same_backend = true;
        if (same_fingerprint(&e->device, fp)) {
            *how = XPB_TUNING_MATCH_FINGERPRINT;
            return e;
        }
        if (!by_name && strcmp(e->device.name, fp->name) == 0)
            by_name = e;
    }
    *how = by_name ? XPB_TUNING_MATCH_NAME : XPB_TUNING_MATCH_NONE;
    return by_name;
}

/* ---- writing ---- */

cJSON *xpb_tuning_entry_json(const xpb_tuning_fingerprint *fp, const xpb_tuning_value *values, int n)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "backend", fp->backend);
    cJSON *d = cJSON_AddObjectToObject(e, "device");
    cJSON_AddStringToObject(d, "name", fp->name);
    cJSON_AddNumberToObject(d, "compute_units", fp->compute_units);
    cJSON_AddNumberToObject(d, "peak_gbps", (double)fp->peak_gbps);
    cJSON_AddStringToObject(d, "driver", fp->driver);
    cJSON *k = cJSON_AddObjectToObject(e, "knobs");
    for (int i = 0; i < n; i++)
        cJSON_AddStringToObject(k, xpb_knob_decl_of(values[i].id)->name, values[i].value);
    return e;
}

/* mkdir -p of path's folder. */
static xpb_status make_parents(const char *path, xpb_error *err)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            return xpb_fail(err, XPB_ERR_IO, "cannot create %s for the tuning file: %s", dir, strerror(errno));
        *p = '/';
    }
    return XPB_OK;
}

/* The file at path as a cJSON root to add to: a new one when missing; NULL with *st and err
 * when it exists and is not a valid tuning file. */
static cJSON *existing_root(const char *path, xpb_status *st, xpb_error *err)
{
    bool missing = false;
    xpb_tuning_file f;
    if ((*st = xpb_tuning_load(path, &f, &missing, err))) {
        if (!missing)
            return NULL;
        *st = XPB_OK;
        cJSON *root = cJSON_CreateObject();
        cJSON_AddStringToObject(root, "schema", XPB_TUNING_SCHEMA);
        cJSON_AddNumberToObject(root, "schema_version", XPB_TUNING_SCHEMA_VERSION);
        cJSON_AddArrayToObject(root, "entries");
        return root;
    }
    xpb_tuning_file_free(&f);
    size_t len = 0;
    char *text = read_all(path, &len, NULL, st, err);
    cJSON *root = text ? cJSON_ParseWithLength(text, len) : NULL;
    free(text);
    if (text && !root) /* changed since it was checked */
        *st = bad(path, err, "not JSON");
    return root;
}

/* A tune split over calls (`--knobs`, or one cut short) writes an entry whose sweep holds only
 * the knobs it swept; the same device's earlier entry's records of the other knobs carry over,
 * each tagged with the tune it came from ("tuned_at": its time, commit, preset, filter, runs, rounds,
 * threshold and warm-up: a later tune may use others), so the
 * file keeps why every knob has its value. A record already tagged keeps its tag. */
static void carry_sweep(const cJSON *old, cJSON *entry)
{
    const cJSON *old_t = cJSON_GetObjectItemCaseSensitive(old, "tuned");
    const cJSON *old_sweep = cJSON_GetObjectItemCaseSensitive(old_t, "sweep");
    cJSON *sweep = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(entry, "tuned"), "sweep");
    if (!cJSON_IsArray(old_sweep) || !cJSON_IsArray(sweep))
        return;
    const cJSON *item;
    cJSON_ArrayForEach(item, old_sweep) {
        const char *knob = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(item, "knob"));
        if (!knob)
            continue;
        bool swept = false;
        const cJSON *now;
        cJSON_ArrayForEach(now, sweep) {
            const char *k = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(now, "knob"));
            swept = swept || (k && strcmp(k, knob) == 0);
        }
        cJSON *copy = swept ? NULL : cJSON_Duplicate(item, true);
        if (!copy)
            continue;
        if (!cJSON_GetObjectItemCaseSensitive(copy, "tuned_at")) {
            cJSON *at = cJSON_AddObjectToObject(copy, "tuned_at");
            static const char *const keys[] = {"created_utc", "git_commit", "preset", "filter", "runs", "rounds",
                                               "threshold", "warmup_s"};
            for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
                const cJSON *v = cJSON_GetObjectItemCaseSensitive(old_t, keys[i]);
                if (v)
                    cJSON_AddItemToObject(at, keys[i], cJSON_Duplicate(v, true));
            }
        }
        cJSON_AddItemToArray(sweep, copy);
    }
}

xpb_status xpb_tuning_save_entry(const char *path, cJSON *entry, const xpb_tuning_fingerprint *fp, xpb_error *err)
{
    xpb_status st = XPB_OK;
    cJSON *root = existing_root(path, &st, err);
    if (!root) {
        cJSON_Delete(entry);
        return st;
    }
    cJSON *entries = cJSON_GetObjectItemCaseSensitive(root, "entries");
    for (int i = cJSON_GetArraySize(entries) - 1; i >= 0; i--) { /* the same device's earlier entry goes */
        xpb_tuning_fingerprint other;
        xpb_error ignored = {{0}};
        if (!parse_device(path, cJSON_GetArrayItem(entries, i), &other, &ignored) && same_fingerprint(&other, fp)) {
            carry_sweep(cJSON_GetArrayItem(entries, i), entry);
            cJSON_DeleteItemFromArray(entries, i);
        }
    }
    cJSON_AddItemToArray(entries, entry);
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    st = text ? make_parents(path, err) : xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of memory writing %s", path);
    char tmp[1100];
    FILE *f = st ? NULL : xpb_file_begin(path, tmp, sizeof tmp, err);
    if (!st && !f)
        st = XPB_ERR_IO;
    if (f) {
        fputs(text, f);
        fputc('\n', f);
        st = xpb_file_commit(f, tmp, path, err);
    }
    free(text);
    return st;
}
