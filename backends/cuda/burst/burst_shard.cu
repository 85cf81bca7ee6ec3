/* burst_shard.cu - burst shard (workloads/ops/xpb_ops.h, xpb_burst_args) on a device group: rank r of
 * P keeps, of every row s of the network (CSR by source), the synapses whose target is one of its
 * neurons [r n / P, (r + 1) n / P), in their order, as its own CSR of n rows (shard_offsets,
 * shard_targets, shard_weight, shard_psp); and zeroes shard_bits and the tally of propagate from the
 * bits (cuda_burst.cuh, xpb_burst_tally). Once per run, after the
 * network's upload (every rank holds the whole network); burst_sharded.cu then propagates each
 * burst's whole fired list through the shard, so a rank adds only into its own neurons' input.
 *
 * Why by target, not by source: a rank then owns every input its neurons receive, so no input
 * crosses GPUs; what crosses is the fired set, 1 bit a neuron (n / 8 bytes a burst), against
 * 4 bytes a neuron of partial input sums had the synapses been split by source.
 *
 * Three launches a rank: a warp per row counts the row's synapses into the shard (into
 * degree_scan, free until the first compact), CUB's exclusive scan turns the counts into
 * shard_offsets (its temporary storage in scratch), and a warp per row writes them, a ballot
 * keeping their order. The shard holds at most every synapse, so its views are the network's
 * size and offsets stay uint32. */
#include "cuda_burst.cuh"

#include <cub/device/device_scan.cuh>

#define XPB_SHARD_THREADS 256

/* The range [lo, hi) test of a target as one unsigned compare. */
__device__ __forceinline__ bool xpb_shard_owns(uint32_t t, uint32_t lo, uint32_t hi) { return t - lo < hi - lo; }

/* count[s] = row s's synapses into [lo, hi), for every row; count[n] = 0 (the scan's total). */
__global__ void __launch_bounds__(XPB_SHARD_THREADS)
xpb_burst_shard_count(const uint32_t *__restrict__ offsets, const uint32_t *__restrict__ targets, uint32_t n,
                      uint32_t lo, uint32_t hi, uint32_t *__restrict__ count)
{
    const uint32_t lane = threadIdx.x & 31u;
    const uint64_t warps = (uint64_t)gridDim.x * (blockDim.x / 32);
    for (uint64_t s = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; s < n; s += warps) {
        const uint32_t e0 = __ldg(offsets + s), e1 = __ldg(offsets + s + 1);
        uint32_t c = 0;
        for (uint64_t base = e0; base < e1; base += 32) { /* the whole warp, row by row */
            const uint64_t e = base + lane;
            const bool in = e < e1 && xpb_shard_owns(__ldg(targets + e), lo, hi);
            c += __popc(__ballot_sync(XPB_FULL_MASK, in));
        }
        if (lane == 0)
            count[s] = c;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0)
        count[n] = 0;
}

/* Row s's synapses into [lo, hi), in their order, from shard_offsets[s] on. */
__global__ void __launch_bounds__(XPB_SHARD_THREADS)
xpb_burst_shard_write(const uint32_t *__restrict__ offsets, const uint32_t *__restrict__ targets,
                      const uint8_t *__restrict__ weight, const uint8_t *__restrict__ psp, uint32_t n, uint32_t lo,
                      uint32_t hi, const uint32_t *__restrict__ shard_offsets, uint32_t *__restrict__ shard_targets,
                      uint8_t *__restrict__ shard_weight, uint8_t *__restrict__ shard_psp)
{
    const uint32_t lane = threadIdx.x & 31u;
    const unsigned below = (1u << lane) - 1u;
    const uint64_t warps = (uint64_t)gridDim.x * (blockDim.x / 32);
    for (uint64_t s = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; s < n; s += warps) {
        const uint32_t e0 = __ldg(offsets + s), e1 = __ldg(offsets + s + 1);
        uint32_t out = __ldg(shard_offsets + s);
        for (uint64_t base = e0; base < e1; base += 32) {
            const uint64_t e = base + lane;
            const uint32_t t = e < e1 ? __ldg(targets + e) : 0u;
            const bool in = e < e1 && xpb_shard_owns(t, lo, hi);
            const unsigned m = __ballot_sync(XPB_FULL_MASK, in);
            if (in) {
                const uint32_t at = out + (uint32_t)__popc(m & below);
                shard_targets[at] = t;
                shard_weight[at] = __ldg(weight + e);
                shard_psp[at] = __ldg(psp + e);
            }
            out += (uint32_t)__popc(m);
        }
    }
}

/* One rank's shard: r of p, its device pointers resolved (burst_sharded.cu's xpb_burst_rank). */
static xpb_status shard_rank(const xpb_cuda_ctx *rank, const xpb_burst_rank *k, int r, int p, uint64_t n,
                             xpb_error *err)
{
    const xpb_burst_dev *d = &k->net;
    const uint32_t lo = (uint32_t)xpb_burst_shard_first(r, p, (int64_t)n);
    const uint32_t hi = (uint32_t)xpb_burst_shard_first(r + 1, p, (int64_t)n);
    const int64_t warps_needed = ((int64_t)n + 1) * 32;
    const unsigned grid = xpb_cuda_grid(rank, (warps_needed + XPB_SHARD_THREADS - 1) / XPB_SHARD_THREADS,
                                        XPB_SHARD_THREADS, 4);
    uint32_t *count = d->degree_scan; /* n + 1 words, overwritten by the first compact */
    xpb_burst_shard_count<<<grid, XPB_SHARD_THREADS, 0, rank->stream>>>(d->offsets, d->targets, (uint32_t)n, lo, hi,
                                                                       count);
    XPB_CUDA_CHECK_LAUNCH(err, "burst/shard (count)");
    size_t temp = 0;
    XPB_CUDA_CHECK(err, cub::DeviceScan::ExclusiveSum(NULL, temp, count, k->shard_offsets, (int64_t)n + 1,
                                                      rank->stream));
    if (temp > k->scratch_bytes)
        return xpb_fail(err, XPB_ERR_RUNTIME, "burst/shard: CUB's scan needs %zu bytes of scratch, the view has %zu",
                        temp, k->scratch_bytes);
    XPB_CUDA_CHECK(err, cub::DeviceScan::ExclusiveSum(d->scratch, temp, count, k->shard_offsets, (int64_t)n + 1,
                                                      rank->stream));
    xpb_burst_shard_write<<<grid, XPB_SHARD_THREADS, 0, rank->stream>>>(
        d->offsets, d->targets, d->weight, d->psp, (uint32_t)n, lo, hi, k->shard_offsets, k->shard_targets,
        k->shard_weight, k->shard_psp);
    XPB_CUDA_CHECK_LAUNCH(err, "burst/shard (write)");
    XPB_CUDA_CHECK(err, cudaMemsetAsync(k->bits, 0, k->bits_bytes, rank->stream));
    /* after CUB's use of scratch: propagate from the bits starts from a zero tally */
    XPB_CUDA_CHECK(err, cudaMemsetAsync(xpb_burst_tally(d->scratch), 0, XPB_BURST_TALLY_WORDS * 4, rank->stream));
    return XPB_OK;
}

static xpb_status shard_supports(void *ctx, const void *vargs, xpb_error *why)
{
    return xpb_burst_group_check(static_cast<const xpb_cuda_ctx *>(ctx), static_cast<const xpb_burst_args *>(vargs),
                                 "burst/shard", 0, why);
}

static xpb_status shard_launch(void *vctx, const void *vargs, void *state, xpb_error *err)
{
    (void)state;
    const xpb_cuda_ctx *g = static_cast<const xpb_cuda_ctx *>(vctx);
    const xpb_burst_args *a = static_cast<const xpb_burst_args *>(vargs);
    xpb_status st = xpb_burst_group_check(g, a, "burst/shard", 0, err);
    const int p = xpb_cuda_group_size(g), first = xpb_cuda_group_first(g);
    for (int l = 0; l < xpb_cuda_group_local(g) && st == XPB_OK; l++) {
        const xpb_cuda_ctx *rank = xpb_cuda_group_rank_ctx(g, l);
        xpb_burst_rank k;
        if ((st = xpb_burst_rank_resolve(a, l, 1, "burst/shard", &k, err)) == XPB_OK &&
            (st = xpb_cuda_activate(rank, err)) == XPB_OK)
            st = shard_rank(rank, &k, first + l, p, (uint64_t)a->n, err);
    }
    return st;
}

extern "C" const xpb_kernel xpb_cuda_burst_shard = {
    /* .op        = */ XPB_OP_BURST_SHARD,
    /* .variant   = */ "default",
    /* .precision = */ "exact",
    /* .supports  = */ shard_supports,
    /* .prepare   = */ NULL,
    /* .release   = */ NULL,
    /* .launch    = */ shard_launch,
};
