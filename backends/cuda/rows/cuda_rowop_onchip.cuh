/* cuda_rowop_onchip.cuh - the "onchip" variant of the row ops (softmax, rmsnorm, layernorm): a
 * long row split into chunks over ordinary blocks (no cluster), each chunk held in shared memory
 * from its one read to its one write, the chunks' partial statistics exchanged through a small
 * global buffer; and while a block waits for its row's partials and writes its chunk, the bulk
 * copy of its next chunk is already in flight (two chunk buffers a block).
 *
 * Why beside "cluster" (cuda_rowop_cluster.cuh): a cluster must fit one GPC, so on the H100 at
 * most 21 clusters of 16 blocks are resident, 336 of the 396 block slots, and a cluster's blocks
 * load, wait at the cluster barrier and write in lock step with nothing else in flight. Here any
 * resident block can hold any chunk, a row may have more chunks than a cluster has blocks (32 KB
 * chunks: 32 of them for a 1 MiB row), and the next chunk's load overlaps the exchange.
 *
 * Shape: a persistent cooperative grid (cudaLaunchCooperativeKernel: every block co-resident, so
 * a block may wait for the other blocks of its row) of G blocks, G a multiple of the row's chunk
 * count C, at most the resident blocks. Block b always takes chunk b % C, of rows b / C,
 * b / C + G / C, ...: a round of G / C rows at a time. A block waits only for the blocks of its
 * own row, which are resident and reach that row having finished earlier rows only, so no block
 * waits forever.
 * Exchange: thread 0 stores the block's reduced State to part[row][chunk], then (release)
 * atomically adds 1 to arrive[row]; warp 0 polls arrive[row] (acquire) until it reaches epoch * C,
 * merges the C partials in a fixed order (the same in every block: bit-identical statistics
 * across the row) and hands r1, r2 to the block through shared memory. (Merging them one by one
 * in thread 0 cost a round trip to L2 a chunk: 36% of the copy roof for softmax on the H100.) arrive[] is never reset:
 * launch number `epoch` (the state's count, from 1) makes the target epoch * C.
 * Loads: float4-aligned rows come by bulk copies (cp.async.bulk, one per chunk, on the buffer's
 * mbarrier) issued a row ahead; other rows by the threads' loads, one row at a time.
 * State: prepare() allocates part (rows x C States) and arrive (rows counters, zeroed), untimed
 * (xpb_rowop_exchange); launch() checks that they were made for these rows and columns. */
#ifndef XPB_CUDA_ROWOP_ONCHIP_CUH
#define XPB_CUDA_ROWOP_ONCHIP_CUH

#include <stdlib.h>

#include "cuda_rowop_cluster.cuh" /* xpb_bulk_load, xpb_bulk_wait, xpb_smem_addr */
#include "xpb_knob.h"

#define XPB_ROWOP_ONCHIP_BLOCK 512
/* A chunk's floats: XPB_CUDA_ONCHIP_CHUNK_KB x 256, default 32 KB (two buffers a block, so 3
 * blocks an SM on Hopper; docs/knobs.md). */

__device__ __forceinline__ uint32_t xpb_ld_acquire_gpu(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
    return v;
}

/* The exchange buffers of one prepare() of a long-row variant (onchip here, regs in
 * cuda_rowop_regs.cuh): the chunks' partial States and flag words, made zeroed by
 * xpb_rowop_exchange_make (untimed) and freed by xpb_rowop_exchange_release. */
struct xpb_rowop_exchange {
    int64_t rows;
    int cols, chunk, chunks; /* the plan they were made for (chunk: the variant's own measure) */
    void *part;              /* onchip: rows x chunks States (none for regs, whose partials
                              * live in the flags) */
    uint32_t *flags;         /* onchip: arrive[rows], epoch * chunks once launch `epoch` all
                              * arrived; regs: arrive[rows], state[rows x chunks] */
    size_t flags_bytes;
    uint32_t epoch;          /* onchip: launches so far */
};

static inline void xpb_rowop_exchange_release(void *vctx, void *vstate)
{
    (void)vctx;
    xpb_rowop_exchange *s = static_cast<xpb_rowop_exchange *>(vstate);
    if (!s)
        return;
    cudaFree(s->part);
    cudaFree(s->flags);
    free(s);
}

/* Into *out: buffers for part_bytes of partials and flag_words zeroed words (neither when
 * flag_words is 0). what names the variant in errors ("softmax_onchip onchip"). */
static inline xpb_status xpb_rowop_exchange_make(xpb_cuda_ctx *ctx, int64_t rows, int cols, int chunk, int chunks,
                                                 size_t part_bytes, size_t flag_words, const char *what,
                                                 void **out, xpb_error *err)
{
    xpb_rowop_exchange *s = static_cast<xpb_rowop_exchange *>(calloc(1, sizeof *s));
    if (!s)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "%s: out of host memory", what);
    *s = {rows, cols, chunk, chunks, NULL, NULL, flag_words * sizeof(uint32_t), 0};
    cudaError_t e = cudaSuccess;
    if (flag_words) {
        if (part_bytes)
            e = cudaMalloc(&s->part, part_bytes);
        if (e == cudaSuccess)
            e = cudaMalloc(reinterpret_cast<void **>(&s->flags), s->flags_bytes);
        if (e == cudaSuccess)
            e = cudaMemsetAsync(s->flags, 0, s->flags_bytes, ctx->stream);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(ctx->stream);
    }
    if (e != cudaSuccess) {
        xpb_rowop_exchange_release(ctx, s);
        return xpb_fail(err, e == cudaErrorMemoryAllocation ? XPB_ERR_OUT_OF_MEMORY : XPB_ERR_RUNTIME,
                        "%s: the exchange buffers: %s", what, cudaGetErrorString(e));
    }
    *out = s;
    return XPB_OK;
}

/* A long-row variant with exchange buffers is a struct V (xpb_rowop_onchip_variant below,
 * xpb_rowop_regs_variant in cuda_rowop_regs.cuh):
 *   static constexpr const char *variant;    its name ("onchip")
 *   typedef ... Plan;                         with int chunk (floats) and int chunks (a row)
 *   template <class Op> static xpb_status plan(xpb_cuda_ctx *, int64_t rows, int cols,
 *                                              const char *name, Plan *, xpb_error *);
 *   static size_t flag_words(const Plan &, int64_t rows);   the zeroed words prepare() makes
 *   static size_t part_states(const Plan &, int64_t rows);  the partial States it makes
 *   template <class Op> static xpb_status go(xpb_cuda_ctx *, const xpb_rowop_ptrs &, bool vec,
 *                                            xpb_rowop_exchange *, const Plan &, const char *name,
 *                                            xpb_error *);
 *   template <class Op> static void describe(const Plan &, int cols, bool vec, char *buf, size_t n);
 *                                            "key=value ..." of what the plan runs (xpb_kernel.describe)
 * and XPB_CUDA_ROWOP_STATE_KERNEL registers it with the functions below. */

/* The plan for these rows (the views are not bound yet); *go false: sizes the launch reports
 * itself (bad or empty), no plan. */
template <class Op, class V>
static xpb_status xpb_rowop_state_plan(void *vctx, const void *vargs, const char *name, bool *go,
                                       typename V::Plan *plan, xpb_error *err)
{
    xpb_cuda_ctx *ctx = static_cast<xpb_cuda_ctx *>(vctx);
    const xpb_rowop_args *a = static_cast<const xpb_rowop_args *>(vargs);
    xpb_status st = xpb_rowop_variant_begin(ctx, vargs, go, err);
    if (st != XPB_OK || !*go)
        return st;
    return V::template plan<Op>(ctx, a->rows, (int)a->cols, name, plan, err);
}

/* supports: whether a plan exists for these rows. */
template <class Op, class V>
static xpb_status xpb_cuda_rowop_state_supports(void *vctx, const void *vargs, const char *name, xpb_error *why)
{
    bool go = false;
    typename V::Plan plan = {};
    return xpb_rowop_state_plan<Op, V>(vctx, vargs, name, &go, &plan, why);
}

/* prepare (untimed): the exchange buffers for these rows. */
template <class Op, class V>
static xpb_status xpb_cuda_rowop_state_prepare(void *vctx, const void *vargs, void **out, const char *name,
                                               xpb_error *err)
{
    *out = NULL;
    const xpb_rowop_args *a = static_cast<const xpb_rowop_args *>(vargs);
    bool go = false;
    typename V::Plan plan = {};
    xpb_status st = xpb_rowop_state_plan<Op, V>(vctx, vargs, name, &go, &plan, err);
    if (st != XPB_OK || !go)
        return st;
    char what[96];
    snprintf(what, sizeof what, "%s %s", name, V::variant);
    return xpb_rowop_exchange_make(static_cast<xpb_cuda_ctx *>(vctx), a->rows, (int)a->cols, plan.chunk, plan.chunks,
                                   V::part_states(plan, a->rows) * sizeof(typename Op::State),
                                   V::flag_words(plan, a->rows), what, out, err);
}

/* launch: the views, the buffers prepare() made for exactly this plan, then V::go. */
template <class Op, class V>
static xpb_status xpb_cuda_rowop_state_launch(void *vctx, const void *vargs, void *vstate, const char *name,
                                              xpb_error *err)
{
    xpb_cuda_ctx *ctx = static_cast<xpb_cuda_ctx *>(vctx);
    xpb_rowop_ptrs p = {};
    bool vec = false, empty = false;
    xpb_status st = xpb_cuda_rowop_resolve<Op>(ctx, vargs, name, &p, &vec, &empty, err);
    if (st != XPB_OK || empty)
        return st;
    xpb_rowop_exchange *s = static_cast<xpb_rowop_exchange *>(vstate);
    if (!s || s->rows != p.rows || s->cols != p.cols)
        return xpb_fail(err, XPB_ERR_USAGE, "%s %s: launch without prepare() for these sizes", name, V::variant);
    typename V::Plan plan = {};
    if ((st = V::template plan<Op>(ctx, p.rows, p.cols, name, &plan, err)) != XPB_OK)
        return st;
    if (plan.chunk != s->chunk || plan.chunks != s->chunks)
        return xpb_fail(err, XPB_ERR_USAGE, "%s %s: the chunking changed since prepare()", name, V::variant);
    return V::template go<Op>(ctx, p, vec, s, plan, name, err);
}

/* describe: what these rows run as, from the plan the launch makes for them (V::describe<Op>:
 * the shape and forms the variant chose by itself); "" for sizes the launch reports itself. */
template <class Op, class V>
static void xpb_cuda_rowop_state_describe(void *vctx, const void *vargs, const char *name, char *buf, size_t n)
{
    xpb_cuda_ctx *ctx = static_cast<xpb_cuda_ctx *>(vctx);
    xpb_rowop_ptrs p = {};
    bool vec = false, empty = false;
    xpb_error err = {};
    typename V::Plan plan = {};
    buf[0] = '\0';
    if (xpb_cuda_rowop_resolve<Op>(ctx, vargs, name, &p, &vec, &empty, &err) == XPB_OK && !empty &&
        V::template plan<Op>(ctx, p.rows, p.cols, name, &plan, &err) == XPB_OK)
        V::template describe<Op>(plan, p.cols, vec, buf, n);
}

/* Defines `extern "C" const xpb_kernel xpb_cuda_<name>`: variant V of row-op policy Op. */
#define XPB_CUDA_ROWOP_STATE_KERNEL(name, xpb_op_value, Op, V)                                    \
    static xpb_status name##_supports(void *ctx, const void *args, xpb_error *why)                \
    {                                                                                             \
        return xpb_cuda_rowop_state_supports<Op, V>(ctx, args, #name, why);                       \
    }                                                                                             \
    static xpb_status name##_prepare(void *ctx, const void *args, void **state, xpb_error *err)   \
    {                                                                                             \
        return xpb_cuda_rowop_state_prepare<Op, V>(ctx, args, state, #name, err);                 \
    }                                                                                             \
    static void name##_release(void *ctx, void *state) { xpb_rowop_exchange_release(ctx, state); } \
    static xpb_status name##_launch(void *ctx, const void *args, void *state, xpb_error *err)     \
    {                                                                                             \
        return xpb_cuda_rowop_state_launch<Op, V>(ctx, args, state, #name, err);                  \
    }                                                                                             \
    static void name##_describe(void *ctx, const void *args, void *, char *buf, size_t n)         \
    {                                                                                             \
        xpb_cuda_rowop_state_describe<Op, V>(ctx, args, #name, buf, n);                           \
    }                                                                                             \
    extern "C" const xpb_kernel xpb_cuda_##name = {                                               \
        /* .op        = */ xpb_op_value,                                                          \
        /* .variant   = */ V::variant,                                                            \
        /* .precision = */ "fp32",                                                                \
        /* .supports  = */ name##_supports,                                                       \
        /* .prepare   = */ name##_prepare,                                                        \
        /* .release   = */ name##_release,                                                        \
        /* .launch    = */ name##_launch,                                                         \
        /* .describe  = */ name##_describe,                                                       \
    }

/* The row's statistics from its chunks' partials, by the 32 lanes of warp 0 (every lane must
 * call it): lane l merges partials l, l + 32, ... in turn, then a fixed butterfly over the lanes;
 * every block of the row runs this same code on the same partials, so all get the same bits.
 * The loads are independent (one round trip, not one a chunk) and read past L1 (__ldcg):
 * another SM wrote them. ident: the identity of the merge. */
template <class Op>
__device__ __forceinline__ typename Op::State xpb_onchip_merge(const typename Op::State *part, int chunks,
                                                               typename Op::State ident)
{
    typedef typename Op::State State;
    constexpr int WORDS = sizeof(State) / 4;
    static_assert(sizeof(State) % 4 == 0, "a State is whole 32-bit words");
    State all = ident;
    for (int c = (int)threadIdx.x; c < chunks; c += 32) {
        State one;
        const unsigned *src = reinterpret_cast<const unsigned *>(part + c);
        unsigned *dst = reinterpret_cast<unsigned *>(&one);
#pragma unroll
        for (int w = 0; w < WORDS; w++)
            dst[w] = __ldcg(src + w);
        all = typename Op::Merge()(all, one);
    }
    return xpb_warp_allreduce<32>(all, typename Op::Merge());
}

/* BULK (VEC only): bulk copies a row ahead into the other buffer; else thread loads. */
template <class Op, bool VEC, bool BULK>
__global__ void __launch_bounds__(XPB_ROWOP_ONCHIP_BLOCK, BULK ? 3 : 2)
xpb_rowop_onchip_kernel(xpb_rowop_ptrs p, int chunk, int chunks, typename Op::State *part, uint32_t *arrive,
                        uint32_t epoch)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef typename Op::State State;
    constexpr int BLOCK = XPB_ROWOP_ONCHIP_BLOCK;
    constexpr int PACK = VEC ? 4 : 1;
    static_assert(!BULK || VEC, "bulk copies need 16-byte aligned rows");
    extern __shared__ float4 xpb_onchip_smem[];
    float *const bufs = reinterpret_cast<float *>(xpb_onchip_smem); /* buffer q at bufs + q * chunk */
    __shared__ State red[32];
    __shared__ float stats[2];
    __shared__ __align__(8) uint64_t bars[2];

    const int cols = p.cols;
    const int rank = (int)(blockIdx.x % (unsigned)chunks);
    const int64_t step = gridDim.x / chunks; /* rows a round */
    const int lo = rank * chunk;
    const int n = lo < cols ? min(chunk, cols - lo) : 0; /* chunk % 4 == 0, so n % PACK == 0 */
    const int packs = n / PACK;
    const uint32_t target = epoch * (uint32_t)chunks;
    int64_t row = blockIdx.x / chunks;
    if (BULK) {
        if (threadIdx.x == 0) {
            for (int q = 0; q < 2; q++)
                asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(xpb_smem_addr(&bars[q])) : "memory");
            asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
            if (row < p.rows && packs > 0)
                xpb_bulk_load(bufs, p.x + row * (int64_t)cols + lo, (uint32_t)packs * PACK * 4, &bars[0]);
        }
        __syncthreads();
    }
    for (int j = 0; row < p.rows; row += step, j++) {
        const int b = j & 1;
        float *const buf = bufs + b * chunk;
        const float *xr = p.x + row * (int64_t)cols;
        float *yr = p.y + row * (int64_t)cols;
        State st = Op::init(xr);
        if constexpr (BULK) {
            /* the next row's chunk into the other buffer, whose last reads ended at the
             * __syncthreads closing the previous row */
            if (threadIdx.x == 0 && row + step < p.rows && packs > 0) {
                asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
                xpb_bulk_load(bufs + (b ^ 1) * chunk, p.x + (row + step) * (int64_t)cols + lo, (uint32_t)packs * PACK * 4,
                              &bars[b ^ 1]);
            }
            if (packs > 0)
                xpb_bulk_wait(&bars[b], (uint32_t)(j >> 1) & 1u); /* buffer b's (j/2)-th use */
            for (int i = threadIdx.x; i < packs; i += BLOCK) {
                const float4 v = *reinterpret_cast<const float4 *>(buf + i * PACK);
                Op::accum(st, v.x), Op::accum(st, v.y), Op::accum(st, v.z), Op::accum(st, v.w);
            }
        } else {
            xpb_rowop_fold<Op, BLOCK, PACK, true>(xr + lo, packs, st, buf);
        }
        st = xpb_block_allreduce(st, typename Op::Merge(), Op::init(xr), red);

        /* the exchange: thread 0 publishes; warp 0 waits for the row's other chunks (each lane
         * acquires for itself, so its loads of the partials see them) and merges */
        if (threadIdx.x < 32) {
            State *mine = part + row * chunks;
            if (threadIdx.x == 0) {
                mine[rank] = st;
                __threadfence();
                atomicAdd(arrive + row, 1u);
            }
            while (xpb_ld_acquire_gpu(arrive + row) < target)
                __nanosleep(64);
            __syncwarp();
            const State all = xpb_onchip_merge<Op>(mine, chunks, Op::init(xr));
            if (threadIdx.x == 0) {
                float r1, r2;
                Op::finish(all, p, &r1, &r2);
                stats[0] = r1, stats[1] = r2;
            }
        }
        __syncthreads();
        const float r1 = stats[0], r2 = stats[1];

        /* write the chunk from shared memory (any thread any pack: hence the barrier after) */
        for (int i = threadIdx.x; i < packs; i += BLOCK)
            xpb_rowop_out_from<Op, PACK>(p, buf + i * PACK, yr, lo + i * PACK, r1, r2);
        __syncthreads();
    }
#else
    (void)p, (void)chunk, (void)chunks, (void)part, (void)arrive, (void)epoch;
#endif
}

/* The grid: chunk (floats, a multiple of 4), chunks a row, and the cooperative grid (a multiple
 * of chunks, at most the resident blocks, at most rows x chunks); XPB_ERR_UNSUPPORTED with the
 * reason where it cannot run (before sm_90, or a row needs more blocks than can be resident). */
struct xpb_rowop_onchip_plan {
    int chunk, chunks, grid;
};

template <class Op, bool VEC, bool BULK>
static xpb_status xpb_rowop_onchip_resident(int chunk, int *per_sm, xpb_error *err)
{
    const size_t smem = 2 * (size_t)chunk * 4;
    XPB_CUDA_CHECK(err, cudaFuncSetAttribute(xpb_rowop_onchip_kernel<Op, VEC, BULK>,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    XPB_CUDA_CHECK(err, cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, xpb_rowop_onchip_kernel<Op, VEC, BULK>,
                                                                      XPB_ROWOP_ONCHIP_BLOCK, smem));
    return XPB_OK;
}

template <class Op>
static xpb_status xpb_rowop_onchip_make_plan(xpb_cuda_ctx *ctx, int64_t rows, int cols, const char *name,
                                             xpb_rowop_onchip_plan *plan, xpb_error *err)
{
    if (ctx->cc_major < 9)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED,
                        "%s onchip: bulk copies and the acquire loads need compute capability 9.0, the GPU has %d.%d",
                        name, ctx->cc_major, ctx->cc_minor);
    long kb;
    xpb_status knob = xpb_knob_get_long(XPB_KNOB_CUDA_ONCHIP_CHUNK_KB, &kb, err);
    if (knob != XPB_OK)
        return knob;
    const int want = (int)kb * 256;
    const int chunks = (cols + want - 1) / want;
    const int chunk = ((cols + chunks - 1) / chunks + 3) & ~3;
    /* the kernels' residency, kept per (device, chunk): the queries cost host time every launch */
    static int last_device = -1, last_chunk = -1, last_per_sm = 0;
    int per_sm = last_per_sm;
    if (ctx->device != last_device || chunk != last_chunk) {
        int a = 0, c = 0; /* thread loads, bulk copies: the smaller (same shared memory) */
        xpb_status st = xpb_rowop_onchip_resident<Op, false, false>(chunk, &a, err);
        if (st == XPB_OK)
            st = xpb_rowop_onchip_resident<Op, true, true>(chunk, &c, err);
        if (st != XPB_OK)
            return st;
        per_sm = last_per_sm = a < c ? a : c;
        last_device = ctx->device;
        last_chunk = chunk;
    }
    int64_t grid = (int64_t)per_sm * ctx->sm_count / chunks * chunks;
    if (grid > rows * chunks)
        grid = rows * chunks;
    if (grid < chunks)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED,
                        "%s onchip: a row of %d floats needs %d resident blocks of %d KB of shared memory, the GPU "
                        "keeps %d",
                        name, cols, chunks, 8 * chunk / 1024, per_sm * ctx->sm_count);
    *plan = {chunk, chunks, (int)grid};
    return XPB_OK;
}

template <class Op, bool VEC, bool BULK>
static xpb_status xpb_rowop_onchip_go(xpb_cuda_ctx *ctx, const xpb_rowop_ptrs &p, xpb_rowop_exchange *s,
                                      const xpb_rowop_onchip_plan &plan, const char *name, xpb_error *err)
{
    typename Op::State *part = static_cast<typename Op::State *>(s->part);
    uint32_t epoch = ++s->epoch;
    int chunk = plan.chunk, chunks = plan.chunks;
    xpb_rowop_ptrs pp = p;
    void *args[] = {&pp, &chunk, &chunks, &part, &s->flags, &epoch};
    cudaError_t e = cudaLaunchCooperativeKernel((const void *)xpb_rowop_onchip_kernel<Op, VEC, BULK>,
                                                dim3((unsigned)plan.grid), dim3(XPB_ROWOP_ONCHIP_BLOCK), args,
                                                2 * (size_t)plan.chunk * 4, ctx->stream);
    if (e != cudaSuccess)
        return xpb_cuda_fail_launch(err, e, name, __FILE__, __LINE__);
    XPB_CUDA_CHECK_LAUNCH(err, name);
    return XPB_OK;
}

/* The variant for XPB_CUDA_ROWOP_STATE_KERNEL: the counters are arrive[rows]. */
struct xpb_rowop_onchip_variant {
    static constexpr const char *variant = "onchip";
    typedef xpb_rowop_onchip_plan Plan;
    template <class Op>
    static xpb_status plan(xpb_cuda_ctx *ctx, int64_t rows, int cols, const char *name, Plan *out, xpb_error *err)
    {
        return xpb_rowop_onchip_make_plan<Op>(ctx, rows, cols, name, out, err);
    }
    static size_t flag_words(const Plan &, int64_t rows) { return (size_t)rows; }
    static size_t part_states(const Plan &plan, int64_t rows) { return (size_t)rows * (size_t)plan.chunks; }
    template <class Op>
    static xpb_status go(xpb_cuda_ctx *ctx, const xpb_rowop_ptrs &p, bool vec, xpb_rowop_exchange *s, const Plan &plan,
                         const char *name, xpb_error *err)
    {
        return vec ? xpb_rowop_onchip_go<Op, true, true>(ctx, p, s, plan, name, err)
                   : xpb_rowop_onchip_go<Op, false, false>(ctx, p, s, plan, name, err);
    }
    template <class Op>
    static void describe(const Plan &plan, int, bool vec, char *buf, size_t n)
    {
        snprintf(buf, n, "chunk=%d chunks=%d grid=%d loads=%s", plan.chunk, plan.chunks, plan.grid,
                 vec ? "bulk" : "threads");
    }
};

/* Defines `extern "C" const xpb_kernel xpb_cuda_<name>`: the onchip variant of row-op policy Op. */
#define XPB_CUDA_ROWOP_ONCHIP_KERNEL(name, xpb_op_value, Op) \
    XPB_CUDA_ROWOP_STATE_KERNEL(name, xpb_op_value, Op, xpb_rowop_onchip_variant)

#endif
