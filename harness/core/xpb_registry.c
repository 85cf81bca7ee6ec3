/* xpb_registry.c - the one place backends are registered: each one's table under its
 * XPB_HAVE_<NAME> (set by CMakeLists.txt's option), its name in `known` and the reason a build
 * lacks it (README.md, "Adding a backend"). */
#include "xpb_backend.h"

#include <string.h>

extern const xpb_backend_i xpb_backend_cpu;
#ifdef XPB_HAVE_CUDA
extern const xpb_backend_i xpb_backend_cuda;
#endif
#ifdef XPB_HAVE_VULKAN
extern const xpb_backend_i xpb_backend_vulkan;
#endif

static const xpb_backend_i *const registry[] = {
    &xpb_backend_cpu,
#ifdef XPB_HAVE_CUDA
    &xpb_backend_cuda,
#endif
#ifdef XPB_HAVE_VULKAN
    &xpb_backend_vulkan,
#endif
    NULL,
};

const xpb_backend_i *const *xpb_backends(void) { return registry; }

const xpb_backend_i *xpb_backend_find(const char *name)
{
    for (const xpb_backend_i *const *b = registry; *b; b++)
        if (strcmp((*b)->name, name) == 0)
            return *b;
    return NULL;
}

/* Every backend xpubench knows, compiled in or not, in the order list, info and results show them. */
static const char *const known[] = {"cpu", "cuda", "vulkan"};
_Static_assert(sizeof known / sizeof known[0] == XPB_MAX_BACKENDS, "XPB_MAX_BACKENDS counts `known`");

const char *xpb_backend_known_name(int i) { return i >= 0 && i < XPB_MAX_BACKENDS ? known[i] : NULL; }

bool xpb_backend_name_known(const char *name)
{
    for (int i = 0; i < XPB_MAX_BACKENDS; i++)
        if (strcmp(name, known[i]) == 0)
            return true;
    return false;
}

const char *xpb_backend_missing_reason(const char *name)
{
#ifndef XPB_HAVE_CUDA
    if (strcmp(name, "cuda") == 0)
        return "this xpubench was built without CUDA (configure with -DXPB_CUDA=ON and a CUDA toolkit)";
#endif
#ifndef XPB_HAVE_VULKAN
    if (strcmp(name, "vulkan") == 0)
        return "this xpubench was built without Vulkan (configure with -DXPB_VULKAN=ON, Vulkan headers and glslc)";
#endif
    (void)name;
    return NULL;
}

static xpb_extra_kernels_fn extra_kernels; /* the plugin loader's lookup, once a plugin is loaded */

void xpb_backend_set_extra_kernels(xpb_extra_kernels_fn fn) { extra_kernels = fn; }

size_t xpb_backend_kernels_for(const xpb_backend_i *b, xpb_op op, const xpb_kernel **out,
                               size_t max)
{
    size_t n = 0;
    for (const xpb_kernel *const *k = b->kernels; k && *k && n < max; k++)
        if ((*k)->op == op)
            out[n++] = *k;
    return n + (extra_kernels ? extra_kernels(b, op, out + n, max - n) : 0); /* run --kernels PATH */
}
