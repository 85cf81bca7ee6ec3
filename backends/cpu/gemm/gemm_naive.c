/* gemm_naive.c - cpu/naive: the plain triple loop on one thread, the "CPU naive" baseline that
 * GPU speedups are often quoted against. Deliberately unoptimized; it refuses sizes that would
 * take more than a few seconds. */
#include "cpu_gemm.h"

#define NAIVE_MAX_MACS ((double)(1u << 30))

static xpb_status naive_supports(void *ctx, const void *args, xpb_error *why)
{
    (void)ctx;
    const xpb_gemm_args *a = args;
    double macs = (double)a->m * (double)a->n * (double)a->k;
    if (macs > NAIVE_MAX_MACS)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED,
                        "cpu/naive runs only up to 2^30 multiply-adds (this case: %.3g): it would take minutes", macs);
    return XPB_OK;
}

static xpb_status naive_launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)ctx;
    (void)state;
    xpb_cpu_gemm_view v;
    xpb_status st = xpb_cpu_gemm_resolve(args, &v, err);
    if (st)
        return st;
    for (int64_t i = 0; i < v.m; i++)
        for (int64_t j = 0; j < v.n; j++) {
            float acc = 0;
            for (int64_t p = 0; p < v.k; p++)
                acc += v.a[i * v.k + p] * v.b[p * v.n + j];
            float c = v.alpha * acc;
            if (v.beta != 0)
                c += v.beta * v.c_in[i * v.n + j];
            v.c[i * v.n + j] = c;
        }
    return XPB_OK;
}

const xpb_kernel xpb_cpu_gemm_naive = {
    .op = XPB_OP_GEMM,
    .variant = "naive",
    .precision = "fp32",
    .supports = naive_supports,
    .launch = naive_launch,
};
