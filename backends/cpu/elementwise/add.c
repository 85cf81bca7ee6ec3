/* add.c - add: out = x + y. */
#include "cpu_internal.h"

static xpb_status add_launch(void *ctx, const void *args_, void *state, xpb_error *err)
{
    (void)ctx;
    (void)state;
    const xpb_eltwise_args *args = args_;
    xpb_cpu_eltwise_view v;
    xpb_status st = xpb_cpu_eltwise_resolve(args, true, &v, err);
    if (st != XPB_OK || v.n == 0)
        return st;
    const float *x = v.x;
    const float *y = v.y;
    float *out = v.out;
    const int64_t n = v.n;
#pragma omp parallel for simd schedule(static) if (parallel : n >= XPB_CPU_PARALLEL_MIN)
    for (int64_t i = 0; i < n; i++)
        out[i] = x[i] + y[i];
    return XPB_OK;
}

const xpb_kernel xpb_cpu_add = {
    .op = XPB_OP_ADD,
    .variant = "default",
    .precision = "fp32",
    .launch = add_launch,
};
