/* xpb_group_cpus.c - see xpb_group_cpus.h. */
#include "xpb_group_cpus.h"

#include <stdio.h>

#include "xpb_mpi.h"
#include "xpb_sysinfo.h"

xpb_status xpb_group_cpus_read(xpb_group_layout *lay, bool mpi, xpb_error *err)
{
    int mine = xpb_sysinfo_affinity_cpus();
    if (!mpi) {
        for (int i = 0; i < lay->n; i++)
            lay->cpus[i] = mine;
        return XPB_OK;
    }
    if (lay->n != xpb_mpi_size() || lay->n > XPB_MAX_GROUP) /* the backend's layout is one rank a process */
        return xpb_fail(err, XPB_ERR_RUNTIME, "a device group of %d ranks under %d MPI processes", lay->n,
                        xpb_mpi_size());
    return xpb_mpi_allgather(&mine, sizeof mine, lay->cpus, err);
}

size_t xpb_group_cpus_warning(const xpb_group_layout *lay, bool mpi, char *out, size_t n)
{
    /* Under MPI no warning: a rank on one core (Open MPI's binding at -np <= 2) is recorded, not
     * warned about, since unbinding it measured no faster (2 x H200, 5M x 100 burst batched:
     * `--bind-to none` 149.1 us a burst against 134.8 bound; docs/multi-gpu.md). In one process
     * every rank launches from a thread of its own, which fewer CPUs than ranks serialize. */
    int least = 0;
    for (int i = 0; i < lay->n && !mpi; i++) {
        const int c = lay->cpus[i];
        if (c > 0 && c < lay->n && (least == 0 || c < least))
            least = c; /* known, and short of a CPU a rank */
    }
    const int len = least ? snprintf(out, n,
                                     "%d ranks of one process on %d CPU(s) (its affinity): each rank launches from "
                                     "a thread of its own; give the process a CPU a rank (taskset, the batch "
                                     "system's CPU count)",
                                     lay->n, least)
                          : snprintf(out, n, "%s", "");
    return len > 0 ? (size_t)len : 0;
}
