/* cuda_eltwise.cuh - the one elementwise kernel shape, specialised per op by a functor.
 *
 * An op file supplies
 *   struct my_op {
 *       static constexpr bool reads_y = ...;                 // add, mul read y; others do not
 *       __device__ float operator()(float x, float y, float a) const;
 *   };
 * and then XPB_CUDA_ELTWISE_KERNEL(name, XPB_OP_..., my_op), which defines the launch function
 * and the registered `xpb_cuda_<name>` kernel (variant "default", fp32).
 *
 * Shape: float4 loads and stores (views are 256-byte aligned), UNROLL float4 per thread per
 * iteration so each thread has several independent loads in flight, one block for every
 * THREADS x UNROLL float4 (the grid-stride loop only covers what a launch's grid cannot), and a
 * scalar tail for n % 4 elements. A grid capped at 8 waves of resident blocks, 8 passes of the
 * loop at 2^28 floats, read 2.4% slower on an H200 (copy 533 us against 520; PyTorch's copy_
 * 517; docs/performance.md); the Vulkan copy dispatches every group too. */
#ifndef XPB_CUDA_ELTWISE_CUH
#define XPB_CUDA_ELTWISE_CUH

#include "cuda_common.cuh"

#define XPB_ELTWISE_THREADS 256
#define XPB_ELTWISE_UNROLL 4
#define XPB_ELTWISE_WAVES 4096 /* waves of resident blocks: more than any size needs */

/* Logistic function, stable for large |x|: with e = exp(-|x|) in (0, 1], sigmoid(x) is
 * 1 / (1 + e) for x >= 0 and e / (1 + e) for x < 0, so exp never overflows and small results
 * keep their relative accuracy. Full-precision expf and division (no fast-math intrinsics). */
__device__ __forceinline__ float xpb_sigmoidf(float x)
{
    const float e = expf(-fabsf(x));
    return (x >= 0.0f ? 1.0f : e) / (1.0f + e);
}

template <class Op>
__device__ __forceinline__ float4 xpb_eltwise_apply4(const Op &op, float4 x, float4 y, float a)
{
    float4 r;
    r.x = op(x.x, y.x, a);
    r.y = op(x.y, y.y, a);
    r.z = op(x.z, y.z, a);
    r.w = op(x.w, y.w, a);
    return r;
}

template <class Op, int UNROLL>
__global__ void __launch_bounds__(XPB_ELTWISE_THREADS)
xpb_eltwise_kernel(const float *__restrict__ x, const float *__restrict__ y,
                   float *__restrict__ out, int64_t n, float a)
{
    const Op op = {};
    const int64_t n4 = n >> 2;
    const float4 *__restrict__ x4 = reinterpret_cast<const float4 *>(x);
    const float4 *__restrict__ y4 = reinterpret_cast<const float4 *>(y);
    float4 *__restrict__ out4 = reinterpret_cast<float4 *>(out);
    const int64_t bd = blockDim.x;
    const int64_t stride = (int64_t)gridDim.x * bd * UNROLL;
    int64_t i = (int64_t)blockIdx.x * bd * UNROLL + threadIdx.x;

    /* Whole batches: UNROLL float4 per thread, all loads issued before any math. */
    for (; i + (UNROLL - 1) * bd < n4; i += stride) {
        float4 xv[UNROLL], yv[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            xv[u] = x4[i + u * bd];
            yv[u] = Op::reads_y ? y4[i + u * bd] : xv[u];
        }
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            out4[i + u * bd] = xpb_eltwise_apply4(op, xv[u], yv[u], a);
    }
    /* The last, partial batch (the next batch of this thread starts past n4). */
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
        const int64_t j = i + u * bd;
        if (j < n4)
            out4[j] = xpb_eltwise_apply4(op, x4[j], Op::reads_y ? y4[j] : x4[j], a);
    }
    /* Scalar tail: the last n % 4 elements, one per thread of the first threads of the grid. */
    const int64_t tail = n - n4 * 4;
    const int64_t g = (int64_t)blockIdx.x * bd + threadIdx.x;
    if (g < tail) {
        const int64_t k = n4 * 4 + g;
        out[k] = op(x[k], Op::reads_y ? y[k] : 0.0f, a);
    }
}

/* Validates args (n >= 0, views inside their buffers and 16-byte aligned) and enqueues the kernel
 * on ctx's stream. n == 0 is a successful no-op. */
template <class Op>
static xpb_status xpb_cuda_eltwise_launch(void *vctx, const void *vargs, const char *name,
                                          xpb_error *err)
{
    xpb_cuda_ctx *ctx = static_cast<xpb_cuda_ctx *>(vctx);
    const xpb_eltwise_args *args = static_cast<const xpb_eltwise_args *>(vargs);
    const int64_t n = args->n;
    if (n < 0)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: negative size n = %lld", name, (long long)n);
    if (n == 0)
        return XPB_OK;

    float *x = NULL, *y = NULL, *out = NULL;
    xpb_status st = xpb_cuda_view_f32(&args->x, n, "x", &x, err);
    if (st == XPB_OK && Op::reads_y)
        st = xpb_cuda_view_f32(&args->y, n, "y", &y, err);
    if (st == XPB_OK)
        st = xpb_cuda_view_f32(&args->out, n, "out", &out, err);
    if (st != XPB_OK)
        return st;
    if (!xpb_cuda_aligned16(x) || !xpb_cuda_aligned16(out) || (y && !xpb_cuda_aligned16(y)))
        return xpb_fail(err, XPB_ERR_USAGE, "%s: views must be 16-byte aligned", name);
    if ((st = xpb_cuda_activate(ctx, err)) != XPB_OK)
        return st;

    const int64_t per_block = (int64_t)XPB_ELTWISE_THREADS * XPB_ELTWISE_UNROLL;
    const int64_t n4 = n / 4;
    const unsigned grid = xpb_cuda_grid(ctx, (n4 + per_block - 1) / per_block,
                                        XPB_ELTWISE_THREADS, XPB_ELTWISE_WAVES);
    xpb_eltwise_kernel<Op, XPB_ELTWISE_UNROLL>
        <<<grid, XPB_ELTWISE_THREADS, 0, ctx->stream>>>(x, y, out, n, args->a);
    XPB_CUDA_CHECK_LAUNCH(err, name);
    return XPB_OK;
}

/* Defines `extern "C" const xpb_kernel xpb_cuda_<name>` for elementwise functor Op. */
#define XPB_CUDA_ELTWISE_KERNEL(name, xpb_op_value, Op) \
    XPB_CUDA_TEMPLATE_KERNEL(name, xpb_op_value, xpb_cuda_eltwise_launch, Op)

#endif
