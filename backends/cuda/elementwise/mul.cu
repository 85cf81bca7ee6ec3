/* mul.cu - elementwise multiply: out = x * y. */
#include "cuda_eltwise.cuh"

struct xpb_mul_op {
    static constexpr bool reads_y = true;
    __device__ __forceinline__ float operator()(float x, float y, float) const { return x * y; }
};

XPB_CUDA_ELTWISE_KERNEL(mul, XPB_OP_MUL, xpb_mul_op);
