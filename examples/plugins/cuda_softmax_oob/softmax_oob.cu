/* softmax_oob.cu - a broken xpubench plugin (cuda/example-oob), shipped to show crash isolation
 * (docs/plugins.md, "Isolation"), not to use.
 *
 * One thread per row: right at every size but one. At 257 rows the last row is written 2^40
 * floats past the output: an illegal address, which leaves the CUDA context in a sticky error
 * (every later call in that process fails). In xpubench's own process that would end the device's
 * later cases; isolated (the default for plugins), that case alone is an `error` with CUDA's
 * message, and the next case opens a fresh context. Runs on a GPU only (scripts/device-run.sh,
 * phase plugins). */
#include <cuda_runtime.h>
#include <stdio.h>

#include <xpubench/xpubench_plugin.h>

#define BAD_ROWS 257

__global__ void softmax_row_per_thread(const float *x, float *out, int64_t rows, int64_t cols)
{
    int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows)
        return;
    const float *xr = x + row * cols;
    /* the bug: an offset meant for another layout, taken at this size only */
    float *outr = out + row * cols + (rows == BAD_ROWS && row == rows - 1 ? ((int64_t)1 << 40) : 0);
    float m = -INFINITY;
    for (int64_t i = 0; i < cols; i++)
        m = fmaxf(m, xr[i]);
    double sum = 0.0;
    for (int64_t i = 0; i < cols; i++)
        sum += (double)expf(xr[i] - m);
    for (int64_t i = 0; i < cols; i++)
        outr[i] = (float)((double)expf(xr[i] - m) / sum);
}

static int oob_launch(const xpb_plugin_context *ctx, const void *args, void *state, xpb_plugin_error *err)
{
    (void)state;
    const xpb_plugin_rowop_args *a = (const xpb_plugin_rowop_args *)args;
    if (a->rows == 0 || a->cols == 0)
        return XPB_PLUGIN_OK;
    unsigned blocks = (unsigned)((a->rows + 127) / 128);
    softmax_row_per_thread<<<blocks, 128, 0, (cudaStream_t)ctx->stream>>>(a->x, a->out, a->rows, a->cols);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        snprintf(err->msg, sizeof err->msg, "softmax_row_per_thread launch: %s", cudaGetErrorString(e));
        return XPB_PLUGIN_RUNTIME;
    }
    return XPB_PLUGIN_OK;
}

static const xpb_plugin_kernel oob = {XPB_PLUGIN_OP_SOFTMAX, "example-oob", "fp32", NULL, NULL, oob_launch, NULL};

static const xpb_plugin_kernel *const cuda_kernels[] = {&oob, NULL};

extern "C" int xpubench_plugin_entry(int abi_version, xpb_plugin_info *out)
{
    if (abi_version == XPB_PLUGIN_ABI_VERSION) {
        out->version = "example-cuda-softmax-oob 1.0";
        out->cpu_kernels = NULL;
        out->cuda_kernels = cuda_kernels;
    }
    return XPB_PLUGIN_ABI_VERSION;
}
