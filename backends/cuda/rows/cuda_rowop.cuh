/* cuda_rowop.cuh - the kernel shapes of the row ops (softmax, rmsnorm, layernorm), specialised
 * per op by a policy struct, and the host code that picks a shape from the row length.
 *
 * A policy describes the op twice, once per shape family:
 *
 *   Held rows (cols <= XPB_ROWOP_HELD_MAX): the row is read once into registers, then
 *     stage 1: a = reduce(Merge1, map1(x)) from ident1(); r1 = finish1(a, p)
 *     stage 2 (two_stage only): v = map2(x, r1) in place; s = sum(contrib2(v)); r2 = finish2(s, p)
 *     out:     y = out(v, r1, r2, w[col], b[col])      (v = x when there is no stage 2)
 *   Streamed rows (longer): one pass folds every x into a State (init, accum, merge), finish()
 *     gives r1 and r2, a second pass reads x again and writes out(map2(x, r1) or x, r1, r2, ...).
 *
 *   struct my_policy {
 *       static constexpr bool uses_w, uses_b, two_stage;
 *       typedef ... Merge1;  static float ident1(); static float map1(float x);
 *       static float finish1(float a, const xpb_rowop_ptrs &p);
 *       static float map2(float x, float r1); static float contrib2(float v);    // two_stage
 *       static float finish2(float s, const xpb_rowop_ptrs &p);                  // only
 *       static float out(float v, float r1, float r2, float w, float b);
 *       typedef ... State; typedef ... Merge;  static State init(const float *row);
 *       static void accum(State &, float);
 *       static void finish(State, const xpb_rowop_ptrs &p, float *r1, float *r2);
 *   };                                         (all __device__; ADL shuffles for State)
 *
 * Launch shapes (threads per row TPR, PACK floats per load, NPACK loads per thread):
 *   cols <= 32           TPR = next pow2 >= cols lanes of a warp, 1 float each, 128-thread blocks
 *   cols <= 1024         one warp per row, float4 loads when possible, up to 32 floats per lane
 *   cols <= 16384        one block per row (128..1024 threads), 16 floats per thread
 *   cols <= 32768        one block of 1024 threads per row, 32 floats per thread
 *   longer               one block of 512 threads per row, two streaming passes over the row
 *                        (the default variant's long rows on GPUs below compute capability 7.0
 *                        only: cuda_rowop_default.cuh)
 * float4 loads need cols % 4 == 0 and 16-byte aligned x, out, w, b (then every row start is
 * aligned too); otherwise the same shapes use scalar loads. */
#ifndef XPB_CUDA_ROWOP_CUH
#define XPB_CUDA_ROWOP_CUH

#include "cuda_common.cuh"

/* Device pointers and sizes of one row-op launch (views already resolved and checked). */
struct xpb_rowop_ptrs {
    const float *x;
    const float *w; /* NULL unless the policy uses_w */
    const float *b; /* NULL unless the policy uses_b */
    float *y;
    int64_t rows;
    int cols;
    float eps;
};

#define XPB_ROWOP_HELD_MAX 32768
#define XPB_ROWOP_MAX_COLS (1 << 30) /* keeps every int column index in the kernels far from overflow */
#define XPB_ROWOP_WARP_BLOCK 128
#define XPB_ROWOP_STREAM_BLOCK 512
#define XPB_ROWOP_WAVES 8

template <int PACK>
__device__ __forceinline__ void xpb_load_pack(const float *p, float *v)
{
    if constexpr (PACK == 4) {
        const float4 q = *reinterpret_cast<const float4 *>(p);
        v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
    } else {
        v[0] = *p;
    }
}

template <int PACK>
__device__ __forceinline__ void xpb_store_pack(float *p, const float *v)
{
    /* __stwb is a plain write-back store; it pins the 16-byte st.global.v4 that the optimiser
     * otherwise sometimes splits into four scalar stores. */
    if constexpr (PACK == 4)
        __stwb(reinterpret_cast<float4 *>(p), make_float4(v[0], v[1], v[2], v[3]));
    else
        *p = v[0];
}

/* Writes one pack of PACK outputs at column c: y = out(v, w[c], b[c]), the per-column w and b
 * loaded where the op uses them (0 elsewhere). */
template <class Op, int PACK, class Out>
__device__ __forceinline__ void xpb_rowop_write_pack(const xpb_rowop_ptrs &p, float *yr, int c, const float *v,
                                                     Out out)
{
    float w[PACK], b[PACK], o[PACK];
#pragma unroll
    for (int j = 0; j < PACK; j++)
        w[j] = b[j] = 0.0f;
    if constexpr (Op::uses_w)
        xpb_load_pack<PACK>(p.w + c, w);
    if constexpr (Op::uses_b)
        xpb_load_pack<PACK>(p.b + c, b);
#pragma unroll
    for (int j = 0; j < PACK; j++)
        o[j] = out(v[j], w[j], b[j]);
    xpb_store_pack<PACK>(yr + c, o);
}

/* ... with the policy's out: y = out(v, r1, r2, w[c], b[c]). v holds the values after stage 2
 * (map2(x, r1) for two-stage ops, else x). */
template <class Op, int PACK>
__device__ __forceinline__ void xpb_rowop_out_pack(const xpb_rowop_ptrs &p, float *yr, int c,
                                                   const float *v, float r1, float r2)
{
    xpb_rowop_write_pack<Op, PACK>(p, yr, c, v,
                                   [=](float x, float w, float b) { return Op::out(x, r1, r2, w, b); });
}

/* Reads one pack of x at src (global or shared memory), applies stage 2 (two-stage ops) and
 * writes the pack's outputs at column c of yr. */
template <class Op, int PACK>
__device__ __forceinline__ void xpb_rowop_out_from(const xpb_rowop_ptrs &p, const float *src, float *yr, int c,
                                                   float r1, float r2)
{
    float v[PACK];
    xpb_load_pack<PACK>(src, v);
    if constexpr (Op::two_stage) {
#pragma unroll
        for (int j = 0; j < PACK; j++)
            v[j] = Op::map2(v[j], r1);
    }
    xpb_rowop_out_pack<Op, PACK>(p, yr, c, v, r1, r2);
}

/* Held rows: each of the TPR threads of a row holds NPACK packs of PACK floats; pack k of
 * thread t starts at column (k * TPR + t) * PACK. A pack is either wholly inside the row or
 * wholly outside (PACK = 4 only when cols % 4 == 0). Rows go to the BLOCK / TPR groups of a
 * block and then stride by the grid; the loop is uniform across the block, so every lane
 * takes part in every reduction (rows past the end compute on zeros and store nothing). */
template <class Op, int PACK, int NPACK, int TPR, int BLOCK>
__global__ void __launch_bounds__(BLOCK) xpb_rowop_held_kernel(xpb_rowop_ptrs p)
{
    static_assert(BLOCK % 32 == 0 && (TPR == BLOCK || (TPR <= 32 && 32 % TPR == 0)),
                  "a row is a power-of-two group of lanes within a warp, or the whole block");
    constexpr int ROWS_PER_BLOCK = BLOCK / TPR;
    constexpr int N = PACK * NPACK;
    __shared__ float red[32];

    const typename Op::Merge1 merge1 = {};
    const int t = TPR == BLOCK ? (int)threadIdx.x : (int)threadIdx.x % TPR;
    const int group = TPR == BLOCK ? 0 : (int)threadIdx.x / TPR;
    const int cols = p.cols;

    for (int64_t first = (int64_t)blockIdx.x * ROWS_PER_BLOCK; first < p.rows;
         first += (int64_t)gridDim.x * ROWS_PER_BLOCK) {
        const int64_t row = first + group;
        const bool active = row < p.rows;
        const int64_t row_off = (active ? row : 0) * (int64_t)cols;
        const float *xr = p.x + row_off;

        float v[N];
#pragma unroll
        for (int k = 0; k < NPACK; k++) {
            const int c = (k * TPR + t) * PACK;
            if (active && c < cols) {
                xpb_load_pack<PACK>(xr + c, &v[k * PACK]);
            } else {
#pragma unroll
                for (int j = 0; j < PACK; j++)
                    v[k * PACK + j] = 0.0f;
            }
        }

        /* stage 1 */
        float a = Op::ident1();
#pragma unroll
        for (int k = 0; k < NPACK; k++) {
            if (active && (k * TPR + t) * PACK < cols) {
#pragma unroll
                for (int j = 0; j < PACK; j++)
                    a = merge1(a, Op::map1(v[k * PACK + j]));
            }
        }
        a = xpb_row_allreduce<TPR>(a, merge1, Op::ident1(), red);
        const float r1 = Op::finish1(a, p);

        /* stage 2 */
        float r2 = 0.0f;
        if constexpr (Op::two_stage) {
            float s = 0.0f;
#pragma unroll
            for (int k = 0; k < NPACK; k++) {
                if (active && (k * TPR + t) * PACK < cols) {
#pragma unroll
                    for (int j = 0; j < PACK; j++) {
                        v[k * PACK + j] = Op::map2(v[k * PACK + j], r1);
                        s += Op::contrib2(v[k * PACK + j]);
                    }
                }
            }
            s = xpb_row_allreduce<TPR>(s, xpb_sum_op(), 0.0f, red);
            r2 = Op::finish2(s, p);
        }

        /* out */
        float *yr = p.y + row_off;
#pragma unroll
        for (int k = 0; k < NPACK; k++) {
            const int c = (k * TPR + t) * PACK;
            if (active && c < cols)
                xpb_rowop_out_pack<Op, PACK>(p, yr, c, &v[k * PACK], r1, r2);
        }
    }
}

/* A pack into shared memory (xpb_store_pack's __stwb is a global store). */
template <int PACK>
__device__ __forceinline__ void xpb_smem_store_pack(float *p, const float *v)
{
    if constexpr (PACK == 4)
        *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
    else
        *p = v[0];
}

/* Folds this thread's packs of src (pack i at src + i * PACK for i = threadIdx.x, + BLOCK, ...
 * below packs) into st, several loads in flight per thread before any is used. KEEP: also store
 * each pack at the same place in keep (shared memory), for a pass that writes from there. */
template <class Op, int BLOCK, int PACK, bool KEEP>
__device__ __forceinline__ void xpb_rowop_fold(const float *src, int packs, typename Op::State &st, float *keep)
{
    constexpr int UNROLL = PACK == 4 ? 4 : 8;
    int i = threadIdx.x;
    for (; i + (UNROLL - 1) * BLOCK < packs; i += UNROLL * BLOCK) {
        float v[UNROLL * PACK];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            xpb_load_pack<PACK>(src + (i + u * BLOCK) * PACK, &v[u * PACK]);
        if constexpr (KEEP) {
#pragma unroll
            for (int u = 0; u < UNROLL; u++)
                xpb_smem_store_pack<PACK>(keep + (i + u * BLOCK) * PACK, &v[u * PACK]);
        }
#pragma unroll
        for (int j = 0; j < UNROLL * PACK; j++)
            Op::accum(st, v[j]);
    }
    for (; i < packs; i += BLOCK) {
        float v[PACK];
        xpb_load_pack<PACK>(src + i * PACK, v);
        if constexpr (KEEP)
            xpb_smem_store_pack<PACK>(keep + i * PACK, v);
#pragma unroll
        for (int j = 0; j < PACK; j++)
            Op::accum(st, v[j]);
    }
}

/* Streamed rows: one block per row (grid-stride over rows); pass 1 folds the row into the
 * policy's State, pass 2 reads the row again (partly from L2) and writes it. Each thread loads
 * UNROLL packs before using any of them, so several loads per thread are in flight. */
template <class Op, int BLOCK, bool VEC>
__global__ void __launch_bounds__(BLOCK) xpb_rowop_stream_kernel(xpb_rowop_ptrs p)
{
    typedef typename Op::State State;
    constexpr int PACK = VEC ? 4 : 1;
    constexpr int UNROLL = VEC ? 4 : 8;
    __shared__ State red[32];
    const int cols = p.cols;
    const int packs = cols / PACK;

    for (int64_t row = blockIdx.x; row < p.rows; row += gridDim.x) {
        const float *xr = p.x + row * (int64_t)cols;
        float *yr = p.y + row * (int64_t)cols;

        /* pass 1: statistics */
        State st = Op::init(xr);
        xpb_rowop_fold<Op, BLOCK, PACK, false>(xr, packs, st, nullptr);
        st = xpb_block_allreduce(st, typename Op::Merge(), Op::init(xr), red);
        float r1, r2;
        Op::finish(st, p, &r1, &r2);

        /* pass 2: output */
        int i = threadIdx.x;
        for (; i + (UNROLL - 1) * BLOCK < packs; i += UNROLL * BLOCK) {
            float v[UNROLL * PACK];
#pragma unroll
            for (int u = 0; u < UNROLL; u++)
                xpb_load_pack<PACK>(xr + (i + u * BLOCK) * PACK, &v[u * PACK]);
            if constexpr (Op::two_stage) {
#pragma unroll
                for (int j = 0; j < UNROLL * PACK; j++)
                    v[j] = Op::map2(v[j], r1);
            }
#pragma unroll
            for (int u = 0; u < UNROLL; u++)
                xpb_rowop_out_pack<Op, PACK>(p, yr, (i + u * BLOCK) * PACK, &v[u * PACK], r1, r2);
        }
        for (; i < packs; i += BLOCK)
            xpb_rowop_out_from<Op, PACK>(p, xr + i * PACK, yr, i * PACK, r1, r2);
    }
}

/* ---- host side --------------------------------------------------------------------------------- */

template <class Op, int PACK, int NPACK, int TPR, int BLOCK>
static xpb_status xpb_rowop_launch_held(xpb_cuda_ctx *ctx, const xpb_rowop_ptrs &p,
                                        const char *name, xpb_error *err)
{
    static_assert(PACK * NPACK * TPR >= 1, "empty shape");
    const int64_t rows_per_block = BLOCK / TPR;
    const unsigned grid = xpb_cuda_grid(ctx, (p.rows + rows_per_block - 1) / rows_per_block,
                                        BLOCK, XPB_ROWOP_WAVES);
    xpb_rowop_held_kernel<Op, PACK, NPACK, TPR, BLOCK><<<grid, BLOCK, 0, ctx->stream>>>(p);
    XPB_CUDA_CHECK_LAUNCH(err, name);
    return XPB_OK;
}

template <class Op, bool VEC>
static xpb_status xpb_rowop_launch_stream(xpb_cuda_ctx *ctx, const xpb_rowop_ptrs &p,
                                          const char *name, xpb_error *err)
{
    const unsigned grid = xpb_cuda_grid(ctx, p.rows, XPB_ROWOP_STREAM_BLOCK, XPB_ROWOP_WAVES);
    xpb_rowop_stream_kernel<Op, XPB_ROWOP_STREAM_BLOCK, VEC>
        <<<grid, XPB_ROWOP_STREAM_BLOCK, 0, ctx->stream>>>(p);
    XPB_CUDA_CHECK_LAUNCH(err, name);
    return XPB_OK;
}

/* cols <= 32: TPR = next power of two >= cols lanes, one float each. */
template <class Op>
static xpb_status xpb_rowop_dispatch_tiny(xpb_cuda_ctx *ctx, const xpb_rowop_ptrs &p,
                                          const char *name, xpb_error *err)
{
    constexpr int B = XPB_ROWOP_WARP_BLOCK;
    switch (xpb_next_pow2(p.cols)) {
    case 1: return xpb_rowop_launch_held<Op, 1, 1, 1, B>(ctx, p, name, err);
    case 2: return xpb_rowop_launch_held<Op, 1, 1, 2, B>(ctx, p, name, err);
    case 4: return xpb_rowop_launch_held<Op, 1, 1, 4, B>(ctx, p, name, err);
    case 8: return xpb_rowop_launch_held<Op, 1, 1, 8, B>(ctx, p, name, err);
    case 16: return xpb_rowop_launch_held<Op, 1, 1, 16, B>(ctx, p, name, err);
    default: return xpb_rowop_launch_held<Op, 1, 1, 32, B>(ctx, p, name, err);
    }
}

/* 32 < cols <= 1024: one warp per row. */
template <class Op>
static xpb_status xpb_rowop_dispatch_warp(xpb_cuda_ctx *ctx, const xpb_rowop_ptrs &p, bool vec,
                                          const char *name, xpb_error *err)
{
    constexpr int B = XPB_ROWOP_WARP_BLOCK;
    if (vec) {
        switch (xpb_next_pow2((p.cols + 127) / 128)) {
        case 1: return xpb_rowop_launch_held<Op, 4, 1, 32, B>(ctx, p, name, err);
        case 2: return xpb_rowop_launch_held<Op, 4, 2, 32, B>(ctx, p, name, err);
        case 4: return xpb_rowop_launch_held<Op, 4, 4, 32, B>(ctx, p, name, err);
        default: return xpb_rowop_launch_held<Op, 4, 8, 32, B>(ctx, p, name, err);
        }
    }
    switch (xpb_next_pow2((p.cols + 31) / 32)) {
    case 1:
    case 2: return xpb_rowop_launch_held<Op, 1, 2, 32, B>(ctx, p, name, err);
    case 4: return xpb_rowop_launch_held<Op, 1, 4, 32, B>(ctx, p, name, err);
    case 8: return xpb_rowop_launch_held<Op, 1, 8, 32, B>(ctx, p, name, err);
    case 16: return xpb_rowop_launch_held<Op, 1, 16, 32, B>(ctx, p, name, err);
    default: return xpb_rowop_launch_held<Op, 1, 32, 32, B>(ctx, p, name, err);
    }
}

/* 1024 < cols <= XPB_ROWOP_HELD_MAX: one block per row, the row in registers. */
template <class Op>
static xpb_status xpb_rowop_dispatch_block(xpb_cuda_ctx *ctx, const xpb_rowop_ptrs &p, bool vec,
                                           const char *name, xpb_error *err)
{
    if (p.cols > 16384) /* 32 floats per thread at 1024 threads */
        return vec ? xpb_rowop_launch_held<Op, 4, 8, 1024, 1024>(ctx, p, name, err)
                   : xpb_rowop_launch_held<Op, 1, 32, 1024, 1024>(ctx, p, name, err);
    /* 16 floats per thread: the block size is the next power of two >= cols / 16. */
    switch (xpb_next_pow2((p.cols + 15) / 16)) {
    case 1:
    case 2:
    case 4:
    case 8:
    case 16:
    case 32:
    case 64:
    case 128:
        return vec ? xpb_rowop_launch_held<Op, 4, 4, 128, 128>(ctx, p, name, err)
                   : xpb_rowop_launch_held<Op, 1, 16, 128, 128>(ctx, p, name, err);
    case 256:
        return vec ? xpb_rowop_launch_held<Op, 4, 4, 256, 256>(ctx, p, name, err)
                   : xpb_rowop_launch_held<Op, 1, 16, 256, 256>(ctx, p, name, err);
    case 512:
        return vec ? xpb_rowop_launch_held<Op, 4, 4, 512, 512>(ctx, p, name, err)
                   : xpb_rowop_launch_held<Op, 1, 16, 512, 512>(ctx, p, name, err);
    default:
        return vec ? xpb_rowop_launch_held<Op, 4, 4, 1024, 1024>(ctx, p, name, err)
                   : xpb_rowop_launch_held<Op, 1, 16, 1024, 1024>(ctx, p, name, err);
    }
}

/* Validates args and resolves the views into p (vec: float4 loads possible). rows == 0 or
 * cols == 0 sets empty: nothing to do. Shared by every variant of the row ops. */
template <class Op>
static xpb_status xpb_cuda_rowop_resolve(xpb_cuda_ctx *ctx, const void *vargs, const char *name,
                                         xpb_rowop_ptrs *out, bool *vec, bool *empty, xpb_error *err)
{
    const xpb_rowop_args *a = static_cast<const xpb_rowop_args *>(vargs);
    *empty = false;
    if (a->rows < 0 || a->cols < 0)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: negative size (rows %lld, cols %lld)", name,
                        (long long)a->rows, (long long)a->cols);
    if (a->rows == 0 || a->cols == 0) {
        *empty = true;
        return XPB_OK;
    }
    if (a->cols > XPB_ROWOP_MAX_COLS || a->rows > INT64_MAX / 4 / a->cols)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: size too large (rows %lld, cols %lld)", name,
                        (long long)a->rows, (long long)a->cols);

    xpb_rowop_ptrs p = {};
    p.rows = a->rows;
    p.cols = (int)a->cols;
    p.eps = a->eps;
    float *x = NULL, *w = NULL, *b = NULL;
    const int64_t n = a->rows * a->cols;
    xpb_status st = xpb_cuda_view_f32(&a->x, n, "x", &x, err);
    if (st == XPB_OK && Op::uses_w)
        st = xpb_cuda_view_f32(&a->w, a->cols, "w", &w, err);
    if (st == XPB_OK && Op::uses_b)
        st = xpb_cuda_view_f32(&a->b, a->cols, "b", &b, err);
    if (st == XPB_OK)
        st = xpb_cuda_view_f32(&a->out, n, "out", &p.y, err);
    if (st != XPB_OK)
        return st;
    p.x = x;
    p.w = w;
    p.b = b;
    *vec = p.cols % 4 == 0 && xpb_cuda_aligned16(p.x) && xpb_cuda_aligned16(p.y) &&
           xpb_cuda_aligned16(p.w) && xpb_cuda_aligned16(p.b);
    *out = p;
    return xpb_cuda_activate(ctx, err);
}

/* The default variant's shapes: the one that fits cols (see the top of this file); for rows
 * longer than XPB_ROWOP_HELD_MAX the default runs cuda/regs' launch instead where it can
 * (cuda_rowop_default.cuh), the streamed shape below compute capability 7.0. */
struct xpb_rowop_default_shapes {
    template <class Op>
    static xpb_status enqueue(xpb_cuda_ctx *ctx, const xpb_rowop_ptrs &p, bool vec, const char *name, xpb_error *err)
    {
        if (p.cols <= 32)
            return xpb_rowop_dispatch_tiny<Op>(ctx, p, name, err);
        if (p.cols <= 1024)
            return xpb_rowop_dispatch_warp<Op>(ctx, p, vec, name, err);
        if (p.cols <= XPB_ROWOP_HELD_MAX)
            return xpb_rowop_dispatch_block<Op>(ctx, p, vec, name, err);
        return vec ? xpb_rowop_launch_stream<Op, true>(ctx, p, name, err)
                   : xpb_rowop_launch_stream<Op, false>(ctx, p, name, err);
    }
};

/* A variant's launch: resolve the args, then Shapes::enqueue<Op> (a struct, not a function
 * pointer template argument: nvcc's device pass does not instantiate the kernels that a defaulted
 * function-pointer argument reaches, and the launch fails with "invalid device function"). */
template <class Op, class Shapes>
static xpb_status xpb_cuda_rowop_enqueue(void *vctx, const void *vargs, const char *name, xpb_error *err)
{
    xpb_cuda_ctx *ctx = static_cast<xpb_cuda_ctx *>(vctx);
    xpb_rowop_ptrs p = {};
    bool vec = false, empty = false;
    xpb_status st = xpb_cuda_rowop_resolve<Op>(ctx, vargs, name, &p, &vec, &empty, err);
    if (st != XPB_OK || empty)
        return st;
    return Shapes::template enqueue<Op>(ctx, p, vec, name, err);
}

/* The start of a long-row variant's supports() or prepare(): *go is false for sizes its launch
 * reports itself, as the default variant does (bad or empty); else the device is made current. */
static inline xpb_status xpb_rowop_variant_begin(xpb_cuda_ctx *ctx, const void *vargs, bool *go, xpb_error *err)
{
    const xpb_rowop_args *a = static_cast<const xpb_rowop_args *>(vargs);
    *go = !(a->rows <= 0 || a->cols <= 0 || a->cols > XPB_ROWOP_MAX_COLS);
    return *go ? xpb_cuda_activate(ctx, err) : XPB_OK;
}

#endif
