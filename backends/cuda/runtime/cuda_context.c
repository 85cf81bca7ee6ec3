/* cuda_context.c - open/close one device, synchronize, and the cuda-events timer. A device group's
 * are cuda_group.c's, which opens its ranks here; cuda_route.c sends the table's calls to either. */
#include "cuda_backend.h"

#include <stdlib.h>

xpb_status xpb_cuda_native_queue(void *ctx, void **queue, xpb_error *err)
{
    xpb_cuda_ctx *c = ctx;
    *queue = NULL;
    if (c->group) /* a plugin's ops are never group ops; a group's rank 0 stream alone would mislead */
        return xpb_fail(err, XPB_ERR_UNSUPPORTED, "cuda: plugin kernels run on one device, not a device group");
    xpb_status st = xpb_cuda_activate(c, err);
    if (st == XPB_OK)
        *queue = (void *)c->stream;
    return st;
}

static void destroy(xpb_cuda_ctx *c)
{
    xpb_cuda_blas_destroy(c); /* before the stream it works on */
    if (c->ev_end)
        cudaEventDestroy(c->ev_end);
    if (c->ev_begin)
        cudaEventDestroy(c->ev_begin);
    if (c->ev_join)
        cudaEventDestroy(c->ev_join);
    if (c->ev_fork)
        cudaEventDestroy(c->ev_fork);
    if (c->side)
        cudaStreamDestroy(c->side);
    if (c->stream)
        cudaStreamDestroy(c->stream);
    free(c);
}

static xpb_status init(xpb_cuda_ctx *c, int device, xpb_error *err)
{
    int count = 0;
    XPB_CUDA_CHECK(err, cudaGetDeviceCount(&count));
    if (device < 0 || device >= count)
        return xpb_fail(err, XPB_ERR_USAGE, "cuda: no device %d (this machine has %d)", device,
                        count);
    c->device = device;
    XPB_CUDA_CHECK(err, cudaSetDevice(device)); /* also creates the primary context */
    XPB_CUDA_CHECK(err, cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
    XPB_CUDA_CHECK(err, cudaEventCreate(&c->ev_begin));
    XPB_CUDA_CHECK(err, cudaEventCreate(&c->ev_end));
    XPB_CUDA_CHECK(err, cudaStreamCreateWithFlags(&c->side, cudaStreamNonBlocking));
    XPB_CUDA_CHECK(err, cudaEventCreateWithFlags(&c->ev_fork, cudaEventDisableTiming));
    XPB_CUDA_CHECK(err, cudaEventCreateWithFlags(&c->ev_join, cudaEventDisableTiming));
    XPB_CUDA_CHECK(err, cudaDeviceGetAttribute(&c->sm_count, cudaDevAttrMultiProcessorCount, device));
    XPB_CUDA_CHECK(err, cudaDeviceGetAttribute(&c->max_threads_per_sm,
                                               cudaDevAttrMaxThreadsPerMultiProcessor, device));
    XPB_CUDA_CHECK(err, cudaDeviceGetAttribute(&c->max_grid_x, cudaDevAttrMaxGridDimX, device));
    XPB_CUDA_CHECK(err, cudaDeviceGetAttribute(&c->cc_major, cudaDevAttrComputeCapabilityMajor, device));
    XPB_CUDA_CHECK(err, cudaDeviceGetAttribute(&c->cc_minor, cudaDevAttrComputeCapabilityMinor, device));
    if (c->sm_count < 1 || c->max_threads_per_sm < 32 || c->max_grid_x < 1)
        return xpb_fail(err, XPB_ERR_RUNTIME,
                        "cuda: device %d reports implausible limits (%d SMs, %d threads/SM, grid x %d)",
                        device, c->sm_count, c->max_threads_per_sm, c->max_grid_x);
    return XPB_OK;
}

xpb_status xpb_cuda_open(int device, void **ctx, xpb_error *err)
{
    *ctx = NULL;
    xpb_cuda_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "cuda: out of host memory for the context");
    xpb_status st = init(c, device, err);
    if (st != XPB_OK) {
        destroy(c);
        return st;
    }
    *ctx = c;
    return XPB_OK;
}

void xpb_cuda_dev_close(void *ctx)
{
    xpb_cuda_ctx *c = ctx;
    if (!c)
        return;
    /* Best effort: let queued work finish before its stream goes away; errors are ignored
     * because close cannot report them (a dead context fails every call anyway). */
    if (xpb_cuda_activate(c, NULL) == XPB_OK)
        (void)cudaStreamSynchronize(c->stream);
    destroy(c);
}

xpb_status xpb_cuda_dev_synchronize(void *ctx, xpb_error *err)
{
    xpb_cuda_ctx *c = ctx;
    xpb_status st = xpb_cuda_activate(c, err);
    if (st != XPB_OK)
        return st;
    XPB_CUDA_CHECK(err, cudaStreamSynchronize(c->stream));
    return XPB_OK;
}

xpb_status xpb_cuda_dev_timer_begin(void *ctx, xpb_error *err)
{
    xpb_cuda_ctx *c = ctx;
    xpb_status st = xpb_cuda_activate(c, err);
    if (st != XPB_OK)
        return st;
    XPB_CUDA_CHECK(err, cudaEventRecord(c->ev_begin, c->stream));
    return XPB_OK;
}

xpb_status xpb_cuda_dev_timer_end(void *ctx, double *seconds, xpb_error *err)
{
    xpb_cuda_ctx *c = ctx;
    *seconds = 0.0;
    xpb_status st = xpb_cuda_activate(c, err);
    if (st != XPB_OK)
        return st;
    XPB_CUDA_CHECK(err, cudaEventRecord(c->ev_end, c->stream));
    XPB_CUDA_CHECK(err, cudaEventSynchronize(c->ev_end));
    float ms = 0.0f;
    XPB_CUDA_CHECK(err, cudaEventElapsedTime(&ms, c->ev_begin, c->ev_end));
    *seconds = (double)ms * 1e-3;
    return XPB_OK;
}
