/* cpu_rowop.c - how every CPU row op (softmax, rmsnorm, layernorm) runs a launch: resolve the
 * views, then either split each row over a team (few long rows) or give each thread whole rows
 * (cpu_internal.h, xpb_cpu_rowop_run). The ops differ only in what they do to a row. */
#include "cpu_internal.h"

xpb_status xpb_cpu_rowop_run(const xpb_rowop_args *a, bool need_w, bool need_b, xpb_cpu_row_fn row,
                             xpb_cpu_split_fn split, xpb_error *err)
{
    xpb_cpu_rowop_view v;
    xpb_status st = xpb_cpu_rowop_resolve(a, need_w, need_b, &v, err);
    if (st != XPB_OK || v.rows == 0 || v.cols == 0)
        return st;
    int nt = xpb_cpu_row_split_threads(v.rows, v.cols);
    if (nt > 0) {
        split(&v, a->eps, nt);
        return XPB_OK;
    }
#pragma omp parallel if (v.rows * v.cols >= XPB_CPU_PARALLEL_MIN)
    {
        int64_t r0, r1;
        xpb_cpu_thread_rows(v.rows, &r0, &r1);
        for (int64_t r = r0; r < r1; r++)
            row(&v, r, a->eps, xpb_cpu_next_row(v.x, r, r1, v.cols));
    }
    return XPB_OK;
}
