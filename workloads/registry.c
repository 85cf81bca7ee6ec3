/* workloads/registry.c - the one place workload families are registered. */
#include <string.h>

#include "xpb_workload.h"

extern const xpb_workload_i xpb_workload_elementwise;
extern const xpb_workload_i xpb_workload_gemm;
extern const xpb_workload_i xpb_workload_anneal;
extern const xpb_workload_i xpb_workload_burst;
extern const xpb_workload_i xpb_workload_collectives;
extern const xpb_workload_i xpb_workload_sharded;

static const xpb_workload_i *const registry[] = {
    &xpb_workload_elementwise,
    &xpb_workload_gemm,
    &xpb_workload_anneal,
    &xpb_workload_burst,
    &xpb_workload_collectives,
    &xpb_workload_sharded,
    NULL,
};

const xpb_workload_i *const *xpb_workloads(void) { return registry; }

const xpb_workload_i *xpb_workload_find(const char *name)
{
    for (const xpb_workload_i *const *w = registry; *w; w++)
        if (strcmp((*w)->name, name) == 0)
            return *w;
    return NULL;
}
