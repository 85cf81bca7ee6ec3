/* anneal_changes.cu - anneal changes: the energy and the number of changed assignments
 * (workloads/ops/xpb_ops.h, xpb_anneal_changes_args):
 *   result[0] = (float)(sum_i dist(x_i, anchors[assign[i]]) / n)   (direct form, fp32 per point)
 *   result[1] = #{i : assign[i] != prev[i]}                          (uint32)
 *
 * Two kernels, no atomics, so the energy is the same bits every run on a given device:
 * 1. partials: a fixed grid (a wave of the device); warp w of the grid takes points w, w + W,
 *    ... (W warps in all); per point the warp computes the fp32 squared distance (lanes over d,
 *    a fixed butterfly), and lane 0 adds it to a double running sum and counts the change. Each
 *    block adds its warps' sums in warp order and writes one (double, uint32) partial to scratch.
 * 2. finish: one block adds the partials (thread t: partials t, t + 256, ... in order; then a
 *    fixed butterfly and the warps in order), divides by n and writes result.
 * A point whose assign[i] is not below m (outside the contract) adds NaN, so a broken input
 * shows in the energy instead of reading out of bounds. */
#include <math.h>

#include "cuda_anneal.cuh"

#define XPB_CHANGES_THREADS 256
#define XPB_CHANGES_WARPS (XPB_CHANGES_THREADS / 32)

template <bool VEC>
__global__ void __launch_bounds__(XPB_CHANGES_THREADS)
xpb_changes_partials(const float *__restrict__ x, const float *__restrict__ anchors,
                     const uint32_t *__restrict__ assign, const uint32_t *__restrict__ prev,
                     double *__restrict__ part_e, uint32_t *__restrict__ part_c, int n, int d, int m)
{
    __shared__ double warp_e[XPB_CHANGES_WARPS];
    __shared__ uint32_t warp_c[XPB_CHANGES_WARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    double e = 0.0;
    uint32_t changed = 0;
    const int64_t stride = (int64_t)gridDim.x * XPB_CHANGES_WARPS; /* 64-bit: i + stride may pass 2^31 */
    for (int64_t i = (int64_t)blockIdx.x * XPB_CHANGES_WARPS + warp; i < n; i += stride) {
        const uint32_t a = assign[i];
        if (a >= (uint32_t)m) { /* warp-uniform */
            e += lane == 0 ? (double)NAN : 0.0;
            continue;
        }
        const float dd = xpb_anneal_warp_dist<VEC>(x + i * d, anchors + (int64_t)a * d, d);
        if (lane == 0)
            e += dd, changed += a != prev[i];
    }
    if (lane == 0)
        warp_e[warp] = e, warp_c[warp] = changed;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < XPB_CHANGES_WARPS; w++)
            e += warp_e[w], changed += warp_c[w];
        part_e[blockIdx.x] = e;
        part_c[blockIdx.x] = changed;
    }
}

__global__ void __launch_bounds__(XPB_CHANGES_THREADS)
xpb_changes_finish(const double *__restrict__ part_e, const uint32_t *__restrict__ part_c,
                   int parts, int n, void *__restrict__ result)
{
    __shared__ double warp_e[XPB_CHANGES_WARPS];
    __shared__ uint32_t warp_c[XPB_CHANGES_WARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    double e = 0.0;
    uint32_t changed = 0;
    for (int p = threadIdx.x; p < parts; p += XPB_CHANGES_THREADS)
        e += part_e[p], changed += part_c[p];
    e = xpb_anneal_warp_sum(e);
    changed = xpb_anneal_warp_sum(changed);
    if (lane == 0)
        warp_e[warp] = e, warp_c[warp] = changed;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < XPB_CHANGES_WARPS; w++)
            e += warp_e[w], changed += warp_c[w];
        static_cast<float *>(result)[0] = (float)(e / (double)n);
        static_cast<uint32_t *>(result)[1] = changed;
    }
}

static xpb_status changes_supports(void *ctx, const void *vargs, xpb_error *why)
{
    (void)ctx;
    const xpb_anneal_changes_args *a = static_cast<const xpb_anneal_changes_args *>(vargs);
    return xpb_anneal_check_sizes("anneal/changes", a->n, a->d, a->m, why);
}

static xpb_status changes_launch(void *vctx, const void *vargs, void *state, xpb_error *err)
{
    (void)state;
    const xpb_cuda_ctx *ctx = static_cast<const xpb_cuda_ctx *>(vctx);
    const xpb_anneal_changes_args *a = static_cast<const xpb_anneal_changes_args *>(vargs);
    xpb_status st = xpb_anneal_check_sizes("anneal/changes", a->n, a->d, a->m, err);
    if (st != XPB_OK)
        return st;
    const size_t n = (size_t)a->n, d = (size_t)a->d, m = (size_t)a->m;
    void *x = NULL, *anchors = NULL, *assign = NULL, *prev = NULL, *result = NULL;
    xpb_anneal_carver sc;
    if ((st = xpb_anneal_view(&a->x, n * d * 4, "anneal/changes: x", &x, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->anchors, m * d * 4, "anneal/changes: anchors", &anchors, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->assign, n * 4, "anneal/changes: assign", &assign, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->prev, n * 4, "anneal/changes: prev", &prev, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->result, 8, "anneal/changes: result", &result, err)) != XPB_OK ||
        (st = xpb_anneal_scratch(&a->scratch, a->n, a->m, "anneal/changes: scratch", &sc, err)) != XPB_OK)
        return st;
    /* One wave of blocks: at most sm_count * 8 partials (a few KiB of scratch). */
    const unsigned grid = xpb_cuda_grid(ctx, ((int64_t)n + XPB_CHANGES_WARPS - 1) / XPB_CHANGES_WARPS,
                                        XPB_CHANGES_THREADS, 1);
    double *part_e = static_cast<double *>(xpb_anneal_carve(&sc, (size_t)grid * 8));
    uint32_t *part_c = static_cast<uint32_t *>(xpb_anneal_carve(&sc, (size_t)grid * 4));
    if (sc.used > XPB_ANNEAL_SCRATCH_BYTES(n, m))
        return xpb_fail(err, XPB_ERR_USAGE, "anneal/changes: scratch layout needs %zu bytes", sc.used);
    if ((st = xpb_cuda_activate(ctx, err)) != XPB_OK)
        return st;
    const float *xf = static_cast<const float *>(x), *af = static_cast<const float *>(anchors);
    const uint32_t *as = static_cast<const uint32_t *>(assign), *pv = static_cast<const uint32_t *>(prev);
    if (d % 4 == 0 && xpb_cuda_aligned16(x) && xpb_cuda_aligned16(anchors))
        xpb_changes_partials<true><<<grid, XPB_CHANGES_THREADS, 0, ctx->stream>>>(xf, af, as, pv, part_e, part_c, (int)n, (int)d, (int)m);
    else
        xpb_changes_partials<false><<<grid, XPB_CHANGES_THREADS, 0, ctx->stream>>>(xf, af, as, pv, part_e, part_c, (int)n, (int)d, (int)m);
    XPB_CUDA_CHECK_LAUNCH(err, "anneal/changes (partials)");
    xpb_changes_finish<<<1, XPB_CHANGES_THREADS, 0, ctx->stream>>>(part_e, part_c, (int)grid, (int)n, result);
    XPB_CUDA_CHECK_LAUNCH(err, "anneal/changes (finish)");
    return XPB_OK;
}

extern "C" const xpb_kernel xpb_cuda_anneal_changes = {
    /* .op        = */ XPB_OP_ANNEAL_CHANGES,
    /* .variant   = */ "default",
    /* .precision = */ "fp32",
    /* .supports  = */ changes_supports,
    /* .prepare   = */ NULL,
    /* .release   = */ NULL,
    /* .launch    = */ changes_launch,
};
