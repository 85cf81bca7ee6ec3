/* xpb_plugin_internal.h - what xpb_plugin.c (loading, the registry), xpb_plugin_spirv.c (SPIR-V
 * modules) and xpb_plugin_adapter.c (the xpb_kernel each plugin kernel runs as) share. Not used
 * elsewhere. */
#ifndef XPB_PLUGIN_INTERNAL_H
#define XPB_PLUGIN_INTERNAL_H

#include "xpb_plugin.h"
#include "xpubench/xpubench_plugin.h"

/* Room for a resolved path (realpath's PATH_MAX: xpb_plugin.c checks). */
#define XPB_PLUGIN_PATH_MAX 4096

/* One loaded --kernels file: a shared library, or a SPIR-V module and its manifest. */
typedef struct xpb_plugin_lib {
    char path[XPB_PLUGIN_PATH_MAX]; /* absolute, symbolic links resolved: the file that was hashed and loaded */
    char sha256[65];
    char version[128];
    bool spirv;              /* a SPIR-V module (docs/plugins.md "Vulkan: SPIR-V kernels") */
    char manifest[XPB_PLUGIN_PATH_MAX]; /* spirv: its manifest, absolute */
    char manifest_sha256[65];
} xpb_plugin_lib;

/* One registered plugin kernel. `k` is what the harness runs: its functions are the adapter's
 * entry points for this slot (they find the slot by its index), its op, variant and precision
 * the plugin's. */
typedef struct xpb_plugin_slot {
    xpb_kernel k;
    const xpb_plugin_kernel *pk;      /* a library's kernel, or NULL             */
    const xpb_spirv_kernel *spirv;    /* a SPIR-V module's kernel, or NULL        */
    const xpb_backend_i *backend;
    xpb_plugin_backend kind;
    int lib; /* index of its library */
} xpb_plugin_slot;

/* The registered kernels, indexed like the adapter's entry points. */
extern xpb_plugin_slot xpb_plugin_slots[XPB_PLUGIN_MAX_KERNELS];

/* Loading a file (xpb_plugin.c): xpb_plugin_lib_begin checks there is room for one more, resolves
 * path and refuses a file already loaded, hashes it, and returns its record (not yet counted) and
 * the first free slot; the loader fills slots from there with xpb_plugin_slot_add, and
 * xpb_plugin_lib_commit(n) registers the file and its slots below n. Until then nothing of it is
 * registered, so a failure needs no undoing. */
xpb_status xpb_plugin_lib_begin(const char *path, xpb_plugin_lib **lib, int *first_slot, xpb_error *err);
void xpb_plugin_lib_commit(int n);
/* Checks variant (1-31 of [a-z0-9_.-], not taken for op on b) and precision, then fills slot *n
 * (k, backend, lib; pk, spirv and kind are the caller's) and increments *n. which names the kernel
 * in messages before its variant is known good. XPB_ERR_USAGE with the line otherwise. */
xpb_status xpb_plugin_slot_add(const char *path, const xpb_backend_i *b, xpb_op op, const char *variant,
                               const char *precision, const char *which, int *n, xpb_error *err);

/* SPIR-V modules (xpb_plugin_spirv.c): whether path names one (a .spv name, or the SPIR-V magic
 * number first), and loading it with its manifest. */
bool xpb_plugin_is_spirv(const char *path);
xpb_status xpb_plugin_spirv_load(const char *path, xpb_error *err);
/* What a SPIR-V kernel of op takes per workgroup: "rows" or "elements". */
const char *xpb_plugin_spirv_per_group_unit(xpb_op op);

/* Fills slot i's k with the adapter's entry points for slot i (op, variant, precision untouched). */
void xpb_plugin_adapter_bind(int i);

/* Whether the public op is a row op (xpb_plugin_rowop_args) rather than elementwise. */
bool xpb_plugin_op_is_rowop(xpb_plugin_op op);

#endif
