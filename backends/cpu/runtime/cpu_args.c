/* cpu_args.c - argument checks shared by the kernels, and the work-splitting helpers. */
#include "cpu_internal.h"

#include <omp.h>

/* Resolves view v of `count` floats to a host pointer, or fails with XPB_ERR_USAGE when the
 * buffer is missing or [offset, offset + 4 count) does not lie inside it. */
static xpb_status view_f32(xpb_view v, int64_t count, const char *what, float **out,
                           xpb_error *err)
{
    if (!v.buf || !v.buf->data)
        return xpb_fail(err, XPB_ERR_USAGE, "cpu: %s has no buffer", what);
    size_t size = v.buf->bytes;
    if ((uint64_t)count > SIZE_MAX / sizeof(float) || v.offset > size ||
        (size_t)count * sizeof(float) > size - v.offset)
        return xpb_fail(err, XPB_ERR_USAGE,
                        "cpu: %s (%lld floats at byte offset %zu) overruns its %zu-byte buffer", what,
                        (long long)count, v.offset, size);
    *out = (float *)((char *)v.buf->data + v.offset);
    return XPB_OK;
}

/* *out = a * b; false on overflow. */
static bool mul_ok(int64_t a, int64_t b, int64_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}

xpb_status xpb_cpu_eltwise_resolve(const xpb_eltwise_args *a, bool need_y, xpb_cpu_eltwise_view *v,
                                   xpb_error *err)
{
    *v = (xpb_cpu_eltwise_view){.n = a->n};
    if (a->n < 0)
        return xpb_fail(err, XPB_ERR_USAGE, "cpu: negative element count %lld", (long long)a->n);
    if (a->n == 0)
        return XPB_OK;
    float *x = NULL, *y = NULL;
    xpb_status st = view_f32(a->x, a->n, "x", &x, err);
    if (st == XPB_OK && need_y)
        st = view_f32(a->y, a->n, "y", &y, err);
    if (st == XPB_OK)
        st = view_f32(a->out, a->n, "out", &v->out, err);
    v->x = x;
    v->y = y;
    return st;
}

xpb_status xpb_cpu_rowop_resolve(const xpb_rowop_args *a, bool need_w, bool need_b,
                                 xpb_cpu_rowop_view *v, xpb_error *err)
{
    *v = (xpb_cpu_rowop_view){.rows = a->rows, .cols = a->cols};
    int64_t n;
    if (a->rows < 0 || a->cols < 0 || !mul_ok(a->rows, a->cols, &n))
        return xpb_fail(err, XPB_ERR_USAGE, "cpu: bad row-op shape %lld x %lld",
                        (long long)a->rows, (long long)a->cols);
    if (n == 0)
        return XPB_OK;
    float *x = NULL, *w = NULL, *b = NULL;
    xpb_status st = view_f32(a->x, n, "x", &x, err);
    if (st == XPB_OK && need_w)
        st = view_f32(a->w, a->cols, "w", &w, err);
    if (st == XPB_OK && need_b)
        st = view_f32(a->b, a->cols, "b", &b, err);
    if (st == XPB_OK)
        st = view_f32(a->out, n, "out", &v->out, err);
    v->x = x;
    v->w = w;
    v->b = b;
    return st;
}

xpb_status xpb_cpu_rope_resolve(const xpb_rope_args *a, xpb_cpu_rope_view *v, xpb_error *err)
{
    *v = (xpb_cpu_rope_view){.seq = a->seq, .head_dim = a->head_dim};
    int64_t bh, rows, n;
    if (a->batch < 0 || a->heads < 0 || a->seq < 0 || a->head_dim < 0 || a->head_dim % 2 != 0 ||
        !mul_ok(a->batch, a->heads, &bh) || !mul_ok(bh, a->seq, &rows) ||
        !mul_ok(rows, a->head_dim, &n))
        return xpb_fail(err, XPB_ERR_USAGE,
                        "cpu: bad rope shape [%lld, %lld, %lld, %lld] (sizes >= 0, head_dim even)",
                        (long long)a->batch, (long long)a->heads, (long long)a->seq,
                        (long long)a->head_dim);
    v->batch_heads = bh;
    if (n == 0)
        return XPB_OK;
    float *x = NULL;
    xpb_status st = view_f32(a->x, n, "x", &x, err);
    if (st == XPB_OK)
        st = view_f32(a->out, n, "out", &v->out, err);
    v->x = x;
    return st;
}

void xpb_cpu_chunk(int64_t n, int t, int nt, int64_t *begin, int64_t *end)
{
    int64_t lines = (n + 15) / 16;
    int64_t per = lines / nt, extra = lines % nt;
    int64_t b = t * per + (t < extra ? t : extra);
    int64_t e = b + per + (t < extra ? 1 : 0);
    *begin = b * 16 < n ? b * 16 : n;
    *end = e * 16 < n ? e * 16 : n;
}

void xpb_cpu_thread_rows(int64_t rows, int64_t *r0, int64_t *r1)
{
    int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    *r0 = rows * t / nt;
    *r1 = rows * (t + 1) / nt;
}

int xpb_cpu_row_split_threads(int64_t rows, int64_t cols)
{
    int nt = omp_get_max_threads();
    if (nt > XPB_CPU_MAX_SPLIT)
        nt = XPB_CPU_MAX_SPLIT;
    /* Whole rows balance well once there are several per thread; a row is worth splitting when
     * each thread's part is at least a few pages. */
    if (nt < 2 || rows >= 4 * (int64_t)nt || cols < 2048 * (int64_t)nt)
        return 0;
    return nt;
}
