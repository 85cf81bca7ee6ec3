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
    int first = -1, more = 0, least = 0;
    for (int i = 0; i < lay->n; i++) {
        const int c = lay->cpus[i];
        if (c <= 0 || (mpi ? c > 1 : c >= lay->n))
            continue; /* unknown, or room enough */
        if (first < 0)
            first = i, least = c;
        else
            more++;
    }
    char others[32] = "";
    if (more)
        snprintf(others, sizeof others, " and %d more", more);
    int len = 0;
    if (first < 0)
        len = snprintf(out, n, "%s", "");
    else if (mpi)
        len = snprintf(out, n,
                       "MPI rank %d%s on 1 CPU (the process's affinity; Open MPI binds a process to a core at "
                       "-np <= 2): NCCL's and CUDA's threads share it with the launches; mpirun --bind-to none "
                       "or --map-by numa gives them room",
                       first, others);
    else
        len = snprintf(out, n,
                       "%d ranks of one process on %d CPU(s) (its affinity): each rank launches from a thread "
                       "of its own; give the process a CPU a rank (taskset, the batch system's CPU count)",
                       lay->n, least);
    return len > 0 ? (size_t)len : 0;
}
