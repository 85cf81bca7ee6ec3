/* anneal_assign.cu - anneal assign: each point's nearest anchor (workloads/ops/xpb_ops.h,
 * xpb_anneal_assign_args), as an fp32 SGEMM with the argmin fused into it.
 *
 * dist(i, j) = ||x_i||^2 - 2 x_i . a_j + ||a_j||^2: the dot products are the GEMM
 * X (n x d) * A^T (d x m), so the op costs what an fp32 GEMM of 2 n m d FLOP costs, and the
 * n x m distance matrix never leaves the registers.
 *
 * Block tile: 128 points (one block per 128-row tile of x, 256 threads) against all m anchors,
 * in column tiles of 128 anchors, d in slices of 16. The register blocking is gemm_tiled.cu's:
 * each thread owns 8 x 8 dot products (rows ty..ty+3, ty+16..ty+19, columns tx..tx+3,
 * tx+32..tx+35; a warp covers 32 x 64), per k 4 LDS.128 feed 64 FFMA. Both operands are
 * d-contiguous rows (x and the anchors are row-major), so both tiles are loaded the same way:
 * each thread loads one float4 along d of two rows of each and stores it transposed into shared
 * memory ([k][row], rows padded to 132 floats). The (column tile, d slice) pairs run as one
 * flattened, double-buffered sequence: the next slice's global loads are issued before computing
 * on the current one (one barrier per slice), also across column tiles.
 *
 * Epilogue of each column tile: dist = fma(-2, dot, ||x||^2 + ||a||^2) for the thread's 8 x 8,
 * folded into a running (min, index) per owned row, strict `<` with columns visited in
 * increasing order, then the dot products restart at 0. After the last column tile, the 16
 * threads that share a row (8 lanes of a warp, 2 warps) merge their candidates by (dist, j), so
 * ties go to the lowest j, and the row's result is written once, clamped to >= +0.0f (the GEMM
 * form can go slightly negative, or give -0.0f, for a point on an anchor).
 *
 * Norms: ||a_j||^2 by a small warp-per-anchor kernel into scratch (m floats) before the main
 * kernel; ||x_i||^2 inside the main kernel while the first column tile streams x through: each
 * loader thread adds the squares of the float4s it stores into its own shared partial sum
 * (4 partials per row, added in a fixed order at the end of that tile). Columns past m get
 * ||a||^2 = +inf and never win; rows and columns past n and m are clamped to the last valid one
 * when loading (in bounds, never stored), and only a partial last d slice takes the zero-filling
 * checked load. Scalar loads (same pattern) when d % 4 != 0. */
#include "cuda_anneal.cuh"

#define XPB_ASSIGN_BM 128 /* points per block            */
#define XPB_ASSIGN_BN 128 /* anchors per column tile     */
#define XPB_ASSIGN_BK 16  /* d per slice                 */
#define XPB_ASSIGN_THREADS 256
#define XPB_ASSIGN_LD (XPB_ASSIGN_BM + 4) /* padded row of a transposed tile */
#define XPB_NORM_THREADS 256

static_assert(XPB_ASSIGN_BM == XPB_ASSIGN_BN, "x and anchor tiles are loaded the same way");

__device__ __forceinline__ int xpb_assign_min(int a, int b) { return a < b ? a : b; }

/* row[kc..kc+3]; CHECK: zero past column d. VK: d % 4 == 0 and 16-byte aligned rows (then the
 * 4 are all in or all out). */
template <bool VK, bool CHECK>
__device__ __forceinline__ float4 xpb_assign_load(const float *row, int kc, int d)
{
    if constexpr (VK) {
        if (CHECK && kc >= d)
            return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        return *reinterpret_cast<const float4 *>(row + kc);
    } else {
        float v[4];
#pragma unroll
        for (int j = 0; j < 4; j++)
            v[j] = !CHECK || kc + j < d ? row[kc + j] : 0.0f;
        return make_float4(v[0], v[1], v[2], v[3]);
    }
}

/* (v, j) = the smaller of (v, j) and (ov, oj) by distance, then index: ties to the lowest j. */
__device__ __forceinline__ void xpb_assign_take_min(float &v, uint32_t &j, float ov, uint32_t oj)
{
    if (ov < v || (ov == v && oj < j))
        v = ov, j = oj;
}

/* norm[j] = ||a_j||^2, one warp per row. */
template <bool VEC>
__global__ void __launch_bounds__(XPB_NORM_THREADS)
xpb_anneal_row_sqnorm(const float *__restrict__ a, float *__restrict__ norm, int rows, int d)
{
    const int warps = XPB_NORM_THREADS / 32;
    for (int r = blockIdx.x * warps + (threadIdx.x >> 5); r < rows; r += gridDim.x * warps) {
        const float *row = a + (int64_t)r * d;
        float q = 0.0f;
        if constexpr (VEC) {
            for (int k = 4 * (threadIdx.x & 31); k < d; k += 128) {
                const float4 u = *reinterpret_cast<const float4 *>(row + k);
                q = fmaf(u.x, u.x, q), q = fmaf(u.y, u.y, q), q = fmaf(u.z, u.z, q), q = fmaf(u.w, u.w, q);
            }
        } else {
            for (int k = threadIdx.x & 31; k < d; k += 32)
                q = fmaf(row[k], row[k], q);
        }
        q = xpb_warp_allreduce<32>(q, xpb_sum_op());
        if ((threadIdx.x & 31) == 0)
            norm[r] = q;
    }
}

template <bool VK>
__global__ void __launch_bounds__(XPB_ASSIGN_THREADS, 2)
xpb_anneal_assign_kernel(const float *__restrict__ X, const float *__restrict__ A,
                         const float *__restrict__ anorm, uint32_t *__restrict__ assign,
                         float *__restrict__ dist, int n, int m, int d)
{
    __shared__ __align__(16) float Xs[2][XPB_ASSIGN_BK][XPB_ASSIGN_LD];
    __shared__ __align__(16) float As[2][XPB_ASSIGN_BK][XPB_ASSIGN_LD];
    __shared__ float xpart[4][XPB_ASSIGN_BM]; /* partial ||x||^2 per loader column group */
    __shared__ float xnorm[XPB_ASSIGN_BM];
    __shared__ float best_v[2][XPB_ASSIGN_BM]; /* running (min, index) of each row, per column warp */
    __shared__ uint32_t best_j[2][XPB_ASSIGN_BM];
    const int tid = threadIdx.x;
    const int row0 = blockIdx.x * XPB_ASSIGN_BM;

    /* Loader role: tile rows lr and lr + 64, d columns lk..lk+3 of the slice, in both tiles. */
    const int lr = tid >> 2, lk = (tid & 3) * 4;
    const float *x_row0 = X + (int64_t)xpb_assign_min(row0 + lr, n - 1) * d;
    const float *x_row1 = X + (int64_t)xpb_assign_min(row0 + lr + 64, n - 1) * d;
    xpart[lk >> 2][lr] = 0.0f; /* only this thread ever touches these two */
    xpart[lk >> 2][lr + 64] = 0.0f;
    float4 rx0, rx1, ra0, ra1;

    /* Compute role (gemm_tiled.cu): warps tile the block 4 (rows) x 2 (columns), lanes a warp
     * 4 x 8; rows ty + {0..3, 16..19}, columns tx + {0..3, 32..35}. */
    const int warp = tid >> 5, lane = tid & 31;
    const int ty = (warp >> 1) * 32 + (lane >> 3) * 4;
    const int tx = (warp & 1) * 64 + (lane & 7) * 4;
    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++)
            acc[i][j] = 0.0f;
    /* Lane 0 of each group of 8 lanes keeps its rows' running minimum in best_v/best_j[warp & 1]
     * (slots only it touches: no barrier needed). Index 0 with +inf, as the reference starts. */
    if ((lane & 7) == 0) {
#pragma unroll
        for (int i = 0; i < 8; i++) {
            const int r = ty + (i < 4 ? i : 12 + i);
            best_v[warp & 1][r] = INFINITY, best_j[warp & 1][r] = 0;
        }
    }

#define XPB_ASSIGN_LOAD(CHECK, ct, k0)                                                          \
    do {                                                                                        \
        const int a0_ = xpb_assign_min((ct) * XPB_ASSIGN_BN + lr, m - 1);                       \
        const int a1_ = xpb_assign_min((ct) * XPB_ASSIGN_BN + lr + 64, m - 1);                  \
        rx0 = xpb_assign_load<VK, CHECK>(x_row0, (k0) + lk, d);                                 \
        rx1 = xpb_assign_load<VK, CHECK>(x_row1, (k0) + lk, d);                                 \
        ra0 = xpb_assign_load<VK, CHECK>(A + (int64_t)a0_ * d, (k0) + lk, d);                   \
        ra1 = xpb_assign_load<VK, CHECK>(A + (int64_t)a1_ * d, (k0) + lk, d);                   \
    } while (0)
#define XPB_ASSIGN_STORE4(T, buf, row, v)                                                       \
    do {                                                                                        \
        T[buf][lk + 0][row] = (v).x, T[buf][lk + 1][row] = (v).y;                               \
        T[buf][lk + 2][row] = (v).z, T[buf][lk + 3][row] = (v).w;                               \
    } while (0)
#define XPB_ASSIGN_STORE(buf, ct)                                                               \
    do {                                                                                        \
        XPB_ASSIGN_STORE4(Xs, buf, lr, rx0);                                                    \
        XPB_ASSIGN_STORE4(Xs, buf, lr + 64, rx1);                                               \
        XPB_ASSIGN_STORE4(As, buf, lr, ra0);                                                    \
        XPB_ASSIGN_STORE4(As, buf, lr + 64, ra1);                                               \
        if ((ct) == 0) { /* x streams through once more per column tile; take its norm once */ \
            float s0_ = xpart[lk >> 2][lr], s1_ = xpart[lk >> 2][lr + 64];                      \
            s0_ = fmaf(rx0.x, rx0.x, s0_), s0_ = fmaf(rx0.y, rx0.y, s0_);                       \
            s0_ = fmaf(rx0.z, rx0.z, s0_), s0_ = fmaf(rx0.w, rx0.w, s0_);                       \
            s1_ = fmaf(rx1.x, rx1.x, s1_), s1_ = fmaf(rx1.y, rx1.y, s1_);                       \
            s1_ = fmaf(rx1.z, rx1.z, s1_), s1_ = fmaf(rx1.w, rx1.w, s1_);                       \
            xpart[lk >> 2][lr] = s0_, xpart[lk >> 2][lr + 64] = s1_;                            \
        }                                                                                       \
    } while (0)

    const int ks = (d + XPB_ASSIGN_BK - 1) / XPB_ASSIGN_BK; /* slices per column tile */
    const int nct = (m + XPB_ASSIGN_BN - 1) / XPB_ASSIGN_BN;
    const int total = ks * nct;
    if (d >= XPB_ASSIGN_BK)
        XPB_ASSIGN_LOAD(false, 0, 0);
    else
        XPB_ASSIGN_LOAD(true, 0, 0);
    XPB_ASSIGN_STORE(0, 0);
    __syncthreads();

    int ct = 0, kt = 0; /* the slice being computed */
    for (int t = 0; t < total; t++) {
        const int cur = t & 1;
        int nct_ = ct, nkt = kt + 1; /* the slice being loaded */
        if (nkt == ks)
            nkt = 0, nct_++;
        const bool more = t + 1 < total;
        if (more) {
            const int k0 = nkt * XPB_ASSIGN_BK;
            if (k0 + XPB_ASSIGN_BK <= d)
                XPB_ASSIGN_LOAD(false, nct_, k0);
            else
                XPB_ASSIGN_LOAD(true, nct_, k0);
        }
#pragma unroll
        for (int kk = 0; kk < XPB_ASSIGN_BK; kk++) {
            const float4 x0 = *reinterpret_cast<const float4 *>(&Xs[cur][kk][ty]);
            const float4 x1 = *reinterpret_cast<const float4 *>(&Xs[cur][kk][ty + 16]);
            const float4 a0 = *reinterpret_cast<const float4 *>(&As[cur][kk][tx]);
            const float4 a1 = *reinterpret_cast<const float4 *>(&As[cur][kk][tx + 32]);
            const float xr[8] = {x0.x, x0.y, x0.z, x0.w, x1.x, x1.y, x1.z, x1.w};
            const float ar[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
#pragma unroll
            for (int i = 0; i < 8; i++)
#pragma unroll
                for (int j = 0; j < 8; j++)
                    acc[i][j] = fmaf(xr[i], ar[j], acc[i][j]);
        }
        if (more)
            XPB_ASSIGN_STORE(cur ^ 1, nct_); /* its last readers passed the previous barrier */
        __syncthreads();

        if (kt == ks - 1) { /* column tile ct is complete: fold it into the running argmin */
            if (ct == 0) {
                if (tid < XPB_ASSIGN_BM)
                    xnorm[tid] = ((xpart[0][tid] + xpart[1][tid]) + xpart[2][tid]) + xpart[3][tid];
                __syncthreads();
            }
            float an[8];
#pragma unroll
            for (int j = 0; j < 8; j++) {
                const int c = ct * XPB_ASSIGN_BN + tx + (j < 4 ? j : 28 + j);
                an[j] = c < m ? anorm[c] : INFINITY;
            }
#pragma unroll
            for (int i = 0; i < 8; i++) {
                const int r = ty + (i < 4 ? i : 12 + i);
                const float xn = xnorm[r];
                float bv = INFINITY; /* this thread's 8 columns, in increasing order */
                uint32_t bj = 0;
#pragma unroll
                for (int j = 0; j < 8; j++) {
                    const float v = fmaf(-2.0f, acc[i][j], xn + an[j]);
                    if (v < bv)
                        bv = v, bj = (uint32_t)(ct * XPB_ASSIGN_BN + tx + (j < 4 ? j : 28 + j));
                    acc[i][j] = 0.0f;
                }
#pragma unroll
                for (int o = 1; o < 8; o <<= 1) /* the 8 lanes sharing row r: lane bits 0..2 */
                    xpb_assign_take_min(bv, bj, __shfl_xor_sync(XPB_FULL_MASK, bv, o),
                                        __shfl_xor_sync(XPB_FULL_MASK, bj, o));
                if ((lane & 7) == 0) {
                    float sv = best_v[warp & 1][r];
                    uint32_t sj = best_j[warp & 1][r];
                    xpb_assign_take_min(sv, sj, bv, bj);
                    best_v[warp & 1][r] = sv, best_j[warp & 1][r] = sj;
                }
            }
        }
        ct = nct_, kt = nkt;
    }
#undef XPB_ASSIGN_LOAD
#undef XPB_ASSIGN_STORE4
#undef XPB_ASSIGN_STORE

    /* The two column warps of each row (warp bit 0) merge; one thread per row writes. */
    __syncthreads();
    if (tid < XPB_ASSIGN_BM && row0 + tid < n) {
        float v = best_v[0][tid];
        uint32_t j = best_j[0][tid];
        xpb_assign_take_min(v, j, best_v[1][tid], best_j[1][tid]);
        assign[row0 + tid] = j;
        dist[row0 + tid] = v > 0.0f ? v : 0.0f; /* also turns -0.0f (and NaN) into +0.0f */
    }
}

/* The contract's sizes, and anchor indices of the last column tile that fit in an int. */
static xpb_status assign_check(const xpb_anneal_assign_args *a, xpb_error *err)
{
    const xpb_status st = xpb_anneal_check_sizes("anneal/assign", a->n, a->d, a->m, err);
    if (st == XPB_OK && a->m > (int64_t)INT32_MAX - XPB_ASSIGN_BN)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED, "anneal/assign: m = %lld above 2^31 - %d (int tile indices)",
                        (long long)a->m, 1 + XPB_ASSIGN_BN);
    return st;
}

static xpb_status assign_supports(void *ctx, const void *vargs, xpb_error *why)
{
    (void)ctx;
    return assign_check(static_cast<const xpb_anneal_assign_args *>(vargs), why);
}

/* float4 loads (both kernels): rows of d % 4 == 0 floats at 16-byte aligned x and anchors. */
static bool assign_vk(const float *x, const float *anchors, int64_t d)
{
    return d % 4 == 0 && xpb_cuda_aligned16(x) && xpb_cuda_aligned16(anchors);
}

xpb_status xpb_cuda_anneal_assign_norms_enqueue(const xpb_cuda_ctx *ctx, const float *x, const float *anchors,
                                                float *anorm, int64_t d, int64_t m, xpb_error *err)
{
    const int warps = XPB_NORM_THREADS / 32;
    const unsigned ngrid = xpb_cuda_grid(ctx, (m + warps - 1) / warps, XPB_NORM_THREADS, 1);
    if (assign_vk(x, anchors, d))
        xpb_anneal_row_sqnorm<true><<<ngrid, XPB_NORM_THREADS, 0, ctx->stream>>>(anchors, anorm, (int)m, (int)d);
    else
        xpb_anneal_row_sqnorm<false><<<ngrid, XPB_NORM_THREADS, 0, ctx->stream>>>(anchors, anorm, (int)m, (int)d);
    XPB_CUDA_CHECK_LAUNCH(err, "anneal/assign (anchor norms)");
    return XPB_OK;
}

xpb_status xpb_cuda_anneal_assign_enqueue(const xpb_cuda_ctx *ctx, const float *x, const float *anchors,
                                          float *anorm, uint32_t *assign, float *dist, int64_t n, int64_t d,
                                          int64_t m, xpb_error *err)
{
    if (n <= 0) /* a rank with no point of the group's split: nothing to launch (a grid of 0 is an error) */
        return XPB_OK;
    const xpb_status st = xpb_cuda_anneal_assign_norms_enqueue(ctx, x, anchors, anorm, d, m, err);
    if (st != XPB_OK)
        return st;
    const unsigned grid = (unsigned)((n + XPB_ASSIGN_BM - 1) / XPB_ASSIGN_BM);
    if (assign_vk(x, anchors, d))
        xpb_anneal_assign_kernel<true><<<grid, XPB_ASSIGN_THREADS, 0, ctx->stream>>>(x, anchors, anorm, assign, dist,
                                                                                     (int)n, (int)m, (int)d);
    else
        xpb_anneal_assign_kernel<false><<<grid, XPB_ASSIGN_THREADS, 0, ctx->stream>>>(x, anchors, anorm, assign, dist,
                                                                                      (int)n, (int)m, (int)d);
    XPB_CUDA_CHECK_LAUNCH(err, "anneal/assign");
    return XPB_OK;
}

static xpb_status assign_launch(void *vctx, const void *vargs, void *state, xpb_error *err)
{
    (void)state;
    const xpb_cuda_ctx *ctx = static_cast<const xpb_cuda_ctx *>(vctx);
    const xpb_anneal_assign_args *a = static_cast<const xpb_anneal_assign_args *>(vargs);
    xpb_status st = assign_check(a, err);
    if (st != XPB_OK)
        return st;
    const size_t n = (size_t)a->n, d = (size_t)a->d, m = (size_t)a->m;
    void *x = NULL, *anchors = NULL, *assign = NULL, *dist = NULL;
    xpb_anneal_carver sc;
    if ((st = xpb_anneal_view(&a->x, n * d * 4, "anneal/assign: x", &x, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->anchors, m * d * 4, "anneal/assign: anchors", &anchors, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->assign, n * 4, "anneal/assign: assign", &assign, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->dist, n * 4, "anneal/assign: dist", &dist, err)) != XPB_OK ||
        (st = xpb_anneal_scratch(&a->scratch, a->n, a->m, "anneal/assign: scratch", &sc, err)) != XPB_OK)
        return st;
    float *anorm = static_cast<float *>(xpb_anneal_carve(&sc, m * 4));
    if ((st = xpb_cuda_activate(ctx, err)) != XPB_OK)
        return st;
    return xpb_cuda_anneal_assign_enqueue(ctx, static_cast<const float *>(x), static_cast<const float *>(anchors),
                                          anorm, static_cast<uint32_t *>(assign), static_cast<float *>(dist),
                                          a->n, a->d, a->m, err);
}

extern "C" const xpb_kernel xpb_cuda_anneal_assign = {
    /* .op        = */ XPB_OP_ANNEAL_ASSIGN,
    /* .variant   = */ "default",
    /* .precision = */ "fp32",
    /* .supports  = */ assign_supports,
    /* .prepare   = */ NULL,
    /* .release   = */ NULL,
    /* .launch    = */ assign_launch,
};
