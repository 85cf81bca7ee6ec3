/* gemm_cublas_fp16.cu - gemm `cublas-fp16`: fp16 inputs, fp32 accumulation and output
 * (cublasGemmEx: CUDA_R_16F A and B, CUDA_R_32F C, CUBLAS_COMPUTE_32F), precision
 * "fp16-fp32acc": the tensor-core roof that vulkan/coopmat is measured against.
 *
 * prepare converts A and B to fp16 (round to nearest even, __float2half_rn) into device copies,
 * untimed; alpha and beta are fp32. The inputs are uniform in [-1, 1), inside fp16's range; the
 * few below 2^-14 become fp16 subnormals with a coarser relative rounding. Layout: see
 * gemm_cublas.cu (C^T = B^T A^T in column-major); c_in is copied to c first when beta != 0. */
#include <cuda_fp16.h>

#include "cuda_gemm_lowp.cuh"

struct xpb_to_half {
    __device__ __forceinline__ __half operator()(float v) const { return __float2half_rn(v); }
};

static xpb_status fp16_supports(void *ctx, const void *args, xpb_error *why)
{
    (void)ctx;
    return xpb_cuda_gemm_supports_int32(args, "gemm/cublas-fp16", why);
}

static xpb_status fp16_prepare(void *ctx, const void *args, void **state, xpb_error *err)
{
    return xpb_lowp_prepare<__half, xpb_to_half>(ctx, args, state, "gemm/cublas-fp16", err);
}

static xpb_status fp16_launch(void *vctx, const void *vargs, void *state, xpb_error *err)
{
    return xpb_lowp_launch(vctx, vargs, state, "gemm/cublas-fp16", CUBLAS_DEFAULT_MATH, CUDA_R_16F,
                           CUBLAS_COMPUTE_32F, err);
}

extern "C" const xpb_kernel xpb_cuda_gemm_cublas_fp16 = {
    /* .op        = */ XPB_OP_GEMM,
    /* .variant   = */ "cublas-fp16",
    /* .precision = */ "fp16-fp32acc",
    /* .supports  = */ fp16_supports,
    /* .prepare   = */ fp16_prepare,
    /* .release   = */ xpb_lowp_release,
    /* .launch    = */ fp16_launch,
};
