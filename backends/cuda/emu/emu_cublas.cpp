/* emu/emu_cublas.cpp - the few cuBLAS calls the backend makes, computed on the host in column-major
 * order like the real library, with its argument checks (a leading dimension below max(1, rows)
 * is CUBLAS_STATUS_INVALID_VALUE), beta == 0 never reading C (the harness poisons it), fp16
 * operands widened exactly, and TF32 modes truncating fp32 operands to 10 mantissa bits (what the
 * tensor cores do with operands that were not rounded first). Sums in double, one rounding to
 * float at the end: it checks the row-major <-> column-major mapping and the argument plumbing of
 * the cuBLAS variants, not cuBLAS's own numerics or speed. Only the non-transposed operations are
 * emulated. EMU_CUBLAS_OOM=1 makes cublasCreate fail with CUBLAS_STATUS_ALLOC_FAILED
 * (while buffers still allocate), for the error path. */
#include <cublas_v2.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

struct cublasContext {
    cudaStream_t stream;
    cublasMath_t mode;
};

namespace {

float tf32_truncate(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    u &= 0xffffe000u;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* Element i of a matrix of type t, widened to double (tf32: truncated first). */
bool element(const void *p, cudaDataType t, size_t i, bool tf32, double *out)
{
    if (t == CUDA_R_32F) {
        const float v = static_cast<const float *>(p)[i];
        *out = tf32 ? tf32_truncate(v) : v;
        return true;
    }
    if (t == CUDA_R_16F) {
        *out = __half2float(static_cast<const __half *>(p)[i]);
        return true;
    }
    return false;
}

int imax(int a, int b) { return a > b ? a : b; }

/* C(m x n) = alpha A(m x k) B(k x n) + beta C, column-major, no transposes. */
cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                    float alpha, const void *A, cudaDataType at, int lda, const void *B, cudaDataType bt,
                    int ldb, float beta, void *C, cudaDataType ct, int ldc, bool tf32)
{
    if (!h)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (ta != CUBLAS_OP_N || tb != CUBLAS_OP_N || ct != CUDA_R_32F)
        return CUBLAS_STATUS_NOT_SUPPORTED; /* not emulated */
    if (m < 0 || n < 0 || k < 0 || lda < imax(1, m) || ldb < imax(1, k) || ldc < imax(1, m))
        return CUBLAS_STATUS_INVALID_VALUE;
    float *c = static_cast<float *>(C);
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < m; i++) {
            double s = 0, x, y;
            for (int l = 0; l < k; l++) {
                if (!element(A, at, (size_t)i + (size_t)l * lda, tf32, &x) ||
                    !element(B, bt, (size_t)l + (size_t)j * ldb, tf32, &y))
                    return CUBLAS_STATUS_NOT_SUPPORTED;
                s += x * y;
            }
            float &cij = c[(size_t)i + (size_t)j * ldc];
            cij = beta == 0.0f ? (float)(alpha * s) : (float)(alpha * s + (double)beta * cij);
        }
    }
    return CUBLAS_STATUS_SUCCESS;
}

} // namespace

extern "C" {

cublasStatus_t CUBLASWINAPI cublasCreate_v2(cublasHandle_t *handle)
{
    *handle = nullptr;
    if (getenv("EMU_CUBLAS_OOM"))
        return CUBLAS_STATUS_ALLOC_FAILED;
    *handle = new (std::nothrow) cublasContext{nullptr, CUBLAS_DEFAULT_MATH};
    return *handle ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
}

cublasStatus_t CUBLASWINAPI cublasDestroy_v2(cublasHandle_t handle)
{
    delete handle;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->stream = stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    *mode = handle->mode;
    return CUBLAS_STATUS_SUCCESS;
}

const char *CUBLASWINAPI cublasGetStatusName(cublasStatus_t s)
{
    switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "CUBLAS_STATUS_EMULATED_ERROR";
    }
}

const char *CUBLASWINAPI cublasGetStatusString(cublasStatus_t s)
{
    return s == CUBLAS_STATUS_SUCCESS ? "success" : "emulated cuBLAS error";
}

cublasStatus_t CUBLASWINAPI cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
                                           cublasOperation_t transb, int m, int n, int k,
                                           const float *alpha, const float *A, int lda, const float *B,
                                           int ldb, const float *beta, float *C, int ldc)
{
    const bool tf32 = handle && (handle->mode & 0xf) == CUBLAS_TF32_TENSOR_OP_MATH;
    return gemm(handle, transa, transb, m, n, k, *alpha, A, CUDA_R_32F, lda, B, CUDA_R_32F, ldb, *beta, C,
                CUDA_R_32F, ldc, tf32);
}

cublasStatus_t CUBLASWINAPI cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                                         cublasOperation_t transb, int m, int n, int k, const void *alpha,
                                         const void *A, cudaDataType Atype, int lda, const void *B,
                                         cudaDataType Btype, int ldb, const void *beta, void *C,
                                         cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                                         cublasGemmAlgo_t algo)
{
    (void)algo;
    if (computeType != CUBLAS_COMPUTE_32F && computeType != CUBLAS_COMPUTE_32F_PEDANTIC &&
        computeType != CUBLAS_COMPUTE_32F_FAST_TF32)
        return CUBLAS_STATUS_NOT_SUPPORTED; /* alpha and beta would not be floats */
    return gemm(handle, transa, transb, m, n, k, *static_cast<const float *>(alpha), A, Atype, lda, B, Btype,
                ldb, *static_cast<const float *>(beta), C, Ctype, ldc,
                computeType == CUBLAS_COMPUTE_32F_FAST_TF32 && Atype == CUDA_R_32F);
}

/* y(m) = alpha A(m x n) x(n) + beta y, column-major A, no transpose. */
cublasStatus_t CUBLASWINAPI cublasSgemv_v2(cublasHandle_t handle, cublasOperation_t trans, int m, int n,
                                           const float *alpha, const float *A, int lda, const float *x,
                                           int incx, const float *beta, float *y, int incy)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (trans != CUBLAS_OP_N || incx != 1 || incy != 1)
        return CUBLAS_STATUS_NOT_SUPPORTED; /* not emulated */
    if (m < 0 || n < 0 || lda < imax(1, m))
        return CUBLAS_STATUS_INVALID_VALUE;
    for (int i = 0; i < m; i++) {
        double s = 0;
        for (int j = 0; j < n; j++)
            s += (double)A[(size_t)i + (size_t)j * lda] * x[j];
        y[i] = *beta == 0.0f ? (float)(*alpha * s) : (float)(*alpha * s + (double)*beta * y[i]);
    }
    return CUBLAS_STATUS_SUCCESS;
}

} // extern "C"
