/* cpu_buffer.c - buffers are aligned host allocations; upload and download are bounds-checked
 * copies. */
#include "cpu_internal.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Below this a copy is not worth waking the team for. */
#define PARALLEL_COPY_MIN ((size_t)1 << 20)

void xpb_cpu_memcpy(void *dst, const void *src, size_t bytes)
{
    if (bytes < PARALLEL_COPY_MIN) {
        memcpy(dst, src, bytes);
        return;
    }
#pragma omp parallel
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        /* chunks of whole 4 KiB pages, so threads never share a cache line */
        size_t pages = (bytes + 4095) / 4096, per = (pages + (size_t)nt - 1) / (size_t)nt;
        size_t b = (size_t)t * per * 4096, e = b + per * 4096;
        if (e > bytes)
            e = bytes;
        if (b < e)
            memcpy((char *)dst + b, (const char *)src + b, e - b);
    }
}

xpb_status xpb_cpu_buffer_alloc(void *ctx, size_t bytes, xpb_buffer **out, xpb_error *err)
{
    (void)ctx;
    *out = NULL;
    /* aligned_alloc wants a multiple of the alignment; a zero-byte buffer still gets one block */
    if (bytes > SIZE_MAX - XPB_CPU_ALIGN)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "cpu: buffer of %zu bytes is too large", bytes);
    size_t rounded = bytes == 0 ? XPB_CPU_ALIGN : (bytes + XPB_CPU_ALIGN - 1) / XPB_CPU_ALIGN * XPB_CPU_ALIGN;
    xpb_buffer *buf = malloc(sizeof *buf);
    void *data = buf ? aligned_alloc(XPB_CPU_ALIGN, rounded) : NULL;
    if (!data) {
        free(buf);
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "cpu: cannot allocate a buffer of %zu bytes",
                        bytes);
    }
    buf->data = data;
    buf->bytes = bytes;
    *out = buf;
    return XPB_OK;
}

void xpb_cpu_buffer_free(void *ctx, xpb_buffer *buf)
{
    (void)ctx;
    if (!buf)
        return;
    free(buf->data);
    free(buf);
}

/* XPB_OK when [offset, offset + bytes) lies inside buf; written without overflow. */
static xpb_status check_range(const xpb_buffer *buf, size_t offset, size_t bytes, const char *op,
                              xpb_error *err)
{
    if (!buf)
        return xpb_fail(err, XPB_ERR_USAGE, "cpu: %s with no buffer", op);
    if (offset > buf->bytes || bytes > buf->bytes - offset)
        return xpb_fail(err, XPB_ERR_USAGE,
                        "cpu: %s of %zu bytes at offset %zu overruns a %zu-byte buffer", op, bytes,
                        offset, buf->bytes);
    return XPB_OK;
}

xpb_status xpb_cpu_buffer_upload(void *ctx, xpb_buffer *dst, size_t offset, const void *src,
                                 size_t bytes, xpb_error *err)
{
    (void)ctx;
    xpb_status st = check_range(dst, offset, bytes, "upload", err);
    if (st == XPB_OK && bytes > 0)
        xpb_cpu_memcpy((char *)dst->data + offset, src, bytes);
    return st;
}

void *xpb_cpu_view_ptr(void *ctx, const xpb_view *v, size_t bytes)
{
    (void)ctx;
    if (v->offset > v->buf->bytes || bytes > v->buf->bytes - v->offset)
        return NULL;
    return (char *)v->buf->data + v->offset;
}

xpb_status xpb_cpu_buffer_download(void *ctx, xpb_buffer *src, size_t offset, void *dst,
                                   size_t bytes, xpb_error *err)
{
    (void)ctx;
    xpb_status st = check_range(src, offset, bytes, "download", err);
    if (st == XPB_OK && bytes > 0)
        xpb_cpu_memcpy(dst, (const char *)src->data + offset, bytes);
    return st;
}
