/* anneal_init.cu - anneal init: farthest-point anchors (workloads/ops/xpb_ops.h, xpb_anneal_init_args).
 *
 * The m choices are sequential (each depends on the last), so the op is m launches of one step
 * kernel, queued back to back with no host round trip: the step that fills anchor s learns which
 * point that is from a 64-bit slot the previous step wrote on the device.
 *
 * Step s (one launch): p = 0 for s = 0, else the winner recorded in slot[s - 1]. Block 0 copies
 * x[p] into anchors[s] (bit for bit) and writes chosen[s] = p. Unless s is the last anchor, every
 * group of 8 lanes then takes points i (grid-stride, 4 consecutive points per warp), computes
 * dist(x_i, x_p) in the direct form (fp32, xpb_anneal_group8_dist: the same bits as one warp per
 * point), folds it into the running min-distance mind[i] (scratch) and keeps the largest key
 * (bits(mind[i]) << 32 | ~i): mind >= 0, so its bits order like its value, and ~i makes the
 * lowest index win a tie. The block's largest key goes to slot[s] with one integer atomicMax,
 * which is order-independent, so the winner is deterministic.
 *
 * Speed: each step reads all of x (n*d*4 bytes) and mind, so the op is bound by memory
 * bandwidth. A warp per point kept one 16-byte load per lane in flight (half of HBM's bandwidth
 * at 1M x 128); 8 lanes per point keep 4 (d = 128), and the grid fills the GPU (resident blocks
 * per SM x SMs). Odd steps walk the points from the last to the first, so a step starts on the
 * rows the one before ended on, which are still in L2. The order of the points changes nothing
 * of the result: each point's distance is its own, and the key's max is order-independent.
 *
 * Scratch: slot (m uint64, zeroed once per launch with cudaMemsetAsync: 0 is below every real
 * key, whose low half ~i >= 2^31 is never 0) and mind (n floats).
 *
 * A device group (anneal_sharded.cu) runs the same steps split by points: each rank's plan
 * scans its range [lo, hi) only (xpb_cuda_anneal_init_plan_make, cuda_anneal.cuh), and an
 * all_reduce max of slot[s] over the ranks between step s and s + 1 gives every rank the one-GPU
 * slot[s]: a point's key is built from its global index i and its own mind[i], which is the same
 * on whichever rank computes it, and the max of keys is order-independent. The direction of odd
 * steps turns within a rank's range ([lo, hi) backward), never across ranks; it changes only
 * which rows are still in L2. */
#include "cuda_anneal.cuh"

#define XPB_INIT_THREADS 256
#define XPB_INIT_WARPS (XPB_INIT_THREADS / 32)
#define XPB_INIT_POINTS (XPB_INIT_THREADS / 8) /* points of a block at once: one per 8 lanes */

template <bool VEC>
__global__ void __launch_bounds__(XPB_INIT_THREADS)
xpb_anneal_init_step(const float *__restrict__ x, float *__restrict__ anchors,
                     uint32_t *__restrict__ chosen, float *__restrict__ mind,
                     unsigned long long *__restrict__ slot, int lo, int hi, int d, int s, int m)
{
    __shared__ unsigned long long warp_best[XPB_INIT_WARPS];
    const uint32_t p = s == 0 ? 0u : ~(uint32_t)slot[s - 1];
    const float *xp = x + (int64_t)p * d;
    if (blockIdx.x == 0) {
        for (int k = threadIdx.x; k < d; k += blockDim.x)
            anchors[(int64_t)s * d + k] = xp[k];
        if (threadIdx.x == 0)
            chosen[s] = p;
    }
    if (s == m - 1)
        return; /* the last anchor: nobody needs distances to it */

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const bool leader = (lane & 7) == 0; /* lane 0 of its group of 8 */
    const bool backward = (s & 1) != 0;
    const int cnt = hi - lo; /* the points of this range; j below counts within it */
    unsigned long long best = 0;
    /* The loop runs per warp (4 points a pass), so all 32 lanes take the same trips and shuffle
     * together; a group whose point is past the range computes a clamped row and drops it.
     * 64-bit: j + stride may pass 2^31. i is the global index (the key's, mind's, x's). */
    const int64_t stride = (int64_t)gridDim.x * XPB_INIT_POINTS;
    for (int64_t j0 = (int64_t)blockIdx.x * XPB_INIT_POINTS + warp * 4; j0 < cnt; j0 += stride) {
        const int64_t j = j0 + (lane >> 3);
        const bool valid = j < cnt;
        const int64_t jc = valid ? j : (int64_t)cnt - 1;
        const int64_t i = backward ? (int64_t)hi - 1 - jc : (int64_t)lo + jc;
        const float old = s != 0 && leader && valid ? mind[i] : 0.0f; /* loaded with the row */
        const float dd = xpb_anneal_group8_dist<VEC>(x + i * d, xp, d);
        if (leader && valid) {
            const float md = s == 0 ? dd : fminf(old, dd);
            mind[i] = md;
            const unsigned long long key =
                (unsigned long long)__float_as_uint(md) << 32 | (unsigned long long)~(uint32_t)i;
            best = key > best ? key : best;
        }
    }
    best = xpb_anneal_warp_max(best); /* lanes that lead no group hold 0 */
    if (lane == 0)
        warp_best[warp] = best;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < XPB_INIT_WARPS; w++)
            best = warp_best[w] > best ? warp_best[w] : best;
        if (best != 0)
            atomicMax(&slot[s], best);
    }
}

static xpb_status init_supports(void *ctx, const void *vargs, xpb_error *why)
{
    (void)ctx;
    const xpb_anneal_init_args *a = static_cast<const xpb_anneal_init_args *>(vargs);
    return xpb_anneal_check_sizes("anneal/init", a->n, a->d, a->m, why);
}

xpb_status xpb_cuda_anneal_init_plan_make(const xpb_cuda_ctx *ctx, const xpb_anneal_init_args *a, int64_t lo,
                                          int64_t hi, xpb_anneal_init_plan *out, xpb_error *err)
{
    xpb_status st = xpb_anneal_check_sizes("anneal/init", a->n, a->d, a->m, err);
    if (st != XPB_OK)
        return st;
    if (lo < 0 || lo > hi || hi > a->n)
        return xpb_fail(err, XPB_ERR_USAGE, "anneal/init: points [%lld, %lld) outside [0, n = %lld)", (long long)lo,
                        (long long)hi, (long long)a->n);
    const size_t n = (size_t)a->n, d = (size_t)a->d, m = (size_t)a->m;
    void *x = NULL, *anchors = NULL, *chosen = NULL;
    xpb_anneal_carver sc;
    if ((st = xpb_anneal_view(&a->x, n * d * 4, "anneal/init: x", &x, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->anchors, m * d * 4, "anneal/init: anchors", &anchors, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->chosen, m * 4, "anneal/init: chosen", &chosen, err)) != XPB_OK ||
        (st = xpb_anneal_scratch(&a->scratch, a->n, a->m, "anneal/init: scratch", &sc, err)) != XPB_OK)
        return st;
    unsigned long long *slot = static_cast<unsigned long long *>(xpb_anneal_carve(&sc, m * 8));
    float *mind = static_cast<float *>(xpb_anneal_carve(&sc, n * 4));
    if (sc.used > XPB_ANNEAL_SCRATCH_BYTES(n, m))
        return xpb_fail(err, XPB_ERR_USAGE, "anneal/init: scratch layout needs %zu bytes", sc.used);
    if ((st = xpb_cuda_activate(ctx, err)) != XPB_OK)
        return st;

    const bool vec = d % 4 == 0 && xpb_cuda_aligned16(x);
    /* One full wave of resident blocks: the most loads in flight. More blocks would queue
     * behind it and end the step ragged; every block ends with one atomicMax on the slot. */
    int per_sm = 0;
    XPB_CUDA_CHECK(err, vec ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, xpb_anneal_init_step<true>,
                                                                            XPB_INIT_THREADS, 0)
                            : cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, xpb_anneal_init_step<false>,
                                                                            XPB_INIT_THREADS, 0));
    if (per_sm < 1)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED, "anneal/init: its step kernel fits no block of %d threads on an SM",
                        XPB_INIT_THREADS);
    const int64_t needed = (hi - lo + XPB_INIT_POINTS - 1) / XPB_INIT_POINTS;
    const int64_t cap = (int64_t)ctx->sm_count * per_sm;
    const int64_t grid = needed < cap ? needed : cap;
    *out = xpb_anneal_init_plan{static_cast<const float *>(x), static_cast<float *>(anchors), mind,
                                static_cast<uint32_t *>(chosen), slot, (int)lo, (int)hi, (int)d, (int)m,
                                (unsigned)(grid > 1 ? grid : 1), vec};
    XPB_CUDA_CHECK(err, cudaMemsetAsync(slot, 0, m * 8, ctx->stream));
    return XPB_OK;
}

xpb_status xpb_cuda_anneal_init_step_enqueue(const xpb_cuda_ctx *ctx, const xpb_anneal_init_plan *p, int s,
                                             xpb_error *err)
{
    const unsigned blocks = s == p->m - 1 ? 1u : p->grid; /* the last step only copies a row */
    if (p->vec)
        xpb_anneal_init_step<true><<<blocks, XPB_INIT_THREADS, 0, ctx->stream>>>(p->x, p->anchors, p->chosen, p->mind,
                                                                                p->slot, p->lo, p->hi, p->d, s, p->m);
    else
        xpb_anneal_init_step<false><<<blocks, XPB_INIT_THREADS, 0, ctx->stream>>>(p->x, p->anchors, p->chosen, p->mind,
                                                                                 p->slot, p->lo, p->hi, p->d, s, p->m);
    XPB_CUDA_CHECK_LAUNCH(err, "anneal/init");
    return XPB_OK;
}

static xpb_status init_launch(void *vctx, const void *vargs, void *state, xpb_error *err)
{
    (void)state;
    const xpb_cuda_ctx *ctx = static_cast<const xpb_cuda_ctx *>(vctx);
    const xpb_anneal_init_args *a = static_cast<const xpb_anneal_init_args *>(vargs);
    xpb_anneal_init_plan plan;
    xpb_status st = xpb_cuda_anneal_init_plan_make(ctx, a, 0, a->n, &plan, err); /* all the points */
    for (int s = 0; st == XPB_OK && s < plan.m; s++)
        st = xpb_cuda_anneal_init_step_enqueue(ctx, &plan, s, err);
    return st;
}

extern "C" const xpb_kernel xpb_cuda_anneal_init = {
    /* .op        = */ XPB_OP_ANNEAL_INIT,
    /* .variant   = */ "default",
    /* .precision = */ "fp32",
    /* .supports  = */ init_supports,
    /* .prepare   = */ NULL,
    /* .release   = */ NULL,
    /* .launch    = */ init_launch,
};
