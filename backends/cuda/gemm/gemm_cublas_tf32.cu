/* gemm_cublas_tf32.cu - gemm `cublas-tf32`: cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32 (fp32
 * in memory, TF32 tensor-core products, fp32 accumulation), precision "tf32".
 *
 * prepare rounds A and B to TF32 (10 explicit mantissa bits, round to nearest with ties away from
 * zero, like cvt.rna.tf32.f32) into device copies. Fed fp32 operands, TF32 tensor-core
 * instructions may just ignore the low 13 bits (truncation: input error up to 2^-10, twice the
 * 2^-11 the tf32 validation bound assumes, docs/workloads.md), and cuBLAS does not document
 * rounding first; on pre-rounded operands either is exact, and the timed call is the same cuBLAS
 * TF32 GEMM. Layout: see gemm_cublas.cu (C^T = B^T A^T in column-major); c_in is copied to c
 * first when beta != 0. */
#include "cuda_gemm_lowp.cuh"

struct xpb_to_tf32 {
    __device__ __forceinline__ float operator()(float v) const
    {
        uint32_t u = __float_as_uint(v);
        if ((u & 0x7f800000u) != 0x7f800000u) /* finite: add half a TF32 ulp, drop 13 bits */
            u = (u + 0x1000u) & 0xffffe000u;
        return __uint_as_float(u);
    }
};

static xpb_status tf32_supports(void *ctx, const void *args, xpb_error *why)
{
    (void)ctx;
    return xpb_cuda_gemm_supports_int32(args, "gemm/cublas-tf32", why);
}

static xpb_status tf32_prepare(void *ctx, const void *args, void **state, xpb_error *err)
{
    return xpb_lowp_prepare<float, xpb_to_tf32>(ctx, args, state, "gemm/cublas-tf32", err);
}

static xpb_status tf32_launch(void *vctx, const void *vargs, void *state, xpb_error *err)
{
    return xpb_lowp_launch(vctx, vargs, state, "gemm/cublas-tf32", CUBLAS_TF32_TENSOR_OP_MATH, CUDA_R_32F,
                           CUBLAS_COMPUTE_32F_FAST_TF32, err);
}

extern "C" const xpb_kernel xpb_cuda_gemm_cublas_tf32 = {
    /* .op        = */ XPB_OP_GEMM,
    /* .variant   = */ "cublas-tf32",
    /* .precision = */ "tf32",
    /* .supports  = */ tf32_supports,
    /* .prepare   = */ tf32_prepare,
    /* .release   = */ xpb_lowp_release,
    /* .launch    = */ tf32_launch,
};
