/* cuda_common.cuh - device helpers shared by the kernels: warp and block all-reductions.
 *
 * Reductions return the same bits to every participating thread (lane 0's result is broadcast),
 * so threads of one row never disagree about a statistic through rounding. A state type other
 * than float takes part by providing `xpb_shfl_xor(T, int, int)` and `xpb_shfl_idx(T, int, int)`
 * overloads next to its definition (found by argument-dependent lookup). */
#ifndef XPB_CUDA_COMMON_CUH
#define XPB_CUDA_COMMON_CUH

#include <cuda_runtime.h>

#include "cuda_backend.h"

#define XPB_FULL_MASK 0xffffffffu

__device__ __forceinline__ float xpb_shfl_xor(float v, int lane_mask, int width)
{
    return __shfl_xor_sync(XPB_FULL_MASK, v, lane_mask, width);
}

__device__ __forceinline__ float xpb_shfl_idx(float v, int src_lane, int width)
{
    return __shfl_sync(XPB_FULL_MASK, v, src_lane, width);
}

struct xpb_sum_op {
    __device__ __forceinline__ float operator()(float a, float b) const { return a + b; }
};

struct xpb_max_op {
    __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

/* All-reduce over aligned groups of WIDTH lanes (WIDTH a power of two <= 32). Every lane of the
 * warp must call it (the shuffles use the full mask). */
template <int WIDTH, typename T, typename Merge>
__device__ __forceinline__ T xpb_warp_allreduce(T v, Merge merge)
{
    static_assert(WIDTH >= 1 && WIDTH <= 32 && (WIDTH & (WIDTH - 1)) == 0, "bad warp width");
#pragma unroll
    for (int offset = WIDTH / 2; offset > 0; offset >>= 1)
        v = merge(v, xpb_shfl_xor(v, offset, WIDTH));
    return xpb_shfl_idx(v, 0, WIDTH);
}

/* All-reduce over the whole block (blockDim.x a multiple of 32, at most 1024). Every thread of
 * the block must call it. red: 32 elements of __shared__ scratch, reusable right after the call
 * (the function synchronizes before writing it). ident: the identity of merge. */
template <typename T, typename Merge>
__device__ __forceinline__ T xpb_block_allreduce(T v, Merge merge, T ident, T *red)
{
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int nwarps = blockDim.x >> 5;
    v = xpb_warp_allreduce<32>(v, merge);
    __syncthreads(); /* the previous call's readers are done with red */
    if (lane == 0)
        red[warp] = v;
    __syncthreads();
    v = lane < nwarps ? red[lane] : ident;
    return xpb_warp_allreduce<32>(v, merge);
}

/* Threads per row TPR <= 32: an aligned group of lanes; TPR > 32: the whole block. */
template <int TPR, typename T, typename Merge>
__device__ __forceinline__ T xpb_row_allreduce(T v, Merge merge, T ident, T *red)
{
    if constexpr (TPR <= 32) {
        (void)ident;
        (void)red;
        return xpb_warp_allreduce<TPR>(v, merge);
    } else {
        return xpb_block_allreduce(v, merge, ident, red);
    }
}

/* Defines the registered kernel `extern "C" const xpb_kernel xpb_cuda_<name>`: variant "default",
 * precision fp32, no supports/prepare/release, enqueued by launch_fn. */
#define XPB_CUDA_DEFAULT_KERNEL(name, xpb_op_value, launch_fn)                                  \
    extern "C" const xpb_kernel xpb_cuda_##name = {                                             \
        /* .op        = */ xpb_op_value,                                                        \
        /* .variant   = */ "default",                                                           \
        /* .precision = */ "fp32",                                                              \
        /* .supports  = */ NULL,                                                                \
        /* .prepare   = */ NULL,                                                                \
        /* .release   = */ NULL,                                                                \
        /* .launch    = */ launch_fn,                                                           \
    }

/* Defines `static xpb_status <name>_launch(...)`, which calls launch_tmpl<Arg>(ctx, args, "<name>",
 * err), and registers it as xpb_cuda_<name> (XPB_CUDA_DEFAULT_KERNEL). */
#define XPB_CUDA_TEMPLATE_KERNEL(name, xpb_op_value, launch_tmpl, Arg)                          \
    static xpb_status name##_launch(void *ctx, const void *args, void *state, xpb_error *err) \
    {                                                                                           \
        (void)state;                                                                            \
        return launch_tmpl<Arg>(ctx, args, #name, err);                                         \
    }                                                                                           \
    XPB_CUDA_DEFAULT_KERNEL(name, xpb_op_value, name##_launch)

/* Smallest power of two >= n (n >= 1, result <= 2^30). */
static inline int xpb_next_pow2(int64_t n)
{
    int p = 1;
    while (p < n && p < (1 << 30))
        p <<= 1;
    return p;
}

#endif
