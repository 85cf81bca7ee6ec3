/* xpb_plugin.h - kernels from shared libraries (run/list --kernels PATH, docs/plugins.md).
 *
 * A plugin library exports xpubench_plugin_entry (include/xpubench/xpubench_plugin.h). Loading
 * it registers each of its kernels as an xpb_kernel of its backend, through an adapter that
 * resolves the harness's views into the plain pointers of the public argument structs; from then
 * on xpb_backend_kernels_for returns them after the backend's own, so list, run, validation,
 * timing and the results treat them as built-in variants. Libraries stay loaded until the
 * process exits (their kernels' functions are called to the end). */
#ifndef XPB_PLUGIN_H
#define XPB_PLUGIN_H

#include <stdbool.h>
#include <stdio.h>

#include "xpb_backend.h"

/* Most libraries and kernels one process loads (the adapter has a fixed set of entry points). */
#define XPB_PLUGIN_MAX_LIBS 8
#define XPB_PLUGIN_MAX_KERNELS 32

/* Loads the plugin at path and registers its kernels. XPB_ERR_USAGE with one line naming path
 * when the file is missing or not a loadable library, exports no entry point, speaks another
 * plugin ABI version (the line names both), or declares a bad kernel (unknown op, no launch, a
 * variant name that is malformed or already taken for that op and backend); nothing of it is
 * registered then. Kernels for a backend this build lacks are skipped with a warning on stderr. */
xpb_status xpb_plugin_load(const char *path, xpb_error *err);

/* Appends to out (room for max) the plugin kernels registered for backend b and op; returns how
 * many it wrote. */
size_t xpb_plugin_kernels_for(const xpb_backend_i *b, xpb_op op, const xpb_kernel **out, size_t max);

/* The absolute path of the library kernel k came from, or NULL for a built-in kernel. */
const char *xpb_plugin_path_of(const xpb_kernel *k);
/* Whether some loaded plugin declares a kernel of that variant name (run --variant). */
bool xpb_plugin_has_variant(const char *variant);

/* `list`: the loaded libraries (path, version, SHA-256) and their kernels; nothing when none. */
void xpb_plugins_print(FILE *f);
struct cJSON;
/* Results: adds "plugins" (docs/results-schema.md) to the run's root object when any is loaded. */
void xpb_plugins_json(struct cJSON *root);

#endif
