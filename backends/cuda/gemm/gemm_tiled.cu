/* gemm_tiled.cu - gemm `tiled`: a hand-written fp32 SGEMM (plain FFMA, no tensor cores, so it is
 * exact fp32 like cublas in pedantic mode), any M, N, K.
 *
 * Shape (the classic register-blocked SGEMM): 256 threads compute a 128 x 128 tile of C (two
 * blocks an SM), marching over K in slices of BK = 32 (16 for A/B runs). Per slice the block
 * stages a 128 x BK slice of A (transposed, so a thread reads 4 consecutive rows of one k as one
 * float4) and a BK x 128 slice of B in shared memory; each thread owns an 8 x 8 block of C in
 * registers: rows {r..r+3, r+16..r+19} and columns {c..c+3, c+32..c+35}, where a warp covers
 * 32 x 64 of the tile as 4 x 8 threads (so every shared load is one float4, broadcast within the
 * warp, and stores of C are 128-byte rows). Per k: 4 LDS.128 feed 64 FFMA.
 *
 * Pipeline: two shared buffers filled with cp.async (global to shared without registers): while
 * the block computes on slice t, slice t + 1 is in flight; one barrier per slice. Why cp.async
 * and not loads into registers stored after the math (this kernel until session 10): with 64
 * accumulators a thread is at the 128-register limit, and ptxas may then move register-staged
 * loads down to the end of the loop, where their latency is exposed, to shorten their live
 * ranges (it did for a 256-row tile; docs/performance.md, sessions 10-11); an asynchronous copy
 * holds no register, so there is nothing to gain by moving it. A is copied 4 bytes at a time
 * straight into its transposed place (BK threads read one row segment, so the global reads stay
 * coalesced); B, untransposed, 16 bytes at a time. The A rows are padded by 4 floats (row stride
 * 132), which keeps the transposing copies at most 2-way bank conflicted and the float4 reads
 * aligned. Measured on the H100 (session 11): 0.91-0.92 of cuBLAS at 4096 and 8192, against
 * 0.84-0.85 for the register-staged kernel; 3 stages and 256-row tiles lost.
 *
 * Edges without branches: rows of A and columns of B beyond M and N are clamped to the last
 * valid one (always in bounds; they only feed rows/columns of C that are never stored), and
 * k >= K copies zeros (cp.async's source size 0). B and C use 16-byte accesses when N % 4 == 0
 * and 16-byte aligned, else 4-byte ones in the same pattern (VN template flag); A's 4-byte
 * copies need no alignment. Epilogue: c = alpha * acc (+ beta * c_in when beta != 0). */
#include <limits.h>

#include "cuda_common.cuh"
#include "cuda_gemm.h"
#include "xpb_knob.h"

#define XPB_TILED_BM 128
#define XPB_TILED_BN 128
#define XPB_TILED_THREADS 256
#define XPB_TILED_STAGES 2
#define XPB_TILED_PAD 4 /* floats of padding on each row of the transposed A tile */

/* Shared memory of one block: the stages of A (transposed, padded) and B for slices of bk. */
constexpr int xpb_tiled_smem_bytes(int bk)
{
    return XPB_TILED_STAGES * bk * ((XPB_TILED_BM + XPB_TILED_PAD) + XPB_TILED_BN) * (int)sizeof(float);
}

__device__ __forceinline__ int xpb_tiled_min(int a, int b) { return a < b ? a : b; }

/* cp.async of `bytes` (4 or 16) from global src to shared dst; fill: 0 writes zeros instead
 * (src is then not read, but is kept in bounds anyway). 4-byte copies must go through L1 (.ca),
 * 16-byte ones bypass it (.cg): each block reads a slice once, so L1 holds nothing reusable. */
__device__ __forceinline__ void xpb_tiled_cp4(float *dst, const float *src, bool fill)
{
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(d), "l"(src), "r"(fill ? 4 : 0)
                 : "memory");
}
__device__ __forceinline__ void xpb_tiled_cp16(float *dst, const float *src, bool fill)
{
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(fill ? 16 : 0)
                 : "memory");
}
__device__ __forceinline__ void xpb_tiled_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void xpb_tiled_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

template <int BK, bool VN>
__global__ void __launch_bounds__(XPB_TILED_THREADS, 2)
xpb_tiled_kernel(const float *__restrict__ A, const float *__restrict__ B,
                 const float *__restrict__ Cin, float *__restrict__ C, int M, int N, int K,
                 float alpha, float beta)
{
    constexpr int BM = XPB_TILED_BM, STAGES = XPB_TILED_STAGES, THREADS = XPB_TILED_THREADS;
    constexpr int LDA = BM + XPB_TILED_PAD;
    constexpr int A_ROWS_PER_PASS = THREADS / BK;           /* BK threads a row: BK / 2 passes */
    constexpr int B_UNITS = BK * XPB_TILED_BN / 4 / THREADS; /* float4s a thread: BK / 8 */
    extern __shared__ __align__(16) float xpb_tiled_smem[];
    auto As = reinterpret_cast<float (*)[BK][LDA]>(xpb_tiled_smem);
    auto Bs = reinterpret_cast<float (*)[BK][XPB_TILED_BN]>(xpb_tiled_smem + STAGES * BK * LDA);
    const int tid = threadIdx.x;
    const int bm0 = blockIdx.y * BM, bn0 = blockIdx.x * XPB_TILED_BN;

    /* Copy roles: A rows ar + A_ROWS_PER_PASS * p (p < 8), column ak of the slice; B rows
     * bk + 16 / B_UNITS * u, columns bc..bc+3. Out-of-range rows/columns are clamped. */
    const int ak = tid % BK, ar = tid / BK;
    const int bc = (tid % (XPB_TILED_BN / 4)) * 4, bk = tid / (XPB_TILED_BN / 4);
    const int bcol = VN ? xpb_tiled_min(bn0 + bc, N - 4) : bn0 + bc;
    const int tiles = (K + BK - 1) / BK;
    auto issue = [&](int t) { /* slice t into buffer t % STAGES; an empty group past the end */
        if (t < tiles) {
            const int buf = t % STAGES, k = t * BK + ak;
            const bool kin = k < K;
#pragma unroll
            for (int p = 0; p < BK / 2; p++) {
                const int r = ar + A_ROWS_PER_PASS * p;
                const float *src = A + (int64_t)xpb_tiled_min(bm0 + r, M - 1) * K + (kin ? k : 0);
                xpb_tiled_cp4(&As[buf][ak][r], src, kin);
            }
#pragma unroll
            for (int u = 0; u < B_UNITS; u++) {
                const int row = bk + (BK / B_UNITS) * u, kb = t * BK + row;
                const bool in = kb < K;
                const float *src = B + (int64_t)(in ? kb : 0) * N;
                if constexpr (VN) {
                    xpb_tiled_cp16(&Bs[buf][row][bc], src + bcol, in);
                } else {
#pragma unroll
                    for (int j = 0; j < 4; j++)
                        xpb_tiled_cp4(&Bs[buf][row][bc + j], src + xpb_tiled_min(bcol + j, N - 1), in);
                }
            }
        }
        xpb_tiled_commit();
    };

    /* Compute roles: this thread's rows ty..ty+3, ty+16..ty+19 and columns tx..tx+3,
     * tx+32..tx+35 of the tile. Warps tile the block BM / 32 (M) x 2 (N); lanes tile a warp 4 x 8. */
    const int warp = tid >> 5, lane = tid & 31;
    const int ty = (warp >> 1) * 32 + (lane >> 3) * 4;
    const int tx = (warp & 1) * 64 + (lane & 7) * 4;
    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++)
            acc[i][j] = 0.0f;

#pragma unroll
    for (int s = 0; s < STAGES - 1; s++)
        issue(s);
    for (int t = 0; t < tiles; t++) {
        /* Slice t has landed for this thread; the barrier makes it so for all, and tells that
         * everyone is done computing on slice t - 1, whose buffer the next issue refills. */
        xpb_tiled_wait<STAGES - 2>();
        __syncthreads();
        issue(t + STAGES - 1);
        const int cur = t % STAGES;
#pragma unroll
        for (int kk = 0; kk < BK; kk++) {
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
    }
    xpb_tiled_wait<0>(); /* no copy may outlive the block (the trailing groups are empty) */

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

template <int BK, bool VN>
static xpb_status tiled_enqueue(const xpb_cuda_ctx *ctx, const xpb_cuda_gemm *g, xpb_error *err)
{
    constexpr int smem = xpb_tiled_smem_bytes(BK);
    auto kernel = xpb_tiled_kernel<BK, VN>;
    if (smem > 48 * 1024) /* above the static limit a kernel must opt in (cheap; per call is fine) */
        XPB_CUDA_CHECK(err, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    const dim3 grid((unsigned)((g->n + XPB_TILED_BN - 1) / XPB_TILED_BN),
                    (unsigned)((g->m + XPB_TILED_BM - 1) / XPB_TILED_BM));
    kernel<<<grid, XPB_TILED_THREADS, smem, ctx->stream>>>(g->a, g->b, g->c_in, g->c, (int)g->m, (int)g->n,
                                                           (int)g->k, g->alpha, g->beta);
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

/* The slice of K: 32 (66.5 KB of shared memory a block, two blocks an SM), or 16 with
 * XPB_CUDA_TILED_BK=16 (docs/knobs.md), for A/B runs; any other value is the case's error. On the
 * H100 (session 11, 8 processes a side, alternated, cuBLAS fp32 in each) 32 reached 0.910-0.918 of
 * cuBLAS at 4096 and 8192, 16 0.890-0.903: half the barriers, waits and loop overhead per FFMA. */
template <bool VN>
static xpb_status tiled_enqueue_cfg(const xpb_cuda_ctx *ctx, const xpb_cuda_gemm *g, xpb_error *err)
{
    int bk16 = 0; /* the index among "32|16" */
    xpb_status st = xpb_knob_get_choice(XPB_KNOB_CUDA_TILED_BK, &bk16, err);
    if (st != XPB_OK)
        return st;
    return bk16 ? tiled_enqueue<16, VN>(ctx, g, err) : tiled_enqueue<32, VN>(ctx, g, err);
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
    const bool vn = g.n % 4 == 0 && xpb_cuda_aligned16(g.b) && xpb_cuda_aligned16(g.c) &&
                    (!g.c_in || xpb_cuda_aligned16(g.c_in));
    return vn ? tiled_enqueue_cfg<true>(ctx, &g, err) : tiled_enqueue_cfg<false>(ctx, &g, err);
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
