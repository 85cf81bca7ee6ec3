/* xpb_dump.c - a case's inputs, outputs and reference as .npy files with a JSON sidecar
 * (xpb_dump.h). */
#define _POSIX_C_SOURCE 200809L
#include "xpb_dump.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xpb_atomic_file.h"
#include "xpb_input.h"
#include "xpb_json.h"
#include "xpb_npy.h"
#include "xpb_source.h"

#define PATH_LEN 1024
#define REF_CHUNK_ELEMENTS ((size_t)1 << 20)

/* ---- names, shapes and the rerun command -------------------------------------------------------- */

void xpb_dump_stem(const char *case_id, char *buf, size_t n)
{
    size_t o = 0;
    for (const char *s = case_id; *s && o + 3 < n; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '/') {
            buf[o++] = '_';
            buf[o++] = '_';
        } else {
            buf[o++] = ch == '=' ? '-' : (isalnum(ch) || ch == '.' || ch == '-' || ch == '_') ? (char)ch : '_';
        }
    }
    buf[o] = '\0';
}

static int64_t param_ci(const xpb_case *c, const char *key)
{
    for (int i = 0; i < c->n_params; i++) {
        const char *a = c->params[i].key, *b = key;
        while (*a && tolower((unsigned char)*a) == *b)
            a++, b++;
        if (!*a && !*b)
            return c->params[i].value;
    }
    return -1;
}

typedef struct shape_list {
    int n;
    int nd[12];
    int64_t s[12][4];
} shape_list;

static void add_shape(shape_list *l, int nd, int64_t a, int64_t b, int64_t c, int64_t d)
{
    int64_t v[4] = {a, b, c, d};
    for (int i = 0; i < nd; i++)
        if (v[i] < 0)
            return;
    if (l->n < 12) {
        l->nd[l->n] = nd;
        memcpy(l->s[l->n++], v, sizeof v);
    }
}

int xpb_dump_shape(const xpb_case *c, const char *name, size_t elements, size_t shape[4])
{
    shape_list l = {0};
    int64_t m = param_ci(c, "m"), n = param_ci(c, "n"), k = param_ci(c, "k");
    if (m < 0 && n >= 0 && k >= 0)
        m = 1; /* gemv: a gemm with M = 1 */
    int64_t rows = param_ci(c, "rows"), cols = param_ci(c, "cols");
    char first = (char)tolower((unsigned char)name[0]);
    if (m >= 0 && n >= 0 && k >= 0) { /* gemm / gemv: A (M, K), B (K, N), C and out (M, N) */
        if (first == 'a')
            add_shape(&l, 2, m, k, 0, 0);
        if (first == 'b')
            add_shape(&l, 2, k, n, 0, 0);
        add_shape(&l, 2, m, n, 0, 0);
        add_shape(&l, 2, m, k, 0, 0);
        add_shape(&l, 2, k, n, 0, 0);
    }
    add_shape(&l, 4, param_ci(c, "batch"), param_ci(c, "heads"), param_ci(c, "seq"), param_ci(c, "head_dim"));
    if ((first == 'w' || first == 'b') && name[1] == '\0')
        add_shape(&l, 1, cols, 0, 0, 0); /* per-column weight or bias */
    add_shape(&l, 2, rows, cols, 0, 0);
    add_shape(&l, 1, cols, 0, 0, 0);
    for (int i = 0; i < l.n; i++) {
        uint64_t prod = 1;
        for (int d = 0; d < l.nd[i]; d++)
            prod *= (uint64_t)l.s[i][d];
        if (prod == elements) {
            for (int d = 0; d < l.nd[i]; d++)
                shape[d] = (size_t)l.s[i][d];
            return l.nd[i];
        }
    }
    shape[0] = elements;
    return 1;
}

/* Appends src to buf[*o..n), escaping POSIX ERE metacharacters and quoting for a POSIX shell
 * (the caller wraps the result in single quotes). */
static void append_regex_quoted(char *buf, size_t n, size_t *o, const char *src)
{
    for (; *src && *o + 6 < n; src++) {
        if (*src == '\'') {
            memcpy(buf + *o, "'\\''", 4); /* end quote, literal ', reopen */
            *o += 4;
            continue;
        }
        if (strchr(".[]()*+?{}|^$\\", *src))
            buf[(*o)++] = '\\';
        buf[(*o)++] = *src;
    }
    buf[*o] = '\0';
}

/* Appends ' --input FILE' (shell-quoted when it needs it) to buf[*o..n). */
static void append_input(char *buf, size_t n, size_t *o, const char *file)
{
    *o += (size_t)snprintf(buf + *o, n - *o, " --input ");
    xpb_shell_word(buf, n, o, file);
}

void xpb_dump_rerun_command(const xpb_case *c, const char *device, uint64_t seed, char *buf, size_t n)
{
    char self[1024]; /* this binary by its absolute path: the quick start puts no xpubench on PATH */
    xpb_self_path(self, sizeof self);
    size_t o = 0;
    xpb_shell_word(buf, n, &o, self);
    if (o < n)
        o += (size_t)snprintf(buf + o, n - o, " run --backend %s --workload %s", device ? device : "cpu",
                              c->workload->name);
    if (c->input && o < n)
        append_input(buf, n, &o, c->input);
    bool first = true;
    for (int i = 0; i < c->n_params && o < n; i++) {
        if (c->input && !c->workload->knows_size_key(c->params[i].key))
            continue; /* a param --input implies (file=1) */
        o += (size_t)snprintf(buf + o, n - o, "%s", first ? " --size " : ",");
        first = false;
        if (o < n)
            o += (size_t)xpb_param_format(&c->params[i], buf + o, n - o);
    }
    if (o < n)
        o += (size_t)snprintf(buf + o, n - o, " --filter '^");
    if (o < n)
        append_regex_quoted(buf, n, &o, c->id);
    if (o < n)
        snprintf(buf + o, n - o, "$' --seed %" PRIu64, seed);
}

/* ---- files -------------------------------------------------------------------------------------- */

static xpb_status make_dirs(const char *dir, xpb_error *err)
{
    char p[PATH_LEN];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1;; s++) {
        if (*s == '/' || *s == '\0') {
            char keep = *s;
            *s = '\0';
            if (mkdir(p, 0777) != 0 && errno != EEXIST)
                return xpb_fail(err, XPB_ERR_IO, "cannot create dump directory %s: %s", p, strerror(errno));
            if (!keep)
                break;
            *s = keep;
        }
    }
    return XPB_OK;
}

/* dst = dir/file; false when it does not fit. */
static bool join_path(char *dst, size_t n, const char *dir, const char *file)
{
    return snprintf(dst, n, "%s/%s", dir, file) < (int)n;
}

static cJSON *array_entry(const char *file, const char *descr, const size_t *shape, int nd)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", file);
    cJSON_AddStringToObject(o, "dtype", descr);
    cJSON *s = cJSON_AddArrayToObject(o, "shape");
    for (int i = 0; i < nd; i++)
        cJSON_AddItemToArray(s, cJSON_CreateNumber((double)shape[i]));
    return o;
}

xpb_status xpb_dump_array(const char *dir, const char *file, const char *descr, size_t elem_size,
                          const size_t *shape, int nd, const void *data, cJSON *into, const char *key,
                          xpb_error *err)
{
    char path[PATH_LEN];
    if (!join_path(path, sizeof path, dir, file))
        return xpb_fail(err, XPB_ERR_IO, "dump directory path too long: %s", dir);
    xpb_status st = xpb_npy_write(path, descr, elem_size, shape, nd, data, err);
    if (st)
        return st;
    cJSON_DeleteItemFromObjectCaseSensitive(into, key);
    cJSON_AddItemToObject(into, key, array_entry(file, descr, shape, nd));
    return XPB_OK;
}

/* Reference and tolerance of output 0, computed unit range by unit range and streamed. */
static xpb_status write_reference(const char *dir, const char *stem, const xpb_case *c, const xpb_case_data *d,
                                  const char *precision, cJSON *arrays, xpb_error *err)
{
    size_t unit = c->workload->unit_elements(c), total = d->out_elements;
    if (unit == 0 || total % unit)
        return xpb_fail(err, XPB_ERR_USAGE, "dump %s: %zu output elements are not whole units of %zu", c->id, total, unit);
    size_t shape[4], chunk_units = REF_CHUNK_ELEMENTS / unit ? REF_CHUNK_ELEMENTS / unit : 1;
    int nd = xpb_dump_shape(c, "out", total, shape);
    double *ref = malloc(chunk_units * unit * sizeof *ref), *tol = malloc(chunk_units * unit * sizeof *tol);
    char pr[PATH_LEN], pt[PATH_LEN], fr[PATH_LEN], ft[PATH_LEN];
    snprintf(fr, sizeof fr, "%s.reference.npy", stem);
    snprintf(ft, sizeof ft, "%s.tolerance.%s.npy", stem, precision);
    xpb_npy_writer wr = {0}, wt = {0};
    xpb_status st = ref && tol ? XPB_OK : xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "dump %s: out of host memory", c->id);
    if (!st && (!join_path(pr, sizeof pr, dir, fr) || !join_path(pt, sizeof pt, dir, ft)))
        st = xpb_fail(err, XPB_ERR_IO, "dump directory path too long: %s", dir);
    if (!st)
        st = xpb_npy_begin(&wr, pr, xpb_npy_descr_f64(), sizeof(double), shape, nd, err);
    if (!st)
        st = xpb_npy_begin(&wt, pt, xpb_npy_descr_f64(), sizeof(double), shape, nd, err);
    for (size_t u0 = 0; !st && u0 < total / unit; u0 += chunk_units) {
        size_t u1 = u0 + chunk_units < total / unit ? u0 + chunk_units : total / unit;
        c->workload->reference(c, d, precision, u0, u1, ref, tol);
        st = xpb_npy_append(&wr, ref, (u1 - u0) * unit * sizeof *ref, err);
        if (!st)
            st = xpb_npy_append(&wt, tol, (u1 - u0) * unit * sizeof *tol, err);
    }
    if (!st)
        st = xpb_npy_end(&wr, err);
    if (!st)
        st = xpb_npy_end(&wt, err);
    xpb_npy_abort(&wr);
    xpb_npy_abort(&wt);
    free(ref);
    free(tol);
    if (!st) {
        char key[96];
        snprintf(key, sizeof key, "tolerance.%s", precision);
        cJSON *tol_entry = array_entry(ft, xpb_npy_descr_f64(), shape, nd);
        cJSON_AddStringToObject(tol_entry, "precision", precision);
        cJSON_AddStringToObject(tol_entry, "bound", c->workload->tolerance_text(c, precision));
        cJSON_DeleteItemFromObjectCaseSensitive(arrays, "reference");
        cJSON_AddItemToObject(arrays, "reference", array_entry(fr, xpb_npy_descr_f64(), shape, nd));
        cJSON_AddItemToObject(arrays, key, tol_entry);
    }
    return st;
}

static xpb_status write_inputs(const char *dir, const char *stem, const xpb_case *c, const xpb_case_data *d,
                               cJSON *arrays, xpb_error *err)
{
    for (int i = 0; i < d->n_in; i++) {
        size_t es = xpb_dtype_size(c->dtype), shape[4];
        const char *descr = xpb_npy_descr(c->dtype);
        if (es == 0 || d->in_bytes[i] % es) { /* not whole elements of the case dtype: raw bytes */
            es = 1;
            descr = "|u1";
        }
        const char *name = d->in_name[i] ? d->in_name[i] : "in";
        int nd = xpb_dump_shape(c, name, d->in_bytes[i] / es, shape);
        char file[PATH_LEN], key[64];
        snprintf(file, sizeof file, "%s.in.%s.npy", stem, name);
        snprintf(key, sizeof key, "in.%s", name);
        xpb_status st = xpb_dump_array(dir, file, descr, es, shape, nd, d->in[i], arrays, key, err);
        if (st)
            return st;
    }
    return XPB_OK;
}

/* The sidecar already there, when it describes this case and seed and its arrays exist. */
static cJSON *reusable_sidecar(const char *path, const char *dir, const char *case_id, const char *seed,
                               const char *section)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t len = 0;
    if (fseek(f, 0, SEEK_END) == 0 && (len = (size_t)ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (text = malloc(len)) && fread(text, 1, len, f) != len) {
        free(text);
        text = NULL;
    }
    fclose(f);
    cJSON *root = text ? cJSON_ParseWithLength(text, len) : NULL;
    free(text);
    const cJSON *id = cJSON_GetObjectItem(root, "case_id"), *sd = cJSON_GetObjectItem(root, "seed_text");
    const cJSON *arrays = cJSON_GetObjectItem(root, "arrays"), *a;
    bool ok = cJSON_IsString(id) && !strcmp(id->valuestring, case_id) && cJSON_IsString(sd) &&
              !strcmp(sd->valuestring, seed) && cJSON_IsObject(arrays) &&
              cJSON_IsObject(cJSON_GetObjectItem(root, section));
    cJSON_ArrayForEach(a, arrays)
    {
        const cJSON *file = cJSON_GetObjectItem(a, "file");
        char p[PATH_LEN];
        ok = ok && cJSON_IsString(file) && join_path(p, sizeof p, dir, file->valuestring) && access(p, R_OK) == 0;
    }
    if (!ok)
        cJSON_Delete(root);
    return ok ? root : NULL;
}

static cJSON *new_sidecar(const xpb_case *c, const char *seed, int schema_version, const char *section)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "schema", "xpubench-dump");
    cJSON_AddNumberToObject(o, "schema_version", schema_version);
    cJSON_AddStringToObject(o, "case_id", c->id);
    cJSON_AddStringToObject(o, "workload", c->workload->name);
    cJSON_AddStringToObject(o, "op", xpb_op_get(c->op)->name);
    cJSON_AddStringToObject(o, "dtype", xpb_dtype_name(c->dtype));
    cJSON_AddNumberToObject(o, "seed", strtod(seed, NULL));
    cJSON_AddStringToObject(o, "seed_text", seed);
    xpb_json_add_params(o, c);
    cJSON_AddItemToObject(o, "scalars", cJSON_CreateDoubleArray(c->scalar, 4));
    cJSON *w = cJSON_AddObjectToObject(o, "work");
    cJSON_AddNumberToObject(w, "elements", (double)c->elements);
    cJSON_AddNumberToObject(w, "bytes_read", (double)c->bytes_read);
    cJSON_AddNumberToObject(w, "bytes_written", (double)c->bytes_written);
    cJSON_AddNumberToObject(w, "flops", c->flops);
    cJSON_AddObjectToObject(o, "arrays");
    cJSON_AddObjectToObject(o, section);
    return o;
}

static xpb_status write_output(const char *dir, const char *stem, const xpb_case *c, const char *precision,
                               const float *out, size_t out_elements, uint64_t seed, const char *device,
                               const char *variant, cJSON *outputs, xpb_error *err)
{
    char tag[128], file[PATH_LEN], key[128], rerun[1024];
    snprintf(key, sizeof key, "%s/%s", device ? device : "-", variant ? variant : "-");
    xpb_dump_stem(key, tag, sizeof tag);
    snprintf(file, sizeof file, "%s.out.%s.npy", stem, tag);
    size_t shape[4];
    int nd = xpb_dump_shape(c, "out", out_elements, shape);
    xpb_status st = xpb_dump_array(dir, file, xpb_npy_descr(XPB_DTYPE_F32), sizeof(float), shape, nd, out,
                                   outputs, key, err);
    if (st)
        return st;
    cJSON *e = cJSON_GetObjectItemCaseSensitive(outputs, key);
    if (device)
        cJSON_AddStringToObject(e, "device", device);
    if (variant)
        cJSON_AddStringToObject(e, "variant", variant);
    cJSON_AddStringToObject(e, "precision", precision);
    xpb_dump_rerun_command(c, device, seed, rerun, sizeof rerun);
    cJSON_AddStringToObject(e, "rerun", rerun);
    return XPB_OK;
}

/* DIR/<stem>.json; false when it does not fit. */
static bool sidecar_path(char *dst, size_t n, const char *dir, const char *stem)
{
    return snprintf(dst, n, "%s/%s.json", dir, stem) < (int)n;
}

xpb_status xpb_dump_sidecar_open(const char *dir, const char *stem, const xpb_case *c, uint64_t seed,
                                 int schema_version, const char *section, cJSON **root, xpb_error *err)
{
    char sidecar[PATH_LEN], seed_text[32];
    *root = NULL;
    if (!sidecar_path(sidecar, sizeof sidecar, dir, stem))
        return xpb_fail(err, XPB_ERR_IO, "dump directory path too long: %s", dir);
    xpb_status st = make_dirs(dir, err);
    if (st)
        return st;
    snprintf(seed_text, sizeof seed_text, "%" PRIu64, seed);
    if (!(*root = reusable_sidecar(sidecar, dir, c->id, seed_text, section)))
        *root = new_sidecar(c, seed_text, schema_version, section);
    return *root ? XPB_OK : xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of memory building the sidecar of %s", c->id);
}

xpb_status xpb_dump_sidecar_commit(const char *dir, const char *stem, const cJSON *root, xpb_error *err)
{
    char path[PATH_LEN], tmp[PATH_LEN + 64];
    if (!sidecar_path(path, sizeof path, dir, stem))
        return xpb_fail(err, XPB_ERR_IO, "dump directory path too long: %s", dir);
    char *text = cJSON_Print(root);
    if (!text)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of memory while building %s", path);
    FILE *f = xpb_file_begin(path, tmp, sizeof tmp, err);
    if (f)
        fprintf(f, "%s\n", text);
    free(text);
    return f ? xpb_file_commit(f, tmp, path, err) : XPB_ERR_IO;
}

xpb_status xpb_dump_case(const char *dir, const xpb_case *c, const xpb_case_data *d, const char *precision,
                         const float *out, size_t out_elements, uint64_t seed, const char *device,
                         const char *variant, xpb_error *err)
{
    char tol_key[96];
    if (!precision || !*precision || !strcmp(precision, "-"))
        precision = "fp32";
    snprintf(tol_key, sizeof tol_key, "tolerance.%s", precision);
    char stem[XPB_CASE_ID_LEN * 2];
    xpb_dump_stem(c->id, stem, sizeof stem);
    cJSON *root;
    xpb_status st = xpb_dump_sidecar_open(dir, stem, c, seed, 1, "outputs", &root, err);
    if (st)
        return st;
    cJSON *arrays = cJSON_GetObjectItem(root, "arrays");
    if (!arrays->child) /* a new sidecar: the inputs are written once per case and seed */
        st = write_inputs(dir, stem, c, d, arrays, err);
    if (!st && !cJSON_GetObjectItem(arrays, tol_key)) /* the bound depends on the precision */
        st = write_reference(dir, stem, c, d, precision, arrays, err);
    if (!st && out)
        st = write_output(dir, stem, c, precision, out, out_elements, seed, device, variant,
                          cJSON_GetObjectItem(root, "outputs"), err);
    if (!st)
        st = xpb_dump_sidecar_commit(dir, stem, root, err);
    cJSON_Delete(root);
    return st;
}

/* What one dump writes: output 0 of a one-shot kernel (out), or a stateful run (run). */
typedef struct dump_job {
    const xpb_case *c;
    const xpb_case_data *d;
    const char *precision, *device, *variant;
    uint64_t seed;
    const float *out;
    const xpb_run_outcome *run;
} dump_job;

static xpb_status write_job(const char *dir, const dump_job *j, xpb_error *err)
{
    if (!j->run)
        return xpb_dump_case(dir, j->c, j->d, j->precision, j->out, j->d->out_elements, j->seed, j->device,
                             j->variant, err);
    char stem[XPB_CASE_ID_LEN * 2];
    xpb_dump_stem(j->c->id, stem, sizeof stem);
    xpb_run_origin origin = {j->precision && *j->precision ? j->precision : "fp32", j->device, j->variant, j->seed};
    return j->c->workload->dump_run(dir, stem, j->c, j->d, j->run, &origin, err);
}

static void after_validation(char *note, size_t note_len, const char *dump_dir, const char *fail_dir, bool failed,
                             const dump_job *j, int *auto_dumps)
{
    const char *dir = NULL, *why = NULL;
    size_t used = 0, bytes = j->d->out_elements * sizeof(float);
    for (int i = 0; j->run && i < j->d->n_in; i++)
        bytes += j->d->in_bytes[i];
    note[0] = '\0';
    if (j->run && !j->c->workload->dump_run) {
        if (dump_dir || (failed && fail_dir))
            why = "not written: this workload does not dump its runs";
    } else if (dump_dir) {
        dir = dump_dir;
    } else if (failed && fail_dir) {
        if (auto_dumps && *auto_dumps >= XPB_DUMP_AUTO_MAX)
            why = "not dumped: the automatic dump limit of this run is reached (use --dump DIR)";
        else if (bytes > XPB_DUMP_AUTO_MAX_BYTES)
            why = j->run ? "not dumped automatically: the inputs are over 256 MiB (use --dump DIR)"
                         : "not dumped automatically: the output is over 256 MiB (use --dump DIR)";
        else {
            dir = fail_dir;
            if (auto_dumps)
                (*auto_dumps)++;
        }
    }
    char line[1024];
    if (failed) {
        xpb_dump_rerun_command(j->c, j->device, j->seed, line, sizeof line);
        used += (size_t)snprintf(note, note_len, "  rerun: %s\n", line);
    }
    if (!dir) {
        if (why && used < note_len)
            snprintf(note + used, note_len - used, "  dump: %s\n", why);
        return;
    }
    xpb_error err = {{0}};
    if (write_job(dir, j, &err) != XPB_OK) {
        if (used < note_len)
            snprintf(note + used, note_len - used, "  dump failed: %s\n", err.msg);
        return;
    }
    if (failed && used < note_len) {
        xpb_dump_stem(j->c->id, line, sizeof line);
        const char *what = j->run ? "inputs, configuration, the run's state and trajectory"
                                  : "inputs, output, fp64 reference and tolerance";
        snprintf(note + used, note_len - used, "  dump: %s/%s.json (%s as .npy)\n", dir, line, what);
    }
}

void xpb_dump_after_validation(char *note, size_t note_len, const char *dump_dir, const char *fail_dir,
                               bool failed, const xpb_case *c, const xpb_case_data *d, const char *precision,
                               const float *out, uint64_t seed, const char *device, const char *variant,
                               int *auto_dumps)
{
    dump_job j = {c, d, precision, device, variant, seed, out, NULL};
    after_validation(note, note_len, dump_dir, fail_dir, failed, &j, auto_dumps);
}

void xpb_dump_run_after_validation(char *note, size_t note_len, const char *dump_dir, const char *fail_dir,
                                   bool failed, const xpb_case *c, const xpb_case_data *d,
                                   const xpb_run_outcome *o, const char *precision, uint64_t seed,
                                   const char *device, const char *variant, int *auto_dumps)
{
    dump_job j = {c, d, precision, device, variant, seed, NULL, o};
    after_validation(note, note_len, dump_dir, fail_dir, failed, &j, auto_dumps);
}
