/* gemm_args.c - argument checks shared by the CPU GEMM/GEMV variants (cpu_gemm.h). */
#include "cpu_gemm.h"

/* Host pointer of a view holding `elements` floats, or NULL when it does not fit its buffer. */
static void *view_ptr(xpb_view v, int64_t elements)
{
    if (!v.buf || elements < 0)
        return NULL;
    size_t bytes = (size_t)elements * sizeof(float);
    if (v.offset > v.buf->bytes || bytes > v.buf->bytes - v.offset)
        return NULL;
    return (char *)v.buf->data + v.offset;
}

xpb_status xpb_cpu_gemm_resolve(const xpb_gemm_args *a, xpb_cpu_gemm_view *v, xpb_error *err)
{
    const int64_t lim = (int64_t)1 << 31;
    if (a->m < 1 || a->n < 1 || a->k < 1 || a->m > lim / a->k || a->k > lim / a->n || a->m > lim / a->n)
        return xpb_fail(err, XPB_ERR_USAGE, "gemm: bad sizes m=%lld n=%lld k=%lld", (long long)a->m,
                        (long long)a->n, (long long)a->k);
    v->m = a->m, v->n = a->n, v->k = a->k;
    v->alpha = a->alpha, v->beta = a->beta;
    v->a = view_ptr(a->a, a->m * a->k);
    v->b = view_ptr(a->b, a->k * a->n);
    v->c = view_ptr(a->c, a->m * a->n);
    v->c_in = a->beta != 0 ? view_ptr(a->c_in, a->m * a->n) : NULL;
    if (!v->a || !v->b || !v->c || (a->beta != 0 && !v->c_in))
        return xpb_fail(err, XPB_ERR_USAGE, "gemm: a view lies outside its buffer");
    return XPB_OK;
}

xpb_status xpb_cpu_gemm_begin_inplace(const void *args, xpb_cpu_gemm_view *v, xpb_error *err)
{
    xpb_status st = xpb_cpu_gemm_resolve(args, v, err);
    if (st == XPB_OK && v->beta != 0)
        xpb_cpu_memcpy(v->c, v->c_in, (size_t)(v->m * v->n) * sizeof(float));
    return st;
}
