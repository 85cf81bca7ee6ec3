/* anneal_assign_tc.cu - anneal assign, variant `tc`: the distances filtered on fp16 tensor cores,
 * every answer settled by assign's own fp32 arithmetic, so that assign[] and dist[] are the fp32
 * `default` variant's (anneal_assign.cu) bit for bit, on every input whose norms stay below 2^60.
 *
 * Why not cuBLAS: a GEMM into an n x m matrix and an argmin over it move 4 n m bytes twice (8 GB
 * at 1M x 1024: over 2.5 ms on an H100 before any arithmetic). Here, as in `default`, the distance
 * matrix never leaves the registers.
 *
 * What `default` computes (the contract's assignment as this backend makes it; the validator,
 * workloads/anneal/checks.c, accepts it within a documented bound of fp64):
 *   v(i, j) = fmaf(-2, dot, xn_i + an_j),  assign[i] = the lowest j of the least v (a v that is NaN
 *   never wins, and when no v is below +inf the answer is (+inf, 0)), dist[i] = max(v, +0),
 * with dot the fp32 fmaf chain over k = 0 .. d-1 from +0, an_j from its norm kernel
 * (xpb_cuda_anneal_assign_norms_enqueue: the same launch), and xn_i = ((P0 + P1) + P2) + P3, where
 * P_q is the fmaf chain of x_k^2 over the k with (k / 4) % 4 == q, in increasing k (how its loader
 * threads add up the squares of x as the first column tile streams in). xpb_tc_exact() below is
 * that arithmetic, in that order.
 *
 * The operands: x and the anchors times s = 2^e, rounded to fp16 (to nearest). e is chosen once a
 * launch from a_max, the largest anchor norm, so that a_max s lies in [2^11, 2^12) (e clamped to
 * -60 .. 60; 0 when a_max is 0 or not finite): fp16's 5-bit exponent then holds the anchors and
 * every point up to ~8 times their size, and the products, exact in the fp32 accumulators, are
 * s^2 x_k a_k. The anchors are converted once a launch into scratch (m x d halves, padded with
 * zeros to whole tiles and slices); x as each tile loads it. fp16 and TF32 keep the same 11
 * significant bits; fp16's m16n8k16 takes twice TF32's k a step, so the same products take half
 * the mma instructions and half the shared-memory fragment loads (ldmatrix, 4 8x8 matrices a load).
 *
 * Pass 1 (one 128-point tile a block): the scaled dot products of all m anchors by mma.sync
 * m16n8k16, t_j = fmaf(-2 / s^2, G_j, an_j) (-2 / s^2 a power of two: the same rounding as
 * fmaf(-2, g_j, an_j) with g_j = G_j / s^2; ||x||^2 is common to the row and left out), and per
 * point the least t (index j1) and the second least value t2. With E a bound on
 * |t_j + ||x||^2 - v(i, j)| for every j (below), `default`'s winner j* has t_j* <= t_j1 + 2E:
 *     t_j* - E <= v(j*) - ||x||^2 <= v(j1) - ||x||^2 <= t_j1 + E.
 * So when t2 > t_j1 + 2E (in exact arithmetic: the test rounds up) j1 is the only candidate: the
 * block computes v(i, j1) by xpb_tc_exact and writes it. Otherwise (a near tie, or anything not
 * finite) the point goes on a list with its threshold t_j1 + 2E (rounded up; +inf when the norms
 * are not tame).
 * Pass 2 (the listed points, 128 a tile, gathered): the same tensor-core products again, and every
 * anchor with t_j <= threshold (NaN included) is a candidate: its exact v by xpb_tc_exact, folded into
 * the point's (v, j) minimum by a 64-bit atomicMin in shared memory (v's bits made monotonic in the
 * high word, j in the low word: the least v, then the lowest j, in any order of arrival), seeded
 * with (+inf, 0). The candidates hold j*, and (v(j*), j*) is the least pair of all, so the result
 * is `default`'s. Every point is written once, by pass 1 or by pass 2.
 *
 * The bound E (docs/validation.md, "anneal assign, variant tc"), with u = 2^-24,
 * gamma_k = k u / (1 - k u), S = sum_k |x_k a_k| <= ||x|| ||a|| and 4 ||x|| ||a|| <= (||x|| + ||a||)^2:
 *   F, `default`'s v against the exact ||x - a||^2: three fmaf/add chains of at most d + 5
 *     roundings, an add and an fmaf: |err| <= gamma_{d+8} (||x|| + ||a||)^2;
 *   G, t + ||x||^2 against the exact ||x - a||^2:
 *     - each operand as the tensor core takes it: a normal fp16 value within u_t = 2^-10 of the
 *       scaled fp32 (rounding to nearest is within 2^-11; the bound keeps TF32's truncation
 *       figure), one below fp16's least normal within eta = 2^-14 absolutely (so whether the
 *       tensor cores keep fp16's subnormals, within 2^-25, or flush them), so each
 *       product is off by (2 u_t + u_t^2) |x_k a_k| + (1 + u_t) eta (|x_k| + |a_k|) s + eta^2,
 *       in scaled units;
 *     - the tensor core's own accumulation (products exact, aligned to the largest exponent and
 *       truncated, normalized toward zero: Fasi et al., "Numerical behavior of NVIDIA tensor
 *       cores", 2021) within c_acc = (d + 8) 2^-21 of the sum of |products|, some 16 times the
 *       model's worst case;
 *     so, back in real units (s a power of two), |g - x.a| <= K S + A, K = 2 u_t + u_t^2 + c_acc
 *     (1 + u_t)^2, A <= 2^-13 sqrt(d) (||x|| + ||a||) / s + d 2^-27 / s^2 (the absolute terms of
 *     the small operands, (1 + u_t) and c_acc's share of them included with room), and with an's gamma_{d+5} and
 *     t's own rounding: |err| <= (gamma_{d+5} + K/2 + 1.003 u) (||x|| + ||a||)^2 + 2 A;
 *   E = F + G <= (2 gamma_{d+17} + K/2) (||x|| + ||a||)^2 + 2 A for every anchor, and with sn =
 *   sqrt(xn) + a_max: E = (1 + 2^-8) (c sn^2 + c_abs sn / s + c_d / s^2 + 2^-110), c the bracket
 *   rounded up, c_abs = 2^-12 sqrt(d), c_d = d 2^-26 (with a_max s >= 2^11 the two stay
 *   below 2^-23 sqrt(d) sn^2 and d 2^-48 sn^2: next to nothing beside c sn^2). The 1 + 2^-8 covers xn and an as fp32
 *   estimates of the norms and E's own fp32 arithmetic; 2^-110 the fp32 subnormals of either path.
 *   At d = 128, c = 1.03e-3: for the contract's blobs (||x|| ~ ||a|| ~ 6.5, s = 2^9) 2E ~ 0.35
 *   against ~85 between blobs, so pass 2 sees only real near ties. "Tame": sn < 2^60, so that no
 *   fp32 value of either path can overflow, and sn s < 2^15, so that no scaled operand rounds past
 *   fp16's 65504; past either a point gets threshold +inf, and pass 2 recomputes all its m
 *   distances exactly (correct, slow).
 *
 * The tile: 256 threads, 8 warps as 2 (rows) x 4 (columns), a warp 64 points x 32 anchors as 4 x 4
 * m16n8 accumulators (64 floats a thread). x stays in shared memory in chunks of 128 dimensions
 * (fp16 rows of 136 halves, 272 bytes: an ldmatrix's 8 row reads hit 32 banks): for d <= 128 it is
 * read once a block, larger d streams chunk after chunk for each column tile (as `default` streams
 * x). Anchors come in column tiles of 128, d in slices of BK, two shared buffers filled by
 * cp.async from the converted copy. Each slice costs a cp.async wait and a barrier, and the next
 * slice's copy (from L2) hides behind one slice of mma; BK is XPB_CUDA_ASSIGN_TC_SLICE (auto: 64):
 *   16: rows of 24 halves, 1 mma k-step a barrier, 54,784 bytes of shared memory
 *     (x 34,816, anchors 12,288, slots and row data 7,680);
 *   32: rows of 40 halves, 2 k-steps a barrier, half the barriers: 62,976 bytes (anchors 20,480);
 *   64: rows of 72 halves, 4 k-steps a barrier (TF32's 32 floats, the same bytes a row): 79,360
 *     bytes (anchors 36,864).
 * Each keeps the 2 blocks an SM that the registers allow (ptxas, sm_90). The k-steps run in the
 * same order at every depth (the accumulators carry over from slice to slice); past d both
 * operands are zeros, so a deeper slice adds only zero products.
 * Pass 1 keeps each row's (t_j1, j1, t2) per column warp in shared memory (4 lanes merge by
 * shuffles first); one thread per row settles it at the end.
 *
 * The number of points pass 2 rechecks is not reported (a kernel has no channel to the results);
 * at the contract's blobs it is about zero. Scratch: the anchor norms (m floats), a_max with the
 * scale's powers and the list's count, the list and the thresholds (n each), the converted anchors
 * (128-row tiles x BK-deep slices of halves), 256-byte pieces; where the converted anchors do not
 * fit XPB_ANNEAL_SCRATCH_BYTES(n, m) (large m with large d) `supports` says so. Needs compute
 * capability 8.0 (mma.sync m16n8k16, ldmatrix, cp.async); `supports` says so where it is missing. */
#include <math.h>

#include "cuda_anneal.cuh"
#include "xpb_knob.h"

#define XPB_TC_BM 128      /* points per tile                                   */
#define XPB_TC_BN 128      /* anchors per column tile                           */
#define XPB_TC_DC 128      /* d per resident x chunk                            */
#define XPB_TC_THREADS 256
#define XPB_TC_XLD (XPB_TC_DC + 8) /* 136 halves = 68 words = 4 (mod 32): an ldmatrix's 8 rows on 32 banks */
#define XPB_TC_SLOTS 4             /* column warps, each with its (t_j1, j1, t2) per row */
#define XPB_TC_SCALE_EXP 11        /* a_max s in [2^11, 2^12) */
#define XPB_TC_TAME_SCALED 0x1p15f /* sn s below this: every scaled operand below fp16's 65504 */

/* Shared memory, in bytes: x chunk (halves), two anchor slices (halves), the per-row slots (pass
 * 2: the 64-bit keys in their place), then point index, threshold and xn per row. The anchor
 * slices depend on BK, the depth of a slice (16, 32 or 64: XPB_CUDA_ASSIGN_TC_SLICE). */
#define XPB_TC_XS_BYTES (XPB_TC_BM * XPB_TC_XLD * 2)
#define XPB_TC_SL (3 * XPB_TC_SLOTS * XPB_TC_BM) /* floats */
/* a slice's row pitch, 24, 40 or 72 halves (48, 80 or 144 bytes: 16-byte rows for cp.async and
 * ldmatrix; 12, 20 or 36 words = 4 (mod 8), so the 8 rows of an ldmatrix start on banks 4 apart in some order
 * and read 32 distinct banks) */
__host__ __device__ constexpr int xpb_tc_ald(int bk) { return bk + 8; }
__host__ __device__ constexpr int xpb_tc_as_bytes(int bk) { return 2 * XPB_TC_BN * xpb_tc_ald(bk) * 2; }
__host__ __device__ constexpr int xpb_tc_smem_bytes(int bk)
{
    return XPB_TC_XS_BYTES + xpb_tc_as_bytes(bk) + (XPB_TC_SL + 3 * XPB_TC_BM) * (int)sizeof(float);
}

static_assert(XPB_TC_DC % 64 == 0, "chunks keep whole slices of every depth");
static_assert(XPB_TC_XLD / 2 % 32 == 4 && XPB_TC_XLD % 8 == 0, "x rows: 16-byte aligned, banks 4 words apart");
static_assert(XPB_TC_SL * sizeof(float) >= XPB_TC_BM * sizeof(unsigned long long), "pass 2's keys fit the slots");
static_assert(xpb_tc_smem_bytes(16) == 54784 && xpb_tc_smem_bytes(32) == 62976 && xpb_tc_smem_bytes(64) == 79360,
              "the header comment's sizes");

/* The kernel's arguments (one struct: both passes take the same). */
struct xpb_tc_args {
    const float *x, *anchors, *anorm;
    const float *amax;    /* [0] max_j sqrt(an_j), [1] s, [2] -2 / s^2, [3] 1 / s, [4] 1 / s^2 (xpb_tc_prep) */
    const uint16_t *ah;   /* the anchors times s in fp16, mp x dp (xpb_tc_half_anchors)  */
    uint32_t *count;      /* points listed by pass 1                                      */
    uint32_t *list;       /* their indices, in no particular order (each is independent) */
    float *thr;           /* their thresholds                                            */
    uint32_t *assign;
    float *dist;
    int n, d, m;
    int dp;               /* ah's row pitch: d rounded up to whole slices                 */
    float c;              /* E's coefficient, rounded up (tc_bound_coeff)                */
    float cabs, cd;       /* E's small-operand terms, 2^-12 sqrt(d) and d 2^-26, rounded up */
    int recheck;          /* XPB_CUDA_ASSIGN_TC_RECHECK: 0 near ties, 1 every point, 2 every point
                             with threshold +inf (every distance exact)                  */
};

/* ---- device helpers -------------------------------------------------------------------------- */

__device__ __forceinline__ int xpb_tc_min(int a, int b) { return a < b ? a : b; }

/* cp.async of 16 bytes, bypassing L1 (.cg), as gemm_tiled.cu. */
__device__ __forceinline__ void xpb_tc_cp16(void *dst, const void *src)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src) : "memory");
#endif
}
__device__ __forceinline__ void xpb_tc_commit()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void xpb_tc_wait_all()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#endif
}

/* h = (fp16(lo) in the low half, fp16(hi) in the high half), each rounded to nearest (even). */
__device__ __forceinline__ void xpb_tc_h2(uint32_t &h, float lo, float hi)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(h) : "f"(hi), "f"(lo));
#endif
}

/* Four 8x8 matrices of halves from shared memory: lanes 8i .. 8i+7 give the 16-byte rows of
 * matrix i, and r[i] holds, in lane l, row l / 4's halves 2 (l % 4) and 2 (l % 4) + 1. */
__device__ __forceinline__ void xpb_tc_ldsm4(uint32_t (&r)[4], const void *row)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned s = (unsigned)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s));
#endif
}

/* c += a b for one m16n8k16 fp16 tile (fp32 accumulators). a: rows g, g+8 at columns 2t, 2t+1,
 * then the same at 2t+8, 2t+9; b: column g at rows 2t, 2t+1, then 2t+8, 2t+9; c: rows g, g+8 at
 * columns 2t, 2t+1 (g = lane / 4, t = lane % 4; two halves a register, the lower k low). */
__device__ __forceinline__ void xpb_tc_mma(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

/* `default`'s fp32 arithmetic for one point and one anchor (the header comment): xn = ((P0 + P1)
 * + P2) + P3 and dot = the fmaf chain of x_k a_k, both over k = 0 .. d-1 in increasing order.
 * xr may point to shared memory (a resident x row) or global memory. VK: both rows 16-byte
 * aligned and d % 4 == 0 (float4 reads; the same values, the same order). */
template <bool VK, bool DOT>
__device__ __forceinline__ void xpb_tc_exact(const float *xr, const float *__restrict__ ar, int d, float &xn,
                                             float &dot)
{
    float p0 = 0.0f, p1 = 0.0f, p2 = 0.0f, p3 = 0.0f, s = 0.0f;
    for (int k0 = 0; k0 < d; k0 += 16) {
        float xv[16], av[16];
        if constexpr (VK) {
#pragma unroll
            for (int q = 0; q < 4; q++) {
                const bool in = k0 + 4 * q < d; /* d % 4 == 0: a float4 is all in or all out */
                const float4 u = in ? *reinterpret_cast<const float4 *>(xr + k0 + 4 * q) : make_float4(0, 0, 0, 0);
                xv[4 * q] = u.x, xv[4 * q + 1] = u.y, xv[4 * q + 2] = u.z, xv[4 * q + 3] = u.w;
                if constexpr (DOT) {
                    const float4 w = in ? __ldg(reinterpret_cast<const float4 *>(ar + k0 + 4 * q))
                                        : make_float4(0, 0, 0, 0);
                    av[4 * q] = w.x, av[4 * q + 1] = w.y, av[4 * q + 2] = w.z, av[4 * q + 3] = w.w;
                }
            }
        } else {
#pragma unroll
            for (int e = 0; e < 16; e++) {
                xv[e] = k0 + e < d ? xr[k0 + e] : 0.0f;
                if constexpr (DOT)
                    av[e] = k0 + e < d ? __ldg(ar + k0 + e) : 0.0f;
            }
        }
#pragma unroll
        for (int e = 0; e < 16; e++) {
            if (k0 + e < d) { /* stop at d: past it `default` adds fmaf(0, 0, .), which keeps the value */
                float &p = e < 4 ? p0 : e < 8 ? p1 : e < 12 ? p2 : p3;
                p = fmaf(xv[e], xv[e], p);
                if constexpr (DOT)
                    s = fmaf(xv[e], av[e], s);
            }
        }
    }
    xn = __fadd_rn(__fadd_rn(__fadd_rn(p0, p1), p2), p3);
    dot = s;
}

/* (t1, j1, t2) := the least value with its lowest index, and the second least value, of the
 * multiset union of two such summaries (a tie of the least values makes t2 == t1). */
__device__ __forceinline__ void xpb_tc_merge(float &t1, uint32_t &j1, float &t2, float o1, uint32_t oj, float o2)
{
    if (o1 < t1 || (o1 == t1 && oj < j1)) {
        t2 = fminf(t1, o2);
        t1 = o1, j1 = oj;
    } else {
        t2 = fminf(t2, o1);
    }
}

/* 64-bit key of (v, j), ordered like (v, j) lexicographically: v's bits made monotonic (v + 0
 * first, so -0 and +0, equal for `default`'s `<`, become one key), j below. v is not NaN. */
__device__ __forceinline__ unsigned long long xpb_tc_key(float v, uint32_t j)
{
    const uint32_t b = __float_as_uint(__fadd_rn(v, 0.0f));
    const uint32_t o = (b & 0x80000000u) ? ~b : (b | 0x80000000u);
    return ((unsigned long long)o << 32) | j;
}
__device__ __forceinline__ float xpb_tc_key_value(unsigned long long key)
{
    const uint32_t o = (uint32_t)(key >> 32);
    return __uint_as_float((o & 0x80000000u) ? (o & 0x7fffffffu) : ~o);
}

/* ---- the tile ---------------------------------------------------------------------------------- */

/* One tile of up to 128 points against all m anchors. Pass 1 (RECHECK false): points first ..
 * first + rows - 1. Pass 2: list slots first .. first + rows - 1. */
template <bool VK, bool RECHECK, int BK>
__device__ __forceinline__ void xpb_tc_tile(const xpb_tc_args &p, unsigned char *smem, int first, int rows)
{
    constexpr int ALD = xpb_tc_ald(BK);
    static_assert(BK % 16 == 0 && XPB_TC_DC % BK == 0, "whole mma k-steps; a slice lies in one x chunk");
    static_assert(XPB_TC_BN * BK / 8 % XPB_TC_THREADS == 0, "the threads copy a slice in equal 16-byte shares");
    static_assert(ALD % 8 == 0 && ALD / 2 % 8 == 4, "16-byte rows; an ldmatrix's 8 rows hit 32 banks");
    static_assert(xpb_tc_smem_bytes(BK) <= 232448 && 2 * (xpb_tc_smem_bytes(BK) + 1024) <= 233472,
                  "a block fits sm_90's 227 KB; two blocks its 228 KB an SM, 1 KB reserved a block");
    uint16_t *Xs = reinterpret_cast<uint16_t *>(smem);
    uint16_t *As = reinterpret_cast<uint16_t *>(smem + XPB_TC_XS_BYTES);
    float *sl = reinterpret_cast<float *>(smem + XPB_TC_XS_BYTES + xpb_tc_as_bytes(BK));
    float *sv1 = sl, *sv2 = sl + XPB_TC_SLOTS * XPB_TC_BM;                                   /* pass 1 */
    uint32_t *sj1 = reinterpret_cast<uint32_t *>(sl + 2 * XPB_TC_SLOTS * XPB_TC_BM);
    unsigned long long *skey = reinterpret_cast<unsigned long long *>(sl);                    /* pass 2 */
    int *sidx = reinterpret_cast<int *>(sl + XPB_TC_SL);
    float *sthr = sl + XPB_TC_SL + XPB_TC_BM, *sxn = sl + XPB_TC_SL + 2 * XPB_TC_BM;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm = warp & 1, wn = warp >> 1, g = lane >> 2, tq = lane & 3;
    const int n = p.n, d = p.d, m = p.m;
    const float scale = __ldg(p.amax + 1), ks = __ldg(p.amax + 2);

    __syncthreads(); /* the previous tile (pass 2's loop) is done with shared memory */
    if (tid < XPB_TC_BM) {
        const int r = tid;
        if constexpr (RECHECK) {
            const int slot = first + xpb_tc_min(r, rows - 1); /* rows past the list repeat its last */
            const int i = (int)p.list[slot];
            sidx[r] = i;
            sthr[r] = p.thr[slot];
            float xn, unused;
            xpb_tc_exact<VK, false>(p.x + (int64_t)i * d, NULL, d, xn, unused);
            sxn[r] = xn;
            skey[r] = xpb_tc_key(INFINITY, 0); /* `default`'s start: (+inf, 0) */
        } else {
            sidx[r] = xpb_tc_min(first + r, n - 1); /* rows past n: the last point, never stored */
#pragma unroll
            for (int w = 0; w < XPB_TC_SLOTS; w++)
                sv1[w * XPB_TC_BM + r] = INFINITY, sv2[w * XPB_TC_BM + r] = INFINITY, sj1[w * XPB_TC_BM + r] = 0;
        }
    }
    __syncthreads();

    /* x chunk c (dimensions c*DC ..) of the tile's points, times s in fp16, zeros past d: 16 groups
     * of 4 a thread (a warp reads 512 consecutive bytes of a row). Plain loads (cp.async cannot
     * convert); the first slice's copy is already in flight. */
    auto load_x = [&](int c) {
#pragma unroll 4
        for (int q = 0; q < XPB_TC_BM * XPB_TC_DC / 4 / XPB_TC_THREADS; q++) {
            const int idx = q * XPB_TC_THREADS + tid, r = idx / (XPB_TC_DC / 4), c4 = idx % (XPB_TC_DC / 4);
            const int k = c * XPB_TC_DC + 4 * c4;
            const float *src = p.x + (int64_t)sidx[r] * d;
            float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if constexpr (VK) {
                if (k < d)
                    v = __ldg(reinterpret_cast<const float4 *>(src + k));
            } else {
                v.x = k < d ? __ldg(src + k) : 0.0f;
                v.y = k + 1 < d ? __ldg(src + k + 1) : 0.0f;
                v.z = k + 2 < d ? __ldg(src + k + 2) : 0.0f;
                v.w = k + 3 < d ? __ldg(src + k + 3) : 0.0f;
            }
            uint32_t h0, h1;
            xpb_tc_h2(h0, v.x * scale, v.y * scale);
            xpb_tc_h2(h1, v.z * scale, v.w * scale);
            uint32_t *dst = reinterpret_cast<uint32_t *>(Xs + r * XPB_TC_XLD + 4 * c4);
            dst[0] = h0, dst[1] = h1;
        }
    };
    /* anchor slice (column tile ct, dimensions s*BK ..) into buffer b: BK / 16 16-byte copies a
     * thread from the converted anchors, whose padding (zeros past m and d) keeps every copy in
     * bounds. Rows past m are zeros, so a finite point's products there are exact zeros and its t,
     * with the +inf norm past m, is +inf: pass 1's fold needs no column test. */
    auto load_a = [&](int ct, int s, int b) {
#pragma unroll
        for (int q = 0; q < XPB_TC_BN * BK / 8 / XPB_TC_THREADS; q++) {
            const int idx = q * XPB_TC_THREADS + tid, r = idx / (BK / 8), c8 = idx % (BK / 8);
            xpb_tc_cp16(As + (b * XPB_TC_BN + r) * ALD + 8 * c8,
                        p.ah + (int64_t)(ct * XPB_TC_BN + r) * p.dp + s * BK + 8 * c8);
        }
    };

    float acc[4][4][4];
#pragma unroll
    for (int a = 0; a < 4; a++)
#pragma unroll
        for (int b = 0; b < 4; b++)
#pragma unroll
            for (int c = 0; c < 4; c++)
                acc[a][b][c] = 0.0f;

    const int kps = (d + BK - 1) / BK; /* slices per column tile */
    const int nch = (d + XPB_TC_DC - 1) / XPB_TC_DC; /* x chunks */
    const int nct = (m + XPB_TC_BN - 1) / XPB_TC_BN;
    const int64_t total = (int64_t)kps * nct;
    load_a(0, 0, 0);
    xpb_tc_commit();
    load_x(0);

    int ct = 0, s = 0; /* the slice computed in this step */
    for (int64_t t = 0; t < total; t++) {
        xpb_tc_wait_all();
        __syncthreads(); /* slice t (and x) is in; every warp is done with step t - 1's buffers */
        if (nch > 1 && t > 0 && s % (XPB_TC_DC / BK) == 0) { /* a new x chunk (d > DC only) */
            load_x(s / (XPB_TC_DC / BK));
            __syncthreads();
        }
        int nct_ = ct, ns = s + 1; /* the next slice */
        if (ns == kps)
            ns = 0, nct_++;
        if (t + 1 < total) {
            load_a(nct_, ns, (int)((t + 1) & 1));
            xpb_tc_commit();
        }

        const uint16_t *Ab = As + (int)(t & 1) * XPB_TC_BN * ALD;
        const int xk = (s % (XPB_TC_DC / BK)) * BK;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            uint32_t af[4][4], bf[4][2];
            /* A: lanes 0-15 give rows 0-15 at k, lanes 16-31 the same rows at k + 8 (a0 .. a3) */
#pragma unroll
            for (int mt = 0; mt < 4; mt++)
                xpb_tc_ldsm4(af[mt], Xs + (wm * 64 + mt * 16 + (lane & 15)) * XPB_TC_XLD + xk + kk + (lane >> 4) * 8);
            /* B, two column groups a load: lanes 0-7 group 2h at k, 8-15 it at k + 8, 16-31 group
             * 2h + 1 likewise (b0, b1 of each) */
#pragma unroll
            for (int h = 0; h < 2; h++) {
                uint32_t r4[4];
                xpb_tc_ldsm4(r4, Ab + (wn * 32 + (2 * h + (lane >> 4)) * 8 + (lane & 7)) * ALD + kk + ((lane >> 3) & 1) * 8);
                bf[2 * h][0] = r4[0], bf[2 * h][1] = r4[1], bf[2 * h + 1][0] = r4[2], bf[2 * h + 1][1] = r4[3];
            }
#pragma unroll
            for (int mt = 0; mt < 4; mt++)
#pragma unroll
                for (int nt = 0; nt < 4; nt++)
                    xpb_tc_mma(acc[mt][nt], af[mt], bf[nt]);
        }

        if (s == kps - 1) { /* column tile ct is complete: fold it, restart the sums */
            const int col0 = ct * XPB_TC_BN + wn * 32 + 2 * tq;
            unsigned long long cand = 0; /* pass 2: bit ((mt 2 + h) 4 + nt) 2 + e of the thread's 64 */
            float an[4][2];
#pragma unroll
            for (int nt = 0; nt < 4; nt++)
#pragma unroll
                for (int e = 0; e < 2; e++)
                    an[nt][e] = col0 + nt * 8 + e < m ? __ldg(p.anorm + col0 + nt * 8 + e) : INFINITY;
#pragma unroll
            for (int mt = 0; mt < 4; mt++) {
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    const int r = wm * 64 + mt * 16 + g + 8 * h;
                    if constexpr (RECHECK) { /* mark the candidates (NaN too); settled below */
                        const float th = sthr[r];
#pragma unroll
                        for (int nt = 0; nt < 4; nt++)
#pragma unroll
                            for (int e = 0; e < 2; e++)
                                if (col0 + nt * 8 + e < m && !(fmaf(ks, acc[mt][nt][2 * h + e], an[nt][e]) > th))
                                    cand |= 1ull << (((mt * 2 + h) * 4 + nt) * 2 + e);
                    } else {
                        /* no column test: past m t is +inf (load_a), which neither the least nor
                         * the second least takes from a finite one; a NaN is no answer: the sum of
                         * the row's t turns NaN (so does -inf + inf, from untame values only), and
                         * t1 = -inf then sends the point to pass 2, as any t1 that is not finite */
                        float t1 = INFINITY, t2 = INFINITY, sum = 0.0f;
                        uint32_t j1 = 0;
#pragma unroll
                        for (int nt = 0; nt < 4; nt++) {
#pragma unroll
                            for (int e = 0; e < 2; e++) { /* columns in increasing order */
                                const float tv = fmaf(ks, acc[mt][nt][2 * h + e], an[nt][e]);
                                sum += tv;
                                if (tv < t1)
                                    t2 = t1, t1 = tv, j1 = (uint32_t)(col0 + nt * 8 + e);
                                else
                                    t2 = fminf(t2, tv);
                            }
                        }
                        if (sum != sum)
                            t1 = -INFINITY;
#pragma unroll
                        for (int o = 1; o < 4; o <<= 1) /* the 4 lanes of row r: lane bits 0..1 */
                            xpb_tc_merge(t1, j1, t2, __shfl_xor_sync(XPB_FULL_MASK, t1, o),
                                         __shfl_xor_sync(XPB_FULL_MASK, j1, o), __shfl_xor_sync(XPB_FULL_MASK, t2, o));
                        if (tq == 0) { /* only this thread touches slot (wn, r): no barrier */
                            float s1 = sv1[wn * XPB_TC_BM + r], s2 = sv2[wn * XPB_TC_BM + r];
                            uint32_t sj = sj1[wn * XPB_TC_BM + r];
                            xpb_tc_merge(s1, sj, s2, t1, j1, t2);
                            sv1[wn * XPB_TC_BM + r] = s1, sv2[wn * XPB_TC_BM + r] = s2, sj1[wn * XPB_TC_BM + r] = sj;
                        }
                    }
#pragma unroll
                    for (int nt = 0; nt < 4; nt++)
                        acc[mt][nt][2 * h] = 0.0f, acc[mt][nt][2 * h + 1] = 0.0f;
                }
            }
            /* pass 2's candidates, one at a time (one copy of the loop, not 64): `default`'s v exactly */
            while (RECHECK && cand) {
                const int b = __ffsll((long long)cand) - 1;
                cand &= cand - 1;
                const int r = wm * 64 + (b >> 4) * 16 + g + 8 * ((b >> 3) & 1); /* mt, h */
                const int col = col0 + ((b >> 1) & 3) * 8 + (b & 1);                /* nt, e */
                float xn, dot;
                xpb_tc_exact<VK, true>(p.x + (int64_t)sidx[r] * d, p.anchors + (int64_t)col * d, d, xn, dot);
                const float v = fmaf(-2.0f, dot, __fadd_rn(sxn[r], __ldg(p.anorm + col)));
                if (v == v) /* a NaN never wins in `default` */
                    atomicMin(&skey[r], xpb_tc_key(v, (uint32_t)col));
            }
        }
        ct = nct_, s = ns;
    }
    __syncthreads(); /* every slot and key is final */

    if (tid >= rows)
        return;
    const int r = tid;
    const int i = sidx[r];
    if constexpr (RECHECK) {
        const unsigned long long key = skey[r];
        const float v = xpb_tc_key_value(key);
        p.assign[i] = (uint32_t)key;
        p.dist[i] = v > 0.0f ? v : 0.0f;
    } else {
        float t1 = sv1[r], t2 = sv2[r];
        uint32_t j1 = sj1[r];
#pragma unroll
        for (int w = 1; w < XPB_TC_SLOTS; w++)
            xpb_tc_merge(t1, j1, t2, sv1[w * XPB_TC_BM + r], sj1[w * XPB_TC_BM + r], sv2[w * XPB_TC_BM + r]);
        if (j1 >= (uint32_t)m) /* only when no t was below +inf; then the point is listed anyway */
            j1 = 0;
        float xn, dot; /* the x row from global memory (shared memory holds it in fp16) */
        xpb_tc_exact<VK, true>(p.x + (int64_t)i * d, p.anchors + (int64_t)j1 * d, d, xn, dot);
        const float v = fmaf(-2.0f, dot, __fadd_rn(xn, __ldg(p.anorm + j1)));
        const float sn = sqrtf(xn) + __ldg(p.amax);
        const bool tame = sn < 0x1p60f && sn * scale < XPB_TC_TAME_SCALED && isfinite(t1) && isfinite(v); /* false for NaN too */
        /* E (header comment): the relative term, the subnormals' two absolute ones, fp32's */
        const float e = (1.0f + 0x1p-8f) * (fmaf(p.c, sn * sn, fmaf(p.cabs * __ldg(p.amax + 3), sn, p.cd * __ldg(p.amax + 4))) +
                                            0x1p-110f);
        const double lim = __dadd_ru((double)t1, 2.0 * (double)e);
        if (p.recheck == 0 && tame && (double)t2 > lim) { /* j1 is the only candidate: `default`'s answer */
            p.assign[i] = j1;
            p.dist[i] = v > 0.0f ? v : 0.0f;
        } else {
            const uint32_t slot = atomicAdd(p.count, 1u);
            p.list[slot] = (uint32_t)i;
            p.thr[slot] = tame && p.recheck < 2 ? __double2float_ru(lim) : INFINITY;
        }
    }
}

/* Pass 1: one tile of points a block. */
template <bool VK, int BK>
__global__ void __launch_bounds__(XPB_TC_THREADS, 2) xpb_tc_assign_kernel(xpb_tc_args p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ float4 xpb_tc_smem[];
    const int first = blockIdx.x * XPB_TC_BM;
    xpb_tc_tile<VK, false, BK>(p, reinterpret_cast<unsigned char *>(xpb_tc_smem), first,
                               xpb_tc_min(XPB_TC_BM, p.n - first));
#endif
}

/* Pass 2: the listed points, 128 a tile, grid-stride (the count is known on the device only). */
template <bool VK, int BK>
__global__ void __launch_bounds__(XPB_TC_THREADS, 2) xpb_tc_recheck_kernel(xpb_tc_args p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ float4 xpb_tc_smem[];
    const int64_t cnt = *p.count;
    for (int64_t first = (int64_t)blockIdx.x * XPB_TC_BM; first < cnt; first += (int64_t)gridDim.x * XPB_TC_BM)
        xpb_tc_tile<VK, true, BK>(p, reinterpret_cast<unsigned char *>(xpb_tc_smem), (int)first,
                                  (int)(cnt - first < XPB_TC_BM ? cnt - first : XPB_TC_BM));
#endif
}

/* amax[0] = a_max = max_j sqrt(an_j) (fmaxf passes over a NaN norm: that anchor's t is NaN, which
 * sends every point to pass 2), the scale s = 2^e with a_max s in [2^11, 2^12) (e in -60 .. 60; 0
 * when a_max is 0 or not finite) and its powers (all exact), and the list emptied. One block. */
__global__ void __launch_bounds__(XPB_TC_THREADS) xpb_tc_prep(const float *__restrict__ anorm, int m, float *amax,
                                                              uint32_t *count)
{
    __shared__ float red[32];
    float v = 0.0f;
    for (int j = threadIdx.x; j < m; j += XPB_TC_THREADS)
        v = fmaxf(v, anorm[j]);
    v = xpb_block_allreduce(v, xpb_max_op(), 0.0f, red);
    if (threadIdx.x == 0) {
        const float am = sqrtf(v);
        int e = am > 0.0f && isfinite(am) ? XPB_TC_SCALE_EXP - ilogbf(am) : 0;
        e = e < -60 ? -60 : e > 60 ? 60 : e;
        amax[0] = am, amax[1] = ldexpf(1.0f, e), amax[2] = -ldexpf(1.0f, 1 - 2 * e);
        amax[3] = ldexpf(1.0f, -e), amax[4] = ldexpf(1.0f, -2 * e);
        *count = 0;
    }
}

/* ah = the anchors times s in fp16, mp rows of dp halves, zeros past m and d: 8 halves a thread,
 * grid-stride. */
__global__ void __launch_bounds__(XPB_TC_THREADS) xpb_tc_half_anchors(const float *__restrict__ anchors, int m, int d,
                                                                      int mp, int dp, const float *amax, uint16_t *ah)
{
    const float scale = amax[1];
    const int64_t groups = (int64_t)mp * (dp / 8);
    for (int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; q < groups; q += (int64_t)gridDim.x * blockDim.x) {
        const int j = (int)(q / (dp / 8)), k0 = (int)(q % (dp / 8)) * 8;
        float v[8];
#pragma unroll
        for (int e = 0; e < 8; e++)
            v[e] = j < m && k0 + e < d ? anchors[(int64_t)j * d + k0 + e] * scale : 0.0f;
        uint32_t h[4];
#pragma unroll
        for (int e = 0; e < 4; e++)
            xpb_tc_h2(h[e], v[2 * e], v[2 * e + 1]);
        uint32_t *dst = reinterpret_cast<uint32_t *>(ah + (int64_t)j * dp + k0);
        dst[0] = h[0], dst[1] = h[1], dst[2] = h[2], dst[3] = h[3];
    }
}

/* ---- host ------------------------------------------------------------------------------------- */

/* E's coefficient for dimension d (the header comment), as a float no smaller than the real. */
static float tc_round_up(double c)
{
    float f = (float)c;
    if ((double)f < c)
        f = nextafterf(f, INFINITY);
    return f;
}
static float tc_bound_coeff(int64_t d)
{
    const double u = 0x1p-24, ut = 0x1p-10;
    const double k17 = (double)d + 17.0, gamma17 = k17 * u / (1.0 - k17 * u);
    const double c_acc = ((double)d + 8.0) * 0x1p-21;
    const double K = 2.0 * ut + ut * ut + c_acc * (1.0 + ut) * (1.0 + ut);
    return tc_round_up(2.0 * gamma17 + K / 2.0);
}

/* The converted anchors' shape: mp rows (whole column tiles), dp halves a row (whole slices). */
static void tc_half_shape(int64_t d, int64_t m, int bk, int64_t *mp, int64_t *dp)
{
    *mp = (m + XPB_TC_BN - 1) / XPB_TC_BN * XPB_TC_BN;
    *dp = (d + bk - 1) / bk * bk;
}

/* The contract's sizes; tile indices in int; compute capability 8.0; the slice's depth, which *bk
 * returns: XPB_CUDA_ASSIGN_TC_SLICE (auto: 64 where two such blocks fit an SM, else 32); the
 * converted anchors within the scratch that the list and the norms leave. */
static xpb_status tc_check(const xpb_cuda_ctx *ctx, const xpb_anneal_assign_args *a, int *bk, xpb_error *err)
{
    int choice = 0; /* auto, 16, 32, 64 */
    xpb_status st = xpb_knob_get_choice(XPB_KNOB_CUDA_ASSIGN_TC_SLICE, &choice, err);
    if (st != XPB_OK || (st = xpb_anneal_check_sizes("anneal/assign tc", a->n, a->d, a->m, err)) != XPB_OK)
        return st;
    *bk = choice == 1 ? 16 : choice == 2 ? 32 : 64;
    if (choice == 0) {
        /* auto: 64 where an SM holds two such blocks (the registers' limit; H200: the assign 6% faster
         * than 32, docs/performance.md), else 32, the shallower block */
        int sm_smem = 0, reserved = 0;
        XPB_CUDA_CHECK(err, cudaDeviceGetAttribute(&sm_smem, cudaDevAttrMaxSharedMemoryPerMultiprocessor, ctx->device));
        XPB_CUDA_CHECK(err, cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, ctx->device));
        *bk = sm_smem >= 2 * (xpb_tc_smem_bytes(64) + reserved) ? 64 : 32;
    }
    if (a->m > (int64_t)INT32_MAX - XPB_TC_BN || a->n > (int64_t)INT32_MAX - XPB_TC_BM)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED, "anneal/assign tc: n = %lld, m = %lld: tile indices past 2^31",
                        (long long)a->n, (long long)a->m);
    if (ctx->cc_major < 8)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED,
                        "anneal/assign tc: fp16 tensor cores (mma.sync m16n8k16, ldmatrix) and cp.async need "
                        "compute capability 8.0, the GPU has %d.%d", ctx->cc_major, ctx->cc_minor);
    int64_t mp, dp;
    tc_half_shape(a->d, a->m, *bk, &mp, &dp);
    /* as tc_launch carves: anorm, amax and the scale, count, list, thr, then the anchors */
    const size_t used = xpb_anneal_piece((size_t)a->m * 4) + xpb_anneal_piece(5 * 4) + xpb_anneal_piece(4) +
                        2 * xpb_anneal_piece((size_t)a->n * 4);
    const size_t need = xpb_anneal_piece((size_t)mp * (size_t)dp * 2), have = XPB_ANNEAL_SCRATCH_BYTES(a->n, a->m);
    if (used + need > have)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED,
                        "anneal/assign tc: the anchors in fp16 (%lld x %lld halves) need %zu bytes of scratch, "
                        "%zu are left", (long long)mp, (long long)dp, need, have > used ? have - used : (size_t)0);
    int optin = 0;
    XPB_CUDA_CHECK(err, cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, ctx->device));
    if (optin < xpb_tc_smem_bytes(*bk))
        return xpb_fail(err, XPB_ERR_UNSUPPORTED,
                        "anneal/assign tc: a block with anchor slices of %d needs %d bytes of shared memory, the "
                        "GPU allows %d", *bk, xpb_tc_smem_bytes(*bk), optin);
    return XPB_OK;
}

static xpb_status tc_supports(void *vctx, const void *vargs, xpb_error *why)
{
    const xpb_cuda_ctx *ctx = static_cast<const xpb_cuda_ctx *>(vctx);
    int bk;
    xpb_status st = tc_check(ctx, static_cast<const xpb_anneal_assign_args *>(vargs), &bk, why);
    if (st != XPB_OK || (st = xpb_cuda_activate(ctx, why)) != XPB_OK)
        return st;
    /* a build without sm_80 code for this GPU (CMAKE_CUDA_ARCHITECTURES below 80) has empty kernels */
    cudaFuncAttributes fa;
    XPB_CUDA_CHECK(why, cudaFuncGetAttributes(&fa, xpb_tc_assign_kernel<true, 16>));
    if (fa.binaryVersion < 80 && fa.ptxVersion < 80)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED,
                        "anneal/assign tc: built without sm_80+ code for this GPU (binary %d, PTX %d)",
                        fa.binaryVersion, fa.ptxVersion);
    return XPB_OK;
}

template <bool VK, int BK>
static xpb_status tc_enqueue(const xpb_cuda_ctx *ctx, const xpb_tc_args &p, xpb_error *err)
{
    constexpr int smem = xpb_tc_smem_bytes(BK);
    XPB_CUDA_CHECK(err, cudaFuncSetAttribute(xpb_tc_assign_kernel<VK, BK>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             smem));
    XPB_CUDA_CHECK(err, cudaFuncSetAttribute(xpb_tc_recheck_kernel<VK, BK>,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    const unsigned grid = (unsigned)((p.n + XPB_TC_BM - 1) / XPB_TC_BM);
    xpb_tc_assign_kernel<VK, BK><<<grid, XPB_TC_THREADS, smem, ctx->stream>>>(p);
    XPB_CUDA_CHECK_LAUNCH(err, "anneal/assign tc (pass 1)");
    /* pass 2: at most two blocks an SM (the registers), grid-stride over the list */
    const int64_t cap = 2 * (int64_t)ctx->sm_count;
    const unsigned grid2 = (unsigned)(grid < cap ? grid : cap);
    xpb_tc_recheck_kernel<VK, BK><<<grid2, XPB_TC_THREADS, smem, ctx->stream>>>(p);
    XPB_CUDA_CHECK_LAUNCH(err, "anneal/assign tc (pass 2)");
    return XPB_OK;
}

static xpb_status tc_launch(void *vctx, const void *vargs, void *state, xpb_error *err)
{
    (void)state;
    const xpb_cuda_ctx *ctx = static_cast<const xpb_cuda_ctx *>(vctx);
    const xpb_anneal_assign_args *a = static_cast<const xpb_anneal_assign_args *>(vargs);
    int bk;
    xpb_status st = tc_check(ctx, a, &bk, err);
    if (st != XPB_OK)
        return st;
    const size_t n = (size_t)a->n, d = (size_t)a->d, m = (size_t)a->m;
    int64_t mp, dp;
    tc_half_shape(a->d, a->m, bk, &mp, &dp);
    void *x = NULL, *anchors = NULL, *assign = NULL, *dist = NULL;
    xpb_anneal_carver sc;
    if ((st = xpb_anneal_view(&a->x, n * d * 4, "anneal/assign tc: x", &x, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->anchors, m * d * 4, "anneal/assign tc: anchors", &anchors, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->assign, n * 4, "anneal/assign tc: assign", &assign, err)) != XPB_OK ||
        (st = xpb_anneal_view(&a->dist, n * 4, "anneal/assign tc: dist", &dist, err)) != XPB_OK ||
        (st = xpb_anneal_scratch(&a->scratch, a->n, a->m, "anneal/assign tc: scratch", &sc, err)) != XPB_OK)
        return st;
    xpb_tc_args p;
    p.x = static_cast<const float *>(x);
    p.anchors = static_cast<const float *>(anchors);
    float *anorm = static_cast<float *>(xpb_anneal_carve(&sc, m * 4));
    p.anorm = anorm;
    float *amax = static_cast<float *>(xpb_anneal_carve(&sc, 5 * 4));
    p.amax = amax;
    p.count = static_cast<uint32_t *>(xpb_anneal_carve(&sc, 4));
    p.list = static_cast<uint32_t *>(xpb_anneal_carve(&sc, n * 4));
    p.thr = static_cast<float *>(xpb_anneal_carve(&sc, n * 4));
    uint16_t *ah = static_cast<uint16_t *>(xpb_anneal_carve(&sc, (size_t)mp * (size_t)dp * 2));
    p.ah = ah;
    if (sc.used > XPB_ANNEAL_SCRATCH_BYTES(a->n, a->m)) /* never (tc_check), but checked */
        return xpb_fail(err, XPB_ERR_USAGE, "anneal/assign tc: scratch of %zu bytes, %zu needed",
                        XPB_ANNEAL_SCRATCH_BYTES(a->n, a->m), sc.used);
    p.assign = static_cast<uint32_t *>(assign);
    p.dist = static_cast<float *>(dist);
    p.n = (int)a->n, p.d = (int)a->d, p.m = (int)a->m, p.dp = (int)dp;
    p.c = tc_bound_coeff(a->d);
    p.cabs = tc_round_up(0x1p-12 * sqrt((double)a->d));
    p.cd = tc_round_up((double)a->d * 0x1p-26);
    if ((st = xpb_knob_get_choice(XPB_KNOB_CUDA_ASSIGN_TC_RECHECK, &p.recheck, err)) != XPB_OK ||
        (st = xpb_cuda_activate(ctx, err)) != XPB_OK)
        return st;
    /* the anchor norms of `default` itself (its kernel, its float4 choice), then amax, the scale
     * and count, then the anchors in fp16 */
    if ((st = xpb_cuda_anneal_assign_norms_enqueue(ctx, p.x, p.anchors, anorm, a->d, a->m, err)) != XPB_OK)
        return st;
    xpb_tc_prep<<<1, XPB_TC_THREADS, 0, ctx->stream>>>(anorm, p.m, amax, p.count);
    XPB_CUDA_CHECK_LAUNCH(err, "anneal/assign tc (anchor norm bound and scale)");
    const unsigned hgrid = xpb_cuda_grid(ctx, (mp * (dp / 8) + XPB_TC_THREADS - 1) / XPB_TC_THREADS, XPB_TC_THREADS, 1);
    xpb_tc_half_anchors<<<hgrid, XPB_TC_THREADS, 0, ctx->stream>>>(p.anchors, p.m, p.d, (int)mp, (int)dp, amax, ah);
    XPB_CUDA_CHECK_LAUNCH(err, "anneal/assign tc (anchors in fp16)");
    /* float4 reads exactly where `default` uses them */
    const bool vk = a->d % 4 == 0 && xpb_cuda_aligned16(x) && xpb_cuda_aligned16(anchors);
    if (bk == 64)
        return vk ? tc_enqueue<true, 64>(ctx, p, err) : tc_enqueue<false, 64>(ctx, p, err);
    if (bk == 32)
        return vk ? tc_enqueue<true, 32>(ctx, p, err) : tc_enqueue<false, 32>(ctx, p, err);
    return vk ? tc_enqueue<true, 16>(ctx, p, err) : tc_enqueue<false, 16>(ctx, p, err);
}

extern "C" const xpb_kernel xpb_cuda_anneal_assign_tc = {
    /* .op        = */ XPB_OP_ANNEAL_ASSIGN,
    /* .variant   = */ "tc",
    /* .precision = */ "fp32",
    /* .supports  = */ tc_supports,
    /* .prepare   = */ NULL,
    /* .release   = */ NULL,
    /* .launch    = */ tc_launch,
};
