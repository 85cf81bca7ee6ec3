/* add.cu - elementwise add: out = x + y. */
#include "cuda_eltwise.cuh"

struct xpb_add_op {
    static constexpr bool reads_y = true;
    __device__ __forceinline__ float operator()(float x, float y, float) const { return x + y; }
};

XPB_CUDA_ELTWISE_KERNEL(add, XPB_OP_ADD, xpb_add_op);
