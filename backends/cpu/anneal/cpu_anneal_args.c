/* cpu_anneal_args.c - view and size checks of the CPU annealing kernels (cpu_anneal.h). */
#include "cpu_anneal.h"

xpb_status xpb_cpu_anneal_view(xpb_view v, size_t bytes, const char *what, void **out, xpb_error *err)
{
    if (!v.buf || !v.buf->data)
        return xpb_fail(err, XPB_ERR_USAGE, "cpu: %s has no buffer", what);
    if (v.offset > v.buf->bytes || bytes > v.buf->bytes - v.offset)
        return xpb_fail(err, XPB_ERR_USAGE, "cpu: %s (%zu bytes at byte offset %zu) overruns its %zu-byte buffer",
                        what, bytes, v.offset, v.buf->bytes);
    *out = (char *)v.buf->data + v.offset;
    return XPB_OK;
}

xpb_status xpb_cpu_anneal_sizes(int64_t n, int64_t d, int64_t m, xpb_error *err)
{
    if (n < 1 || n >= ((int64_t)1 << 31) || d < 1 || d > 4096 || m < 1 || m > n)
        return xpb_fail(err, XPB_ERR_USAGE, "cpu: bad anneal sizes n=%lld d=%lld m=%lld", (long long)n, (long long)d,
                        (long long)m);
    return XPB_OK;
}
