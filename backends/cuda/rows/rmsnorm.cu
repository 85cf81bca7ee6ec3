/* rmsnorm.cu - per row: y = x / sqrt(mean(x^2) + eps) * w (w per column).
 *
 * One statistic (the sum of squares), so held and streamed rows differ only in where x comes
 * from on the output pass. sqrtf and the division are IEEE (no rsqrtf, no fast math). */
#include "cuda_rowop_default.cuh" /* and cuda_rowop_regs.cuh, cuda_rowop_onchip.cuh */

struct xpb_rmsnorm_policy {
    static constexpr bool uses_w = true;
    static constexpr bool uses_b = false;
    static constexpr bool two_stage = false;

    /* held rows: r1 = sqrt(mean(x^2) + eps) */
    typedef xpb_sum_op Merge1;
    __device__ static float ident1() { return 0.0f; }
    __device__ static float map1(float x) { return x * x; }
    __device__ static float finish1(float sumsq, const xpb_rowop_ptrs &p)
    {
        return sqrtf(sumsq / (float)p.cols + p.eps);
    }
    __device__ static float out(float x, float rms, float, float w, float)
    {
        return x / rms * w;
    }

    /* regs variant: its block shape, threads x floats x blocks an SM (three: 90-94% of the copy
     * roof on the H100, against 78% at two; docs/performance.md, session 15) */
    static constexpr const char *regs_shape = "512x16x3";

    /* streamed rows */
    typedef float State;
    typedef xpb_sum_op Merge;
    __device__ static State init(const float *) { return 0.0f; }
    __device__ static void accum(State &sumsq, float x) { sumsq += x * x; }
    __device__ static void finish(State sumsq, const xpb_rowop_ptrs &p, float *rms, float *unused)
    {
        *rms = finish1(sumsq, p);
        *unused = 0.0f;
    }
};

XPB_CUDA_ROWOP_KERNEL(rmsnorm, XPB_OP_RMSNORM, xpb_rmsnorm_policy);
/* the row in a thread-block cluster's shared memory (cuda_rowop_cluster.cuh) */
XPB_CUDA_ROWOP_CLUSTER_KERNEL(rmsnorm_cluster, XPB_OP_RMSNORM, xpb_rmsnorm_policy);
/* the row over ordinary blocks, chunks on chip, partials exchanged in memory (cuda_rowop_onchip.cuh) */
XPB_CUDA_ROWOP_ONCHIP_KERNEL(rmsnorm_onchip, XPB_OP_RMSNORM, xpb_rmsnorm_policy);
/* the row in chunks held in registers, one block each, partials exchanged in memory (cuda_rowop_regs.cuh) */
XPB_CUDA_ROWOP_REGS_KERNEL(rmsnorm_regs, XPB_OP_RMSNORM, xpb_rmsnorm_policy);
