/* xpb_group_cpus.h - the CPUs a device group's ranks may run on, recorded in the results
 * (system.devices[].ranks[].cpus) and checked: a rank's host threads (its launches, NCCL's proxy
 * thread, the CUDA runtime's) share the CPUs of its process's affinity mask. Open MPI binds each
 * process to one core when -np <= 2 (to a package above), and NCCL keeps the threads it starts
 * inside the process's mask (unless NCCL_IGNORE_CPU_AFFINITY=1), so under `mpirun -np 2` every
 * thread of a rank takes turns on one core.
 * One process drives every rank from a host thread of its own (XPB_CUDA_SHARDED_LAUNCH,
 * the collectives' threads), so it wants a CPU a rank. docs/multi-gpu.md. */
#ifndef XPB_GROUP_CPUS_H
#define XPB_GROUP_CPUS_H

#include <stdbool.h>
#include <stddef.h>

#include "xpb_backend.h"

/* Fills lay->cpus: this process's count for every rank (one process), or every process's
 * (under MPI: gathered, so every process must call it). */
xpb_status xpb_group_cpus_read(xpb_group_layout *lay, bool mpi, xpb_error *err);

/* The warning a layout earns, into out (n bytes): in one process, fewer CPUs than ranks (under
 * MPI none: a rank on one core measured no slower, xpb_group_cpus.c). Returns its length, 0 when
 * none (out then ""). */
size_t xpb_group_cpus_warning(const xpb_group_layout *lay, bool mpi, char *out, size_t n);

#endif
