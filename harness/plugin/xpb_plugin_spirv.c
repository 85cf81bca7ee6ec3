/* xpb_plugin_spirv.c - a SPIR-V module as a Vulkan kernel (--kernels FILE.spv; docs/plugins.md
 * "Vulkan: SPIR-V kernels").
 *
 * The module comes with a manifest, FILE.spv.json, naming its op, variant, version and, where the
 * defaults do not fit, precision, entry point and the work of one workgroup. Before anything is
 * registered the module's interface is read (xpb_spirv.c) and checked against the op's layout
 * below: a compute entry point with a workgroup size, storage buffers at set 0, bindings 0..n-1
 * (the op's inputs, then out) and nothing else, and a push-constant block that is a prefix of the
 * op's push struct (xpb_backend.h). Any mismatch is one line and XPB_ERR_USAGE, as for a library
 * that is no plugin. The kernel then runs through the backend's spirv_launch (vk_spirv.c). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_plugin_internal.h"
#include "xpb_sha256.h"
#include "xpb_spirv.h"

#define MAX_MODULE_BYTES (64u << 20)
#define MAX_MANIFEST_BYTES (64u << 10)
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define MAX_PER_INVOCATION 65536 /* rows_per_workgroup, elements_per_invocation, tile_rows, tile_cols */

/* The kinds of layout: each its push constants and the manifest keys that size its workgroups. */
typedef enum layout_kind { KIND_ELTWISE, KIND_ROWOP, KIND_GEMM, KIND_COUNT } layout_kind;

/* One op's layout: its bindings in order (inputs, then out) and its kind. */
typedef struct op_layout {
    xpb_op op;
    const char *bindings[4];
    int n_bindings;
    layout_kind kind;
} op_layout;

static const op_layout layouts[] = {
    {XPB_OP_COPY, {"x", "out"}, 2, KIND_ELTWISE},        {XPB_OP_ADD, {"x", "y", "out"}, 3, KIND_ELTWISE},
    {XPB_OP_MUL, {"x", "y", "out"}, 3, KIND_ELTWISE},    {XPB_OP_SCALE, {"x", "out"}, 2, KIND_ELTWISE},
    {XPB_OP_RELU, {"x", "out"}, 2, KIND_ELTWISE},        {XPB_OP_SIGMOID, {"x", "out"}, 2, KIND_ELTWISE},
    {XPB_OP_SILU, {"x", "out"}, 2, KIND_ELTWISE},        {XPB_OP_SOFTMAX, {"x", "out"}, 2, KIND_ROWOP},
    {XPB_OP_RMSNORM, {"x", "w", "out"}, 3, KIND_ROWOP},  {XPB_OP_LAYERNORM, {"x", "w", "b", "out"}, 4, KIND_ROWOP},
    {XPB_OP_GEMM, {"a", "b", "c_in", "c"}, 4, KIND_GEMM}, {XPB_OP_GEMV, {"a", "b", "c_in", "c"}, 4, KIND_GEMM},
};

/* A push constant: its name in the docs, offset and scalar type (an int member may be signed). */
typedef struct push_member {
    const char *name;
    uint32_t offset;
    bool is_float;
} push_member;

static const push_member rowop_push[] = {
    {"rows", offsetof(xpb_spirv_rowop_push, rows), false},
    {"cols", offsetof(xpb_spirv_rowop_push, cols), false},
    {"row_stride", offsetof(xpb_spirv_rowop_push, row_stride), false},
    {"eps", offsetof(xpb_spirv_rowop_push, eps), true},
};
static const push_member eltwise_push[] = {
    {"n", offsetof(xpb_spirv_eltwise_push, n), false},
    {"a", offsetof(xpb_spirv_eltwise_push, a), true},
};
static const push_member gemm_push[] = {
    {"m", offsetof(xpb_spirv_gemm_push, m), false},         {"n", offsetof(xpb_spirv_gemm_push, n), false},
    {"k", offsetof(xpb_spirv_gemm_push, k), false},         {"alpha", offsetof(xpb_spirv_gemm_push, alpha), true},
    {"beta", offsetof(xpb_spirv_gemm_push, beta), true},
};

/* Per kind: its push constants (as the docs write them) and the manifest keys that size its
 * workgroups (a key of another kind is an error, not ignored). */
static const struct {
    const push_member *push;
    int n_push;
    const char *push_text;
    const char *keys[2];
    const char *unit; /* what a workgroup takes, for list */
} kinds[KIND_COUNT] = {
    [KIND_ELTWISE] = {eltwise_push, COUNT(eltwise_push), "{uint n; float a;}", {"elements_per_invocation"},
                      "elements"},
    [KIND_ROWOP] = {rowop_push, COUNT(rowop_push), "{uint rows; uint cols; uint row_stride; float eps;}",
                    {"rows_per_workgroup"}, "rows"},
    [KIND_GEMM] = {gemm_push, COUNT(gemm_push), "{uint m; uint n; uint k; float alpha; float beta;}",
                   {"tile_rows", "tile_cols"}, "rows of C's tile"},
};

/* What a loaded module keeps until the process exits: the kernel the backend runs and the strings
 * and words it points to. */
typedef struct spirv_store {
    xpb_spirv_kernel k;
    char variant[64], precision[64], entry[64]; /* longer than allowed: xpb_plugin_slot_add refuses those */
    uint32_t words[];
} spirv_store;

bool xpb_plugin_is_spirv(const char *path)
{
    size_t n = strlen(path);
    if (n >= 4 && strcmp(path + n - 4, ".spv") == 0)
        return true;
    FILE *f = fopen(path, "rb");
    uint32_t magic = 0;
    bool yes = f && fread(&magic, sizeof magic, 1, f) == 1 && (magic == XPB_SPIRV_MAGIC || magic == 0x03022307u);
    if (f)
        fclose(f);
    return yes;
}

const char *xpb_plugin_spirv_per_group_unit(xpb_op op)
{
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        if (layouts[i].op == op)
            return kinds[layouts[i].kind].unit;
    return "items";
}

/* The whole file, at most max bytes, into *buf (malloc'd, with `extra` bytes of room in front). */
static xpb_status read_file(const char *what, const char *path, size_t max, size_t extra, unsigned char **buf,
                            size_t *len, xpb_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return xpb_fail(err, XPB_ERR_USAGE, "%s %s: %s", what, path, strerror(errno));
    unsigned char *b = malloc(extra + max + 1);
    size_t n = b ? fread(b + extra, 1, max + 1, f) : 0;
    bool bad = ferror(f) != 0;
    fclose(f);
    if (!b)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory reading %s", path);
    if (bad || n > max) {
        free(b);
        return xpb_fail(err, XPB_ERR_USAGE, "%s %s: %s", what, path,
                        bad ? "cannot be read" : "is too large for what it should be");
    }
    *buf = b;
    *len = n;
    return XPB_OK;
}

/* ---- the manifest ----------------------------------------------------------------------------- */

typedef struct manifest {
    const op_layout *layout;
    const char *variant, *version, *precision, *entry; /* into the parsed JSON */
    long per[2]; /* the kind's keys (rows_per_workgroup, elements_per_invocation, tile_rows and tile_cols) */
} manifest;

/* Every key a manifest may hold; from FIRST_SIZING_KEY on, those that size a kind's workgroups. */
static const char *const manifest_keys[] = {"op",        "variant",   "version",
                                            "precision", "entry_point", "rows_per_workgroup",
                                            "elements_per_invocation", "tile_rows", "tile_cols"};
#define FIRST_SIZING_KEY 5

/* Whether key sizes the workgroups of kind k. */
static bool kind_has_key(layout_kind k, const char *key)
{
    for (int i = 0; i < 2; i++)
        if (kinds[k].keys[i] && strcmp(kinds[k].keys[i], key) == 0)
            return true;
    return false;
}

/* The ops a sizing key is for, for the message "\"rows_per_workgroup\" is for row ops". */
static const char *key_kind_name(const char *key)
{
    return kind_has_key(KIND_ROWOP, key) ? "row" : kind_has_key(KIND_ELTWISE, key) ? "elementwise" : "gemm and gemv";
}

/* A string member, NULL when absent; XPB_ERR_USAGE when present and not a string. */
static xpb_status json_string(const cJSON *o, const char *key, const char *where, const char **out, xpb_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = NULL;
    if (!v)
        return XPB_OK;
    if (!cJSON_IsString(v) || !v->valuestring[0])
        return xpb_fail(err, XPB_ERR_USAGE, "%s: \"%s\" must be a non-empty string", where, key);
    *out = v->valuestring;
    return XPB_OK;
}

static xpb_status manifest_read(const cJSON *o, const char *where, manifest *m, xpb_error *err)
{
    const char *op_name;
    xpb_status st;
    if (!cJSON_IsObject(o))
        return xpb_fail(err, XPB_ERR_USAGE, "%s: not a JSON object", where);
    for (const cJSON *it = o->child; it; it = it->next) {
        bool known = false;
        for (size_t i = 0; i < sizeof manifest_keys / sizeof manifest_keys[0]; i++)
            known |= strcmp(it->string, manifest_keys[i]) == 0;
        if (!known)
            return xpb_fail(err, XPB_ERR_USAGE, "%s: unknown key \"%.40s\" (docs/plugins.md lists the keys)", where,
                            it->string);
    }
    if ((st = json_string(o, "op", where, &op_name, err)) || (st = json_string(o, "variant", where, &m->variant, err)) ||
        (st = json_string(o, "version", where, &m->version, err)) ||
        (st = json_string(o, "precision", where, &m->precision, err)) ||
        (st = json_string(o, "entry_point", where, &m->entry, err)))
        return st;
    if (!op_name || !m->variant || !m->version)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: \"op\", \"variant\" and \"version\" are required", where);
    xpb_op op = xpb_op_from_name(op_name);
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0] && op != XPB_OP_COUNT; i++)
        if (layouts[i].op == op)
            m->layout = &layouts[i];
    if (!m->layout)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: op \"%.40s\" has no SPIR-V layout (copy, add, mul, scale, relu, "
                        "sigmoid, silu, softmax, rmsnorm, layernorm, gemm, gemv)", where, op_name);
    const layout_kind kind = m->layout->kind;
    for (size_t i = FIRST_SIZING_KEY; i < sizeof manifest_keys / sizeof manifest_keys[0]; i++)
        if (!kind_has_key(kind, manifest_keys[i]) && cJSON_GetObjectItemCaseSensitive(o, manifest_keys[i]))
            return xpb_fail(err, XPB_ERR_USAGE, "%s: \"%s\" is for %s ops; %s takes \"%s\"%s%s%s", where,
                            manifest_keys[i], key_kind_name(manifest_keys[i]), op_name, kinds[kind].keys[0],
                            kinds[kind].keys[1] ? " and \"" : "", kinds[kind].keys[1] ? kinds[kind].keys[1] : "",
                            kinds[kind].keys[1] ? "\"" : "");
    for (int i = 0; i < 2; i++) {
        const char *key = kinds[kind].keys[i];
        const cJSON *per = key ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
        m->per[i] = 1;
        if (per) {
            if (!cJSON_IsNumber(per) || per->valuedouble != (double)(long)per->valuedouble || per->valuedouble < 1 ||
                per->valuedouble > MAX_PER_INVOCATION)
                return xpb_fail(err, XPB_ERR_USAGE, "%s: \"%s\" must be an integer from 1 to %d", where, key,
                                MAX_PER_INVOCATION);
            m->per[i] = (long)per->valuedouble;
        }
    }
    if (strlen(m->version) > 127)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: \"version\" is longer than 127 characters", where);
    return XPB_OK;
}

/* ---- the module against the op's layout ------------------------------------------------------- */

/* "softmax: set 0, bindings 0 x, 1 out (storage buffers)" */
static const char *layout_text(const op_layout *l, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "%s's layout is set 0, bindings", xpb_op_get(l->op)->name);
    for (int i = 0; i < l->n_bindings && n > 0 && (size_t)n < cap; i++)
        n += snprintf(buf + n, cap - (size_t)n, "%s %d %s", i ? "," : "", i, l->bindings[i]);
    if (n > 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, " (storage buffers)");
    return buf;
}

static xpb_status check_bindings(const xpb_spirv_info *info, const op_layout *l, xpb_error *err)
{
    char lt[160];
    bool seen[4] = {false};
    for (int i = 0; i < info->n_resources; i++) {
        const xpb_spirv_resource *r = &info->resources[i];
        if (r->set != 0 || r->binding >= (uint32_t)l->n_bindings) {
            char where[64];
            if (r->set == XPB_SPIRV_NONE || r->binding == XPB_SPIRV_NONE)
                snprintf(where, sizeof where, "a descriptor without DescriptorSet and Binding");
            else
                snprintf(where, sizeof where, "set %u binding %u", r->set, r->binding);
            return xpb_fail(err, XPB_ERR_USAGE, "%s is not in the layout: %s", where, layout_text(l, lt, sizeof lt));
        }
        if (r->kind != XPB_SPIRV_STORAGE_BUFFER)
            return xpb_fail(err, XPB_ERR_USAGE, "set 0 binding %u is %s, not a storage buffer: %s", r->binding,
                            r->kind == XPB_SPIRV_UNIFORM_BUFFER ? "a uniform buffer" : "an image or sampler",
                            layout_text(l, lt, sizeof lt));
        if (seen[r->binding])
            return xpb_fail(err, XPB_ERR_USAGE, "set 0 binding %u is declared twice", r->binding);
        seen[r->binding] = true;
    }
    for (int b = 0; b < l->n_bindings; b++)
        if (!seen[b])
            return xpb_fail(err, XPB_ERR_USAGE, "no binding %d (%s): %s", b, l->bindings[b],
                            layout_text(l, lt, sizeof lt));
    return XPB_OK;
}

static xpb_status check_push(const xpb_spirv_info *info, const op_layout *l, xpb_error *err)
{
    const push_member *want = kinds[l->kind].push;
    const int n_want = kinds[l->kind].n_push;
    const char *layout = kinds[l->kind].push_text;
    if (!info->has_push)
        return XPB_OK; /* a shader may take none: it then knows no sizes, but that is its own business */
    if (info->n_push_members > n_want)
        return xpb_fail(err, XPB_ERR_USAGE, "the push-constant block has %d members; %s's is %s (or its start)",
                        info->n_push_members, xpb_op_get(l->op)->name, layout);
    for (int i = 0; i < info->n_push_members; i++) {
        const xpb_spirv_member *m = &info->push[i];
        bool type_ok = want[i].is_float ? m->type == XPB_SPIRV_FLOAT32
                                        : m->type == XPB_SPIRV_UINT32 || m->type == XPB_SPIRV_INT32;
        if (!type_ok || m->offset != want[i].offset)
            return xpb_fail(err, XPB_ERR_USAGE, "push-constant member %d is not %s %s at offset %u: %s's block is %s "
                            "(or its start)", i, want[i].is_float ? "a float" : "a 32-bit int", want[i].name,
                            want[i].offset, xpb_op_get(l->op)->name, layout);
    }
    return XPB_OK;
}

/* The module's entry point and workgroup size, and the kernel the backend runs. */
static xpb_status make_kernel(const xpb_spirv_info *info, const manifest *m, spirv_store *s, size_t words,
                              xpb_error *err)
{
    const xpb_spirv_entry *e = xpb_spirv_compute_entry(info, m->entry);
    if (!e) {
        int n = 0;
        for (int i = 0; i < info->n_entries; i++)
            n += info->entries[i].model == XPB_SPIRV_MODEL_GLCOMPUTE;
        if (m->entry)
            return xpb_fail(err, XPB_ERR_USAGE, "no compute entry point \"%.60s\" (OpEntryPoint GLCompute)", m->entry);
        if (n)
            return xpb_fail(err, XPB_ERR_USAGE, "%d compute entry points: name one (\"entry_point\" in the manifest)", n);
        return xpb_fail(err, XPB_ERR_USAGE, "no compute entry point (OpEntryPoint GLCompute)");
    }
    const uint32_t *ls = e->local_size;
    uint64_t inv = (uint64_t)ls[0] * ls[1] * ls[2];
    if (inv == 0)
        return xpb_fail(err, XPB_ERR_USAGE, "entry point %s has no workgroup size (LocalSize)", e->name);
    /* elementwise: elements_per_invocation times the invocations; else the key's own count */
    uint64_t per = m->layout->kind == KIND_ELTWISE ? inv * (uint64_t)m->per[0] : (uint64_t)m->per[0];
    if (per > UINT32_MAX)
        return xpb_fail(err, XPB_ERR_USAGE, "%llu elements a workgroup is too many", (unsigned long long)per);
    snprintf(s->variant, sizeof s->variant, "%.63s", m->variant);
    snprintf(s->precision, sizeof s->precision, "%.63s", m->precision ? m->precision : "fp32");
    snprintf(s->entry, sizeof s->entry, "%s", e->name);
    s->k = (xpb_spirv_kernel){.op = m->layout->op, .variant = s->variant, .code = s->words,
                              .code_bytes = words * sizeof(uint32_t), .entry = s->entry,
                              .local_size = {ls[0], ls[1], ls[2]}, .n_bindings = (uint32_t)m->layout->n_bindings,
                              .per_group = (uint32_t)per,
                              .per_group_cols = m->layout->kind == KIND_GEMM ? (uint32_t)m->per[1] : 0};
    return XPB_OK;
}

/* ---- loading ------------------------------------------------------------------------------------- */

/* The module at lib->path into a new store (its words) and its interface into info. */
static xpb_status read_module(const char *path, const xpb_plugin_lib *lib, spirv_store **out, size_t *words,
                              xpb_spirv_info *info, xpb_error *err)
{
    unsigned char *buf;
    size_t len;
    xpb_error why = {{0}};
    size_t head = offsetof(spirv_store, words);
    if (read_file("--kernels", lib->path, MAX_MODULE_BYTES, head, &buf, &len, err))
        return XPB_ERR_USAGE;
    spirv_store *s = (spirv_store *)buf; /* malloc's alignment suits the struct */
    memset(s, 0, head);
    *words = len / 4;
    xpb_status st = len % 4 ? xpb_fail(&why, XPB_ERR_USAGE, "not a SPIR-V module (%zu bytes: not whole 4-byte words)",
                                       len)
                            : xpb_spirv_read(s->words, *words, info, &why);
    if (st) {
        free(s);
        return xpb_fail(err, st, "--kernels %s: %s", path, why.msg);
    }
    *out = s;
    return XPB_OK;
}

/* The manifest next to path (path + ".json"), parsed into m (pointing into *json), its resolved
 * path and SHA-256 into lib. */
static xpb_status read_manifest(const char *path, xpb_plugin_lib *lib, cJSON **json, manifest *m, xpb_error *err)
{
    char mpath[XPB_PLUGIN_PATH_MAX];
    unsigned char *buf;
    size_t len;
    xpb_error why = {{0}};
    if (snprintf(mpath, sizeof mpath, "%s.json", path) >= (int)sizeof mpath)
        return xpb_fail(err, XPB_ERR_USAGE, "--kernels %s: path too long", path);
    if (read_file("its manifest", mpath, MAX_MANIFEST_BYTES, 0, &buf, &len, &why))
        return xpb_fail(err, XPB_ERR_USAGE, "--kernels %s: %s (docs/plugins.md \"Vulkan: SPIR-V kernels\")", path,
                        why.msg);
    buf[len] = '\0';
    xpb_sha256_hex(buf, len, lib->manifest_sha256);
    *json = cJSON_ParseWithLength((const char *)buf, len);
    free(buf);
    char where[XPB_PLUGIN_PATH_MAX + 32];
    snprintf(where, sizeof where, "manifest %s", mpath);
    xpb_status st = *json ? manifest_read(*json, where, m, &why)
                          : xpb_fail(&why, XPB_ERR_USAGE, "%s: not valid JSON", where);
    if (st)
        return xpb_fail(err, st, "--kernels %s: %s", path, why.msg);
    if (!realpath(mpath, lib->manifest))
        snprintf(lib->manifest, sizeof lib->manifest, "%s", mpath);
    return XPB_OK;
}

xpb_status xpb_plugin_spirv_load(const char *path, xpb_error *err)
{
    xpb_plugin_lib *lib;
    int n;
    xpb_status st = xpb_plugin_lib_begin(path, &lib, &n, err);
    if (st)
        return st;
    spirv_store *s = NULL;
    cJSON *json = NULL;
    manifest m = {0};
    size_t words;
    xpb_spirv_info *info = malloc(sizeof *info);
    xpb_error why = {{0}};
    if (!info)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory");
    if ((st = read_module(path, lib, &s, &words, info, err)) || (st = read_manifest(path, lib, &json, &m, err)))
        goto done;
    if ((st = check_bindings(info, m.layout, &why)) || (st = check_push(info, m.layout, &why)) ||
        (st = make_kernel(info, &m, s, words, &why))) {
        st = xpb_fail(err, st, "--kernels %s: %s", path, why.msg);
        goto done;
    }
    const xpb_backend_i *b = xpb_backend_find("vulkan");
    int first = n;
    if (!b || !b->spirv_launch) {
        const char *reason = xpb_backend_missing_reason("vulkan");
        fprintf(stderr, "xpubench: warning: %s: its vulkan kernel is not loaded: %s\n", path,
                reason ? reason : "the backend takes no SPIR-V kernels");
    } else if (!(st = xpb_plugin_slot_add(path, b, m.layout->op, s->variant, s->precision, "(manifest)", &n, err))) {
        xpb_plugin_slots[first].spirv = &s->k;
    }
    if (!st) {
        lib->spirv = true;
        snprintf(lib->version, sizeof lib->version, "%s", m.version);
        xpb_plugin_lib_commit(n);
        if (n > first)
            s = NULL; /* the backend runs it until exit */
    }
done:
    cJSON_Delete(json);
    free(info);
    free(s);
    return st;
}
