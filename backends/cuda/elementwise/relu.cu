/* relu.cu - elementwise ReLU: out = max(0, x). */
#include "cuda_eltwise.cuh"

struct xpb_relu_op {
    static constexpr bool reads_y = false;
    __device__ __forceinline__ float operator()(float x, float, float) const { return x > 0.0f ? x : 0.0f; }
};

XPB_CUDA_ELTWISE_KERNEL(relu, XPB_OP_RELU, xpb_relu_op);
