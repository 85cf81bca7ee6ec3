/* layernorm.cu - per row: y = (x - mean) / sqrt(var + eps) * w + b, population variance
 * (w = gamma, b = beta, per column).
 *
 * Held rows: exact two-pass statistics over the registers (mean, then the sum of (x - mean)^2),
 * never E[x^2] - E[x]^2. Streamed rows: Welford per thread, merged with Chan's formula. */
#include "cuda_rowop.cuh"

/* Welford state: count n, mean, and m2 = sum of squared deviations from the mean. */
struct xpb_welford {
    float n, mean, m2;
};

__device__ __forceinline__ xpb_welford xpb_shfl_xor(xpb_welford v, int mask, int width)
{
    return {xpb_shfl_xor(v.n, mask, width), xpb_shfl_xor(v.mean, mask, width),
            xpb_shfl_xor(v.m2, mask, width)};
}

__device__ __forceinline__ xpb_welford xpb_shfl_idx(xpb_welford v, int lane, int width)
{
    return {xpb_shfl_idx(v.n, lane, width), xpb_shfl_idx(v.mean, lane, width),
            xpb_shfl_idx(v.m2, lane, width)};
}

struct xpb_welford_merge {
    __device__ __forceinline__ xpb_welford operator()(xpb_welford a, xpb_welford b) const
    {
        const float n = a.n + b.n;
        if (n == 0.0f)
            return a;
        const float delta = b.mean - a.mean;
        const float fb = b.n / n;
        return {n, a.mean + delta * fb, a.m2 + b.m2 + delta * delta * a.n * fb};
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

    /* streamed rows */
    typedef xpb_welford State;
    typedef xpb_welford_merge Merge;
    __device__ static State init() { return {0.0f, 0.0f, 0.0f}; }
    __device__ static void accum(State &st, float x)
    {
        st.n += 1.0f;
        const float d = x - st.mean;
        st.mean += d / st.n;
        st.m2 += d * (x - st.mean);
    }
    __device__ static void finish(State st, const xpb_rowop_ptrs &p, float *mean, float *sd)
    {
        *mean = st.mean;
        *sd = sqrtf(st.m2 / (float)p.cols + p.eps);
    }
};

XPB_CUDA_ROWOP_KERNEL(layernorm, XPB_OP_LAYERNORM, xpb_layernorm_policy);
