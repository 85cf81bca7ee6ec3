/* rope.cu - rotary position embedding on x[batch, heads, seq, head_dim]: the pair
 * (x[2i], x[2i+1]) at sequence position p rotates by theta = p * base^(-2i / head_dim):
 *   (x0 cos theta - x1 sin theta, x0 sin theta + x1 cos theta).
 *
 * Accuracy: theta is formed as (float)(p * f_i) with f_i = base^(-2i / head_dim) and the product
 * in double, i.e. one fp32 rounding of the exact angle (u |theta|); f_i comes from one double pow
 * per thread and column, hoisted out of the row loop. Then the full-precision sincosf (accurate
 * for any argument; no __sinf/__cosf) and the rotation in fp32. A pure-fp32 angle,
 * p * powf(base, -2i/head_dim), would add powf's few-ulp error times |theta| (p in the
 * thousands), which eats most of the validation bound (docs/validation.md); the double work is
 * one multiply and one conversion per pair.
 *
 * Shape: the tensor is rows = batch * heads * seq rows of head_dim floats; a block is TX x TY
 * threads, TX threads across a row in units of VEC floats (float4 = two pairs when
 * head_dim % 4 == 0, else float2 = one pair), TY rows at a time, grid-stride over rows. Each
 * thread keeps its columns, so the inverse frequencies are computed once per thread and column,
 * and the position p advances by the row stride modulo seq without any division in the loop. */
#include <limits.h>

#include "cuda_common.cuh"

#define XPB_ROPE_THREADS 256
#define XPB_ROPE_MAX_TX 64
#define XPB_ROPE_WAVES 8

template <int VEC>
__global__ void __launch_bounds__(XPB_ROPE_THREADS)
xpb_rope_kernel(const float *__restrict__ x, float *__restrict__ y, int64_t rows, int seq,
                int head_dim, float base)
{
    constexpr int PAIRS = VEC / 2;
    const int units = head_dim / VEC;
    const int64_t row0 = (int64_t)blockIdx.x * blockDim.y + threadIdx.y;
    const int64_t row_stride = (int64_t)gridDim.x * blockDim.y;
    if (row0 >= rows)
        return; /* no barriers or shuffles below */
    const int p0 = (int)(row0 % seq);
    const int p_step = (int)(row_stride % seq);

    for (int c = threadIdx.x; c < units; c += blockDim.x) {
        double inv_freq[PAIRS];
#pragma unroll
        for (int k = 0; k < PAIRS; k++) {
            const int i = c * PAIRS + k; /* pair index within the head */
            inv_freq[k] = pow((double)base, -2.0 * (double)i / (double)head_dim);
        }
        int p = p0;
        for (int64_t r = row0; r < rows; r += row_stride) {
            const int64_t off = r * head_dim + (int64_t)c * VEC;
            float v[VEC], o[VEC];
            if constexpr (VEC == 4) {
                const float4 q = *reinterpret_cast<const float4 *>(x + off);
                v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
            } else {
                const float2 q = *reinterpret_cast<const float2 *>(x + off);
                v[0] = q.x, v[1] = q.y;
            }
#pragma unroll
            for (int k = 0; k < PAIRS; k++) {
                float s, co;
                sincosf((float)((double)p * inv_freq[k]), &s, &co);
                const float x0 = v[2 * k], x1 = v[2 * k + 1];
                o[2 * k] = x0 * co - x1 * s;
                o[2 * k + 1] = x0 * s + x1 * co;
            }
            if constexpr (VEC == 4)
                *reinterpret_cast<float4 *>(y + off) = make_float4(o[0], o[1], o[2], o[3]);
            else
                *reinterpret_cast<float2 *>(y + off) = make_float2(o[0], o[1]);
            p += p_step; /* p, p_step < seq, so one subtraction keeps p in [0, seq) */
            if (p >= seq)
                p -= seq;
        }
    }
}

template <int VEC>
static xpb_status rope_enqueue(xpb_cuda_ctx *ctx, const float *x, float *y, int64_t rows,
                               int seq, int head_dim, float base, xpb_error *err)
{
    const int units = head_dim / VEC;
    const int tx = xpb_next_pow2(units) < XPB_ROPE_MAX_TX ? xpb_next_pow2(units) : XPB_ROPE_MAX_TX;
    const int ty = XPB_ROPE_THREADS / tx;
    const unsigned grid = xpb_cuda_grid(ctx, (rows + ty - 1) / ty, XPB_ROPE_THREADS, XPB_ROPE_WAVES);
    xpb_rope_kernel<VEC><<<grid, dim3(tx, ty), 0, ctx->stream>>>(x, y, rows, seq, head_dim, base);
    XPB_CUDA_CHECK_LAUNCH(err, "rope");
    return XPB_OK;
}

static xpb_status rope_launch(void *vctx, const void *vargs, void *state, xpb_error *err)
{
    (void)state;
    xpb_cuda_ctx *ctx = static_cast<xpb_cuda_ctx *>(vctx);
    const xpb_rope_args *a = static_cast<const xpb_rope_args *>(vargs);
    if (a->batch < 0 || a->heads < 0 || a->seq < 0 || a->head_dim < 0)
        return xpb_fail(err, XPB_ERR_USAGE, "rope: negative size (%lld x %lld x %lld x %lld)",
                        (long long)a->batch, (long long)a->heads, (long long)a->seq,
                        (long long)a->head_dim);
    if (a->head_dim % 2 != 0)
        return xpb_fail(err, XPB_ERR_USAGE, "rope: head_dim must be even (got %lld)",
                        (long long)a->head_dim);
    if (a->batch == 0 || a->heads == 0 || a->seq == 0 || a->head_dim == 0)
        return XPB_OK;
    /* rows = batch * heads * seq and rows * head_dim * 4 bytes must not overflow. */
    const int64_t lim = INT64_MAX / 4;
    if (a->seq > INT_MAX || a->head_dim > INT_MAX || a->heads > lim / a->batch ||
        a->seq > lim / (a->batch * a->heads) ||
        a->head_dim > lim / (a->batch * a->heads * a->seq))
        return xpb_fail(err, XPB_ERR_USAGE, "rope: size too large (%lld x %lld x %lld x %lld)",
                        (long long)a->batch, (long long)a->heads, (long long)a->seq,
                        (long long)a->head_dim);
    const int64_t rows = a->batch * a->heads * a->seq;
    const int64_t n = rows * a->head_dim;

    float *x = NULL, *y = NULL;
    xpb_status st = xpb_cuda_view_f32(&a->x, n, "x", &x, err);
    if (st == XPB_OK)
        st = xpb_cuda_view_f32(&a->out, n, "out", &y, err);
    if (st != XPB_OK)
        return st;
    if (((uintptr_t)x & 7u) != 0 || ((uintptr_t)y & 7u) != 0)
        return xpb_fail(err, XPB_ERR_USAGE, "rope: views must be 8-byte aligned");
    if ((st = xpb_cuda_activate(ctx, err)) != XPB_OK)
        return st;

    const int seq = (int)a->seq, head_dim = (int)a->head_dim;
    if (head_dim % 4 == 0 && xpb_cuda_aligned16(x) && xpb_cuda_aligned16(y))
        return rope_enqueue<4>(ctx, x, y, rows, seq, head_dim, a->base, err);
    return rope_enqueue<2>(ctx, x, y, rows, seq, head_dim, a->base, err);
}

XPB_CUDA_DEFAULT_KERNEL(rope, XPB_OP_ROPE, rope_launch);
