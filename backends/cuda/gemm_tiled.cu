/* gemm_tiled.cu - gemm `tiled`: a hand-written fp32 SGEMM (plain FFMA, no tensor cores, so it is
 * exact fp32 like cublas in pedantic mode), any M, N, K.
 *
 * Shape (the classic register-blocked SGEMM): 256 threads compute a 128 x 128 tile of C, marching
 * over K in steps of BK = 16. Per step the block stages a 128 x 16 slice of A (transposed, so a
 * thread reads 4 consecutive rows of one k as one float4) and a 16 x 128 slice of B in shared
 * memory; each thread owns an 8 x 8 block of C in registers: rows {r..r+3, r+16..r+19} and
 * columns {c..c+3, c+32..c+35}, where a warp covers 32 x 64 of the tile as 4 x 8 threads (so
 * every shared load is one float4, broadcast within the warp, and stores of C are 128-byte rows).
 * Per k: 4 LDS.128 feed 64 FFMA.
 *
 * Pipeline: two shared buffers. While the block computes on one, each thread has already issued
 * the global loads of the next slice into registers (2 float4 of A, 2 of B), which it stores into
 * the other buffer afterwards: one barrier per slice. The A buffer rows are padded by 4 floats
 * (row stride 132), which keeps the transposed stores at most 2-way bank conflicted and the
 * float4 reads aligned.
 *
 * Edges without branches in the main loop: rows of A and columns of B beyond M and N are clamped
 * to the last valid one (always in bounds; they only feed rows/columns of C that are never
 * stored), and only the final K slice, when K % 16 != 0, takes the zero-filling checked load.
 * float4 global loads of A need K % 4 == 0 (every row start 16-byte aligned), of B and C need
 * N % 4 == 0; otherwise that matrix is read (and C written) with scalar accesses in the same
 * pattern (VK / VN template flags). Epilogue: c = alpha * acc (+ beta * c_in when beta != 0). */
#include <limits.h>

#include "cuda_common.cuh"
#include "cuda_gemm.h"

#define XPB_TILED_BM 128
#define XPB_TILED_BN 128
#define XPB_TILED_BK 16
#define XPB_TILED_THREADS 256
#define XPB_TILED_LDA (XPB_TILED_BM + 4) /* padded row of the transposed A tile */

__device__ __forceinline__ int xpb_tiled_min(int a, int b) { return a < b ? a : b; }

/* 4 consecutive elements row[kc..kc+3] of A; CHECK: zero beyond column K. */
template <bool VK, bool CHECK>
__device__ __forceinline__ float4 xpb_tiled_load_a(const float *row, int kc, int K)
{
    if constexpr (VK) { /* K % 4 == 0: the 4 are all in or all out */
        if (CHECK && kc >= K)
            return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        return *reinterpret_cast<const float4 *>(row + kc);
    } else {
        float v[4];
#pragma unroll
        for (int j = 0; j < 4; j++)
            v[j] = !CHECK || kc + j < K ? row[kc + j] : 0.0f;
        return make_float4(v[0], v[1], v[2], v[3]);
    }
}

/* Columns col..col+3 of row k of B, each clamped to N - 1 (VN: col is already clamped to
 * N - 4); CHECK: zero when k >= K. */
template <bool VN, bool CHECK>
__device__ __forceinline__ float4 xpb_tiled_load_b(const float *B, int N, int k, int K, int col)
{
    if (CHECK && k >= K)
        return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    const float *row = B + (int64_t)k * N;
    if constexpr (VN) {
        return *reinterpret_cast<const float4 *>(row + col);
    } else {
        float v[4];
#pragma unroll
        for (int j = 0; j < 4; j++)
            v[j] = row[xpb_tiled_min(col + j, N - 1)];
        return make_float4(v[0], v[1], v[2], v[3]);
    }
}

template <bool VK, bool VN>
__global__ void __launch_bounds__(XPB_TILED_THREADS, 2)
xpb_tiled_kernel(const float *__restrict__ A, const float *__restrict__ B,
                 const float *__restrict__ Cin, float *__restrict__ C, int M, int N, int K,
                 float alpha, float beta)
{
    __shared__ __align__(16) float As[2][XPB_TILED_BK][XPB_TILED_LDA];
    __shared__ __align__(16) float Bs[2][XPB_TILED_BK][XPB_TILED_BN];
    const int tid = threadIdx.x;
    const int bm0 = blockIdx.y * XPB_TILED_BM, bn0 = blockIdx.x * XPB_TILED_BN;

    /* Loader roles: A rows lr and lr + 64, tile columns lk..lk+3; B rows lkb and lkb + 8, tile
     * columns lc..lc+3. Out-of-range rows/columns are clamped (see the file comment). */
    const int lr = tid >> 2, lk = (tid & 3) * 4;
    const int lkb = tid >> 5, lc = (tid & 31) * 4;
    const float *a_row0 = A + (int64_t)xpb_tiled_min(bm0 + lr, M - 1) * K;
    const float *a_row1 = A + (int64_t)xpb_tiled_min(bm0 + lr + 64, M - 1) * K;
    const int bcol = VN ? xpb_tiled_min(bn0 + lc, N - 4) : bn0 + lc;
    float4 ra0, ra1, rb0, rb1;

    /* Compute roles: this thread's rows ty..ty+3, ty+16..ty+19 and columns tx..tx+3,
     * tx+32..tx+35 of the tile. Warps tile the block 4 (M) x 2 (N); lanes tile a warp 4 x 8. */
    const int warp = tid >> 5, lane = tid & 31;
    const int ty = (warp >> 1) * 32 + (lane >> 3) * 4;
    const int tx = (warp & 1) * 64 + (lane & 7) * 4;
    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++)
            acc[i][j] = 0.0f;

#define XPB_TILED_LOAD(CHECK, k0)                                                               \
    do {                                                                                        \
        ra0 = xpb_tiled_load_a<VK, CHECK>(a_row0, (k0) + lk, K);                                \
        ra1 = xpb_tiled_load_a<VK, CHECK>(a_row1, (k0) + lk, K);                                \
        rb0 = xpb_tiled_load_b<VN, CHECK>(B, N, (k0) + lkb, K, bcol);                           \
        rb1 = xpb_tiled_load_b<VN, CHECK>(B, N, (k0) + lkb + 8, K, bcol);                       \
    } while (0)
#define XPB_TILED_STORE(buf)                                                                    \
    do {                                                                                        \
        As[buf][lk + 0][lr] = ra0.x, As[buf][lk + 1][lr] = ra0.y;                               \
        As[buf][lk + 2][lr] = ra0.z, As[buf][lk + 3][lr] = ra0.w;                               \
        As[buf][lk + 0][lr + 64] = ra1.x, As[buf][lk + 1][lr + 64] = ra1.y;                     \
        As[buf][lk + 2][lr + 64] = ra1.z, As[buf][lk + 3][lr + 64] = ra1.w;                     \
        *reinterpret_cast<float4 *>(&Bs[buf][lkb][lc]) = rb0;                                   \
        *reinterpret_cast<float4 *>(&Bs[buf][lkb + 8][lc]) = rb1;                               \
    } while (0)

    const int tiles = (K + XPB_TILED_BK - 1) / XPB_TILED_BK;
    if (tiles > 0) {
        if (K >= XPB_TILED_BK)
            XPB_TILED_LOAD(false, 0);
        else
            XPB_TILED_LOAD(true, 0);
        XPB_TILED_STORE(0);
    }
    __syncthreads();
    for (int t = 0; t < tiles; t++) {
        const int cur = t & 1;
        const bool more = t + 1 < tiles;
        if (more) { /* issue the next slice's global loads before computing on this one */
            const int k0 = (t + 1) * XPB_TILED_BK;
            if (k0 + XPB_TILED_BK <= K)
                XPB_TILED_LOAD(false, k0);
            else
                XPB_TILED_LOAD(true, k0);
        }
#pragma unroll
        for (int kk = 0; kk < XPB_TILED_BK; kk++) {
            const float4 a0 = *reinterpret_cast<const float4 *>(&As[cur][kk][ty]);
            const float4 a1 = *reinterpret_cast<const float4 *>(&As[cur][kk][ty + 16]);
            const float4 b0 = *reinterpret_cast<const float4 *>(&Bs[cur][kk][tx]);
            const float4 b1 = *reinterpret_cast<const float4 *>(&Bs[cur][kk][tx + 32]);
            const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 8; i++)
#pragma unroll
                for (int j = 0; j < 8; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        if (more)
            XPB_TILED_STORE(cur ^ 1); /* its last readers passed the previous barrier */
        __syncthreads();
    }
#undef XPB_TILED_LOAD
#undef XPB_TILED_STORE

    /* Epilogue: rows ty + {0..3, 16..19}, columns tx + {0..3, 32..35}, each group of 4 one float4
     * when N % 4 == 0. */
#pragma unroll
    for (int i = 0; i < 8; i++) {
        const int row = bm0 + ty + (i < 4 ? i : 12 + i);
        if (row >= M)
            continue;
        const int64_t off = (int64_t)row * N;
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int col = bn0 + tx + 32 * h;
            float v[4];
#pragma unroll
            for (int j = 0; j < 4; j++)
                v[j] = alpha * acc[i][4 * h + j];
            if constexpr (VN) {
                if (col >= N)
                    continue;
                if (beta != 0.0f) {
                    const float4 c = *reinterpret_cast<const float4 *>(Cin + off + col);
                    v[0] += beta * c.x, v[1] += beta * c.y, v[2] += beta * c.z, v[3] += beta * c.w;
                }
                *reinterpret_cast<float4 *>(C + off + col) = make_float4(v[0], v[1], v[2], v[3]);
            } else {
#pragma unroll
                for (int j = 0; j < 4; j++)
                    if (col + j < N)
                        C[off + col + j] = beta != 0.0f ? v[j] + beta * Cin[off + col + j] : v[j];
            }
        }
    }
}

template <bool VK, bool VN>
static xpb_status tiled_enqueue(const xpb_cuda_ctx *ctx, const xpb_cuda_gemm *g, xpb_error *err)
{
    const dim3 grid((unsigned)((g->n + XPB_TILED_BN - 1) / XPB_TILED_BN),
                    (unsigned)((g->m + XPB_TILED_BM - 1) / XPB_TILED_BM));
    xpb_tiled_kernel<VK, VN><<<grid, XPB_TILED_THREADS, 0, ctx->stream>>>(g->a, g->b, g->c_in, g->c, (int)g->m, (int)g->n, (int)g->k, g->alpha, g->beta);
    XPB_CUDA_CHECK_LAUNCH(err, "gemm/tiled");
    return XPB_OK;
}

/* int sizes in the kernel, and at most 65535 block rows (grid y). */
static xpb_status tiled_supports(void *ctx, const void *vargs, xpb_error *why)
{
    (void)ctx;
    const xpb_gemm_args *a = static_cast<const xpb_gemm_args *>(vargs);
    if (a->m > 65535LL * XPB_TILED_BM)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED, "gemm/tiled: m=%lld exceeds %lld (grid y limit)",
                        (long long)a->m, 65535LL * XPB_TILED_BM);
    return xpb_cuda_gemm_supports_int32(vargs, "gemm/tiled", why);
}

static xpb_status tiled_launch(void *vctx, const void *vargs, void *state, xpb_error *err)
{
    (void)state;
    const xpb_cuda_ctx *ctx = static_cast<const xpb_cuda_ctx *>(vctx);
    xpb_cuda_gemm g;
    xpb_status st = xpb_cuda_gemm_resolve(static_cast<const xpb_gemm_args *>(vargs), XPB_OP_GEMM,
                                          "gemm/tiled", &g, err);
    if (st == XPB_OK)
        st = tiled_supports(vctx, vargs, err);
    if (st != XPB_OK || g.m == 0 || g.n == 0)
        return st;
    if ((st = xpb_cuda_activate(ctx, err)) != XPB_OK)
        return st;
    const bool vk = g.k % 4 == 0 && xpb_cuda_aligned16(g.a);
    const bool vn = g.n % 4 == 0 && xpb_cuda_aligned16(g.b) && xpb_cuda_aligned16(g.c) &&
                    (!g.c_in || xpb_cuda_aligned16(g.c_in));
    if (vk)
        return vn ? tiled_enqueue<true, true>(ctx, &g, err) : tiled_enqueue<true, false>(ctx, &g, err);
    return vn ? tiled_enqueue<false, true>(ctx, &g, err) : tiled_enqueue<false, false>(ctx, &g, err);
}

extern "C" const xpb_kernel xpb_cuda_gemm_tiled = {
    /* .op        = */ XPB_OP_GEMM,
    /* .variant   = */ "tiled",
    /* .precision = */ "fp32",
    /* .supports  = */ tiled_supports,
    /* .prepare   = */ NULL,
    /* .release   = */ NULL,
    /* .launch    = */ tiled_launch,
};
