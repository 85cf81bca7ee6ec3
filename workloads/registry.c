/* workloads/registry.c - the one place workload families are registered. */
#include <string.h>

#include "xpb_workload.h"

/* Every workload, in the order "every workload" runs them. Adding one: its folder and one
 * X(xpb_workload_<name>) line here (README.md, "Adding a workload"). */
#define XPB_WORKLOADS(X)                                                                            \
    X(xpb_workload_elementwise)                                                                     \
    X(xpb_workload_gemm)                                                                            \
    X(xpb_workload_anneal)                                                                          \
    X(xpb_workload_burst)                                                                           \
    X(xpb_workload_collectives)                                                                     \
    X(xpb_workload_sharded)

#define XPB_WORKLOAD_DECLARE(w) extern const xpb_workload_i w;
#define XPB_WORKLOAD_ADDRESS(w) &w,
XPB_WORKLOADS(XPB_WORKLOAD_DECLARE)
static const xpb_workload_i *const registry[] = {XPB_WORKLOADS(XPB_WORKLOAD_ADDRESS) NULL};

const xpb_workload_i *const *xpb_workloads(void) { return registry; }

const xpb_workload_i *xpb_workload_find(const char *name)
{
    for (const xpb_workload_i *const *w = registry; *w; w++)
        if (strcmp((*w)->name, name) == 0)
            return *w;
    return NULL;
}
