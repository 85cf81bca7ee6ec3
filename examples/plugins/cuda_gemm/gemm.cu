/* gemm.cu - an example xpubench plugin: GEMM and GEMV for the cuda backend (cuda/example).
 *
 * The textbook shared-memory SGEMM: a block of 16 x 16 threads a 16 x 16 tile of C, A's and B's
 * tiles staged through shared memory 16 columns of k at a time, fp32 products and sums; then
 * c = alpha * acc + beta * c_in (c_in NULL when beta is 0). The same kernel serves GEMV (m = 1).
 * A starting point to hold your own against, not a fast GEMM: cuBLAS (cuda/cublas) is the peer.
 * It launches on the stream xpubench hands over and never synchronizes: xpubench does, and times
 * the launches with CUDA events on that stream. Built in CI, run only on a GPU (docs/plugins.md). */
#include <cuda_runtime.h>
#include <stdio.h>

#include <xpubench/xpubench_plugin.h>

#define T 16

__global__ void __launch_bounds__(T * T) gemm_tiles(xpb_plugin_gemm_args g)
{
    __shared__ float as[T][T], bs[T][T + 1]; /* +1: bs is read down its columns */
    const int64_t row = (int64_t)blockIdx.y * T + threadIdx.y, col = (int64_t)blockIdx.x * T + threadIdx.x;
    float acc = 0.0f;
    for (int64_t k0 = 0; k0 < g.k; k0 += T) {
        const int64_t ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
        as[threadIdx.y][threadIdx.x] = row < g.m && ka < g.k ? g.a[row * g.k + ka] : 0.0f;
        bs[threadIdx.y][threadIdx.x] = col < g.n && kb < g.k ? g.b[kb * g.n + col] : 0.0f;
        __syncthreads();
        for (int j = 0; j < T; j++)
            acc += as[threadIdx.y][j] * bs[j][threadIdx.x];
        __syncthreads();
    }
    if (row < g.m && col < g.n)
        g.c[row * g.n + col] = g.alpha * acc + (g.c_in ? g.beta * g.c_in[row * g.n + col] : 0.0f);
}

static int example_supports(const xpb_plugin_context *ctx, const void *args, xpb_plugin_error *why)
{
    (void)ctx;
    const xpb_plugin_gemm_args *g = (const xpb_plugin_gemm_args *)args;
    if ((g->m + T - 1) / T > 65535) { /* tile rows are the grid's y: at most 65535 */
        snprintf(why->msg, sizeof why->msg, "example: m over %d", 65535 * T);
        return XPB_PLUGIN_UNSUPPORTED;
    }
    return XPB_PLUGIN_OK;
}

static int example_launch(const xpb_plugin_context *ctx, const void *args, void *state, xpb_plugin_error *err)
{
    (void)state;
    const xpb_plugin_gemm_args *g = (const xpb_plugin_gemm_args *)args;
    if (g->m == 0 || g->n == 0)
        return XPB_PLUGIN_OK;
    const dim3 grid((unsigned)((g->n + T - 1) / T), (unsigned)((g->m + T - 1) / T)), block(T, T);
    gemm_tiles<<<grid, block, 0, (cudaStream_t)ctx->stream>>>(*g);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        snprintf(err->msg, sizeof err->msg, "gemm_tiles launch: %s", cudaGetErrorString(e));
        return XPB_PLUGIN_RUNTIME;
    }
    return XPB_PLUGIN_OK;
}

static const xpb_plugin_kernel gemm = {
    XPB_PLUGIN_OP_GEMM, "example", "fp32", example_supports, NULL, example_launch, NULL};
static const xpb_plugin_kernel gemv = {
    XPB_PLUGIN_OP_GEMV, "example", "fp32", example_supports, NULL, example_launch, NULL};

static const xpb_plugin_kernel *const cuda_kernels[] = {&gemm, &gemv, NULL};

extern "C" int xpubench_plugin_entry(int abi_version, xpb_plugin_info *out)
{
    if (abi_version == XPB_PLUGIN_ABI_VERSION) {
        out->version = "example-cuda-gemm 1.0";
        out->cpu_kernels = NULL;
        out->cuda_kernels = cuda_kernels;
    }
    return XPB_PLUGIN_ABI_VERSION;
}
