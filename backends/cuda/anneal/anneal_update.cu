/* anneal_update.cu - anneal update: each anchor with points steps toward its trimmed mean
 * (workloads/ops/xpb_ops.h, xpb_anneal_update_args):
 *   anchors[j][k] += clamp((mean[j][k] - anchors[j][k]) * lr_t, -0.1f, 0.1f)   if counts[j] > 0.
 *
 * Elementwise over m x d, in place: one thread per element, grid-stride over a few waves. It
 * moves 3 floats per element and reads counts[j] from L1, so it is a bandwidth-bound pass whose
 * cost is its launch at the sizes of a run (m x d = 256 x 128: 128 KiB). fp32 throughout, as the
 * contract says; the clamp cannot meet a NaN for finite inputs. */
#include "cuda_anneal.cuh"

#define XPB_UPDATE_THREADS 256

__global__ void __launch_bounds__(XPB_UPDATE_THREADS)
xpb_anneal_update_kernel(float *__restrict__ anchors, const uint32_t *__restrict__ counts,
                         const float *__restrict__ mean, int64_t total, int d, float lr_t)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
        if (counts[e / d] == 0)
            continue;
        const float a = anchors[e];
        const float step = (mean[e] - a) * lr_t;
        anchors[e] = a + fminf(fmaxf(step, -0.1f), 0.1f);
    }
}

static xpb_status update_check(const xpb_anneal_update_args *a, xpb_error *err)
{
    if (a->m < 1 || a->m > INT32_MAX)
        return xpb_fail(err, XPB_ERR_USAGE, "anneal/update: m = %lld outside 1 .. 2^31 - 1", (long long)a->m);
    if (a->d < 1 || a->d > XPB_ANNEAL_MAX_D)
        return xpb_fail(err, XPB_ERR_USAGE, "anneal/update: d = %lld outside 1 .. %d", (long long)a->d,
                        XPB_ANNEAL_MAX_D);
    return XPB_OK;
}

static xpb_status update_supports(void *ctx, const void *vargs, xpb_error *why)
{
    (void)ctx;
    return update_check(static_cast<const xpb_anneal_update_args *>(vargs), why);
}

static xpb_status update_launch(void *vctx, const void *vargs, void *state, xpb_error *err)
{
    (void)state;
    const xpb_cuda_ctx *ctx = static_cast<const xpb_cuda_ctx *>(vctx);
    const xpb_anneal_update_args *a = static_cast<const xpb_anneal_update_args *>(vargs);
    xpb_status st = update_check(a, err);
    if (st != XPB_OK)
        return st;
    const size_t m = (size_t)a->m, d = (size_t)a->d;
    void *anchors = NULL, *counts = NULL, *mean = NULL;
    if ((st = xpb_anneal_view(&a->anchors, m * d * 4, "anneal/update: anchors", &anchors, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->counts, m * 4, "anneal/update: counts", &counts, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->mean, m * d * 4, "anneal/update: mean", &mean, err)) != XPB_OK)
        return st;
    if ((st = xpb_cuda_activate(ctx, err)) != XPB_OK)
        return st;
    const int64_t total = (int64_t)(m * d);
    const unsigned grid = xpb_cuda_grid(ctx, (total + XPB_UPDATE_THREADS - 1) / XPB_UPDATE_THREADS,
                                        XPB_UPDATE_THREADS, 4);
    xpb_anneal_update_kernel<<<grid, XPB_UPDATE_THREADS, 0, ctx->stream>>>(static_cast<float *>(anchors), static_cast<const uint32_t *>(counts), static_cast<const float *>(mean), total, (int)d, a->lr_t);
    XPB_CUDA_CHECK_LAUNCH(err, "anneal/update");
    return XPB_OK;
}

extern "C" const xpb_kernel xpb_cuda_anneal_update = {
    /* .op        = */ XPB_OP_ANNEAL_UPDATE,
    /* .variant   = */ "default",
    /* .precision = */ "fp32",
    /* .supports  = */ update_supports,
    /* .prepare   = */ NULL,
    /* .release   = */ NULL,
    /* .launch    = */ update_launch,
};
