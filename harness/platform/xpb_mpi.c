/* xpb_mpi.c - the MPI operations of xpb_mpi.h: real ones when built with MPI (XPB_HAVE_MPI) and
 * launched by an MPI launcher, the one-process identity otherwise. Every MPI call is checked:
 * MPI_COMM_WORLD returns errors (MPI_ERRORS_RETURN) instead of aborting, and a failed call is an
 * error naming the call and MPI's message. */
#include "xpb_mpi.h"
#include "xpb_sysinfo.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#ifdef XPB_HAVE_MPI
#include <mpi.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

static struct {
    bool active;
    int rank, size, local_rank, local_size;
} mpi = {false, 0, 1, 0, 1};

const char *xpb_mpi_launcher(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i]))
            return vars[i];
    return NULL;
}

bool xpb_mpi_active(void) { return mpi.active; }
int xpb_mpi_rank(void) { return mpi.rank; }
int xpb_mpi_size(void) { return mpi.size; }
int xpb_mpi_local_rank(void) { return mpi.local_rank; }
int xpb_mpi_local_size(void) { return mpi.local_size; }

int xpb_mpi_threads_for(int online, int mask, int local_size)
{
    int share = local_size > 0 ? online / local_size : online;
    int t = mask > 0 && mask < share ? mask : share;
    return t > 0 ? t : 1;
}

int xpb_mpi_share_cores(void)
{
#ifdef _OPENMP
    if (!mpi.active || getenv("OMP_NUM_THREADS"))
        return 0; /* one process, or the user's own choice */
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int t = xpb_mpi_threads_for(online > 0 ? (int)online : 1, xpb_sysinfo_affinity_cpus(), mpi.local_size);
    omp_set_num_threads(t);
    return t;
#else
    return 0;
#endif
}

#ifdef XPB_HAVE_MPI

static xpb_status mpi_fail(xpb_error *err, int rc, const char *what)
{
    char text[MPI_MAX_ERROR_STRING] = "?";
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "error %d", rc);
    return xpb_fail(err, XPB_ERR_RUNTIME, "%s failed on MPI rank %d: %s", what, mpi.rank, text);
}

#define MPI_TRY(err, call)                                                                       \
    do {                                                                                         \
        int mpi_rc_ = (call);                                                                    \
        if (mpi_rc_ != MPI_SUCCESS)                                                              \
            return mpi_fail((err), mpi_rc_, #call);                                              \
    } while (0)

xpb_status xpb_mpi_start(xpb_error *err)
{
    if (!xpb_mpi_launcher() || mpi.active)
        return XPB_OK;
    int rc = MPI_Init(NULL, NULL);
    if (rc != MPI_SUCCESS)
        return xpb_fail(err, XPB_ERR_UNAVAILABLE, "MPI_Init failed (error %d)", rc);
    mpi.active = true;
    MPI_TRY(err, MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_TRY(err, MPI_Comm_rank(MPI_COMM_WORLD, &mpi.rank));
    MPI_TRY(err, MPI_Comm_size(MPI_COMM_WORLD, &mpi.size));
    /* the processes sharing this host: a process's GPU is its rank among them */
    MPI_Comm host;
    MPI_TRY(err, MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, mpi.rank, MPI_INFO_NULL, &host));
    int rc2 = MPI_Comm_rank(host, &mpi.local_rank);
    if (rc2 == MPI_SUCCESS)
        rc2 = MPI_Comm_size(host, &mpi.local_size);
    (void)MPI_Comm_free(&host);
    if (rc2 != MPI_SUCCESS)
        return mpi_fail(err, rc2, "MPI_Comm_rank/size(host)");
    (void)xpb_mpi_share_cores();
    return XPB_OK;
}

void xpb_mpi_finish(void)
{
    if (mpi.active)
        (void)MPI_Finalize();
    mpi.active = false;
}

xpb_status xpb_mpi_allgather(const void *mine, size_t bytes, void *all, xpb_error *err)
{
    if (!mpi.active) {
        memmove(all, mine, bytes);
        return XPB_OK;
    }
    if (bytes > INT32_MAX)
        return xpb_fail(err, XPB_ERR_USAGE, "xpb_mpi_allgather: %zu bytes per rank (at most 2^31)", bytes);
    MPI_TRY(err, MPI_Allgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, MPI_COMM_WORLD));
    return XPB_OK;
}

xpb_status xpb_mpi_bcast(void *buf, size_t bytes, int root, xpb_error *err)
{
    if (!mpi.active)
        return XPB_OK;
    const size_t piece = (size_t)1 << 30; /* MPI counts are int */
    for (size_t at = 0; at < bytes; at += piece) {
        size_t n = bytes - at < piece ? bytes - at : piece;
        MPI_TRY(err, MPI_Bcast((char *)buf + at, (int)n, MPI_BYTE, root, MPI_COMM_WORLD));
    }
    return XPB_OK;
}

bool xpb_mpi_any(bool mine)
{
    if (!mpi.active)
        return mine;
    int in = mine, out = 1;
    if (MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD) != MPI_SUCCESS)
        return true;
    return out != 0;
}

int xpb_mpi_max_int(int v)
{
    int out = v;
    if (mpi.active && MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
        return v;
    return out;
}

xpb_status xpb_mpi_agree(xpb_status st, xpb_error *err)
{
    if (!mpi.active)
        return st;
    int mine = st ? mpi.rank : mpi.size, first = mpi.size;
    MPI_TRY(err, MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    if (first == mpi.size)
        return XPB_OK;
    struct {
        int status;
        char msg[XPB_ERROR_MSG_LEN];
    } what = {(int)st, {0}};
    if (mpi.rank == first && err)
        snprintf(what.msg, sizeof what.msg, "%s", err->msg);
    MPI_TRY(err, MPI_Bcast(&what, (int)sizeof what, MPI_BYTE, first, MPI_COMM_WORLD));
    if (mpi.rank == first)
        return st;
    return xpb_fail(err, (xpb_status)what.status, "MPI rank %d: %.480s", first, what.msg);
}

#else /* built without MPI: one process */

xpb_status xpb_mpi_start(xpb_error *err)
{
    const char *var = xpb_mpi_launcher();
    if (var)
        return xpb_fail(err, XPB_ERR_UNAVAILABLE, "started by an MPI launcher (%s is set), but this xpubench was "
                        "built without MPI (XPB_MPI: Debian's libopenmpi-dev, or any MPI CMake finds)", var);
    return XPB_OK;
}

void xpb_mpi_finish(void) {}

xpb_status xpb_mpi_allgather(const void *mine, size_t bytes, void *all, xpb_error *err)
{
    (void)err;
    memmove(all, mine, bytes);
    return XPB_OK;
}

xpb_status xpb_mpi_bcast(void *buf, size_t bytes, int root, xpb_error *err)
{
    (void)buf, (void)bytes, (void)root, (void)err;
    return XPB_OK;
}

bool xpb_mpi_any(bool mine) { return mine; }

int xpb_mpi_max_int(int v) { return v; }

xpb_status xpb_mpi_agree(xpb_status st, xpb_error *err)
{
    (void)err;
    return st;
}

#endif
