/* layernorm.cu - per row: y = (x - mean) / sqrt(var + eps) * w + b, population variance
 * (w = gamma, b = beta, per column).
 *
 * Held rows: exact two-pass statistics over the registers (mean, then the sum of (x - mean)^2),
 * never E[x^2] - E[x]^2. Streamed rows: sums in double around the row's first value (below). */
#include "cuda_rowop_default.cuh" /* and cuda_rowop_regs.cuh, cuda_rowop_onchip.cuh */

/* Streamed-row statistics: sums of d = x - k and of d^2 in double, around the row's first value
 * k. The mean k + s1/n and the variance s2/n - (s1/n)^2 then carry only their final roundings:
 * exact where the row's sums are (the exact input class: docs/validation.md), no cancellation
 * on a large common offset (k removes it), and none of the per-element rounding of a Welford
 * update, which on 2^18 columns is as large as dividing by n - 1 instead of n. Hopper's fp64
 * units do the two adds per element far under the memory time. */
struct xpb_ln_sums {
    float k;
    double s1, s2;
};

__device__ __forceinline__ xpb_ln_sums xpb_shfl_xor(xpb_ln_sums v, int mask, int width)
{
    return {v.k, __shfl_xor_sync(XPB_FULL_MASK, v.s1, mask, width),
            __shfl_xor_sync(XPB_FULL_MASK, v.s2, mask, width)};
}

__device__ __forceinline__ xpb_ln_sums xpb_shfl_idx(xpb_ln_sums v, int lane, int width)
{
    return {v.k, __shfl_sync(XPB_FULL_MASK, v.s1, lane, width), __shfl_sync(XPB_FULL_MASK, v.s2, lane, width)};
}

struct xpb_ln_sums_merge {
    __device__ __forceinline__ xpb_ln_sums operator()(xpb_ln_sums a, xpb_ln_sums b) const
    {
        return {a.k, a.s1 + b.s1, a.s2 + b.s2};
    }
};

struct xpb_layernorm_policy {
    static constexpr bool uses_w = true;
    static constexpr bool uses_b = true;
    static constexpr bool two_stage = true;

    /* held rows: r1 = mean; v = x - mean; r2 = sqrt(var + eps) */
    typedef xpb_sum_op Merge1;
    __device__ static float ident1() { return 0.0f; }
    __device__ static float map1(float x) { return x; }
    __device__ static float finish1(float sum, const xpb_rowop_ptrs &p)
    {
        return sum / (float)p.cols;
    }
    __device__ static float map2(float x, float mean) { return x - mean; }
    __device__ static float contrib2(float d) { return d * d; }
    __device__ static float finish2(float sumsq, const xpb_rowop_ptrs &p)
    {
        return sqrtf(sumsq / (float)p.cols + p.eps);
    }
    __device__ static float out(float d, float, float sd, float w, float b)
    {
        return d / sd * w + b;
    }

    /* regs variant: its block shape, threads x floats x blocks an SM (94% of the copy roof on
     * the H100 with the held form below, against 77-79% at 512 x 16 x 3, whose fp64 statistics
     * spill, and 72% at 512 x 16 x 2; docs/performance.md, session 15) */
    static constexpr const char *regs_shape = "256x32x4";
    /* ... and its held form: one reciprocal a thread, (x - mean) * (1 / sd) * w + b a value,
     * no divide a value; 1 / sd adds half an ulp to rstd's error, within E_r
     * (docs/validation.md) */
    __device__ static float held_scale(xpb_ln_sums, float, float sd) { return 1.0f / sd; }
    __device__ static float held_out(float x, float rstd, float mean, float w, float b)
    {
        return (x - mean) * rstd * w + b;
    }

    /* streamed rows */
    typedef xpb_ln_sums State;
    typedef xpb_ln_sums_merge Merge;
    __device__ static State init(const float *row) { return {row[0], 0.0, 0.0}; }
    __device__ static void accum(State &st, float x)
    {
        const double d = (double)x - (double)st.k;
        st.s1 += d;
        st.s2 += d * d;
    }
    __device__ static void finish(State st, const xpb_rowop_ptrs &p, float *mean, float *sd)
    {
        const double c1 = st.s1 / (double)p.cols;
        *mean = (float)((double)st.k + c1);
        *sd = (float)sqrt(st.s2 / (double)p.cols - c1 * c1 + (double)p.eps);
    }
};

XPB_CUDA_ROWOP_KERNEL(layernorm, XPB_OP_LAYERNORM, xpb_layernorm_policy);
/* the row in a thread-block cluster's shared memory (cuda_rowop_cluster.cuh) */
XPB_CUDA_ROWOP_CLUSTER_KERNEL(layernorm_cluster, XPB_OP_LAYERNORM, xpb_layernorm_policy);
/* the row over ordinary blocks, chunks on chip, partials exchanged in memory (cuda_rowop_onchip.cuh) */
XPB_CUDA_ROWOP_ONCHIP_KERNEL(layernorm_onchip, XPB_OP_LAYERNORM, xpb_layernorm_policy);
/* the row in chunks held in registers, one block each, partials exchanged in memory (cuda_rowop_regs.cuh) */
XPB_CUDA_ROWOP_REGS_KERNEL(layernorm_regs, XPB_OP_LAYERNORM, xpb_layernorm_policy);
