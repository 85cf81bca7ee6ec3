/* anneal_init.cu - anneal init: farthest-point anchors (workloads/ops/xpb_ops.h, xpb_anneal_init_args).
 *
 * The m choices are sequential (each depends on the last), so the op is m launches of one step
 * kernel (each but the first and the last after a small bounds kernel: below), queued back to
 * back with no host round trip: the step that fills anchor s learns which point that is from a
 * 64-bit slot the previous step wrote on the device.
 *
 * Step s (one launch): p = 0 for s = 0, else the winner recorded in slot[s - 1]. Block 0 copies
 * x[p] into anchors[s] (bit for bit) and writes chosen[s] = p. Unless s is the last anchor, every
 * point i (grid-stride, 32 consecutive points per warp) whose distance may lower its minimum gets
 * dist(x_i, x_p) in the direct form (fp32, xpb_anneal_group8_dist: the same bits as one warp per
 * point), folded into the running min-distance mind[i] (scratch). The step keeps the largest key
 * over all its points (bits(mind[i]) << 32 | ~i): mind >= 0, so its bits order like its value, and ~i makes the
 * lowest index win a tie. The block's largest key goes to slot[s] with one integer atomicMax,
 * which is order-independent, so the winner is deterministic.
 *
 * Speed: a step that reads every point's row is bound by memory bandwidth (n*d*4 bytes). Most
 * rows need not be read: a point i whose running minimum mind[i] is its distance to anchor a =
 * owner[i] cannot come nearer to the new anchor p when ||a - p|| >= 2 ||x_i - a|| (the triangle
 * inequality), so fminf(mind[i], dist) would return mind[i]. Before step s a small kernel
 * (xpb_anneal_init_bounds) computes, for every anchor a < s, the largest mind a point it owns may
 * have for that to hold with every rounding of both fp32 distances bounded
 * (workloads/ops/xpb_anneal_init_bound.h, shared with the CPU backend: (1 - g) ||a - p||^2 / 4
 * less an underflow term, ||a - p||^2 in double), and the step reads a point's row only when
 * mind[i] is above its owner's threshold. The skipped points keep mind[i]
 * bit for bit, which is what the unbounded step would have written, so every anchor, chosen id
 * and mind is the same (tests/cuda_emu/anneal_init_emu.cc runs both and compares mind itself).
 * A warp takes 32 points a pass (mind, owner, threshold: one lane each); the points that need
 * their distance go 4 at a time to its groups of 8 lanes, each group reading a row with 4
 * independent 16-byte loads a lane (d = 128) before any arithmetic; the grid is one wave of
 * resident blocks. Odd steps walk the points from the last to the first, so a step starts on
 * the rows the one before ended on, which are still in L2. The order of the points changes
 * nothing of the result: each point's distance is its own, and the key's max is order-independent.
 *
 * Scratch: slot (m uint64, zeroed once per launch with cudaMemsetAsync: 0 is below every real
 * key, whose low half ~i >= 2^31 is never 0), mind (n floats), owner (n anchor indices: the
 * anchor mind[i] is the distance to) and the thresholds (m floats).
 *
 * A device group (anneal_sharded.cu) runs the same steps split by points: each rank's plan
 * scans its range [lo, hi) only (xpb_cuda_anneal_init_plan_make, cuda_anneal.cuh), and an
 * all_reduce max of slot[s] over the ranks between step s and s + 1 gives every rank the one-GPU
 * slot[s]: a point's key is built from its global index i and its own mind[i], which is the same
 * on whichever rank computes it, and the max of keys is order-independent. The direction of odd
 * steps turns within a rank's range ([lo, hi) backward), never across ranks; it changes only
 * which rows are still in L2. */
#include "cuda_anneal.cuh"
#include "xpb_anneal_init_bound.h"
#include "xpb_knob.h"

#define XPB_INIT_THREADS 256
#define XPB_INIT_WARPS (XPB_INIT_THREADS / 32)
/* blocks an SM must hold: 5 (48 registers a thread, the step's before the bounds) keeps the
 * loads in flight of the steps that read every row; the compiler's own choice, 54, allows 4 */
#define XPB_INIT_MIN_BLOCKS 5

/* Before step s (1 <= s < m - 1): thr[a] for every anchor a < s against the new anchor p (the
 * winner in slot[s - 1]), one warp an anchor. */
__global__ void __launch_bounds__(XPB_INIT_THREADS)
xpb_anneal_init_bounds(const float *__restrict__ x, const float *__restrict__ anchors, float *__restrict__ thr,
                       const unsigned long long *__restrict__ slot, int d, int s)
{
    const int a = blockIdx.x * XPB_INIT_WARPS + (threadIdx.x >> 5), lane = threadIdx.x & 31;
    if (a >= s)
        return; /* the whole warp: a is the same on its 32 lanes */
    const uint32_t p = ~(uint32_t)slot[s - 1];
    const float *xp = x + (int64_t)p * d, *xa = anchors + (int64_t)a * d;
    double t = 0.0;
    for (int k = lane; k < d; k += 32) {
        const double u = (double)xa[k] - (double)xp[k];
        t += u * u;
    }
    for (int o = 16; o > 0; o >>= 1)
        t += __shfl_xor_sync(XPB_FULL_MASK, t, o);
    if (lane == 0)
        thr[a] = xpb_anneal_init_threshold(t, d, XPB_INIT_BOUND_ETA_KEPT);
}

/* Step s. bound: skip the rows the thresholds allow (every step but the first); false
 * (XPB_CUDA_INIT_BOUND=off) reads every row, for the tests that compare the two. */
template <bool VEC>
__global__ void __launch_bounds__(XPB_INIT_THREADS, XPB_INIT_MIN_BLOCKS)
xpb_anneal_init_step(const float *__restrict__ x, float *__restrict__ anchors,
                     uint32_t *__restrict__ chosen, float *__restrict__ mind, uint32_t *__restrict__ owner,
                     const float *__restrict__ thr, unsigned long long *__restrict__ slot, int lo, int hi, int d,
                     int s, int m, bool bound)
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

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, group = lane >> 3;
    const bool backward = (s & 1) != 0;
    const int cnt = hi - lo; /* the points of this range; j below counts within it */
    unsigned long long best = 0;
    /* The loop runs per warp (32 points a pass), so all 32 lanes take the same trips and shuffle
     * together. 64-bit: j + stride may pass 2^31. i is the global index (the key's, mind's, x's). */
    const int64_t stride = (int64_t)gridDim.x * XPB_INIT_THREADS;
    for (int64_t j0 = (int64_t)blockIdx.x * XPB_INIT_THREADS + warp * 32; j0 < cnt; j0 += stride) {
        const int64_t j = j0 + lane;
        const bool valid = j < cnt;
        const int64_t i = backward ? (int64_t)hi - 1 - j : (int64_t)lo + j;
        float old = 0.0f;
        bool need = valid;
        if (valid && s != 0) {
            old = mind[i];
            need = !(bound && old <= __ldg(thr + owner[i]));
        }
        float md = old;
        /* the points that need their distance, 4 a round: the r-th goes to group r; a group left
         * without one recomputes the round's first row and drops it */
        for (unsigned todo = __ballot_sync(XPB_FULL_MASK, need); todo != 0;) {
            unsigned rest = todo;
            for (int t = 0; t < group; t++)
                rest &= rest - 1;
            const int64_t js = j0 + __ffs((int)(rest != 0 ? rest : todo)) - 1;
            const int64_t is = backward ? (int64_t)hi - 1 - js : (int64_t)lo + js;
            const float dd = xpb_anneal_group8_dist<VEC>(x + is * d, xp, d);
            const int r = __popc(todo & ((1u << lane) - 1u)); /* this lane's point's place in the round */
            const bool mine = (todo >> lane & 1u) != 0 && r < 4;
            const float got = __shfl_sync(XPB_FULL_MASK, dd, mine ? 8 * r : 0);
            if (mine) {
                md = s == 0 ? got : fminf(old, got);
                mind[i] = md;
                if (s == 0 || __float_as_uint(md) != __float_as_uint(old))
                    owner[i] = (uint32_t)s;
            }
            for (int t = 0; t < 4; t++)
                todo &= todo - 1;
        }
        if (valid) {
            const unsigned long long key =
                (unsigned long long)__float_as_uint(md) << 32 | (unsigned long long)~(uint32_t)i;
            best = key > best ? key : best;
        }
    }
    best = xpb_anneal_warp_max(best); /* lanes without a point hold 0 */
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
    uint32_t *owner = static_cast<uint32_t *>(xpb_anneal_carve(&sc, n * 4));
    float *thr = static_cast<float *>(xpb_anneal_carve(&sc, m * 4));
    if (sc.used > XPB_ANNEAL_SCRATCH_BYTES(n, m))
        return xpb_fail(err, XPB_ERR_USAGE, "anneal/init: scratch layout needs %zu bytes", sc.used);
    if ((st = xpb_cuda_activate(ctx, err)) != XPB_OK)
        return st;

    int off = 0; /* XPB_CUDA_INIT_BOUND: on, off */
    if ((st = xpb_knob_get_choice(XPB_KNOB_CUDA_INIT_BOUND, &off, err)) != XPB_OK)
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
    const int64_t needed = (hi - lo + XPB_INIT_THREADS - 1) / XPB_INIT_THREADS;
    const int64_t cap = (int64_t)ctx->sm_count * per_sm;
    const int64_t grid = needed < cap ? needed : cap;
    *out = xpb_anneal_init_plan{static_cast<const float *>(x), static_cast<float *>(anchors), mind, thr,
                                static_cast<uint32_t *>(chosen), owner, slot, (int)lo, (int)hi, (int)d, (int)m,
                                (unsigned)(grid > 1 ? grid : 1), vec, off == 0};
    XPB_CUDA_CHECK(err, cudaMemsetAsync(slot, 0, m * 8, ctx->stream));
    return XPB_OK;
}

xpb_status xpb_cuda_anneal_init_step_enqueue(const xpb_cuda_ctx *ctx, const xpb_anneal_init_plan *p, int s,
                                             xpb_error *err)
{
    if (p->bound && s >= 1 && s < p->m - 1) { /* the thresholds of anchors 0 .. s-1 for this step */
        xpb_anneal_init_bounds<<<(unsigned)((s + XPB_INIT_WARPS - 1) / XPB_INIT_WARPS), XPB_INIT_THREADS, 0,
                                 ctx->stream>>>(p->x, p->anchors, p->thr, p->slot, p->d, s);
        XPB_CUDA_CHECK_LAUNCH(err, "anneal/init bounds");
    }
    const unsigned blocks = s == p->m - 1 ? 1u : p->grid; /* the last step only copies a row */
    if (p->vec)
        xpb_anneal_init_step<true><<<blocks, XPB_INIT_THREADS, 0, ctx->stream>>>(
            p->x, p->anchors, p->chosen, p->mind, p->owner, p->thr, p->slot, p->lo, p->hi, p->d, s, p->m, p->bound);
    else
        xpb_anneal_init_step<false><<<blocks, XPB_INIT_THREADS, 0, ctx->stream>>>(
            p->x, p->anchors, p->chosen, p->mind, p->owner, p->thr, p->slot, p->lo, p->hi, p->d, s, p->m, p->bound);
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
