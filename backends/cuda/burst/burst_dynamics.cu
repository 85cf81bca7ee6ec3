/* burst_dynamics.cu - burst dynamics (workloads/ops/xpb_ops.h, xpb_burst_args): per neuron i of burst
 * b, in = input[i] + (stimulus draw < stim_floor ? stim : 0), then steps a-g of
 * burst_dynamics_neuron (workloads/burst/reference.c) exactly; fired_flag[i] = 1 if i fired, else
 * 0; input[i] = 0.
 *
 * One thread per neuron, grid-stride over a few waves of 256-thread blocks: a bandwidth-bound
 * pass. The loop steps a warp at a time (32 consecutive neurons, a warp-aligned base), so that on
 * a device group (burst_sharded.cu) the warp's fired flags can leave as one ballot word of bits. The fp32 steps are the intrinsics that round each operation on its own (__int2float_rn,
 * __fmul_rn, __fadd_rn, __fsub_rn), so nvcc cannot fuse them into a multiply-add and v matches
 * the reference bit for bit. To save traffic, the rarely needed parameters (excitability,
 * refractory, snooze) are read only by the step that needs them, and input, count and countdown
 * are written only when they change. */
#include "cuda_burst.cuh"

#define XPB_DYN_THREADS 256

/* Steps a-g for neuron i (local index into the arrays; gi its global id, for the draws) in
 * burst b: updates v, countdown and count; zeroes input[i]; returns 1 when it fires. */
__device__ __forceinline__ uint32_t xpb_burst_dynamics_one(
    const float *__restrict__ threshold, const float *__restrict__ threshold_limit, const float *__restrict__ leak,
    const float *__restrict__ excitability, const uint32_t *__restrict__ refractory,
    const uint32_t *__restrict__ fire_limit, const uint32_t *__restrict__ snooze, float *__restrict__ v_arr,
    uint32_t *__restrict__ countdown, uint32_t *__restrict__ count_arr, int32_t *__restrict__ input, uint32_t i,
    uint32_t gi, uint32_t b, int32_t stim, uint32_t stim_floor, float scale)
{
    const int32_t raw = input[i];
    const uint32_t limit = __ldg(fire_limit + i);
    const uint32_t old_count = count_arr[i];
    const uint32_t cd = countdown[i];
    /* what steps b, c and g read, loaded before the branch on cd: a neuron's loads then leave
     * together, one round trip to memory where the branch made two (a refractory neuron, a few
     * percent, reads them for nothing) */
    const float v_old = v_arr[i], th = __ldg(threshold + i), lv = __ldg(threshold_limit + i);
    const float lk = __ldg(leak + i);
    if (raw != 0)
        input[i] = 0;
    uint32_t cnt = old_count;
    uint32_t fire = 0;
    if (cd > 0) {
        /* a. refractory: count down; reset the count when it ends a hit limit; done */
        countdown[i] = cd - 1;
        if (cd == 1 && limit > 0 && cnt >= limit)
            cnt = 0;
    } else {
        /* b. v += (float)in * scale, two roundings */
        const int32_t in = xpb_burst_stimulus_draw(gi, b) < stim_floor ? raw + stim : raw;
        float f = __int2float_rn(in);
        f = __fmul_rn(f, scale);
        float v = __fadd_rn(v_old, f);
        /* c. candidate */
        const bool candidate = th <= v && (lv == 0.0f || v <= lv);
        if (candidate && limit > 0 && cnt >= limit) {
            cnt = 0; /* d. at the limit: no fire, on to g */
        } else if (candidate) {
            /* e. excitability, both tests on the fp32 value, the draw compared in double */
            const float ex = __ldg(excitability + i);
            if (ex >= 0.999f)
                fire = 1;
            else if (ex > 0.0f)
                fire = (double)xpb_burst_excitability_draw(gi, b) < __dmul_rn((double)ex, 4294967296.0);
        }
        if (fire) {
            /* f. v = 0, count += 1, countdown = refractory (+ snooze when the limit is now hit) */
            v = 0.0f;
            cnt += 1;
            const bool hit = limit > 0 && cnt >= limit;
            countdown[i] = __ldg(refractory + i) + (hit ? __ldg(snooze + i) : 0u);
        } else {
            /* g. count = 0 when a limit is set; v *= 1 - leak */
            if (limit > 0)
                cnt = 0;
            const float keep = __fsub_rn(1.0f, lk);
            v = __fmul_rn(v, keep);
        }
        v_arr[i] = v;
    }
    if (cnt != old_count)
        count_arr[i] = cnt;
    return fire;
}

__global__ void __launch_bounds__(XPB_DYN_THREADS)
xpb_burst_dynamics_kernel(const float *__restrict__ threshold, const float *__restrict__ threshold_limit,
                          const float *__restrict__ leak, const float *__restrict__ excitability,
                          const uint32_t *__restrict__ refractory, const uint32_t *__restrict__ fire_limit,
                          const uint32_t *__restrict__ snooze, float *__restrict__ v_arr,
                          uint32_t *__restrict__ countdown, uint32_t *__restrict__ count_arr,
                          int32_t *__restrict__ input, uint32_t *__restrict__ fired_flag,
                          uint32_t *__restrict__ bits, uint32_t n, uint32_t first, int32_t stim, uint32_t stim_floor,
                          float scale, const uint32_t *__restrict__ bdev, uint32_t boff, uint32_t *__restrict__ clear,
                          uint32_t clear_words)
{
    if (blockIdx.x == 0) /* a group's rank reading bits: its compact's look-back state (xpb_burst_dev.clear) */
        for (uint32_t w = threadIdx.x; w < clear_words; w += blockDim.x)
            clear[w] = 0;
    const uint32_t b = xpb_burst_index(bdev, boff);
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    const uint32_t lane = threadIdx.x & 31u;
    for (uint64_t base = (uint64_t)blockIdx.x * blockDim.x + (threadIdx.x & ~31u); base < n; base += stride) {
        const uint64_t g = base + lane;
        uint32_t fire = 0;
        if (g < n)
            fire = xpb_burst_dynamics_one(threshold, threshold_limit, leak, excitability, refractory, fire_limit,
                                          snooze, v_arr, countdown, count_arr, input, (uint32_t)g, first + (uint32_t)g,
                                          b, stim, stim_floor, scale);
        if (bits) { /* the warp's 32 flags as one word: base is a multiple of 32 */
            const unsigned word = __ballot_sync(XPB_FULL_MASK, fire != 0);
            if (lane == 0)
                bits[base / 32] = word;
        } else if (g < n) {
            fired_flag[g] = fire;
        }
    }
}

xpb_status xpb_burst_dynamics_enqueue(const xpb_cuda_ctx *ctx, const xpb_burst_dev *d, const uint32_t *bdev,
                                      uint32_t boff, xpb_error *err)
{
    const unsigned grid = xpb_cuda_grid(ctx, ((int64_t)d->n + XPB_DYN_THREADS - 1) / XPB_DYN_THREADS,
                                        XPB_DYN_THREADS, 8);
    xpb_burst_dynamics_kernel<<<grid, XPB_DYN_THREADS, 0, ctx->stream>>>(
        d->threshold, d->threshold_limit, d->leak, d->excitability, d->refractory, d->fire_limit, d->snooze, d->v,
        d->countdown, d->count, d->input, d->fired_flag, d->bits, d->n, d->first, d->stim, d->stim_floor, d->scale, bdev,
        boff, d->clear, d->clear_words);
    XPB_CUDA_CHECK_LAUNCH(err, "burst/dynamics");
    return XPB_OK;
}

static xpb_status dynamics_supports(void *ctx, const void *vargs, xpb_error *why)
{
    (void)ctx;
    return xpb_burst_check(static_cast<const xpb_burst_args *>(vargs), "burst/dynamics", 0, why);
}

static xpb_status dynamics_launch(void *vctx, const void *vargs, void *state, xpb_error *err)
{
    (void)state;
    return xpb_burst_launch(vctx, vargs, "burst/dynamics", 0, XPB_BURST_NEED_DYNAMICS, 0,
                            xpb_burst_dynamics_enqueue, err);
}

extern "C" const xpb_kernel xpb_cuda_burst_dynamics = {
    /* .op        = */ XPB_OP_BURST_DYNAMICS,
    /* .variant   = */ "default",
    /* .precision = */ "exact",
    /* .supports  = */ dynamics_supports,
    /* .prepare   = */ NULL,
    /* .release   = */ NULL,
    /* .launch    = */ dynamics_launch,
};
