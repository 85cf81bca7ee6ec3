/* softmax.cu - an example xpubench plugin: softmax for the cuda backend (cuda/example).
 *
 * One block of 256 threads per row: the row's maximum, then the sum of e^(x - max) in double,
 * then out = e^(x - max) / sum; full-precision expf (no fast math: docs/workloads.md's bound).
 * It launches on the stream xpubench hands over and never synchronizes: xpubench does, and times
 * the launches with CUDA events on that stream. Built in CI, run only on a GPU (docs/plugins.md). */
#include <cuda_runtime.h>
#include <stdio.h>

#include <xpubench/xpubench_plugin.h>

#define THREADS 256

__global__ void __launch_bounds__(THREADS) softmax_rows(const float *x, float *out, int64_t cols)
{
    __shared__ float smax[THREADS];
    __shared__ double ssum[THREADS];
    const float *xr = x + (int64_t)blockIdx.x * cols;
    float *outr = out + (int64_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (int64_t i = threadIdx.x; i < cols; i += THREADS)
        m = fmaxf(m, xr[i]);
    smax[threadIdx.x] = m;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s /= 2) {
        if (threadIdx.x < s)
            smax[threadIdx.x] = fmaxf(smax[threadIdx.x], smax[threadIdx.x + s]);
        __syncthreads();
    }
    m = smax[0];
    double sum = 0.0;
    for (int64_t i = threadIdx.x; i < cols; i += THREADS)
        sum += (double)expf(xr[i] - m);
    ssum[threadIdx.x] = sum;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s /= 2) {
        if (threadIdx.x < s)
            ssum[threadIdx.x] += ssum[threadIdx.x + s];
        __syncthreads();
    }
    const float r = (float)(1.0 / ssum[0]);
    for (int64_t i = threadIdx.x; i < cols; i += THREADS)
        outr[i] = expf(xr[i] - m) * r;
}

static int example_supports(const xpb_plugin_context *ctx, const void *args, xpb_plugin_error *why)
{
    (void)ctx;
    const xpb_plugin_rowop_args *a = (const xpb_plugin_rowop_args *)args;
    if (a->rows > 2147483647) { /* one block per row: the grid's x limit */
        snprintf(why->msg, sizeof why->msg, "example: more than 2^31 - 1 rows");
        return XPB_PLUGIN_UNSUPPORTED;
    }
    return XPB_PLUGIN_OK;
}

static int example_launch(const xpb_plugin_context *ctx, const void *args, void *state, xpb_plugin_error *err)
{
    (void)state;
    const xpb_plugin_rowop_args *a = (const xpb_plugin_rowop_args *)args;
    if (a->rows == 0 || a->cols == 0)
        return XPB_PLUGIN_OK;
    softmax_rows<<<(unsigned)a->rows, THREADS, 0, (cudaStream_t)ctx->stream>>>(a->x, a->out, a->cols);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        snprintf(err->msg, sizeof err->msg, "softmax_rows launch: %s", cudaGetErrorString(e));
        return XPB_PLUGIN_RUNTIME;
    }
    return XPB_PLUGIN_OK;
}

static const xpb_plugin_kernel example = {
    XPB_PLUGIN_OP_SOFTMAX, "example", "fp32", example_supports, NULL, example_launch, NULL};

static const xpb_plugin_kernel *const cuda_kernels[] = {&example, NULL};

extern "C" int xpubench_plugin_entry(int abi_version, xpb_plugin_info *out)
{
    if (abi_version == XPB_PLUGIN_ABI_VERSION) {
        out->version = "example-cuda-softmax 1.0";
        out->cpu_kernels = NULL;
        out->cuda_kernels = cuda_kernels;
    }
    return XPB_PLUGIN_ABI_VERSION;
}
