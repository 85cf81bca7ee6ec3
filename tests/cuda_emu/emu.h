// emu.h - the subset of CUDA that backends/cuda/anneal/anneal_assign.cu, anneal_assign_tc.cu and
// anneal_init.cu use, backends/cuda/burst/burst_compact.cu and burst_compact_lookback.cu, and the
// row ops' cuda/regs kernel (backends/cuda/rows), on the CPU, so that tests/cuda_emu/anneal_tc_emu.sh,
// anneal_init_emu.sh, burst_compact_emu.sh and rows_regs_emu.sh can run the kernels' own source
// without a GPU and compare them (transform.py, rows_transform.py adapt the source). One block at a time; one std::thread per
// CUDA thread; std::barrier for __syncthreads and for the warp collectives (shuffles, mma.sync);
// cp.async as a plain copy; ldmatrix through the warp's buffer; mma.sync m16n8k16 fp16 with the
// 16 products and their sum in double, one rounding into the fp32 accumulator. Shared memory: static
// arrays are function statics (one block at a time), the dynamic one is emu_dyn_smem.
// It checks the arithmetic, indexing and logic of the kernels, not the GPU's memory model or
// timing: compute-sanitizer (racecheck, synccheck) on a GPU does that.
#pragma once
#include <barrier>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <atomic>
#include <thread>
#include <vector>

#include "xpb_backend.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define XPB_FULL_MASK 0xffffffffu
using std::isfinite;

struct float4 {
    float x, y, z, w;
};
struct uint4 {
    uint32_t x, y, z, w;
};
static inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }
struct emu_dim {
    unsigned x;
};
extern thread_local emu_dim threadIdx, blockIdx;
extern emu_dim blockDim, gridDim;
extern unsigned char emu_dyn_smem[];

// One block's barriers and the buffers its warps exchange values through.
struct emu_block {
    std::barrier<> bar;
    std::vector<std::unique_ptr<std::barrier<>>> warp_bar;
    uint64_t shfl[32][32];
    uint32_t ma[32][32][4], mb[32][32][2];
    const unsigned char *mp[32][32]; // ldmatrix's row addresses
    explicit emu_block(int threads) : bar(threads)
    {
        for (int w = 0; w < threads / 32; w++)
            warp_bar.emplace_back(new std::barrier<>(32));
    }
};
extern thread_local emu_block *emu_cur;

// Runs body as grid blocks of `block` threads, one block after the other; emu_after_block (when
// set) runs after each block with its index (a test's hook on the state blocks leave each other).
void emu_run(unsigned grid, unsigned block, const std::function<void()> &body);
extern std::function<void(unsigned)> emu_after_block;

// A test's main: runs every case (no arguments) or the cases named by index, prints `fail` or
// `pass` last; the exit status is 0 when every case ran equal, 1 when one differed, 2 on a bad index.
int emu_cases_main(int argc, char **argv, int count, int (*run_case)(int), const char *fail, const char *pass);

static inline void __syncthreads() { emu_cur->bar.arrive_and_wait(); }
static inline void emu_warp_sync() { emu_cur->warp_bar[threadIdx.x / 32]->arrive_and_wait(); }
template <class T> static inline T emu_shfl(T v, int src_lane)
{
    static_assert(sizeof(T) <= 8, "a shuffled value fits 8 bytes");
    const int w = threadIdx.x / 32, l = threadIdx.x % 32;
    uint64_t b = 0;
    memcpy(&b, &v, sizeof v);
    emu_cur->shfl[w][l] = b;
    emu_warp_sync();
    const uint64_t r = emu_cur->shfl[w][src_lane];
    emu_warp_sync();
    T o;
    memcpy(&o, &r, sizeof o);
    return o;
}
template <class T> static inline T __shfl_xor_sync(unsigned, T v, int mask, int = 32)
{
    return emu_shfl(v, (int)(threadIdx.x % 32) ^ mask);
}
template <class T> static inline T __shfl_sync(unsigned, T v, int src, int width = 32)
{
    return emu_shfl(v, (int)(threadIdx.x % 32 & ~(unsigned)(width - 1)) + src);
}
static inline float __ldg(const float *p) { return *p; }
static inline uint32_t __ldg(const uint32_t *p) { return *p; }
static inline uint8_t __ldg(const uint8_t *p) { return *p; }
static inline uint4 __ldg(const uint4 *p) { return *p; }
static inline unsigned long long __ldg(const unsigned long long *p) { return *p; }
template <class T> static inline T __shfl_up_sync(unsigned, T v, unsigned delta, int = 32)
{
    const int l = (int)(threadIdx.x % 32);
    const T o = emu_shfl(v, l >= (int)delta ? l - (int)delta : l);
    return o;
}
static inline unsigned __ballot_sync(unsigned, int pred)
{
    unsigned m = 0;
    for (int l = 0; l < 32; l++) /* every lane's predicate, through the shuffle buffer */
        m |= (unsigned)(emu_shfl((uint32_t)(pred != 0), l) != 0) << l;
    return m;
}
static inline int __all_sync(unsigned mask, int pred) { return __ballot_sync(mask, pred) == XPB_FULL_MASK; }
static inline int __popc(uint32_t v) { return __builtin_popcount(v); }
static inline int __ffs(int v) { return __builtin_ffs(v); }
static inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
static inline float4 __ldg(const float4 *p) { return *p; }
// the row ops' (rows_regs_emu): cache hints as plain accesses, a warp's sync as its barrier
static inline unsigned __ldcg(const unsigned *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline void __stwb(float4 *p, float4 v) { *p = v; }
static inline void __syncwarp(unsigned = XPB_FULL_MASK) { emu_warp_sync(); }
static inline void __nanosleep(unsigned) { std::this_thread::yield(); }
static inline float emu_expf(float x) { return expf(x); } // libm declares a __expf of its own
#define __expf emu_expf
static inline int min(int a, int b) { return a < b ? a : b; }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline double __drcp_rn(double a) { return 1.0 / a; } // both correctly rounded
static inline double __dadd_ru(double a, double b)
{
    const double s = a + b;
    return (long double)s < (long double)a + (long double)b ? std::nextafter(s, INFINITY) : s;
}
static inline float __double2float_ru(double v)
{
    const float f = (float)v;
    return (double)f < v ? std::nextafter(f, INFINITY) : f;
}
static inline float __double2float_rd(double v)
{
    const float f = (float)v;
    return (double)f > v ? std::nextafter(f, -INFINITY) : f;
}
static inline uint32_t __float_as_uint(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static inline float __uint_as_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline int __ffsll(long long v) { return __builtin_ffsll(v); }
static inline uint32_t atomicAdd(uint32_t *p, uint32_t v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
static inline int32_t atomicAdd(int32_t *p, int32_t v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
static inline unsigned long long atomicMin(unsigned long long *p, unsigned long long v)
{
    unsigned long long o = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (v < o && !__atomic_compare_exchange_n(p, &o, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    }
    return o;
}
static inline unsigned long long atomicMax(unsigned long long *p, unsigned long long v)
{
    unsigned long long o = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (v > o && !__atomic_compare_exchange_n(p, &o, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    }
    return o;
}
static inline void emu_cp_async16(void *dst, const void *src) { memcpy(dst, src, 16); }
// cvt.rn.f16x2.f32: lo to the low half, hi to the high one, each rounded to nearest (even), as
// GCC's _Float16 conversion rounds (overflow to inf, subnormals kept)
static inline uint32_t emu_h2(float lo, float hi)
{
    const _Float16 a = (_Float16)lo, b = (_Float16)hi;
    uint16_t ua, ub;
    memcpy(&ua, &a, 2), memcpy(&ub, &b, 2);
    return (uint32_t)ua | (uint32_t)ub << 16;
}
static inline double emu_half(uint32_t reg, int high)
{
    const uint16_t v = (uint16_t)(high ? reg >> 16 : reg & 0xffffu);
    _Float16 f;
    memcpy(&f, &v, 2);
    return (double)f;
}
// ldmatrix.sync.aligned.m8n8.x4.shared.b16: lanes 8i .. 8i+7 give matrix i's 16-byte rows; lane l
// gets, in r[i], row l / 4's 4 bytes at 4 (l % 4)
static inline void emu_ldmatrix_x4(uint32_t (&r)[4], const void *row)
{
    const int w = threadIdx.x / 32, l = threadIdx.x % 32;
    emu_cur->mp[w][l] = static_cast<const unsigned char *>(row);
    emu_warp_sync();
    for (int i = 0; i < 4; i++)
        memcpy(&r[i], emu_cur->mp[w][8 * i + l / 4] + 4 * (l % 4), 4);
    emu_warp_sync();
}
// mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32, fragments as the PTX ISA lays them out (two
// halves a register, the lower k low): a0 (g, 2t..2t+1), a1 (g+8, ..), a2 (g, 2t+8..), a3 (g+8,
// 2t+8..); b0 (k 2t..2t+1, n g), b1 (k 2t+8.., n g); c as m16n8k8's. The 16 products (exact) summed
// in double, one rounding into the fp32 accumulator.
static inline void emu_mma_f16(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
    const int w = threadIdx.x / 32, l = threadIdx.x % 32, g = l / 4, t = l % 4;
    memcpy(emu_cur->ma[w][l], a, sizeof a);
    memcpy(emu_cur->mb[w][l], b, sizeof b);
    emu_warp_sync();
    for (int i = 0; i < 4; i++) {
        const int row = g + 8 * (i >> 1), col = 2 * t + (i & 1);
        double s = 0;
        for (int k = 0; k < 16; k++)
            s += emu_half(emu_cur->ma[w][(row % 8) * 4 + (k % 8) / 2][(row >= 8) + 2 * (k >= 8)], k % 2) *
                 emu_half(emu_cur->mb[w][col * 4 + (k % 8) / 2][k >= 8], k % 2);
        c[i] = (float)((double)c[i] + s);
    }
    emu_warp_sync();
}

// ---- the CUDA runtime and backend pieces the two files call ----
typedef int cudaError_t;
#define cudaSuccess 0
typedef void *cudaStream_t;
struct cudaFuncAttributes {
    int binaryVersion, ptxVersion;
};
template <class F> static inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, F)
{
    a->binaryVersion = a->ptxVersion = 80;
    return cudaSuccess;
}
template <class F> static inline cudaError_t cudaFuncSetAttribute(F, int, int) { return cudaSuccess; }
#define cudaFuncAttributeMaxDynamicSharedMemorySize 0
#define cudaFuncAttributePreferredSharedMemoryCarveout 1
#define cudaSharedmemCarveoutMaxShared 100
#define cudaDevAttrMaxSharedMemoryPerBlockOptin 0
#define cudaDevAttrMaxSharedMemoryPerMultiprocessor 1
#define cudaDevAttrReservedSharedMemoryPerBlock 2
#define EMU_SMEM_OPTIN 232448 /* an H100's: a block's opt-in; its SM's 233472, 1024 of them reserved a block */
static inline cudaError_t cudaDeviceGetAttribute(int *v, int attr, int)
{
    *v = attr == cudaDevAttrMaxSharedMemoryPerMultiprocessor ? 233472
         : attr == cudaDevAttrReservedSharedMemoryPerBlock   ? 1024
                                                             : EMU_SMEM_OPTIN;
    return cudaSuccess;
}
// anneal_init.cu's grid: the resident blocks of an SM as an H100's 2048 threads allow
template <class F> static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, F, int threads, size_t)
{
    *n = 2048 / threads;
    return cudaSuccess;
}
#define cudaErrorMemoryAllocation 2
static inline const char *cudaGetErrorString(cudaError_t) { return "emulated"; }
static inline cudaError_t cudaMalloc(void **p, size_t bytes) { return (*p = aligned_alloc(256, (bytes + 255) / 256 * 256)) ? 0 : 2; }
static inline cudaError_t cudaFree(void *p) { free(p); return cudaSuccess; }
static inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
static inline cudaError_t cudaMemsetAsync(void *p, int v, size_t bytes, cudaStream_t)
{
    memset(p, v, bytes);
    return cudaSuccess;
}
struct xpb_cuda_ctx {
    int device;
    cudaStream_t stream;
    int sm_count, max_threads_per_sm, max_grid_x, cc_major, cc_minor;
    void *group;
};
struct xpb_buffer {
    void *ptr;
    size_t bytes;
    void **rank_ptr; /* cuda_burst.cuh's rank views: NULL here */
    int ranks;
};
static inline int xpb_cuda_group_size(const xpb_cuda_ctx *) { return 0; }
#define XPB_CUDA_CHECK(err, expr)                                                               \
    do {                                                                                        \
        if ((expr) != cudaSuccess)                                                              \
            return xpb_fail((err), XPB_ERR_RUNTIME, "%s failed", #expr);                        \
    } while (0)
#define XPB_CUDA_CHECK_LAUNCH(err, op) ((void)(err), (void)(op))
static inline xpb_status xpb_cuda_activate(const xpb_cuda_ctx *, xpb_error *) { return XPB_OK; }
static inline int xpb_cuda_aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }
static inline unsigned xpb_cuda_grid(const xpb_cuda_ctx *ctx, int64_t need, int threads, int waves)
{
    const int64_t per = ctx->max_threads_per_sm / threads, cap = (int64_t)ctx->sm_count * (per > 0 ? per : 1) * waves;
    const int64_t g = need < cap ? need : cap;
    return g < 1 ? 1u : (unsigned)g;
}
static inline xpb_status xpb_cuda_view_f32(const xpb_view *v, int64_t count, const char *what, float **out,
                                           xpb_error *err)
{
    if (!v->buf || v->offset + (size_t)count * 4 > v->buf->bytes)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: the view runs past its buffer", what);
    *out = reinterpret_cast<float *>(static_cast<char *>(v->buf->ptr) + v->offset);
    return XPB_OK;
}
#ifndef EMU_CUDA_COMMON // rows_regs_emu: cuda_common.cuh's own, inlined by rows_transform.py
struct xpb_sum_op {
    float operator()(float a, float b) const { return a + b; }
};
struct xpb_max_op {
    float operator()(float a, float b) const { return fmaxf(a, b); }
};
// cuda_common.cuh's reductions, the same shapes
template <int WIDTH, typename T, typename Merge> static inline T xpb_warp_allreduce(T v, Merge merge)
{
    for (int offset = WIDTH / 2; offset > 0; offset >>= 1)
        v = merge(v, __shfl_xor_sync(XPB_FULL_MASK, v, offset, WIDTH));
    return __shfl_sync(XPB_FULL_MASK, v, 0, WIDTH);
}
template <typename T, typename Merge> static inline T xpb_block_allreduce(T v, Merge merge, T ident, T *red)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    v = xpb_warp_allreduce<32>(v, merge);
    __syncthreads();
    if (lane == 0)
        red[warp] = v;
    __syncthreads();
    v = lane < nwarps ? red[lane] : ident;
    return xpb_warp_allreduce<32>(v, merge);
}
#endif
#ifndef EMU_REAL_KNOBS // rows_regs_emu: xpb_knob.h's declarations, the test's definitions
// the knobs tc reads, from the environment like xpb_knob_get_choice: the index of the word, the
// first (the default) when unset
enum { XPB_KNOB_CUDA_ASSIGN_TC_RECHECK, XPB_KNOB_CUDA_ASSIGN_TC_SLICE, XPB_KNOB_CUDA_INIT_BOUND };
static inline xpb_status xpb_knob_get_choice(int id, int *out, xpb_error *err)
{
    static const char *const name[] = {"XPB_CUDA_ASSIGN_TC_RECHECK", "XPB_CUDA_ASSIGN_TC_SLICE", "XPB_CUDA_INIT_BOUND"};
    static const char *const words[][5] = {
        {"near", "all", "exact", nullptr}, {"auto", "16", "32", "64", nullptr}, {"on", "off", nullptr}};
    const char *v = getenv(name[id]);
    *out = 0;
    if (!v || !*v)
        return XPB_OK;
    for (int i = 0; words[id][i]; i++)
        if (!strcmp(v, words[id][i]))
            return *out = i, XPB_OK;
    return xpb_fail(err, XPB_ERR_USAGE, "%s=%s: not one of its words", name[id], v);
}
#endif
