/* scale.c - scale: out = a * x (scalar a). */
#include "cpu_internal.h"

static xpb_status scale_launch(void *ctx, const void *args_, void *state, xpb_error *err)
{
    (void)ctx;
    (void)state;
    const xpb_eltwise_args *args = args_;
    xpb_cpu_eltwise_view v;
    xpb_status st = xpb_cpu_eltwise_resolve(args, false, &v, err);
    if (st != XPB_OK || v.n == 0)
        return st;
    const float *x = v.x;
    float *out = v.out;
    const float a = args->a;
    const int64_t n = v.n;
#pragma omp parallel for simd schedule(static) if (parallel : n >= XPB_CPU_PARALLEL_MIN)
    for (int64_t i = 0; i < n; i++)
        out[i] = a * x[i];
    return XPB_OK;
}

const xpb_kernel xpb_cpu_scale = {
    .op = XPB_OP_SCALE,
    .variant = "default",
    .precision = "fp32",
    .launch = scale_launch,
};
