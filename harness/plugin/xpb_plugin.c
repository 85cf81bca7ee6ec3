/* xpb_plugin.c - loading plugin libraries (--kernels PATH) and the registry of their kernels.
 *
 * The registry is process-wide, as the libraries are: a plugin's kernels join its backend's list
 * (xpb_backend_kernels_for) for every device and every command of the process. It is filled while
 * the command line is read and only read afterwards. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_plugin_internal.h"
#include "xpb_sha256.h"

/* File scope because the adapter's entry points find their slot by index (xpb_plugin_adapter.c). */
xpb_plugin_slot xpb_plugin_slots[XPB_PLUGIN_MAX_KERNELS];
static int n_slots;
static xpb_plugin_lib libs[XPB_PLUGIN_MAX_LIBS];
static int n_libs;
_Static_assert(XPB_PLUGIN_PATH_MAX >= PATH_MAX, "realpath writes up to PATH_MAX bytes");

/* The public op numbers and the harness's ops they name. */
static const struct {
    xpb_plugin_op pub;
    xpb_op op;
} op_map[] = {
    {XPB_PLUGIN_OP_COPY, XPB_OP_COPY},       {XPB_PLUGIN_OP_ADD, XPB_OP_ADD},
    {XPB_PLUGIN_OP_MUL, XPB_OP_MUL},         {XPB_PLUGIN_OP_SCALE, XPB_OP_SCALE},
    {XPB_PLUGIN_OP_RELU, XPB_OP_RELU},       {XPB_PLUGIN_OP_SIGMOID, XPB_OP_SIGMOID},
    {XPB_PLUGIN_OP_SILU, XPB_OP_SILU},       {XPB_PLUGIN_OP_SOFTMAX, XPB_OP_SOFTMAX},
    {XPB_PLUGIN_OP_RMSNORM, XPB_OP_RMSNORM}, {XPB_PLUGIN_OP_LAYERNORM, XPB_OP_LAYERNORM},
    {XPB_PLUGIN_OP_GEMM, XPB_OP_GEMM},       {XPB_PLUGIN_OP_GEMV, XPB_OP_GEMV},
};

static bool op_from_public(int pub, xpb_op *op)
{
    for (size_t i = 0; i < sizeof op_map / sizeof op_map[0]; i++)
        if ((int)op_map[i].pub == pub) {
            *op = op_map[i].op;
            return true;
        }
    return false;
}

static bool variant_name_ok(const char *v)
{
    size_t n = v ? strlen(v) : 0;
    if (n == 0 || n > 31)
        return false;
    for (; *v; v++)
        if (!((*v >= 'a' && *v <= 'z') || (*v >= '0' && *v <= '9') || *v == '_' || *v == '.' || *v == '-'))
            return false;
    return true;
}

/* Whether backend b already has a kernel of op under that variant name, built in or a plugin's. */
static bool variant_taken(const xpb_backend_i *b, xpb_op op, const char *variant, int upto)
{
    for (const xpb_kernel *const *k = b->kernels; k && *k; k++)
        if ((*k)->op == op && strcmp((*k)->variant, variant) == 0)
            return true;
    for (int i = 0; i < upto; i++)
        if (xpb_plugin_slots[i].backend == b && xpb_plugin_slots[i].k.op == op &&
            strcmp(xpb_plugin_slots[i].k.variant, variant) == 0)
            return true;
    return false;
}

xpb_status xpb_plugin_slot_add(const char *path, const xpb_backend_i *b, xpb_op op, const char *variant,
                               const char *precision, const char *which, int *n, xpb_error *err)
{
    if (*n == XPB_PLUGIN_MAX_KERNELS)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: more than %d plugin kernels in all (the most one xpubench loads)",
                        path, XPB_PLUGIN_MAX_KERNELS);
    if (!variant_name_ok(variant))
        return xpb_fail(err, XPB_ERR_USAGE, "%s: %s kernel %s: variant name '%.40s' is not 1-31 of [a-z0-9_.-]", path,
                        b->name, which, variant ? variant : "(null)");
    if (!precision || !precision[0] || strlen(precision) > 31)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: %s kernel %s: precision must be 1-31 characters", path, b->name,
                        variant);
    if (variant_taken(b, op, variant, *n))
        return xpb_fail(err, XPB_ERR_USAGE, "%s: %s kernel %s: %s/%s already exists for %s (choose another variant "
                        "name)", path, b->name, variant, b->name, variant, xpb_op_get(op)->name);
    xpb_plugin_slot *s = &xpb_plugin_slots[*n];
    *s = (xpb_plugin_slot){.k = {.op = op, .variant = variant, .precision = precision}, .backend = b, .lib = n_libs};
    xpb_plugin_adapter_bind((*n)++);
    return XPB_OK;
}

/* Checks kernel j of list `kind` and fills slot *n with it. */
static xpb_status add_kernel(const char *path, const char *kind_name, xpb_plugin_backend kind, const xpb_backend_i *b,
                             const xpb_plugin_kernel *pk, int j, int *n, xpb_error *err)
{
    xpb_op op;
    char which[16];
    snprintf(which, sizeof which, "%d", j);
    if (!op_from_public((int)pk->op, &op))
        return xpb_fail(err, XPB_ERR_USAGE, "%s: %s kernel %d: unknown op %d (xpubench_plugin.h lists the ops)", path,
                        kind_name, j, (int)pk->op);
    if (!pk->launch && variant_name_ok(pk->variant))
        return xpb_fail(err, XPB_ERR_USAGE, "%s: %s kernel %s: no launch function", path, kind_name, pk->variant);
    xpb_status st = xpb_plugin_slot_add(path, b, op, pk->variant, pk->precision, which, n, err);
    if (st)
        return st;
    xpb_plugin_slots[*n - 1].pk = pk;
    xpb_plugin_slots[*n - 1].kind = kind;
    return XPB_OK;
}

/* The kernels of one backend's list into slots from *n on. A backend this build lacks, or one
 * that cannot hand out pointers, is skipped with a warning (never silently). */
static xpb_status add_list(const char *path, const char *kind_name, xpb_plugin_backend kind,
                           const xpb_plugin_kernel *const *list, int *n, xpb_error *err)
{
    int count = 0;
    while (list && list[count])
        count++;
    if (count == 0)
        return XPB_OK;
    const xpb_backend_i *b = xpb_backend_find(kind_name);
    if (!b || !b->view_ptr || (kind == XPB_PLUGIN_BACKEND_CUDA && !b->native_queue)) {
        const char *why = xpb_backend_missing_reason(kind_name);
        fprintf(stderr, "xpubench: warning: %s: its %d %s kernel(s) are not loaded: %s\n", path, count, kind_name,
                why ? why : "the backend takes no plugin kernels");
        return XPB_OK;
    }
    for (int j = 0; j < count; j++) {
        xpb_status st = add_kernel(path, kind_name, kind, b, list[j], j, n, err);
        if (st)
            return st;
    }
    return XPB_OK;
}

/* dlerror()'s text on one line. */
static const char *dl_reason(void)
{
    static char buf[512];
    const char *e = dlerror();
    snprintf(buf, sizeof buf, "%s", e ? e : "unknown reason");
    for (char *p = buf; *p; p++)
        if (*p == '\n')
            *p = ' ';
    return buf;
}

xpb_status xpb_plugin_lib_begin(const char *path, xpb_plugin_lib **out, int *first_slot, xpb_error *err)
{
    if (n_libs == XPB_PLUGIN_MAX_LIBS)
        return xpb_fail(err, XPB_ERR_USAGE, "--kernels %s: more than %d plugin libraries", path, XPB_PLUGIN_MAX_LIBS);
    xpb_plugin_lib *lib = &libs[n_libs];
    memset(lib, 0, sizeof *lib);
    /* realpath: dlopen of a name without '/' would search the library path, not the file named */
    if (!realpath(path, lib->path))
        return xpb_fail(err, XPB_ERR_USAGE, "--kernels %s: %s", path, strerror(errno));
    for (int i = 0; i < n_libs; i++)
        if (strcmp(libs[i].path, lib->path) == 0)
            return xpb_fail(err, XPB_ERR_USAGE, "--kernels %s: that library is already loaded", path);
    xpb_error why = {{0}};
    if (xpb_sha256_file(lib->path, lib->sha256, &why))
        return xpb_fail(err, XPB_ERR_USAGE, "--kernels %s: %s", path, why.msg);
    *out = lib;
    *first_slot = n_slots;
    return XPB_OK;
}

void xpb_plugin_lib_commit(int n)
{
    n_slots = n;
    n_libs++;
    xpb_backend_set_extra_kernels(xpb_plugin_kernels_for); /* the registry lists them from now on */
}

/* A shared library's plugin (docs/plugins.md "The interface"). */
static xpb_status load_library(const char *path, xpb_error *err)
{
    xpb_plugin_lib *lib;
    int n;
    xpb_status st = xpb_plugin_lib_begin(path, &lib, &n, err);
    if (st)
        return st;
    void *h = dlopen(lib->path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return xpb_fail(err, XPB_ERR_USAGE, "--kernels %s: cannot load it: %s", path, dl_reason());
    /* C99's pointer-to-object to pointer-to-function cast, as POSIX specifies for dlsym */
    xpb_plugin_entry_fn entry;
    *(void **)&entry = dlsym(h, XPB_PLUGIN_ENTRY_NAME);
    if (!entry) {
        dlclose(h);
        return xpb_fail(err, XPB_ERR_USAGE, "--kernels %s: not an xpubench plugin: it exports no %s()", path,
                        XPB_PLUGIN_ENTRY_NAME);
    }
    /* Room beyond this version's struct: a plugin that fills in a later, larger one anyway writes
     * into the padding, not over the stack. */
    union {
        xpb_plugin_info info;
        unsigned char pad[4096];
    } u;
    memset(&u, 0, sizeof u);
    int abi = entry(XPB_PLUGIN_ABI_VERSION, &u.info);
    if (abi != XPB_PLUGIN_ABI_VERSION)
        st = xpb_fail(err, XPB_ERR_USAGE, "--kernels %s: plugin ABI version %d, but this xpubench speaks plugin ABI "
                      "version %d: rebuild the plugin against this xpubench's include/xpubench/xpubench_plugin.h",
                      path, abi, XPB_PLUGIN_ABI_VERSION);
    else if (!u.info.version || !u.info.version[0] || strlen(u.info.version) >= sizeof lib->version)
        st = xpb_fail(err, XPB_ERR_USAGE, "--kernels %s: the plugin's version string is missing or longer than %zu "
                      "characters", path, sizeof lib->version - 1);
    int first = n;
    if (!st)
        st = add_list(path, "cpu", XPB_PLUGIN_BACKEND_CPU, u.info.cpu_kernels, &n, err);
    if (!st)
        st = add_list(path, "cuda", XPB_PLUGIN_BACKEND_CUDA, u.info.cuda_kernels, &n, err);
    if (!st && n == first && !(u.info.cpu_kernels && u.info.cpu_kernels[0]) &&
        !(u.info.cuda_kernels && u.info.cuda_kernels[0]))
        st = xpb_fail(err, XPB_ERR_USAGE, "--kernels %s: the plugin declares no kernels", path);
    if (st) {
        dlclose(h); /* nothing of it was registered: n_slots is unchanged */
        return st;
    }
    snprintf(lib->version, sizeof lib->version, "%s", u.info.version);
    xpb_plugin_lib_commit(n);
    return XPB_OK; /* h stays open until exit: its kernels are called until then */
}

xpb_status xpb_plugin_load(const char *path, xpb_error *err)
{
    return xpb_plugin_is_spirv(path) ? xpb_plugin_spirv_load(path, err) : load_library(path, err);
}

size_t xpb_plugin_kernels_for(const xpb_backend_i *b, xpb_op op, const xpb_kernel **out, size_t max)
{
    size_t n = 0;
    for (int i = 0; i < n_slots && n < max; i++)
        if (xpb_plugin_slots[i].backend == b && xpb_plugin_slots[i].k.op == op)
            out[n++] = &xpb_plugin_slots[i].k;
    return n;
}

const char *xpb_plugin_path_of(const xpb_kernel *k)
{
    for (int i = 0; i < n_slots; i++)
        if (k == &xpb_plugin_slots[i].k)
            return libs[xpb_plugin_slots[i].lib].path;
    return NULL;
}

bool xpb_plugin_has_variant(const char *variant)
{
    for (int i = 0; i < n_slots; i++)
        if (strcmp(xpb_plugin_slots[i].k.variant, variant) == 0)
            return true;
    return false;
}

void xpb_plugins_print(FILE *f)
{
    if (n_libs == 0)
        return;
    fprintf(f, "\nplugins (--kernels):\n");
    for (int l = 0; l < n_libs; l++) {
        const xpb_plugin_lib *lib = &libs[l];
        if (lib->spirv)
            fprintf(f, "  %s\n    version %s, sha256 %s, SPIR-V; manifest %s, sha256 %s\n   ", lib->path, lib->version,
                    lib->sha256, lib->manifest, lib->manifest_sha256);
        else
            fprintf(f, "  %s\n    version %s, sha256 %s, plugin ABI %d\n   ", lib->path, lib->version, lib->sha256,
                    XPB_PLUGIN_ABI_VERSION);
        for (int i = 0; i < n_slots; i++) {
            const xpb_plugin_slot *s = &xpb_plugin_slots[i];
            if (s->lib != l)
                continue;
            fprintf(f, " %s/%s (%s, %s", s->backend->name, s->k.variant, xpb_op_get(s->k.op)->name, s->k.precision);
            if (s->spirv && s->spirv->per_group_cols) /* gemm: a tile of C */
                fprintf(f, ", entry point %s, workgroup %ux%ux%u, a %ux%u tile of C a workgroup", s->spirv->entry,
                        s->spirv->local_size[0], s->spirv->local_size[1], s->spirv->local_size[2],
                        s->spirv->per_group, s->spirv->per_group_cols);
            else if (s->spirv)
                fprintf(f, ", entry point %s, workgroup %ux%ux%u, %u %s a workgroup", s->spirv->entry,
                        s->spirv->local_size[0], s->spirv->local_size[1], s->spirv->local_size[2],
                        s->spirv->per_group, xpb_plugin_spirv_per_group_unit(s->k.op));
            fprintf(f, ")");
        }
        fprintf(f, "\n");
    }
}

void xpb_plugins_json(cJSON *root)
{
    if (n_libs == 0)
        return;
    cJSON *arr = cJSON_AddArrayToObject(root, "plugins");
    for (int l = 0; l < n_libs; l++) {
        const xpb_plugin_lib *lib = &libs[l];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "path", lib->path);
        cJSON_AddStringToObject(o, "sha256", lib->sha256);
        cJSON_AddStringToObject(o, "version", lib->version);
        cJSON_AddStringToObject(o, "format", lib->spirv ? "spirv" : "library");
        if (lib->spirv) {
            cJSON_AddStringToObject(o, "manifest", lib->manifest);
            cJSON_AddStringToObject(o, "manifest_sha256", lib->manifest_sha256);
        } else {
            cJSON_AddNumberToObject(o, "abi_version", XPB_PLUGIN_ABI_VERSION);
        }
        cJSON *ks = cJSON_AddArrayToObject(o, "kernels");
        for (int i = 0; i < n_slots; i++) {
            const xpb_plugin_slot *s = &xpb_plugin_slots[i];
            if (s->lib != l)
                continue;
            cJSON *k = cJSON_CreateObject();
            cJSON_AddStringToObject(k, "backend", s->backend->name);
            cJSON_AddStringToObject(k, "op", xpb_op_get(s->k.op)->name);
            cJSON_AddStringToObject(k, "variant", s->k.variant);
            cJSON_AddStringToObject(k, "precision", s->k.precision);
            if (s->spirv) {
                cJSON_AddStringToObject(k, "entry_point", s->spirv->entry);
                int ls[3] = {(int)s->spirv->local_size[0], (int)s->spirv->local_size[1], (int)s->spirv->local_size[2]};
                cJSON_AddItemToObject(k, "local_size", cJSON_CreateIntArray(ls, 3));
                cJSON_AddNumberToObject(k, "per_workgroup", s->spirv->per_group);
                if (s->spirv->per_group_cols) /* gemm: per_workgroup rows by these columns of C */
                    cJSON_AddNumberToObject(k, "per_workgroup_cols", s->spirv->per_group_cols);
            }
            cJSON_AddItemToArray(ks, k);
        }
        cJSON_AddItemToArray(arr, o);
    }
}
