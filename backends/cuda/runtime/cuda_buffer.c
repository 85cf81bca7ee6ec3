/* cuda_buffer.c - one device's buffers (cudaMalloc), blocking copies on the context's stream, and
 * the view -> device pointer check every kernel uses. A device group's buffers (one per rank) are
 * cuda_group.c's, made here rank by rank; cuda_route.c sends the table's calls to either. */
#include "cuda_backend.h"

#include <stdlib.h>

xpb_status xpb_cuda_dev_buffer_alloc(void *ctx, size_t bytes, xpb_buffer **out, xpb_error *err)
{
    *out = NULL;
    xpb_status st = xpb_cuda_activate(ctx, err);
    if (st != XPB_OK)
        return st;
    xpb_buffer *b = calloc(1, sizeof *b);
    if (!b)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "cuda: out of host memory for a buffer");
    if (bytes > 0) {
        cudaError_t e = cudaMalloc(&b->ptr, bytes);
        if (e != cudaSuccess) {
            free(b);
            return xpb_cuda_fail(err, e, "cudaMalloc", __FILE__, __LINE__);
        }
    }
    b->bytes = bytes;
    *out = b;
    return XPB_OK;
}

void xpb_cuda_dev_buffer_free(void *ctx, xpb_buffer *buf)
{
    if (!buf)
        return;
    if (buf->ptr && xpb_cuda_activate(ctx, NULL) == XPB_OK)
        (void)cudaFree(buf->ptr); /* nothing to report to: a failure here is a dead context */
    (void)cudaGetLastError();
    free(buf);
}

xpb_status xpb_cuda_buffer_check_range(const xpb_buffer *buf, size_t offset, size_t bytes,
                                       const char *what, xpb_error *err)
{
    if (!buf)
        return xpb_fail(err, XPB_ERR_USAGE, "cuda %s: no buffer", what);
    if (offset > buf->bytes || bytes > buf->bytes - offset)
        return xpb_fail(err, XPB_ERR_USAGE,
                        "cuda %s: range [%zu, %zu + %zu) exceeds the buffer of %zu bytes", what,
                        offset, offset, bytes, buf->bytes);
    return XPB_OK;
}

xpb_status xpb_cuda_dev_buffer_upload(void *ctx, xpb_buffer *dst, size_t offset, const void *src,
                                  size_t bytes, xpb_error *err)
{
    xpb_cuda_ctx *c = ctx;
    xpb_status st = xpb_cuda_buffer_check_range(dst, offset, bytes, "upload", err);
    if (st != XPB_OK || bytes == 0)
        return st;
    if ((st = xpb_cuda_activate(c, err)) != XPB_OK)
        return st;
    XPB_CUDA_CHECK(err, cudaMemcpyAsync((char *)dst->ptr + offset, src, bytes,
                                        cudaMemcpyHostToDevice, c->stream));
    XPB_CUDA_CHECK(err, cudaStreamSynchronize(c->stream));
    return XPB_OK;
}

xpb_status xpb_cuda_dev_buffer_download(void *ctx, xpb_buffer *src, size_t offset, void *dst,
                                    size_t bytes, xpb_error *err)
{
    xpb_cuda_ctx *c = ctx;
    xpb_status st = xpb_cuda_buffer_check_range(src, offset, bytes, "download", err);
    if (st != XPB_OK || bytes == 0)
        return st;
    if ((st = xpb_cuda_activate(c, err)) != XPB_OK)
        return st;
    XPB_CUDA_CHECK(err, cudaMemcpyAsync(dst, (const char *)src->ptr + offset, bytes,
                                        cudaMemcpyDeviceToHost, c->stream));
    XPB_CUDA_CHECK(err, cudaStreamSynchronize(c->stream));
    return XPB_OK;
}

void *xpb_cuda_view_ptr(void *ctx, const xpb_view *v, size_t bytes)
{
    (void)ctx;
    if (v->offset > v->buf->bytes || bytes > v->buf->bytes - v->offset)
        return NULL;
    return (char *)v->buf->ptr + v->offset;
}

xpb_status xpb_cuda_view_f32(const xpb_view *v, int64_t count, const char *what, float **out,
                             xpb_error *err)
{
    *out = NULL;
    if (!v->buf)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: no buffer bound", what);
    if (count < 0 || (uint64_t)count > SIZE_MAX / sizeof(float))
        return xpb_fail(err, XPB_ERR_USAGE, "%s: bad element count %lld", what, (long long)count);
    size_t need = (size_t)count * sizeof(float);
    if (v->offset > v->buf->bytes || need > v->buf->bytes - v->offset)
        return xpb_fail(err, XPB_ERR_USAGE,
                        "%s: view [%zu, %zu + %zu) runs past its buffer of %zu bytes", what,
                        v->offset, v->offset, need, v->buf->bytes);
    *out = (float *)((char *)v->buf->ptr + v->offset);
    return XPB_OK;
}
