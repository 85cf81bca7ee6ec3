/* cuda_graph.c - CUDA graphs for `run --graph`: the launches of one timed sample are captured
 * once on each stream of the context (one device, or every rank of a device group this process
 * drives) and replayed by one graph launch per stream, as nccl-tests' -G does: the host's launch
 * cost and the gaps between launches then leave the sample. */
#include "cuda_backend.h"

#include <stdlib.h>

typedef struct graph {
    int n;
    int device[XPB_MAX_GROUP];
    cudaStream_t stream[XPB_MAX_GROUP];
    cudaGraphExec_t exec[XPB_MAX_GROUP];
} graph;

/* The context's streams and their devices: one, or each local rank's. */
static int streams_of(xpb_cuda_ctx *c, int *device, cudaStream_t *stream)
{
#ifdef XPB_HAVE_NCCL
    if (c->group) {
        int n = xpb_cuda_group_local(c);
        for (int l = 0; l < n; l++) {
            const xpb_cuda_ctx *r = xpb_cuda_group_rank_ctx(c, l);
            device[l] = r->device;
            stream[l] = r->stream;
        }
        return n;
    }
#endif
    device[0] = c->device;
    stream[0] = c->stream;
    return 1;
}

xpb_status xpb_cuda_capture_begin(void *ctx, xpb_error *err)
{
    int device[XPB_MAX_GROUP];
    cudaStream_t stream[XPB_MAX_GROUP];
    int n = streams_of(ctx, device, stream);
    for (int i = 0; i < n; i++) {
        cudaError_t e = cudaSetDevice(device[i]);
        /* thread-local: NCCL may allocate while it connects during the capture (nccl-tests) */
        if (e == cudaSuccess)
            e = cudaStreamBeginCapture(stream[i], cudaStreamCaptureModeThreadLocal);
        if (e != cudaSuccess) {
            for (int j = 0; j < i; j++) { /* no stream is left capturing */
                cudaGraph_t g = NULL;
                if (cudaSetDevice(device[j]) == cudaSuccess && cudaStreamEndCapture(stream[j], &g) == cudaSuccess && g)
                    (void)cudaGraphDestroy(g);
            }
            return xpb_cuda_fail(err, e, "cudaStreamBeginCapture", __FILE__, __LINE__);
        }
    }
    return XPB_OK;
}

void xpb_cuda_graph_free(void *ctx, void *gp)
{
    (void)ctx;
    graph *g = gp;
    for (int i = 0; g && i < g->n; i++)
        if (g->exec[i] && cudaSetDevice(g->device[i]) == cudaSuccess)
            (void)cudaGraphExecDestroy(g->exec[i]);
    free(g);
}

/* Ends the capture on every stream first (also after a failure, so none is left capturing; no
 * graph can be instantiated while another stream of this thread still captures), then makes each
 * one's graph replayable; the first failure is the one reported. */
xpb_status xpb_cuda_capture_end(void *ctx, void **out, xpb_error *err)
{
    *out = NULL;
    graph *g = calloc(1, sizeof *g);
    int device[XPB_MAX_GROUP];
    cudaStream_t stream[XPB_MAX_GROUP];
    cudaGraph_t captured[XPB_MAX_GROUP] = {0};
    int n = streams_of(ctx, device, stream);
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < n; i++) {
        cudaError_t ei = cudaSetDevice(device[i]);
        if (ei == cudaSuccess)
            ei = cudaStreamEndCapture(stream[i], &captured[i]);
        if (e == cudaSuccess)
            e = ei;
    }
    for (int i = 0; i < n && g && e == cudaSuccess; i++) {
        g->device[i] = device[i];
        g->stream[i] = stream[i];
        g->n = i + 1;
        e = cudaSetDevice(device[i]);
        if (e == cudaSuccess)
            e = cudaGraphInstantiate(&g->exec[i], captured[i], 0);
    }
    for (int i = 0; i < n; i++)
        if (captured[i])
            (void)cudaGraphDestroy(captured[i]);
    (void)cudaGetLastError(); /* a failed capture leaves its error behind */
    xpb_status st = !g ? xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "cuda: out of host memory for a graph")
                  : e != cudaSuccess ? xpb_cuda_fail(err, e, "capturing the launches of a sample into a CUDA graph",
                                                     __FILE__, __LINE__)
                                     : XPB_OK;
    if (st) {
        xpb_cuda_graph_free(ctx, g);
        return st;
    }
    *out = g;
    return XPB_OK;
}

xpb_status xpb_cuda_graph_launch(void *ctx, void *gp, xpb_error *err)
{
    (void)ctx;
    const graph *g = gp;
    for (int i = 0; i < g->n; i++) {
        XPB_CUDA_CHECK(err, cudaSetDevice(g->device[i]));
        XPB_CUDA_CHECK(err, cudaGraphLaunch(g->exec[i], g->stream[i]));
    }
    return XPB_OK;
}
