/* cuda_activate.c - xpb_cuda_activate (cuda_backend.h): every file that calls CUDA for a context
 * starts here, so it is a file of its own that calls nothing back. */
#include "cuda_backend.h"

xpb_status xpb_cuda_activate(const xpb_cuda_ctx *ctx, xpb_error *err)
{
    int current = -1;
    XPB_CUDA_CHECK(err, cudaGetDevice(&current));
    if (current != ctx->device)
        XPB_CUDA_CHECK(err, cudaSetDevice(ctx->device));
    return XPB_OK;
}
