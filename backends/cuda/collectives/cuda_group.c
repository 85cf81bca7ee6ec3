/* cuda_group.c - device groups: one rank per GPU, each rank a whole single-device context (its
 * own stream and events) plus an NCCL communicator. Two ways to hold the ranks:
 *   - one process drives every rank (--backend cuda --devices 0,1): ncclCommInitAll;
 *   - one process per rank under MPI (mpirun -np N xpubench run --backend cuda ...): this process
 *     drives one rank; rank 0 makes the NCCL unique id, MPI broadcasts it, ncclCommInitRank.
 * Either way the group is one context to the harness:
 *
 * - a buffer exists once per rank, each the whole size the harness asked for; an upload writes
 *   the same bytes to every rank of this process (every rank's input is in the array, rank-major:
 *   a rank reads its own part, xpb_collective_args). A download reads each rank's part from that
 *   rank: the kernel that writes a buffer names the parts (xpb_cuda_group_set_parts), and bytes
 *   before the first part come from rank 0, after the last from the last rank (the guard regions);
 *   under MPI the process holding a part broadcasts it, so every process holds the whole array and
 *   validates it alike (the same outcome everywhere keeps the processes in step);
 * - the timer records on every rank's stream and reads the slowest rank's time (under MPI: the
 *   largest over the processes), and keeps each rank's for the results (group_rank_seconds);
 * - synchronize waits for every rank.
 * Only kernels with `group` set run on it (the collectives, collectives.c). The why of each
 * choice: docs/multi-gpu.md. */
#define _POSIX_C_SOURCE 200809L /* gethostname */
#include "cuda_nccl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nccl_log.h"
#include "xpb_mpi.h"
#include "xpb_team.h"

struct xpb_cuda_group {
    int n;     /* ranks over every process */
    int local; /* ranks this process drives: n in one process, 1 under MPI */
    int first; /* the group rank of local rank 0 */
    xpb_cuda_ctx *rank[XPB_MAX_GROUP]; /* by local index */
    ncclComm_t comm[XPB_MAX_GROUP];
    double sum_s[XPB_MAX_GROUP]; /* by group rank: timed seconds since the last group_rank_seconds */
    int timed;
    xpb_team *team; /* one host thread a local rank, started at the first xpb_cuda_group_each_rank */
};

/* ---- errors ---------------------------------------------------------------------------------- */

xpb_status xpb_nccl_fail(xpb_error *err, int result, const char *what, const char *file, int line)
{
    return xpb_fail(err, result == ncclSystemError || result == ncclRemoteError ? XPB_ERR_DEVICE_LOST : XPB_ERR_RUNTIME,
                    "%s failed: %s (NCCL error %d) at %s:%d", what, ncclGetErrorString((ncclResult_t)result), result,
                    file, line);
}

/* ---- open, close, describe ---------------------------------------------------------------------- */

static void destroy(xpb_cuda_ctx *g)
{
    xpb_cuda_group *grp = g->group;
    if (grp)
        xpb_cuda_burst_sharded_forget(g); /* its graphs hold the communicators */
    if (grp)
        xpb_team_close(grp->team);
    for (int r = 0; grp && r < grp->local; r++) {
        if (grp->comm[r])
            (void)ncclCommDestroy(grp->comm[r]);
        if (grp->rank[r])
            xpb_cuda_dev_close(grp->rank[r]);
    }
    free(grp);
    free(g);
}

/* The group's ctx with its first local rank's limits (it stands for the group where one device
 * is asked about: NVML power, clocks), or everything undone after a failure. */
static xpb_status finish_open(xpb_cuda_ctx *g, xpb_status st, void **ctx)
{
    if (st) {
        destroy(g);
        return st;
    }
    xpb_cuda_ctx *r0 = g->group->rank[0];
    g->device = r0->device;
    g->sm_count = r0->sm_count;
    g->max_threads_per_sm = r0->max_threads_per_sm;
    g->max_grid_x = r0->max_grid_x;
    g->cc_major = r0->cc_major;
    g->cc_minor = r0->cc_minor;
    *ctx = g;
    return XPB_OK;
}

static xpb_status new_group(xpb_cuda_ctx **out, xpb_error *err)
{
    xpb_cuda_ctx *g = calloc(1, sizeof *g);
    xpb_cuda_group *grp = calloc(1, sizeof *grp);
    if (!g || !grp) {
        free(g);
        free(grp);
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "cuda: out of host memory for a device group");
    }
    g->group = grp;
    *out = g;
    return XPB_OK;
}

xpb_status xpb_cuda_open_group(const int *devices, int n, void **ctx, xpb_error *err)
{
    *ctx = NULL;
    xpb_nccl_log_arm(); /* before the process's first NCCL call: the results say what NCCL chose */
    xpb_cuda_ctx *g = NULL;
    if (new_group(&g, err))
        return XPB_ERR_OUT_OF_MEMORY;
    xpb_cuda_group *grp = g->group;
    grp->n = n;
    grp->local = n;
    grp->first = 0;
    xpb_status st = XPB_OK;
    for (int r = 0; r < n && !st; r++)
        st = xpb_cuda_open(devices[r], (void **)&grp->rank[r], err);
    if (!st) {
        ncclResult_t nr = ncclCommInitAll(grp->comm, n, devices);
        if (nr != ncclSuccess)
            st = xpb_nccl_fail(err, nr, "ncclCommInitAll", __FILE__, __LINE__);
    }
    return finish_open(g, st, ctx);
}

void xpb_cuda_close_group(xpb_cuda_ctx *g)
{
    destroy(g); /* each rank's close waits for its stream */
}

/* A group's description from its ranks' devices: "2x NVIDIA H200", the smallest memory, and how
 * its ranks are driven ("NCCL 2.28.9, one process, 2 ranks"). */
static xpb_status describe(xpb_device_info *out, int n, bool same, uint64_t memory, const char *how, xpb_error *err)
{
    int version = 0;
    ncclResult_t nr = ncclGetVersion(&version);
    if (nr != ncclSuccess)
        return xpb_nccl_fail(err, nr, "ncclGetVersion", __FILE__, __LINE__);
    char first[sizeof out->name];
    snprintf(first, sizeof first, "%s", out->name);
    snprintf(out->name, sizeof out->name, "%dx %.200s%s", n, first, same ? "" : " (mixed models)");
    snprintf(out->library, sizeof out->library, "NCCL %d.%d.%d, %s, %d ranks", version / 10000,
             version / 100 % 100, version % 100, how, n);
    out->memory_bytes = memory; /* a group's memory is its smallest device's */
    out->peak_gflops_fp32 *= n;
    out->peak_gbps = 0; /* the links between GPUs, not HBM, bound a collective: no roof yet */
    return XPB_OK;
}

xpb_status xpb_cuda_group_info(const int *devices, int n, xpb_device_info *out, xpb_error *err)
{
    xpb_status st = xpb_cuda_device_info(devices[0], out, err);
    if (st)
        return st;
    bool same = true;
    uint64_t memory = out->memory_bytes;
    for (int r = 1; r < n; r++) {
        xpb_device_info d;
        if ((st = xpb_cuda_device_info(devices[r], &d, err)))
            return st;
        same = same && strcmp(d.name, out->name) == 0;
        memory = d.memory_bytes < memory ? d.memory_bytes : memory;
    }
    return describe(out, n, same, memory, "one process", err);
}

/* ---- one process per rank under MPI ------------------------------------------------------------- */

/* What each process tells the others about its rank. */
typedef struct rank_desc {
    int device;
    int opened; /* its GPU opened */
    uint64_t memory;
    char host[64];
    char name[sizeof(((xpb_device_info *)0)->name)];
} rank_desc;

xpb_status xpb_cuda_open_group_mpi(int device, void **ctx, xpb_device_info *info, xpb_group_layout *layout,
                                   xpb_error *err)
{
    *ctx = NULL;
    xpb_nccl_log_arm(); /* each process its own log, before its first NCCL call */
    int n = xpb_mpi_size(), me = xpb_mpi_rank();
    if (n > XPB_MAX_GROUP)
        return xpb_fail(err, XPB_ERR_USAGE, "%d MPI processes; a device group holds at most %d", n, XPB_MAX_GROUP);
    rank_desc mine = {.device = device}, *all = calloc((size_t)n, sizeof *all);
    xpb_cuda_ctx *g = NULL;
    xpb_status st = all ? new_group(&g, err) : xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "cuda: out of host memory");
    if (!st) {
        g->group->n = n;
        g->group->local = 1;
        g->group->first = me;
        st = xpb_cuda_device_info(device, info, err);
    }
    if (!st)
        st = xpb_cuda_open(device, (void **)&g->group->rank[0], err);
    mine.opened = st == XPB_OK;
    mine.memory = st ? 0 : info->memory_bytes;
    (void)gethostname(mine.host, sizeof mine.host - 1);
    snprintf(mine.name, sizeof mine.name, "%s", st ? "" : info->name);
    /* Every process learns whether every other opened its GPU before NCCL, whose init would
     * wait forever for a rank that is not coming. */
    st = xpb_mpi_agree(st, err);
    if (!st)
        st = xpb_mpi_allgather(&mine, sizeof mine, all, err);
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    if (!st && me == 0) {
        ncclResult_t nr = ncclGetUniqueId(&id);
        if (nr != ncclSuccess)
            st = xpb_nccl_fail(err, nr, "ncclGetUniqueId", __FILE__, __LINE__);
    }
    st = xpb_mpi_agree(st, err);
    if (!st)
        st = xpb_mpi_bcast(&id, sizeof id, 0, err);
    if (!st)
        st = xpb_cuda_activate(g->group->rank[0], err);
    if (!st) {
        ncclResult_t nr = ncclCommInitRank(&g->group->comm[0], n, id, me);
        if (nr != ncclSuccess)
            st = xpb_nccl_fail(err, nr, "ncclCommInitRank", __FILE__, __LINE__);
    }
    st = xpb_mpi_agree(st, err);
    bool same = true;
    uint64_t memory = st ? 0 : all[0].memory;
    layout->n = n;
    for (int r = 0; !st && r < n; r++) {
        layout->device[r] = all[r].device;
        snprintf(layout->host[r], sizeof layout->host[r], "%s", all[r].host);
        same = same && strcmp(all[r].name, all[0].name) == 0;
        memory = all[r].memory < memory ? all[r].memory : memory;
    }
    if (!st) {
        snprintf(info->name, sizeof info->name, "%s", all[0].name);
        st = describe(info, n, same, memory, "one process per rank (MPI)", err);
    }
    free(all);
    if (!g)
        return st;
    return finish_open(g, st, ctx);
}

/* ---- synchronize and the timer ------------------------------------------------------------------- */

xpb_status xpb_cuda_group_synchronize(xpb_cuda_ctx *g, xpb_error *err)
{
    xpb_status st = XPB_OK;
    for (int l = 0; l < g->group->local && !st; l++)
        st = xpb_cuda_dev_synchronize(g->group->rank[l], err);
    return xpb_mpi_agree(st, err);
}

xpb_status xpb_cuda_group_timer_begin(xpb_cuda_ctx *g, xpb_error *err)
{
    xpb_status st = XPB_OK;
    for (int l = 0; l < g->group->local && !st; l++)
        st = xpb_cuda_dev_timer_begin(g->group->rank[l], err);
    return st;
}

/* The slowest rank's time: a collective is done when its last rank is. Every process gets every
 * rank's time, so that all of them take the same time and make the same decisions from it. */
xpb_status xpb_cuda_group_timer_end(xpb_cuda_ctx *g, double *seconds, xpb_error *err)
{
    xpb_cuda_group *grp = g->group;
    double mine[XPB_MAX_GROUP] = {0}, t[XPB_MAX_GROUP];
    xpb_status st = XPB_OK;
    for (int l = 0; l < grp->local && !st; l++)
        st = xpb_cuda_dev_timer_end(grp->rank[l], &mine[l], err);
    st = xpb_mpi_agree(st, err);
    if (!st) /* one process: its own ranks' times; under MPI each process has one rank */
        st = xpb_mpi_allgather(mine, (size_t)grp->local * sizeof *mine, t, err);
    if (st)
        return st;
    *seconds = 0;
    for (int r = 0; r < grp->n; r++) {
        *seconds = t[r] > *seconds ? t[r] : *seconds;
        grp->sum_s[r] += t[r];
    }
    grp->timed++;
    return XPB_OK;
}

/* What NCCL's log says this process's connections use (nccl_log.h): the whole process's, every
 * group it opened, so ctx is not read. */
xpb_status xpb_cuda_group_transports(void *ctx, char *out, size_t n, xpb_error *why)
{
    (void)ctx;
    return xpb_nccl_log_transports(out, n, why);
}

int xpb_cuda_group_rank_seconds(void *ctx, double *mean_s, int max)
{
    xpb_cuda_group *grp = ((xpb_cuda_ctx *)ctx)->group;
    if (!grp || grp->timed == 0)
        return 0;
    int n = grp->n < max ? grp->n : max;
    for (int r = 0; r < n; r++)
        mean_s[r] = grp->sum_s[r] / grp->timed;
    memset(grp->sum_s, 0, sizeof grp->sum_s);
    grp->timed = 0;
    return n;
}

/* ---- buffers ------------------------------------------------------------------------------------- */

xpb_status xpb_cuda_group_buffer_alloc(xpb_cuda_ctx *g, size_t bytes, xpb_buffer **out, xpb_error *err)
{
    xpb_cuda_group *grp = g->group;
    *out = NULL;
    xpb_buffer *b = calloc(1, sizeof *b);
    void **ptrs = b ? calloc((size_t)grp->local, sizeof *ptrs) : NULL;
    xpb_status st = ptrs ? XPB_OK : xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "cuda: out of host memory for a group buffer");
    if (!st) {
        b->bytes = bytes;
        b->rank_ptr = ptrs;
        b->ranks = grp->local;
        b->first_rank = grp->first;
        b->group_ranks = grp->n;
    }
    for (int l = 0; l < grp->local && !st; l++) {
        xpb_buffer *one = NULL;
        st = xpb_cuda_dev_buffer_alloc(grp->rank[l], bytes, &one, err);
        if (!st) {
            ptrs[l] = one->ptr;
            free(one); /* the pointer is kept in rank_ptr; the per-rank struct is not needed */
        }
    }
    st = xpb_mpi_agree(st, err); /* a buffer that one process lacks is lacked by all */
    if (st) {
        if (ptrs)
            xpb_cuda_group_buffer_free(g, b);
        else
            free(b);
        return st;
    }
    b->ptr = ptrs[0];
    *out = b;
    return XPB_OK;
}

void xpb_cuda_group_buffer_free(xpb_cuda_ctx *g, xpb_buffer *buf)
{
    if (!buf)
        return;
    for (int l = 0; l < buf->ranks; l++)
        if (buf->rank_ptr[l] && xpb_cuda_activate(g->group->rank[l], NULL) == XPB_OK)
            (void)cudaFree(buf->rank_ptr[l]);
    (void)cudaGetLastError();
    free(buf->rank_ptr);
    free(buf);
}

/* A local rank's own buffer, as a single-device buffer for the single-device copy functions. */
static xpb_buffer rank_view(const xpb_buffer *b, int l)
{
    xpb_buffer v = {0};
    v.ptr = b->rank_ptr[l];
    v.bytes = b->bytes;
    return v;
}

/* Uploads to every rank at once, one host thread each: copies from pageable memory are bound by
 * the copying thread (~10 GB/s). Rank l gets [offset, offset + bytes) of src, or with part_bytes
 * only its group rank r's part [offset + r part_bytes, + part_bytes). */
static xpb_status upload_ranks(xpb_cuda_ctx *g, xpb_buffer *dst, size_t offset, const void *src, size_t bytes,
                               size_t part_bytes, xpb_error *err)
{
    xpb_status st = XPB_OK;
    int n = g->group->local;
#pragma omp parallel for num_threads(n) schedule(static, 1) if (n > 1)
    for (int l = 0; l < n; l++) {
        xpb_error mine = {{0}};
        xpb_buffer v = rank_view(dst, l);
        size_t skip = part_bytes ? (size_t)(g->group->first + l) * part_bytes : 0;
        size_t len = part_bytes ? part_bytes : bytes;
        xpb_status s = skip + len > bytes
                           ? xpb_fail(&mine, XPB_ERR_USAGE, "cuda: rank %d's part ends past the %zu-byte input",
                                      g->group->first + l, bytes)
                           : xpb_cuda_dev_buffer_upload(g->group->rank[l], &v, offset + skip, (const char *)src + skip,
                                                        len, &mine);
        if (s) {
#pragma omp critical(xpb_cuda_group_upload)
            if (!st) {
                st = s;
                *err = mine;
            }
        }
    }
    return xpb_mpi_agree(st, err);
}

xpb_status xpb_cuda_group_buffer_upload(xpb_cuda_ctx *g, xpb_buffer *dst, size_t offset, const void *src,
                                        size_t bytes, xpb_error *err)
{
    return upload_ranks(g, dst, offset, src, bytes, 0, err);
}

/* Each local rank's buffer filled on its own device, one after the other: a fill is a kernel of
 * milliseconds, not a host copy worth a thread a rank. */
xpb_status xpb_cuda_group_buffer_fill(xpb_cuda_ctx *g, xpb_buffer *buf, size_t offset, size_t bytes, uint32_t word,
                                      xpb_error *err)
{
    xpb_status st = XPB_OK;
    for (int l = 0; l < g->group->local && !st; l++) {
        xpb_buffer v = rank_view(buf, l);
        st = xpb_cuda_dev_buffer_fill(g->group->rank[l], &v, offset, bytes, word, err);
    }
    return xpb_mpi_agree(st, err);
}

xpb_status xpb_cuda_buffer_upload_parts(void *ctx, xpb_buffer *dst, size_t offset, const void *src, size_t bytes,
                                        size_t part_bytes, xpb_error *err)
{
    xpb_cuda_ctx *g = ctx;
    if (!g->group)
        return xpb_cuda_dev_buffer_upload(ctx, dst, offset, src, bytes, err); /* one device reads the whole input */
    return upload_ranks(g, dst, offset, src, bytes, part_bytes, err);
}

void xpb_cuda_group_set_parts(xpb_buffer *buf, size_t offset, size_t part_bytes)
{
    buf->part_offset = offset;
    buf->part_bytes = part_bytes;
    buf->part_rows = buf->part_cols = 0;
    buf->part_shift = 0;
}

void xpb_cuda_group_set_column_parts(xpb_buffer *buf, size_t offset, int64_t rows, int64_t cols, int shift)
{
    buf->part_offset = offset;
    buf->part_bytes = 0;
    buf->part_rows = rows;
    buf->part_cols = cols;
    buf->part_shift = shift;
}

int64_t xpb_cuda_shard_first(int r, int p, int64_t n) { return (int64_t)r * n / p; }

int xpb_cuda_group_owner(const xpb_buffer *buf, size_t b, size_t limit, size_t *run_end)
{
    int n = buf->group_ranks;
    size_t off = buf->part_offset, row_bytes = (size_t)buf->part_cols * 4;
    size_t total = buf->part_rows ? (size_t)buf->part_rows * row_bytes : buf->part_bytes * (size_t)n;
    size_t end = limit;
    int r = 0;
    if (total == 0 || b < off) {
        end = total && off < limit ? off : limit;
    } else if (b >= off + total) {
        r = n - 1;
    } else if (buf->part_rows) { /* columns [r C / n, (r+1) C / n) of the row b is in */
        size_t rel = b - off, row = rel / row_bytes;
        int64_t col = (int64_t)(rel % row_bytes) / 4, cols = buf->part_cols;
        r = (int)(((col + 1) * n - 1) / cols); /* the last rank whose first column <= col */
        end = off + row * row_bytes + (size_t)xpb_cuda_shard_first(r + 1, n, cols) * 4;
        r = (r + buf->part_shift) % n;
    } else {
        r = (int)((b - off) / buf->part_bytes);
        end = off + (size_t)(r + 1) * buf->part_bytes;
    }
    *run_end = end < limit ? end : limit;
    return r;
}

/* One process drives every rank: each rank's runs of bytes at once, one host thread per rank, as
 * upload_ranks (a pageable copy is bound by its thread; 4 GiB read back one rank after another
 * at the 1 GiB all_gather on 4 GPUs). The runs are listed first, the copies then run in any order. */
static xpb_status download_local(xpb_cuda_ctx *g, xpb_buffer *src, size_t offset, void *dst, size_t bytes,
                                 xpb_error *err)
{
    typedef struct run { size_t at, end; int l; } run;
    size_t n = 0, cap = 16;
    run *runs = malloc(cap * sizeof *runs);
    for (size_t done = 0; runs && done < bytes;) {
        size_t at = offset + done, end;
        int l = xpb_cuda_group_owner(src, at, offset + bytes, &end) - src->first_rank;
        if (n == cap) {
            run *more = realloc(runs, (cap *= 2) * sizeof *runs);
            if (!more)
                free(runs);
            runs = more;
        }
        if (runs)
            runs[n++] = (run){at, end, l};
        done = end - offset;
    }
    if (!runs)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "cuda: out of host memory for a download's parts");
    xpb_status st = XPB_OK;
    int threads = g->group->local;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (threads > 1 && n > 1)
    for (size_t i = 0; i < n; i++) {
        xpb_error mine = {{0}};
        xpb_buffer v = rank_view(src, runs[i].l);
        xpb_status s = runs[i].l < 0 || runs[i].l >= src->ranks
                           ? xpb_fail(&mine, XPB_ERR_USAGE, "cuda: a download's part belongs to no rank of the group")
                           : xpb_cuda_dev_buffer_download(g->group->rank[runs[i].l], &v, runs[i].at,
                                                          (char *)dst + (runs[i].at - offset), runs[i].end - runs[i].at,
                                                          &mine);
        if (s) {
#pragma omp critical(xpb_cuda_group_download)
            if (!st) {
                st = s;
                if (err)
                    *err = mine;
            }
        }
    }
    free(runs);
    return st;
}

xpb_status xpb_cuda_group_buffer_download(xpb_cuda_ctx *g, xpb_buffer *src, size_t offset, void *dst, size_t bytes,
                                          xpb_error *err)
{
    if (!xpb_mpi_active())
        return download_local(g, src, offset, dst, bytes, err);
    xpb_status st = XPB_OK;
    size_t done = 0;
    while (done < bytes) { /* one copy per run of bytes that one rank owns */
        size_t at = offset + done, end;
        int r = xpb_cuda_group_owner(src, at, offset + bytes, &end);
        int l = r - src->first_rank;
        if (l >= 0 && l < src->ranks && !st) {
            xpb_buffer v = rank_view(src, l);
            st = xpb_cuda_dev_buffer_download(g->group->rank[l], &v, at, (char *)dst + done, end - at, err);
        }
        /* under MPI the owner sends its part to every process (every one takes part, even after a
         * failure here, so that none waits for a broadcast that never comes) */
        xpb_error bcast_err = {{0}};
        xpb_status bst = xpb_mpi_bcast((char *)dst + done, end - at, r, &bcast_err);
        if (bst && !st) {
            st = bst;
            if (err)
                *err = bcast_err;
        }
        done = end - offset;
    }
    return xpb_mpi_agree(st, err);
}

/* Only this process's runs, no broadcast: under MPI the runner validates each process's part where
 * it is and combines the verdicts (xpb_runner_validate.c), instead of every process receiving and
 * checking every rank's output (3 GiB over MPI and 4 GiB checked per process at the 1 GiB
 * all_gather on 4 GPUs). */
xpb_status xpb_cuda_buffer_download_local(void *ctx, xpb_buffer *src, size_t offset, void *dst, size_t bytes,
                                          size_t *lo, size_t *hi, xpb_error *err)
{
    xpb_cuda_ctx *g = ctx;
    *lo = *hi = 0;
    if (!g->group)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED, "cuda: a local download is for device groups");
    if (g->group->local == g->group->n) { /* one process: every part is here */
        *hi = bytes;
        return download_local(g, src, offset, dst, bytes, err);
    }
    bool any = false;
    size_t done = 0;
    while (done < bytes) { /* first pass: where this process's bytes are, and that they are one span */
        size_t at = offset + done, end;
        int l = xpb_cuda_group_owner(src, at, offset + bytes, &end) - src->first_rank;
        if (l >= 0 && l < src->ranks) {
            if (any && *hi != at - offset)
                return xpb_fail(err, XPB_ERR_UNSUPPORTED, "cuda: this process's parts of the array are not one span");
            if (!any)
                *lo = at - offset;
            any = true;
            *hi = end - offset;
        }
        done = end - offset;
    }
    if (!any)
        return XPB_OK;
    return download_local(g, src, offset + *lo, (char *)dst + *lo, *hi - *lo, err);
}

/* ---- one host thread a rank ---------------------------------------------------------------------- */

/* How long a rank's thread polls for the next job before it sleeps: a sample's launches follow the
 * last within microseconds, and a sleeping thread takes microseconds to wake, inside the ranks'
 * timed interval. */
#define XPB_GROUP_TEAM_SPIN_US 2000

typedef struct rank_job {
    const xpb_cuda_ctx *g;
    xpb_status (*fn)(void *user, int l, xpb_error *err);
    void *user;
} rank_job;

static xpb_status rank_part(void *user, int l, xpb_error *err)
{
    const rank_job *j = user;
    xpb_status st = xpb_cuda_activate(j->g->group->rank[l], err);
    return st ? st : j->fn(j->user, l, err);
}

/* The threads are started once a group (xpb_team.h) and kept until it closes: starting three of
 * them for every sample put tens of microseconds between the ranks' first launches, inside every
 * rank's timed interval (docs/multi-gpu.md). Rank 0's part runs on this thread. */
xpb_status xpb_cuda_group_each_rank(const xpb_cuda_ctx *g, xpb_status (*fn)(void *user, int l, xpb_error *err),
                                    void *user, xpb_error *err)
{
    xpb_cuda_group *grp = g->group;
    int n = grp->local;
    if (n < 1 || n > XPB_MAX_GROUP)
        return xpb_fail(err, XPB_ERR_USAGE, "cuda: %d local ranks to drive", n);
    if (!grp->team) {
        xpb_status st = xpb_team_open(n, XPB_GROUP_TEAM_SPIN_US, &grp->team, err);
        if (st)
            return st;
    }
    rank_job j = {g, fn, user};
    return xpb_team_run(grp->team, rank_part, &j, err);
}

/* ---- for the group kernels ------------------------------------------------------------------------- */

int xpb_cuda_group_size(const xpb_cuda_ctx *g) { return g->group ? g->group->n : 0; }

int xpb_cuda_group_local(const xpb_cuda_ctx *g) { return g->group ? g->group->local : 0; }

int xpb_cuda_group_first(const xpb_cuda_ctx *g) { return g->group ? g->group->first : 0; }

cudaStream_t xpb_cuda_group_stream(const xpb_cuda_ctx *g, int l) { return g->group->rank[l]->stream; }

struct ncclComm *xpb_cuda_group_comm(const xpb_cuda_ctx *g, int l) { return g->group->comm[l]; }

xpb_cuda_ctx *xpb_cuda_group_rank_ctx(const xpb_cuda_ctx *g, int l) { return g->group->rank[l]; }
