/* cuda_route.c - the backend table's calls that take either context (cuda_backend.c): a device
 * group's go to cuda_group.c, one device's to cuda_context.c and cuda_buffer.c. A file of its own
 * so that those files call each other one way only (README.md "Which file calls which"). Groups
 * are compiled in only with NCCL (XPB_HAVE_NCCL): without it no group is ever opened. */
#include "cuda_backend.h"

void xpb_cuda_close(void *ctx)
{
    xpb_cuda_ctx *c = ctx;
    if (!c)
        return;
#ifdef XPB_HAVE_NCCL
    if (c->group) {
        xpb_cuda_close_group(c);
        return;
    }
#endif
    xpb_cuda_dev_close(c);
}

xpb_status xpb_cuda_synchronize(void *ctx, xpb_error *err)
{
#ifdef XPB_HAVE_NCCL
    xpb_cuda_ctx *c = ctx;
    if (c->group)
        return xpb_cuda_group_synchronize(c, err);
#endif
    return xpb_cuda_dev_synchronize(ctx, err);
}

xpb_status xpb_cuda_timer_begin(void *ctx, xpb_error *err)
{
#ifdef XPB_HAVE_NCCL
    xpb_cuda_ctx *c = ctx;
    if (c->group)
        return xpb_cuda_group_timer_begin(c, err);
#endif
    return xpb_cuda_dev_timer_begin(ctx, err);
}

xpb_status xpb_cuda_timer_end(void *ctx, double *seconds, xpb_error *err)
{
#ifdef XPB_HAVE_NCCL
    xpb_cuda_ctx *c = ctx;
    if (c->group) {
        *seconds = 0.0;
        return xpb_cuda_group_timer_end(c, seconds, err);
    }
#endif
    return xpb_cuda_dev_timer_end(ctx, seconds, err);
}

xpb_status xpb_cuda_buffer_alloc(void *ctx, size_t bytes, xpb_buffer **out, xpb_error *err)
{
#ifdef XPB_HAVE_NCCL
    if (((xpb_cuda_ctx *)ctx)->group) {
        *out = NULL;
        return xpb_cuda_group_buffer_alloc(ctx, bytes, out, err);
    }
#endif
    return xpb_cuda_dev_buffer_alloc(ctx, bytes, out, err);
}

void xpb_cuda_buffer_free(void *ctx, xpb_buffer *buf)
{
    if (!buf)
        return;
#ifdef XPB_HAVE_NCCL
    if (((xpb_cuda_ctx *)ctx)->group) {
        xpb_cuda_group_buffer_free(ctx, buf);
        return;
    }
#endif
    xpb_cuda_dev_buffer_free(ctx, buf);
}

xpb_status xpb_cuda_buffer_fill(void *ctx, xpb_buffer *buf, size_t offset, size_t bytes, uint32_t word,
                                xpb_error *err)
{
#ifdef XPB_HAVE_NCCL
    if (((xpb_cuda_ctx *)ctx)->group) /* each rank's range is checked by its one-device fill */
        return xpb_cuda_group_buffer_fill(ctx, buf, offset, bytes, word, err);
#endif
    return xpb_cuda_dev_buffer_fill(ctx, buf, offset, bytes, word, err);
}

xpb_status xpb_cuda_buffer_upload(void *ctx, xpb_buffer *dst, size_t offset, const void *src, size_t bytes,
                                  xpb_error *err)
{
#ifdef XPB_HAVE_NCCL
    xpb_cuda_ctx *c = ctx;
    if (c->group) {
        xpb_status st = xpb_cuda_buffer_check_range(dst, offset, bytes, "upload", err);
        if (st != XPB_OK || bytes == 0)
            return st;
        return xpb_cuda_group_buffer_upload(c, dst, offset, src, bytes, err);
    }
#endif
    return xpb_cuda_dev_buffer_upload(ctx, dst, offset, src, bytes, err);
}

xpb_status xpb_cuda_buffer_download(void *ctx, xpb_buffer *src, size_t offset, void *dst, size_t bytes,
                                    xpb_error *err)
{
#ifdef XPB_HAVE_NCCL
    xpb_cuda_ctx *c = ctx;
    if (c->group) {
        xpb_status st = xpb_cuda_buffer_check_range(src, offset, bytes, "download", err);
        if (st != XPB_OK || bytes == 0)
            return st;
        return xpb_cuda_group_buffer_download(c, src, offset, dst, bytes, err);
    }
#endif
    return xpb_cuda_dev_buffer_download(ctx, src, offset, dst, bytes, err);
}
