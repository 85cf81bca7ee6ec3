/* scale.cu - elementwise scale: out = a * x (scalar a). */
#include "cuda_eltwise.cuh"

struct xpb_scale_op {
    static constexpr bool reads_y = false;
    __device__ __forceinline__ float operator()(float x, float, float a) const { return a * x; }
};

XPB_CUDA_ELTWISE_KERNEL(scale, XPB_OP_SCALE, xpb_scale_op);
