/* gemv.cu - gemv `gemv`: y(1 x n) = alpha x(1 x k) B(k x n) + beta c_in, fp32, bandwidth-bound:
 * B is read exactly once, in coalesced 16-byte loads along its rows, and nothing else of size.
 *
 * Work split: a block of 64 x 4 threads owns a strip of 256 columns and a slice of `ks` rows of
 * B (grid: strips x slices). Thread (tx, ty) keeps 4 column sums in registers (one float4 of each
 * row: columns 4 tx..4 tx+3 of the strip; when n % 4 != 0, scalar loads of columns tx + 64 j,
 * still coalesced) over the rows ty, ty + 4, ... of the slice, four rows' loads in flight per
 * step. The 4 row-threads of each column then add up in shared memory in a fixed order.
 *
 * Slices: enough of them that the grid fills the device (at least one block per resident slot;
 * ks from 256 down to 64 rows), so a 1 x 8192 x 8192 case is 2048 blocks on an H100. With one
 * slice the block writes y directly. Otherwise each slice writes its column sums to a workspace
 * (slices x n floats, from prepare), and the last block of a strip to finish (a per-strip ticket:
 * __threadfence, then atomicAdd) sums the slices' partials in slice order 0, 1, 2, ... and writes
 * y, then resets the ticket for the next launch. Which block comes last varies from run to run;
 * the order of every addition does not, so the result is deterministic (no float atomics). */
#include <limits.h>
#include <stdlib.h>

#include "cuda_common.cuh"
#include "cuda_gemm.h"

#define XPB_GEMV_TX 64
#define XPB_GEMV_TY 4
#define XPB_GEMV_THREADS (XPB_GEMV_TX * XPB_GEMV_TY)
#define XPB_GEMV_COLS (4 * XPB_GEMV_TX) /* columns per strip */
#define XPB_GEMV_UNROLL 4               /* rows in flight per thread */
#define XPB_GEMV_KS_MAX 256
#define XPB_GEMV_KS_MIN 64
#define XPB_GEMV_MAX_SLICES 512

__device__ __forceinline__ int xpb_gemv_min(int a, int b) { return a < b ? a : b; }

template <bool VEC>
__device__ __forceinline__ float4 xpb_gemv_load(const float *row, const int *col)
{
    if constexpr (VEC)
        return *reinterpret_cast<const float4 *>(row + col[0]);
    else
        return make_float4(row[col[0]], row[col[1]], row[col[2]], row[col[3]]);
}

__device__ __forceinline__ void xpb_gemv_fma(float *acc, float x, float4 b)
{
    acc[0] = fmaf(x, b.x, acc[0]), acc[1] = fmaf(x, b.y, acc[1]);
    acc[2] = fmaf(x, b.z, acc[2]), acc[3] = fmaf(x, b.w, acc[3]);
}

template <bool VEC>
__global__ void __launch_bounds__(XPB_GEMV_THREADS)
xpb_gemv_kernel(const float *__restrict__ x, const float *__restrict__ B,
                const float *__restrict__ cin, float *__restrict__ y, float *__restrict__ partial,
                unsigned *__restrict__ tickets, int N, int K, int ks, float alpha, float beta)
{
    __shared__ __align__(16) float red[XPB_GEMV_TY][XPB_GEMV_COLS];
    __shared__ unsigned is_last;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int c0 = blockIdx.x * XPB_GEMV_COLS;
    const int kend = xpb_gemv_min(K, (int)blockIdx.y * ks + ks);

    /* This thread's columns, clamped into the matrix (the sums of clamped ones are dropped). */
    const int first = VEC ? c0 + 4 * tx : c0 + tx;
    int col[4];
#pragma unroll
    for (int j = 0; j < 4; j++)
        col[j] = VEC ? xpb_gemv_min(first, N - 4) : xpb_gemv_min(first + XPB_GEMV_TX * j, N - 1);
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (first < N) {
        int k = blockIdx.y * ks + ty;
        const float *row = B + (int64_t)k * N;
        const int64_t step = (int64_t)XPB_GEMV_TY * N;
        for (; k + (XPB_GEMV_UNROLL - 1) * XPB_GEMV_TY < kend; k += XPB_GEMV_UNROLL * XPB_GEMV_TY) {
            float4 b[XPB_GEMV_UNROLL];
            float xv[XPB_GEMV_UNROLL];
#pragma unroll
            for (int u = 0; u < XPB_GEMV_UNROLL; u++) {
                b[u] = xpb_gemv_load<VEC>(row + u * step, col);
                xv[u] = x[k + u * XPB_GEMV_TY];
            }
#pragma unroll
            for (int u = 0; u < XPB_GEMV_UNROLL; u++)
                xpb_gemv_fma(acc, xv[u], b[u]);
            row += XPB_GEMV_UNROLL * step;
        }
        for (; k < kend; k += XPB_GEMV_TY, row += step)
            xpb_gemv_fma(acc, x[k], xpb_gemv_load<VEC>(row, col));
    }

    /* Sum the 4 row-threads of each column in order; thread t then owns column c0 + t. */
    if (VEC) {
        *reinterpret_cast<float4 *>(&red[ty][4 * tx]) = make_float4(acc[0], acc[1], acc[2], acc[3]);
    } else {
#pragma unroll
        for (int j = 0; j < 4; j++)
            red[ty][tx + XPB_GEMV_TX * j] = acc[j];
    }
    __syncthreads();
    const int t = ty * XPB_GEMV_TX + tx, c = c0 + t;
    float s = red[0][t];
#pragma unroll
    for (int r = 1; r < XPB_GEMV_TY; r++)
        s += red[r][t];
    if (gridDim.y == 1) {
        if (c < N)
            y[c] = beta != 0.0f ? alpha * s + beta * cin[c] : alpha * s;
        return;
    }

    /* Split K: publish this slice's sums; the strip's last block adds them up in slice order. */
    if (c < N)
        partial[(int64_t)blockIdx.y * N + c] = s;
    __threadfence();
    __syncthreads();
    if (t == 0) {
        is_last = atomicAdd(&tickets[blockIdx.x], 1u) == gridDim.y - 1;
        __threadfence();
    }
    __syncthreads();
    if (!is_last)
        return;
    if (c < N) {
        float sum = 0.0f;
#pragma unroll 8
        for (unsigned sl = 0; sl < gridDim.y; sl++)
            sum += __ldcg(partial + (int64_t)sl * N + c); /* L2: other SMs wrote these */
        y[c] = beta != 0.0f ? alpha * sum + beta * cin[c] : alpha * sum;
    }
    if (t == 0)
        tickets[blockIdx.x] = 0; /* ready for the next launch */
}

/* The split prepare chose, and its workspace (NULL with one slice). */
typedef struct xpb_gemv_plan {
    int64_t n, k;
    int ks, slices;
    float *partial;     /* slices x n */
    unsigned *tickets;  /* one per strip, zero between launches */
} xpb_gemv_plan;

static void gemv_release(void *vctx, void *state)
{
    xpb_gemv_plan *p = static_cast<xpb_gemv_plan *>(state);
    if (!p)
        return;
    const xpb_cuda_ctx *ctx = static_cast<const xpb_cuda_ctx *>(vctx);
    if ((p->partial || p->tickets) && xpb_cuda_activate(ctx, NULL) == XPB_OK) {
        (void)cudaStreamSynchronize(ctx->stream);
        if (p->partial)
            (void)cudaFree(p->partial);
        if (p->tickets)
            (void)cudaFree(p->tickets);
    }
    (void)cudaGetLastError();
    free(p);
}

/* Rows per slice: the largest of 256, 128, 64 that still gives every resident block slot of the
 * device a block; at most XPB_GEMV_MAX_SLICES slices (the last block of a strip adds that many
 * partials one after another; only very narrow, very long cases reach the cap). */
static void gemv_split(const xpb_cuda_ctx *ctx, int64_t n, int64_t k, int *ks, int *slices)
{
    const int64_t strips = (n + XPB_GEMV_COLS - 1) / XPB_GEMV_COLS;
    const int per_sm = ctx->max_threads_per_sm / XPB_GEMV_THREADS;
    const int64_t slots = (int64_t)ctx->sm_count * (per_sm > 0 ? per_sm : 1);
    int64_t s = XPB_GEMV_KS_MAX;
    while (s > XPB_GEMV_KS_MIN && strips * ((k + s - 1) / s) < slots)
        s /= 2;
    while ((k + s - 1) / s > XPB_GEMV_MAX_SLICES)
        s *= 2;
    *ks = (int)s;
    *slices = k > 0 ? (int)((k + s - 1) / s) : 1;
}

static xpb_status gemv_supports(void *ctx, const void *vargs, xpb_error *why)
{
    (void)ctx;
    const xpb_gemm_args *a = static_cast<const xpb_gemm_args *>(vargs);
    if (a->n > INT_MAX - XPB_GEMV_COLS || a->k > INT_MAX - XPB_GEMV_KS_MAX * 2)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED, "gemv/gemv: n=%lld, k=%lld: int sizes only",
                        (long long)a->n, (long long)a->k);
    return XPB_OK;
}

static xpb_status gemv_prepare(void *vctx, const void *vargs, void **state, xpb_error *err)
{
    *state = NULL;
    xpb_cuda_ctx *ctx = static_cast<xpb_cuda_ctx *>(vctx);
    const xpb_gemm_args *a = static_cast<const xpb_gemm_args *>(vargs);
    xpb_status st = gemv_supports(vctx, vargs, err);
    if (st != XPB_OK || (st = xpb_cuda_activate(ctx, err)) != XPB_OK)
        return st;
    xpb_gemv_plan *p = static_cast<xpb_gemv_plan *>(calloc(1, sizeof *p));
    if (!p)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "gemv/gemv: out of host memory");
    p->n = a->n, p->k = a->k;
    gemv_split(ctx, a->n, a->k, &p->ks, &p->slices);
    *state = p;
    if (p->slices == 1 || a->n <= 0)
        return XPB_OK;
    const size_t strips = (size_t)((a->n + XPB_GEMV_COLS - 1) / XPB_GEMV_COLS);
    void *partial = NULL, *tickets = NULL;
    cudaError_t e = cudaMalloc(&partial, (size_t)p->slices * (size_t)a->n * sizeof(float));
    p->partial = static_cast<float *>(partial);
    if (e == cudaSuccess)
        e = cudaMalloc(&tickets, strips * sizeof(unsigned));
    p->tickets = static_cast<unsigned *>(tickets);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(p->tickets, 0, strips * sizeof(unsigned), ctx->stream);
    if (e != cudaSuccess) {
        *state = NULL;
        gemv_release(vctx, p);
        return xpb_cuda_fail(err, e, "gemv/gemv workspace (cudaMalloc/cudaMemsetAsync)", __FILE__, __LINE__);
    }
    return XPB_OK;
}

template <bool VEC>
static xpb_status gemv_enqueue(const xpb_cuda_ctx *ctx, const xpb_cuda_gemm *g, const xpb_gemv_plan *p,
                               xpb_error *err)
{
    const dim3 grid((unsigned)((g->n + XPB_GEMV_COLS - 1) / XPB_GEMV_COLS), (unsigned)p->slices);
    const dim3 block(XPB_GEMV_TX, XPB_GEMV_TY);
    xpb_gemv_kernel<VEC><<<grid, block, 0, ctx->stream>>>(g->a, g->b, g->c_in, g->c, p->partial, p->tickets, (int)g->n, (int)g->k, p->ks, g->alpha, g->beta);
    XPB_CUDA_CHECK_LAUNCH(err, "gemv/gemv");
    return XPB_OK;
}

static xpb_status gemv_launch(void *vctx, const void *vargs, void *state, xpb_error *err)
{
    const xpb_cuda_ctx *ctx = static_cast<const xpb_cuda_ctx *>(vctx);
    const xpb_gemv_plan *p = static_cast<const xpb_gemv_plan *>(state);
    xpb_cuda_gemm g;
    xpb_status st = xpb_cuda_gemm_resolve(static_cast<const xpb_gemm_args *>(vargs), XPB_OP_GEMV,
                                          "gemv/gemv", &g, err);
    if (st != XPB_OK)
        return st;
    if (!p || p->n != g.n || p->k != g.k)
        return xpb_fail(err, XPB_ERR_USAGE, "gemv/gemv: launch without a prepare for these sizes");
    if (g.n == 0)
        return XPB_OK;
    if ((st = xpb_cuda_activate(ctx, err)) != XPB_OK)
        return st;
    const bool vec = g.n % 4 == 0 && xpb_cuda_aligned16(g.b);
    return vec ? gemv_enqueue<true>(ctx, &g, p, err) : gemv_enqueue<false>(ctx, &g, p, err);
}

extern "C" const xpb_kernel xpb_cuda_gemv = {
    /* .op        = */ XPB_OP_GEMV,
    /* .variant   = */ "gemv",
    /* .precision = */ "fp32",
    /* .supports  = */ gemv_supports,
    /* .prepare   = */ gemv_prepare,
    /* .release   = */ gemv_release,
    /* .launch    = */ gemv_launch,
};
