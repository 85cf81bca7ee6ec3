/* xpb_mpi.h - one process per GPU under MPI (`mpirun -np N xpubench run --backend cuda ...`):
 * the few MPI operations xpubench needs, behind a C API that does not expose mpi.h, so that the
 * harness and the backends compile the same with and without MPI (XPB_MPI, CMakeLists.txt).
 *
 * Under MPI every process runs the same cases in the same order, and each process is one rank of
 * one cuda device group (cuda_group.c). Every decision that could differ between processes (a
 * host clock, free host memory, a failed allocation) is agreed through these functions, so that
 * every process makes the same NCCL and MPI calls; rank 0 prints and writes the results.
 * Without MPI (or when not launched by an MPI launcher) the process is rank 0 of 1 and every
 * function is the identity. docs/multi-gpu.md has the why. */
#ifndef XPB_MPI_H
#define XPB_MPI_H

#include <stdbool.h>
#include <stddef.h>

#include "xpb_status.h"

/* The launcher's environment variable that says this process was started by one (Open MPI's
 * OMPI_COMM_WORLD_SIZE, PMI's PMI_SIZE, PMIx's PMIX_RANK: mpirun, mpiexec, srun), or NULL. */
const char *xpb_mpi_launcher(void);

/* MPI_Init when launched by an MPI launcher; nothing otherwise. Launched by one into a build
 * without MPI: XPB_ERR_UNAVAILABLE naming the reason (never N independent runs in silence). */
xpb_status xpb_mpi_start(xpb_error *err);
void xpb_mpi_finish(void);

bool xpb_mpi_active(void);    /* MPI_Init was called by xpb_mpi_start */
int xpb_mpi_rank(void);       /* 0 without MPI */
int xpb_mpi_size(void);       /* 1 without MPI */
int xpb_mpi_local_rank(void); /* among the processes of this host: which GPU to take */
int xpb_mpi_local_size(void); /* the processes of this host (1 without MPI) */

/* The host's cores shared among the processes on it: each process's OpenMP threads (make_data,
 * validation) set to its share, unless OMP_NUM_THREADS says otherwise. Left alone, each of 4
 * processes on a 64-core host started 64 threads (omp_get_max_threads): 256 threads spinning at
 * every barrier on 64 cores, the validation and input generation many times slower than one
 * process's. Called by xpb_mpi_start; returns the threads set (0: none set). */
int xpb_mpi_share_cores(void);
/* Its arithmetic: online / local_size, at most the CPUs of this process's affinity mask (mask;
 * 0 unknown), at least 1. */
int xpb_mpi_threads_for(int online, int mask, int local_size);

/* Every process's `bytes` from `mine`, in rank order, into `all` (size x bytes). */
xpb_status xpb_mpi_allgather(const void *mine, size_t bytes, void *all, xpb_error *err);
/* Rank root's `bytes` at buf into every process's buf (any size: sent in pieces of 1 GiB). */
xpb_status xpb_mpi_bcast(void *buf, size_t bytes, int root, xpb_error *err);
/* True on every process when `mine` is true on any. A failing MPI call counts as true. */
bool xpb_mpi_any(bool mine);
/* The largest of every process's v (an exit code: every process ends the same way). */
int xpb_mpi_max_int(int v);
/* The same outcome on every process: OK when st is OK everywhere, else the lowest failing rank's
 * status and message on every process (prefixed with its rank when it is another's). */
xpb_status xpb_mpi_agree(xpb_status st, xpb_error *err);

#endif
