/* cuda_group.c - device groups (--backend cuda --devices 0,1): one rank per GPU, all driven by this
 * one process, each rank a whole single-device context (its own stream and events) plus an NCCL
 * communicator from ncclCommInitAll. The group is one context to the harness:
 *
 * - a buffer exists once per rank, each the whole size the harness asked for; an upload writes
 *   the same bytes to every rank (every rank's input is in the array, rank-major: a rank reads its
 *   own part, xpb_collective_args). A download reads each rank's part from that rank: the kernel
 *   that writes a buffer names the parts (xpb_cuda_group_set_parts), and bytes before the first
 *   part come from rank 0, after the last from the last rank (the guard regions);
 * - the timer records on every rank's stream and reads the slowest rank's time;
 * - synchronize waits for every rank.
 * Only kernels with `group` set run on it (the collectives, cuda_collectives.c). The why of each
 * choice: docs/multi-gpu.md. */
#include "cuda_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nccl.h>

struct xpb_cuda_group {
    int n;
    xpb_cuda_ctx *rank[XPB_MAX_GROUP];
    ncclComm_t comm[XPB_MAX_GROUP];
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
    for (int r = 0; grp && r < grp->n; r++) {
        if (grp->comm[r])
            (void)ncclCommDestroy(grp->comm[r]);
        if (grp->rank[r])
            xpb_cuda_close(grp->rank[r]);
    }
    free(grp);
    free(g);
}

xpb_status xpb_cuda_open_group(const int *devices, int n, void **ctx, xpb_error *err)
{
    *ctx = NULL;
    xpb_cuda_ctx *g = calloc(1, sizeof *g);
    xpb_cuda_group *grp = calloc(1, sizeof *grp);
    if (!g || !grp) {
        free(g);
        free(grp);
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "cuda: out of host memory for a device group");
    }
    g->group = grp;
    grp->n = n;
    xpb_status st = XPB_OK;
    for (int r = 0; r < n && !st; r++)
        st = xpb_cuda_open(devices[r], (void **)&grp->rank[r], err);
    if (!st) {
        ncclResult_t nr = ncclCommInitAll(grp->comm, n, devices);
        if (nr != ncclSuccess)
            st = xpb_nccl_fail(err, nr, "ncclCommInitAll", __FILE__, __LINE__);
    }
    if (st) {
        destroy(g);
        return st;
    }
    /* rank 0 stands for the group where one device is asked about (NVML power, clocks) */
    xpb_cuda_ctx *r0 = grp->rank[0];
    g->device = r0->device;
    g->sm_count = r0->sm_count;
    g->max_threads_per_sm = r0->max_threads_per_sm;
    g->max_grid_x = r0->max_grid_x;
    g->cc_major = r0->cc_major;
    g->cc_minor = r0->cc_minor;
    *ctx = g;
    return XPB_OK;
}

void xpb_cuda_close_group(xpb_cuda_ctx *g)
{
    destroy(g); /* each rank's close waits for its stream */
}

xpb_status xpb_cuda_group_info(const int *devices, int n, xpb_device_info *out, xpb_error *err)
{
    xpb_status st = xpb_cuda_device_info(devices[0], out, err);
    if (st)
        return st;
    int version = 0;
    ncclResult_t nr = ncclGetVersion(&version);
    if (nr != ncclSuccess)
        return xpb_nccl_fail(err, nr, "ncclGetVersion", __FILE__, __LINE__);
    char first[sizeof out->name];
    snprintf(first, sizeof first, "%s", out->name);
    bool same = true;
    uint64_t memory = out->memory_bytes;
    for (int r = 1; r < n; r++) { /* a group's memory is its smallest device's */
        xpb_device_info d;
        if ((st = xpb_cuda_device_info(devices[r], &d, err)))
            return st;
        same = same && strcmp(d.name, first) == 0;
        memory = d.memory_bytes < memory ? d.memory_bytes : memory;
    }
    snprintf(out->name, sizeof out->name, "%dx %.200s%s", n, first, same ? "" : " (mixed models)");
    snprintf(out->library, sizeof out->library, "NCCL %d.%d.%d, one process, %d ranks", version / 10000,
             version / 100 % 100, version % 100, n);
    out->memory_bytes = memory;
    out->peak_gflops_fp32 *= n;
    out->peak_gbps = 0; /* the links between GPUs, not HBM, bound a collective: no roof yet */
    return XPB_OK;
}

/* ---- synchronize and the timer ------------------------------------------------------------------- */

xpb_status xpb_cuda_group_synchronize(xpb_cuda_ctx *g, xpb_error *err)
{
    xpb_status st = XPB_OK;
    for (int r = 0; r < g->group->n && !st; r++)
        st = xpb_cuda_synchronize(g->group->rank[r], err);
    return st;
}

xpb_status xpb_cuda_group_timer_begin(xpb_cuda_ctx *g, xpb_error *err)
{
    xpb_status st = XPB_OK;
    for (int r = 0; r < g->group->n && !st; r++)
        st = xpb_cuda_timer_begin(g->group->rank[r], err);
    return st;
}

/* The slowest rank's time: a collective is done when its last rank is. */
xpb_status xpb_cuda_group_timer_end(xpb_cuda_ctx *g, double *seconds, xpb_error *err)
{
    *seconds = 0;
    for (int r = 0; r < g->group->n; r++) {
        double s = 0;
        xpb_status st = xpb_cuda_timer_end(g->group->rank[r], &s, err);
        if (st)
            return st;
        *seconds = s > *seconds ? s : *seconds;
    }
    return XPB_OK;
}

/* ---- buffers ------------------------------------------------------------------------------------- */

xpb_status xpb_cuda_group_buffer_alloc(xpb_cuda_ctx *g, size_t bytes, xpb_buffer **out, xpb_error *err)
{
    *out = NULL;
    xpb_buffer *b = calloc(1, sizeof *b);
    void **ptrs = b ? calloc((size_t)g->group->n, sizeof *ptrs) : NULL;
    if (!ptrs) {
        free(b);
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "cuda: out of host memory for a group buffer");
    }
    b->bytes = bytes;
    b->rank_ptr = ptrs;
    b->ranks = g->group->n;
    for (int r = 0; r < g->group->n; r++) {
        xpb_buffer *one = NULL;
        xpb_status st = xpb_cuda_buffer_alloc(g->group->rank[r], bytes, &one, err);
        if (st) {
            xpb_cuda_group_buffer_free(g, b);
            return st;
        }
        ptrs[r] = one->ptr;
        free(one); /* the pointer is kept in rank_ptr; the per-rank struct is not needed */
    }
    b->ptr = ptrs[0];
    *out = b;
    return XPB_OK;
}

void xpb_cuda_group_buffer_free(xpb_cuda_ctx *g, xpb_buffer *buf)
{
    if (!buf)
        return;
    for (int r = 0; r < buf->ranks; r++)
        if (buf->rank_ptr[r] && xpb_cuda_activate(g->group->rank[r], NULL) == XPB_OK)
            (void)cudaFree(buf->rank_ptr[r]);
    (void)cudaGetLastError();
    free(buf->rank_ptr);
    free(buf);
}

/* A rank's own buffer, as a single-device buffer for the single-device copy functions. */
static xpb_buffer rank_view(const xpb_buffer *b, int r)
{
    xpb_buffer v = {0};
    v.ptr = b->rank_ptr[r];
    v.bytes = b->bytes;
    return v;
}

xpb_status xpb_cuda_group_buffer_upload(xpb_cuda_ctx *g, xpb_buffer *dst, size_t offset, const void *src,
                                        size_t bytes, xpb_error *err)
{
    for (int r = 0; r < g->group->n; r++) {
        xpb_buffer v = rank_view(dst, r);
        xpb_status st = xpb_cuda_buffer_upload(g->group->rank[r], &v, offset, src, bytes, err);
        if (st)
            return st;
    }
    return XPB_OK;
}

void xpb_cuda_group_set_parts(xpb_buffer *buf, size_t offset, size_t part_bytes)
{
    buf->part_offset = offset;
    buf->part_bytes = part_bytes;
}

/* Which rank holds byte b of the array: the part's owner, the first rank before the parts, the
 * last after them; rank 0 for a buffer no kernel has named parts of. */
static int owner(const xpb_buffer *buf, size_t b)
{
    if (!buf->part_bytes || b < buf->part_offset)
        return 0;
    size_t r = (b - buf->part_offset) / buf->part_bytes;
    return r >= (size_t)buf->ranks ? buf->ranks - 1 : (int)r;
}

xpb_status xpb_cuda_group_buffer_download(xpb_cuda_ctx *g, xpb_buffer *src, size_t offset, void *dst, size_t bytes,
                                          xpb_error *err)
{
    size_t done = 0;
    while (done < bytes) { /* one copy per run of bytes that one rank owns */
        size_t at = offset + done;
        int r = owner(src, at);
        size_t end = offset + bytes;
        if (src->part_bytes && r < src->ranks - 1) {
            size_t next = src->part_offset + (size_t)(r + 1) * src->part_bytes;
            if (at < src->part_offset)
                next = src->part_offset;
            end = next < end ? next : end;
        }
        xpb_buffer v = rank_view(src, r);
        xpb_status st = xpb_cuda_buffer_download(g->group->rank[r], &v, at, (char *)dst + done, end - at, err);
        if (st)
            return st;
        done = end - offset;
    }
    return XPB_OK;
}

/* ---- for the group kernels ------------------------------------------------------------------------- */

int xpb_cuda_group_size(const xpb_cuda_ctx *g) { return g->group ? g->group->n : 0; }

cudaStream_t xpb_cuda_group_stream(const xpb_cuda_ctx *g, int r) { return g->group->rank[r]->stream; }

struct ncclComm *xpb_cuda_group_comm(const xpb_cuda_ctx *g, int r) { return g->group->comm[r]; }
