/* silu.cu - elementwise SiLU: out = x * sigmoid(x). */
#include "cuda_eltwise.cuh"

struct xpb_silu_op {
    static constexpr bool reads_y = false;
    __device__ __forceinline__ float operator()(float x, float, float) const { return x * xpb_sigmoidf(x); }
};

XPB_CUDA_ELTWISE_KERNEL(silu, XPB_OP_SILU, xpb_silu_op);
