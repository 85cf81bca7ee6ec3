/* cuda_anneal.cuh - what the five annealing-compression kernels (anneal_*.cu) share: the size
 * checks of the contract (workloads/ops/xpb_ops.h), view resolution for uint32/uint64 data, carving
 * the `scratch` view into aligned pieces, the warp-per-point squared distance, and integer /
 * double warp reductions (cuda_common.cuh's reductions are float-only).
 *
 * Determinism: every reduction here has a fixed shape (xor butterfly, then lane 0's value is
 * broadcast), so a float or double result does not depend on timing. */
#ifndef XPB_CUDA_ANNEAL_CUH
#define XPB_CUDA_ANNEAL_CUH

#include <stdint.h>

#include "cuda_common.cuh"

#define XPB_ANNEAL_MAX_D 4096
#define XPB_ANNEAL_ALIGN 256 /* every piece carved from scratch starts on this boundary */

/* The contract's sizes: 1 <= n < 2^31, 1 <= d <= 4096, 1 <= m <= n. XPB_ERR_USAGE (the harness
 * passed arguments outside the contract) with the reason. what: "anneal/assign". */
static inline xpb_status xpb_anneal_check_sizes(const char *what, int64_t n, int64_t d, int64_t m,
                                                xpb_error *err)
{
    if (n < 1 || n > INT32_MAX)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: n = %lld outside 1 .. 2^31 - 1", what, (long long)n);
    if (d < 1 || d > XPB_ANNEAL_MAX_D)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: d = %lld outside 1 .. %d", what, (long long)d,
                        XPB_ANNEAL_MAX_D);
    if (m < 1 || m > n)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: m = %lld outside 1 .. n = %lld", what, (long long)m,
                        (long long)n);
    return XPB_OK;
}

/* Resolves a view of `bytes` bytes (a multiple of 4: float, uint32 or uint64 data) to a device
 * pointer, bounds-checked like xpb_cuda_view_f32. */
static inline xpb_status xpb_anneal_view(const xpb_view *v, size_t bytes, const char *what,
                                         void **out, xpb_error *err)
{
    float *p = NULL;
    const xpb_status st = xpb_cuda_view_f32(v, (int64_t)(bytes / sizeof(float)), what, &p, err);
    *out = p;
    return st;
}

/* Hands out consecutive pieces of the scratch view, each XPB_ANNEAL_ALIGN-aligned. The caller
 * checks `used` against the scratch size before launching anything. */
typedef struct xpb_anneal_carver {
    char *base;
    size_t used;
} xpb_anneal_carver;

/* The bytes a piece of `bytes` takes from scratch (a size check adds these before carving). */
static inline size_t xpb_anneal_piece(size_t bytes)
{
    return (bytes + XPB_ANNEAL_ALIGN - 1) / XPB_ANNEAL_ALIGN * XPB_ANNEAL_ALIGN;
}

static inline void *xpb_anneal_carve(xpb_anneal_carver *c, size_t bytes)
{
    void *p = c->base + c->used;
    c->used += xpb_anneal_piece(bytes);
    return p;
}

/* Resolves the scratch view (XPB_ANNEAL_SCRATCH_BYTES(n, m) bytes) into a carver. */
static inline xpb_status xpb_anneal_scratch(const xpb_view *v, int64_t n, int64_t m, const char *what,
                                            xpb_anneal_carver *c, xpb_error *err)
{
    void *p = NULL;
    const xpb_status st = xpb_anneal_view(v, XPB_ANNEAL_SCRATCH_BYTES(n, m), what, &p, err);
    c->base = static_cast<char *>(p);
    c->used = 0;
    return st;
}

/* Enqueues assign (anneal_assign.cu) for the n points at x (n x d, row-major) against the m
 * anchors on ctx's stream: assign[0..n) and dist[0..n) as xpb_anneal_assign_args defines them,
 * with anorm (m floats of device memory, overwritten) for the anchors' squared norms. The same
 * kernels, so the same bits, as the one-GPU op; the sharded op (anneal_assign_sharded.cu) calls
 * it on one rank's slice of the points. The caller has checked the sizes (xpb_anneal_check_sizes,
 * m <= 2^31 - 129) and activated ctx; n = 0 enqueues nothing. Returns the launch's error, if any. */
xpb_status xpb_cuda_anneal_assign_enqueue(const xpb_cuda_ctx *ctx, const float *x, const float *anchors,
                                          float *anorm, uint32_t *assign, float *dist, int64_t n, int64_t d,
                                          int64_t m, xpb_error *err);

/* Enqueues the first of those kernels alone: anorm[j] = ||a_j||^2 for the m anchors, the very
 * bits assign's distances use (the same kernel, chosen by the same test on x, anchors and d).
 * The tensor-core assign (anneal_assign_tc.cu) recomputes assign's fp32 distances exactly from
 * them. Same preconditions as xpb_cuda_anneal_assign_enqueue, m >= 1. */
xpb_status xpb_cuda_anneal_assign_norms_enqueue(const xpb_cuda_ctx *ctx, const float *x, const float *anchors,
                                                float *anorm, int64_t d, int64_t m, xpb_error *err);

/* init (anneal_init.cu) as steps over a range of the points, so that a device group can split
 * it: one plan per device (the one GPU, or one rank), then step s = 0 .. m-1 of every plan in
 * turn. A step reads slot[s - 1] (the winner's key, ~index in its low half) and writes
 * anchors[s], chosen[s], mind over [lo, hi) and the largest key of [lo, hi) into slot[s] by an
 * integer atomicMax; the one-GPU op's plan is [0, n). Between step s and s + 1 of a group, slot[s]
 * must become the max over the ranks' slot[s] on every rank (an all_reduce max): keys are built
 * from the global index, so that max is the one-GPU slot[s], and every anchor and chosen id the
 * one-GPU op's bit for bit. */
typedef struct xpb_anneal_init_plan {
    const float *x;           /* all n points, n x d: every rank holds them all */
    float *anchors, *mind;    /* m x d; n floats of scratch, [lo, hi) used */
    float *thr;               /* m floats of scratch: the step's threshold of each anchor */
    uint32_t *chosen, *owner; /* m; n of scratch, [lo, hi) used: the anchor mind[i] is the distance to */
    unsigned long long *slot; /* m keys of scratch, zeroed by xpb_cuda_anneal_init_plan_make */
    int lo, hi, d, m;
    unsigned grid; /* blocks of a step before the last (which copies a row and needs one) */
    bool vec;      /* the float4 distance: d % 4 == 0 and x 16-byte aligned */
    bool bound;    /* skip the rows the triangle inequality allows (XPB_CUDA_INIT_BOUND, on by default) */
} xpb_anneal_init_plan;

/* Resolves a's views (init's contract, scratch carved as the one-GPU op does), activates ctx,
 * sizes the grid for [lo, hi) (0 <= lo <= hi <= n; an empty range still takes one block, for
 * the copy) and zeroes slot on ctx's stream. */
xpb_status xpb_cuda_anneal_init_plan_make(const xpb_cuda_ctx *ctx, const xpb_anneal_init_args *a, int64_t lo,
                                          int64_t hi, xpb_anneal_init_plan *out, xpb_error *err);

/* Enqueues step s (0 <= s < m) of plan p on ctx's stream (ctx active). */
xpb_status xpb_cuda_anneal_init_step_enqueue(const xpb_cuda_ctx *ctx, const xpb_anneal_init_plan *p, int s,
                                             xpb_error *err);

/* stats' grouping and selection (anneal_stats.cu, its header's steps 1 and 2), enqueued on ctx's
 * stream over the n points of assign and dist: counts (m uint32), and carved from scratch (the
 * base of XPB_ANNEAL_SCRATCH_BYTES(n, m) bytes) each anchor's points in index order (members from
 * start[a], counts[a] of them) and its kept key range [cut[2a], cut[2a+1]]. The one-GPU stats op
 * runs it, then its moments; the sharded run (anneal_sharded.cu) runs it on every rank over all
 * points, then moments over the rank's own points. The caller has checked the sizes and
 * activated ctx. */
typedef struct xpb_anneal_stats_groups {
    uint32_t *members, *start;
    unsigned long long *cut;
} xpb_anneal_stats_groups;
xpb_status xpb_cuda_anneal_stats_select_enqueue(const xpb_cuda_ctx *ctx, const uint32_t *assign, const float *dist,
                                                uint32_t *counts, void *scratch, int64_t n, int64_t m, double trim,
                                                xpb_anneal_stats_groups *out, xpb_error *err);

/* ---- device helpers -------------------------------------------------------------------------- */

/* Kept ranks of a group of c points: [*lo, *hi] (0-based, ascending key order). Returns false
 * when every point is kept (no selection needed). */
__device__ __forceinline__ bool xpb_stats_trim_ranks(uint32_t c, double trim, uint32_t *lo, uint32_t *hi)
{
    const int64_t t = (int64_t)floor((double)c * trim);
    if (t <= 0 || (int64_t)c - 2 * t < 1) {
        *lo = 0, *hi = c - 1;
        return false;
    }
    *lo = (uint32_t)t, *hi = (uint32_t)((int64_t)c - 1 - t);
    return true;
}

__device__ __forceinline__ unsigned long long xpb_stats_key(const float *dist, uint32_t i)
{
    return (unsigned long long)__float_as_uint(dist[i]) << 32 | i;
}

/* Sum over the warp by an xor butterfly; every lane returns lane 0's result. Every lane of the
 * warp must call it. T: unsigned, unsigned long long or double. */
template <typename T>
__device__ __forceinline__ T xpb_anneal_warp_sum(T v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(XPB_FULL_MASK, v, o);
    return __shfl_sync(XPB_FULL_MASK, v, 0);
}

__device__ __forceinline__ unsigned long long xpb_anneal_warp_max(unsigned long long v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const unsigned long long w = __shfl_xor_sync(XPB_FULL_MASK, v, o);
        v = w > v ? w : v;
    }
    return v; /* integer max: every lane already holds the same value */
}

/* Squared distance sum_k (a_k - b_k)^2 of two rows of d floats, by one warp (lane l takes
 * elements 4l.. in float4 steps of 128 when VEC: d % 4 == 0 and both rows 16-byte aligned;
 * elements l, l + 32, ... otherwise). Every lane of the warp must call it and gets the same
 * value. The direct form: a point's distance to itself is exactly 0. */
template <bool VEC>
__device__ __forceinline__ float xpb_anneal_warp_dist(const float *__restrict__ a,
                                                      const float *__restrict__ b, int d)
{
    const int lane = threadIdx.x & 31;
    float s = 0.0f;
    if constexpr (VEC) {
        for (int k = 4 * lane; k < d; k += 128) {
            const float4 u = *reinterpret_cast<const float4 *>(a + k);
            const float4 v = *reinterpret_cast<const float4 *>(b + k);
            const float t0 = u.x - v.x, t1 = u.y - v.y, t2 = u.z - v.z, t3 = u.w - v.w;
            s = fmaf(t0, t0, s);
            s = fmaf(t1, t1, s);
            s = fmaf(t2, t2, s);
            s = fmaf(t3, t3, s);
        }
    } else {
        for (int k = lane; k < d; k += 32) {
            const float t = a[k] - b[k];
            s = fmaf(t, t, s);
        }
    }
    return xpb_warp_allreduce<32>(s, xpb_sum_op());
}

/* s + (u - v)^2 summed over .x .y .z .w in that order: one float4 step of
 * xpb_anneal_warp_dist's VEC loop. */
__device__ __forceinline__ float xpb_anneal_sq4(float4 u, float4 v, float s)
{
    const float t0 = u.x - v.x, t1 = u.y - v.y, t2 = u.z - v.z, t3 = u.w - v.w;
    s = fmaf(t0, t0, s);
    s = fmaf(t1, t1, s);
    s = fmaf(t2, t2, s);
    return fmaf(t3, t3, s);
}

/* The same squared distance, bit for bit, as xpb_anneal_warp_dist<VEC>, by an aligned group of 8
 * lanes instead of a warp, so that a warp takes 4 points at once and each lane has 4 loads in
 * flight per point (d = 128: one float4 of each of 4 row segments) instead of 1.
 *
 * Why the bits are the same: group lane g plays the warp lanes v = g + 8q, q = 0..3, keeping
 * each one's partial sum s[q] apart, over the same elements in the same order (VEC: 4v + 128j,
 * then .x .y .z .w; else v + 32j), so each s[q] is that warp lane's s exactly. The warp's xor
 * butterfly adds lane v to lane v ^ 16, then v ^ 8, 4, 2, 1; for v < 8, v ^ 16 and v ^ 8 are
 * q + 2 and q + 1 here: (s[0] + s[2]) + (s[1] + s[3]) is lane v's value after two levels, and
 * the last three levels are the same xor shuffles within the group. Float addition is
 * commutative, so which operand comes first does not matter; only the tree does, and it is the
 * same tree. Every lane of the warp must call it; every lane of a group gets its group's value.
 * The callers give the 4 groups of a warp 4 rows a (b is shared). */
template <bool VEC>
__device__ __forceinline__ float xpb_anneal_group8_dist(const float *__restrict__ a,
                                                        const float *__restrict__ b, int d)
{
    const int g = threadIdx.x & 7;
    float s[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if constexpr (VEC) {
        for (int k0 = 4 * g; k0 < d; k0 += 128) {
            if (k0 + 96 < d) { /* all 4 segments in the row (always at d = 128): no branches */
                float4 u[4], v[4];
#pragma unroll
                for (int q = 0; q < 4; q++) { /* every load before any arithmetic: 4 in flight */
                    u[q] = *reinterpret_cast<const float4 *>(a + k0 + 32 * q);
                    v[q] = *reinterpret_cast<const float4 *>(b + k0 + 32 * q);
                }
#pragma unroll
                for (int q = 0; q < 4; q++)
                    s[q] = xpb_anneal_sq4(u[q], v[q], s[q]);
            } else {
#pragma unroll
                for (int q = 0; q < 4; q++)
                    if (k0 + 32 * q < d)
                        s[q] = xpb_anneal_sq4(*reinterpret_cast<const float4 *>(a + k0 + 32 * q),
                                              *reinterpret_cast<const float4 *>(b + k0 + 32 * q), s[q]);
            }
        }
    } else {
        for (int k0 = g; k0 < d; k0 += 32) {
            if (k0 + 24 < d) {
                float u[4], v[4];
#pragma unroll
                for (int q = 0; q < 4; q++) {
                    u[q] = a[k0 + 8 * q];
                    v[q] = b[k0 + 8 * q];
                }
#pragma unroll
                for (int q = 0; q < 4; q++) {
                    const float t = u[q] - v[q];
                    s[q] = fmaf(t, t, s[q]);
                }
            } else {
#pragma unroll
                for (int q = 0; q < 4; q++)
                    if (k0 + 8 * q < d) {
                        const float t = a[k0 + 8 * q] - b[k0 + 8 * q];
                        s[q] = fmaf(t, t, s[q]);
                    }
            }
        }
    }
    const float r = (s[0] + s[2]) + (s[1] + s[3]); /* the butterfly's levels 16 and 8 */
    return xpb_warp_allreduce<8>(r, xpb_sum_op()); /* levels 4, 2, 1 */
}

#endif
