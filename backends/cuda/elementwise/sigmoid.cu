/* sigmoid.cu - elementwise logistic sigmoid: out = 1 / (1 + exp(-x)), stable for large |x|
 * (see xpb_sigmoidf in cuda_eltwise.cuh). */
#include "cuda_eltwise.cuh"

struct xpb_sigmoid_op {
    static constexpr bool reads_y = false;
    __device__ __forceinline__ float operator()(float x, float, float) const { return xpb_sigmoidf(x); }
};

XPB_CUDA_ELTWISE_KERNEL(sigmoid, XPB_OP_SIGMOID, xpb_sigmoid_op);
