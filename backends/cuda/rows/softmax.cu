/* softmax.cu - per row: y = exp(x - max(x)) / sum(exp(x - max(x))).
 *
 * Held rows: max, then e = exp(x - max) kept in registers, sum(e), y = e / sum.
 * Streamed rows: an online (max, sum) pass, then y = exp(x - max) / sum.
 * Full-precision expf and true division, but for cuda/regs and the default's rows over 32768
 * (regs' launch, cuda_rowop_default.cuh), which use __expf's ex2.approx with subnormals flushed
 * (xpb_exp_ftz: 2 + 1.17|x| ULP, inside the bound's 3 + 2|x| of docs/validation.md): with each
 * row read once, expf's extra instructions cost the long rows 4% of the copy roof
 * (XPB_CUDA_ROW_EXP=expf keeps expf there). */
#include "cuda_rowop_default.cuh" /* and cuda_rowop_regs.cuh, cuda_rowop_onchip.cuh */

/* Online softmax state: running max m and sum s of exp(x - m) over the values seen. */
struct xpb_softmax_state {
    float m, s;
};

__device__ __forceinline__ xpb_softmax_state xpb_shfl_xor(xpb_softmax_state v, int mask, int width)
{
    return {xpb_shfl_xor(v.m, mask, width), xpb_shfl_xor(v.s, mask, width)};
}

__device__ __forceinline__ xpb_softmax_state xpb_shfl_idx(xpb_softmax_state v, int lane, int width)
{
    return {xpb_shfl_idx(v.m, lane, width), xpb_shfl_idx(v.s, lane, width)};
}

/* __expf with subnormals flushed: the same ex2.approx of d log2 e (2 + 1.17|d| ULP) with .ftz,
 * which spares the non-ftz form's handling of subnormal results (its SASS was not read here); a
 * result below FLT_MIN is 0, inside the bound's FLT_MIN term. H200, cuda/regs softmax at
 * 1024 x 262144, two alternated processes a side: 609.4 - 617.1 us against 638.0 - 638.2 with
 * __expf (results/h200/2026-11-29-s29-exp-ftz-ab.txt). */
__device__ __forceinline__ float xpb_exp_ftz(float d)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(d * 1.44269504088896341f));
    return y;
}

/* e^d: CUDA's expf (2 ULP), or with FAST xpb_exp_ftz (ex2.approx of d log2 e: 2 + 1.17|d| ULP,
 * results below FLT_MIN flushed to 0), both inside the bound's 3 + 2|d| ULP for exp. */
template <bool FAST>
__device__ __forceinline__ float xpb_softmax_exp(float d)
{
    if constexpr (FAST)
        return xpb_exp_ftz(d);
    else
        return expf(d);
}

/* the max of a thread's n held values v[0..n) (regs' folds) */
template <int N>
__device__ __forceinline__ float xpb_softmax_held_max(const float *v, int n)
{
    float m = -INFINITY;
#pragma unroll
    for (int i = 0; i < N; i++)
        if (i < n)
            m = fmaxf(m, v[i]);
    return m;
}

template <bool FAST>
struct xpb_softmax_merge_t {
    __device__ __forceinline__ xpb_softmax_state operator()(xpb_softmax_state a,
                                                            xpb_softmax_state b) const
    {
        /* An empty side (m = -inf) must not produce -inf - -inf = NaN. */
        if (b.m == -INFINITY)
            return a;
        if (a.m == -INFINITY)
            return b;
        const float m = fmaxf(a.m, b.m);
        return {m, a.s * xpb_softmax_exp<FAST>(a.m - m) + b.s * xpb_softmax_exp<FAST>(b.m - m)};
    }
};

struct xpb_softmax_once_policy;

template <bool FAST>
struct xpb_softmax_policy_t {
    /* the same op with __expf: cuda/regs' form unless XPB_CUDA_ROW_EXP=expf (cuda_rowop_regs.cuh) */
    typedef xpb_softmax_policy_t<true> FastExp;
    /* one __expf a value in cuda/regs: XPB_CUDA_ROW_EXP=once (below) */
    typedef xpb_softmax_once_policy OnceExp;

    static constexpr bool uses_w = false;
    static constexpr bool uses_b = false;
    static constexpr bool two_stage = true;

    /* held rows */
    typedef xpb_max_op Merge1;
    __device__ static float ident1() { return -INFINITY; }
    __device__ static float map1(float x) { return x; }
    __device__ static float finish1(float max, const xpb_rowop_ptrs &) { return max; }
    __device__ static float map2(float x, float max) { return xpb_softmax_exp<FAST>(x - max); }
    __device__ static float contrib2(float e) { return e; }
    __device__ static float finish2(float sum, const xpb_rowop_ptrs &) { return sum; }
    __device__ static float out(float e, float, float sum, float, float) { return e / sum; }

    /* streamed rows */
    typedef xpb_softmax_state State;
    typedef xpb_softmax_merge_t<FAST> Merge;
    __device__ static State init(const float *) { return {-INFINITY, 0.0f}; }
    __device__ static void accum(State &st, float x)
    {
        if (x > st.m) { /* new max: rescale what was summed so far (0 * exp(-inf) = 0 at start) */
            st.s = st.s * xpb_softmax_exp<FAST>(st.m - x) + 1.0f;
            st.m = x;
        } else {
            st.s += xpb_softmax_exp<FAST>(x - st.m);
        }
    }
    /* regs variant (cuda_rowop_regs.cuh): its block shape (threads x floats x blocks an SM) and
     * a thread's partial from its held values v[0..n): their max, then the sum of exp(x - max),
     * N independent exps where accum's chain rescales at every new max. cuda/regs runs the
     * FastExp form (XPB_CUDA_ROW_EXP=expf: this one), measured on the H100 at 1024 x 262144
     * (docs/performance.md, sessions 15 and 16, % of the Vulkan copy's 2982 GB/s):
     *   expf   at 256 x 32 x 4: 886 us (81%), the best shape with expf;
     *   __expf at 256 x 32 x 4: 848 us (85%); at 512 x 32 x 2: 824 us (87%), the default.
     * The write stays the direct form, exp(x - max) / sum a value: both lighter writes measured
     * slower (with expf), as if a write phase without arithmetic sent a row's stores in one
     * burst: exp(x - max) * (1 / sum) 77% against 84% of the CUDA copy at 256 x 32 x 4, and
     * keeping the fold's exps (one multiply a value) 67% against 76% at 256 x 16 x 6, likewise
     * in vulkan/onchip. On the H200 with __expf and the tagged slots keeping them is 2.1%
     * faster (xpb_softmax_once_policy below; docs/performance.md): the H200's tuning takes it. */
    static constexpr const char *regs_shape = "512x32x2";
    template <int N>
    __device__ static State fold(float *v, int n, const float *)
    {
        const float m = xpb_softmax_held_max<N>(v, n);
        if (m == -INFINITY) /* nothing held: the merge's empty side */
            return {m, 0.0f};
        float s = 0.0f;
#pragma unroll
        for (int i = 0; i < N; i++)
            if (i < n)
                s += xpb_softmax_exp<FAST>(v[i] - m);
        return {m, s};
    }
    __device__ static void finish(State st, const xpb_rowop_ptrs &, float *max, float *sum)
    {
        *max = st.m;
        *sum = st.s;
    }
};
typedef xpb_softmax_policy_t<false> xpb_softmax_policy;

/* cuda/regs with XPB_CUDA_ROW_EXP=once: one __expf a value. The fold leaves e = exp(x - m_t) in
 * the thread's registers (m_t: the max of the values the thread holds), and the write multiplies
 * each by the thread's factor f = exp(m_t - max) / sum, computed in fp64 and rounded once:
 * y = e * f. Error (docs/validation.md, softmax): e carries x - m_t's rounding and __expf's
 * 2 + 1.17 d ULP with d = m_t - x <= max - x, f 0.5 ULP beyond the sum's own error, the product
 * 0.5: 3 + 2.17 d ULP plus the sum's, inside the row's (3 + 3 d) + 3 + the sum's. A chunk handed
 * over to its row's completer is written from x as in the FastExp form. */
struct xpb_softmax_once_policy : xpb_softmax_policy_t<true> {
    template <int N>
    __device__ static State fold(float *v, int n, const float *)
    {
        const float m = xpb_softmax_held_max<N>(v, n);
        if (m == -INFINITY) { /* every held value -inf (or NaN): e = 0 (NaN stays NaN) */
#pragma unroll
            for (int i = 0; i < N; i++)
                v[i] = v[i] == -INFINITY ? 0.0f : v[i];
            return {m, 0.0f};
        }
        float s = 0.0f;
#pragma unroll
        for (int i = 0; i < N; i++) {
            v[i] = xpb_exp_ftz(v[i] - m); /* padding past n too: never summed, never written */
            if (i < n)
                s += v[i];
        }
        return {m, s};
    }
    /* f = exp(m_t - max) / sum: with m_t = -inf, 0 (NaN where max is -inf too, as exp(x - max)).
     * As exp(m_t - max) times 1 / sum correctly rounded (__drcp_rn), both in fp64: fp64's `/`
     * calls a slow-path subroutine, and that call spilled two registers of the 256x32x4 float4
     * kernel (ptxas: 8 bytes stored, 16 loaded a thread; Nsight Compute on the H200: 1.08M
     * local-memory requests a launch, results/h200/2026-11-29-s27-rowsprof.txt); the product
     * adds one fp64 rounding, under 2^-28 of a float ULP. Not faster for it: three alternated
     * processes a side read 629.3 - 633.4 us against 629.5 - 637.4 (2026-11-29-s27-rcp-ab.txt). */
    __device__ static float held_scale(State mine, float max, float sum)
    {
        return (float)(exp((double)mine.m - (double)max) * __drcp_rn((double)sum));
    }
    __device__ static float held_out(float e, float f, float, float, float) { return e * f; }
};

XPB_CUDA_ROWOP_KERNEL(softmax, XPB_OP_SOFTMAX, xpb_softmax_policy);
/* the row in a thread-block cluster's shared memory (cuda_rowop_cluster.cuh) */
XPB_CUDA_ROWOP_CLUSTER_KERNEL(softmax_cluster, XPB_OP_SOFTMAX, xpb_softmax_policy);
/* the row over ordinary blocks, chunks on chip, partials exchanged in memory (cuda_rowop_onchip.cuh) */
XPB_CUDA_ROWOP_ONCHIP_KERNEL(softmax_onchip, XPB_OP_SOFTMAX, xpb_softmax_policy);
/* the row in chunks held in registers, one block each, partials exchanged in memory (cuda_rowop_regs.cuh) */
XPB_CUDA_ROWOP_REGS_KERNEL(softmax_regs, XPB_OP_SOFTMAX, xpb_softmax_policy);
