/* cuda_rowop_cluster.cuh - the "cluster" variant of the row ops (softmax, rmsnorm, layernorm):
 * one row per thread-block cluster, held in the cluster's distributed shared memory, so a row
 * too long for one SM (2^18 floats = 1 MiB) is read from memory once and written once, where
 * the default variant's streamed rows read it twice (cuda_rowop.cuh). Hopper (sm_90) and later.
 *
 * The cluster's CS blocks split the row into CS chunks of `chunk` floats. Each block brings its
 * chunk into shared memory, with bulk copies (cp.async.bulk, the TMA engine's 1-D form: one
 * thread issues 4 pieces, each completing on its own mbarrier, no registers held while the bytes
 * are in flight) when the rows are float4-aligned, else by loads of its threads; it folds the
 * chunk into the policy's streamed State (init, accum, merge: the same statistics, and so the
 * same error bounds, as the default variant's streamed rows), reduces the State over the block,
 * and publishes it. After a cluster barrier every block merges the CS partial States in rank
 * order through distributed shared memory (the same order in every block, so every block gets
 * the same r1, r2), and writes its chunk from shared memory. The partials alternate between two
 * slots by row, so one cluster barrier a row suffices; a last one keeps every block resident
 * until all have read its partials.
 *
 * Shape: the smallest power-of-two CS (<= 16; above 8 is a non-portable cluster size) whose
 * chunk fits XPB_ROWOP_CLUSTER_CHUNK bytes, else CS = 8 or 16 with up to the opt-in shared
 * memory per block; the first shape of which the device can keep a cluster resident
 * (cudaOccupancyMaxActiveClusters) wins. One cluster per row, all rows launched at once, so
 * clusters at different phases (loading, writing) share the SMs. With bulk copies the kernel
 * fits 40 registers, so 3 blocks an SM fit (thread loads: 64, 2 blocks). H100, session 11, % of
 * the copy roof at 1024 x 262144, softmax / rmsnorm / layernorm, two alternated processes each
 * (docs/performance.md): bulk copies 71 / 70 / 74, thread loads 60 / 70 / 63; a persistent
 * grid of one 512-thread block an SM with 3 chunk buffers (rows j + 1, j + 2 in flight while
 * row j is written) measured 45 / 65 / 58 and was dropped. XPB_CUDA_CLUSTER_LOAD=threads selects
 * the thread loads (A/B runs). */
#ifndef XPB_CUDA_ROWOP_CLUSTER_CUH
#define XPB_CUDA_ROWOP_CLUSTER_CUH

#include <stdlib.h>
#include <string.h>

#include <cooperative_groups.h>

#include "cuda_rowop.cuh"
#include "xpb_knob.h"

#define XPB_ROWOP_CLUSTER_BLOCK 512
#define XPB_ROWOP_CLUSTER_MAX 16
/* Shared memory per block wanted: small enough for 3 blocks an SM (227 KB on Hopper; 512
 * threads a block, so 3 blocks fit the 2048 threads of an SM as well). */
#define XPB_ROWOP_CLUSTER_CHUNK (64 * 1024)

/* Bulk copies (the TMA engine's 1-D form, sm_90): global -> this block's shared memory, completion
 * counted in bytes on an mbarrier, no registers or threads held while the bytes are in flight. */
#define XPB_ROWOP_BULK_PIECES 4 /* a chunk arrives in 4 pieces, each on its own barrier: folding starts on the first */
__device__ __forceinline__ uint32_t xpb_smem_addr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void xpb_bulk_load(void *dst, const void *src, uint32_t bytes, uint64_t *bar)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(xpb_smem_addr(bar)), "r"(bytes)
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                     xpb_smem_addr(dst)),
                 "l"(src), "r"(bytes), "r"(xpb_smem_addr(bar))
                 : "memory");
#endif
}
__device__ __forceinline__ void xpb_bulk_wait(uint64_t *bar, uint32_t phase)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("{\n.reg .pred P1;\nXPB_WAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
                 "@P1 bra XPB_DONE;\nbra XPB_WAIT;\nXPB_DONE:\n}\n" ::"r"(xpb_smem_addr(bar)),
                 "r"(phase)
                 : "memory");
#endif
}

/* BULK (VEC only: 16-byte aligned rows): the chunk comes in by bulk copies issued by one thread,
 * then every thread folds its packs from shared memory; otherwise the threads load the chunk
 * themselves (xpb_rowop_fold), folding as the values arrive (any row). Launch bounds: 40
 * registers (3 blocks an SM) with bulk copies, 64 (2) with thread loads. */
template <class Op, bool VEC, bool BULK>
__global__ void __launch_bounds__(XPB_ROWOP_CLUSTER_BLOCK, BULK ? 3 : 2)
xpb_rowop_cluster_kernel(xpb_rowop_ptrs p, int chunk)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    namespace cg = cooperative_groups;
    typedef typename Op::State State;
    constexpr int BLOCK = XPB_ROWOP_CLUSTER_BLOCK;
    constexpr int PACK = VEC ? 4 : 1;
    constexpr int PIECES = XPB_ROWOP_BULK_PIECES;
    static_assert(!BULK || VEC, "bulk copies need 16-byte aligned rows");
    extern __shared__ float4 xpb_cluster_smem[];
    float *held = reinterpret_cast<float *>(xpb_cluster_smem);
    __shared__ State red[32];
    __shared__ State part[2]; /* by row parity: a block may publish row j + 1's while others still read row j's */
    __shared__ __align__(8) uint64_t bars[PIECES];

    cg::cluster_group cluster = cg::this_cluster();
    const int rank = (int)cluster.block_rank();
    const int cs = (int)cluster.num_blocks();
    const int64_t clusters = gridDim.x / cs;
    const int cols = p.cols;
    const int lo = rank * chunk;
    const int n = lo < cols ? min(chunk, cols - lo) : 0; /* chunk % PACK == 0, so n % PACK == 0 */
    const int packs = n / PACK;
    const int piece = (packs + PIECES - 1) / PIECES; /* packs a bulk piece */
    if (BULK) {
        if (threadIdx.x == 0) {
            for (int q = 0; q < PIECES; q++)
                asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(xpb_smem_addr(&bars[q])) : "memory");
            asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        }
        __syncthreads();
    }

    int j = 0; /* this block's row count so far */
    for (int64_t row = blockIdx.x / cs; row < p.rows; row += clusters, j++) {
        const float *xr = p.x + row * (int64_t)cols;
        float *yr = p.y + row * (int64_t)cols;

        /* this block's chunk in shared memory, folded into the statistics */
        State st = Op::init(xr);
        if constexpr (BULK) {
            if (threadIdx.x == 0) {
                /* the previous row's reads of `held` (generic proxy) come before these writes
                 * (async proxy): every thread passed the __syncthreads that ended that row */
                asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
                for (int q = 0; q < PIECES; q++) {
                    const int a = q * piece, e = min(packs, a + piece);
                    if (e > a)
                        xpb_bulk_load(held + a * PACK, xr + lo + a * PACK, (uint32_t)(e - a) * PACK * 4, &bars[q]);
                }
            }
            for (int q = 0; q < PIECES; q++) {
                const int a = q * piece, e = min(packs, a + piece);
                if (e <= a)
                    break;
                xpb_bulk_wait(&bars[q], (uint32_t)j & 1u); /* one phase of each barrier a row */
                for (int i = a + threadIdx.x; i < e; i += BLOCK) {
                    const float4 v = *reinterpret_cast<const float4 *>(held + i * PACK);
                    Op::accum(st, v.x), Op::accum(st, v.y), Op::accum(st, v.z), Op::accum(st, v.w);
                }
            }
        } else {
            xpb_rowop_fold<Op, BLOCK, PACK, true>(xr + lo, packs, st, held);
        }
        st = xpb_block_allreduce(st, typename Op::Merge(), Op::init(xr), red);
        if (threadIdx.x == 0)
            part[j & 1] = st;

        /* every block's partial is published: merge them in rank order (the same order in every
         * block, so every block gets the same r1, r2). The slot j & 1 is not written again before
         * row j + 2, after the next cluster barrier, which every block reaches only once done
         * reading this row's partials. */
        cluster.sync();
        State all = *cluster.map_shared_rank(&part[j & 1], 0);
        for (int r = 1; r < cs; r++)
            all = typename Op::Merge()(all, *cluster.map_shared_rank(&part[j & 1], r));
        float r1, r2;
        Op::finish(all, p, &r1, &r2);

        /* write the chunk from shared memory (each thread reads the packs it stored, or any
         * packs when the chunk came by bulk copies: hence the barrier before its reuse) */
        for (int i = threadIdx.x; i < packs; i += BLOCK)
            xpb_rowop_out_from<Op, PACK>(p, held + i * PACK, yr, lo + i * PACK, r1, r2);
        if (BULK)
            __syncthreads();
    }
    /* no block leaves while another may still read its partials */
    cluster.sync();
#else
    (void)p;
    (void)chunk;
#endif
}

/* A cluster shape: CS blocks of `chunk` floats (a multiple of 4). */
struct xpb_rowop_cluster_shape {
    int cs, chunk;
};

/* How many clusters of cs blocks with smem bytes of dynamic shared memory the device keeps
 * resident (0: none), after setting the kernel's attributes for that shape. */
template <class Kernel>
static xpb_status xpb_rowop_cluster_resident(Kernel kernel, int cs, size_t smem, int *resident, xpb_error *err)
{
    XPB_CUDA_CHECK(err, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    XPB_CUDA_CHECK(err, cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, cs > 8 ? 1 : 0));
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = (unsigned)cs;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.gridDim = dim3((unsigned)cs);
    cfg.blockDim = dim3(XPB_ROWOP_CLUSTER_BLOCK);
    cfg.dynamicSmemBytes = smem;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    *resident = 0;
    XPB_CUDA_CHECK(err, cudaOccupancyMaxActiveClusters(resident, kernel, &cfg));
    return XPB_OK;
}

/* Picks the shape for rows of p.cols floats (top of this file), or fails with
 * XPB_ERR_UNSUPPORTED and the reason: a GPU before sm_90, or a row that no resident cluster
 * can hold. Sets the kernels' shared-memory and cluster-size attributes for the shape. */
template <class Op, bool VEC>
static xpb_status xpb_rowop_cluster_plan(xpb_cuda_ctx *ctx, int cols, const char *name,
                                         xpb_rowop_cluster_shape *shape, xpb_error *err)
{
    /* the shape of the last call of this kernel, kept: the occupancy query costs host time on every launch */
    static int last_device = -1, last_cols = -1;
    static xpb_rowop_cluster_shape last_shape;
    if (ctx->device == last_device && cols == last_cols) {
        *shape = last_shape;
        return XPB_OK;
    }
    if (ctx->cc_major < 9)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED,
                        "%s cluster: thread-block clusters need compute capability 9.0, the GPU has %d.%d",
                        name, ctx->cc_major, ctx->cc_minor);
    int optin = 0;
    XPB_CUDA_CHECK(err, cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, ctx->device));
    /* room for the static shared memory (red, part, the barriers) */
    const int64_t max_chunk = ((int64_t)optin - 34 * (int64_t)sizeof(typename Op::State) - 256) / 4 & ~(int64_t)3;
    xpb_rowop_cluster_shape tries[3];
    int ntries = 0;
    int cs = 1;
    while (cs < XPB_ROWOP_CLUSTER_MAX && ((int64_t)cols + cs - 1) / cs * 4 > XPB_ROWOP_CLUSTER_CHUNK)
        cs *= 2;
    tries[ntries++] = {cs, 0};
    if (cs != 8)
        tries[ntries++] = {8, 0};
    if (cs != 16)
        tries[ntries++] = {16, 0};
    for (int t = 0; t < ntries; t++) {
        const int64_t chunk = (((int64_t)cols + tries[t].cs - 1) / tries[t].cs + 3) & ~(int64_t)3;
        if (chunk > max_chunk)
            continue;
        const size_t smem = (size_t)chunk * 4;
        int resident = 0, bulk = 1;
        xpb_status st = xpb_rowop_cluster_resident(xpb_rowop_cluster_kernel<Op, VEC, false>, tries[t].cs, smem,
                                                   &resident, err);
        if (st == XPB_OK && VEC) /* sets the bulk kernel's attributes too */
            st = xpb_rowop_cluster_resident(xpb_rowop_cluster_kernel<Op, VEC, VEC>, tries[t].cs, smem, &bulk, err);
        if (st != XPB_OK)
            return st;
        if (resident <= 0 || bulk <= 0)
            continue;
        *shape = last_shape = {tries[t].cs, (int)chunk};
        last_device = ctx->device;
        last_cols = cols;
        return XPB_OK;
    }
    return xpb_fail(err, XPB_ERR_UNSUPPORTED,
                    "%s cluster: a row of %d floats does not fit the shared memory of a resident cluster "
                    "(at most %d blocks of %lld floats)",
                    name, cols, XPB_ROWOP_CLUSTER_MAX, (long long)max_chunk);
}

template <class Op, bool VEC>
static xpb_status xpb_rowop_launch_cluster(xpb_cuda_ctx *ctx, const xpb_rowop_ptrs &p, const char *name,
                                           xpb_error *err)
{
    xpb_rowop_cluster_shape shape = {0, 0};
    xpb_status st = xpb_rowop_cluster_plan<Op, VEC>(ctx, p.cols, name, &shape, err);
    if (st != XPB_OK)
        return st;
    /* one cluster a row, launched as slots free up */
    const int64_t max_clusters = (int64_t)ctx->max_grid_x / shape.cs;
    const int64_t clusters = p.rows < max_clusters ? p.rows : max_clusters;
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = (unsigned)shape.cs;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.gridDim = dim3((unsigned)(clusters * shape.cs));
    cfg.blockDim = dim3(XPB_ROWOP_CLUSTER_BLOCK);
    cfg.dynamicSmemBytes = (size_t)shape.chunk * 4;
    cfg.stream = ctx->stream;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    /* float4 rows come in by bulk copies unless XPB_CUDA_CLUSTER_LOAD=threads (A/B runs; any
     * other value than bulk or threads is the case's error, docs/knobs.md) */
    int threads = 0; /* the index among "bulk|threads" */
    if ((st = xpb_knob_get_choice(XPB_KNOB_CUDA_CLUSTER_LOAD, &threads, err)) != XPB_OK)
        return st;
    const bool bulk = VEC && !threads;
    cudaError_t e = bulk ? cudaLaunchKernelEx(&cfg, xpb_rowop_cluster_kernel<Op, VEC, VEC>, p, shape.chunk)
                         : cudaLaunchKernelEx(&cfg, xpb_rowop_cluster_kernel<Op, VEC, false>, p, shape.chunk);
    if (e != cudaSuccess)
        return xpb_cuda_fail_launch(err, e, name, __FILE__, __LINE__);
    XPB_CUDA_CHECK_LAUNCH(err, name);
    return XPB_OK;
}

/* supports: whether a cluster shape exists for these rows (the views are not bound yet). */
template <class Op>
static xpb_status xpb_cuda_rowop_cluster_supports(void *vctx, const void *vargs, const char *name, xpb_error *why)
{
    xpb_cuda_ctx *ctx = static_cast<xpb_cuda_ctx *>(vctx);
    const xpb_rowop_args *a = static_cast<const xpb_rowop_args *>(vargs);
    bool go = false;
    xpb_status st = xpb_rowop_variant_begin(ctx, vargs, &go, why);
    if (st != XPB_OK || !go)
        return st;
    xpb_rowop_cluster_shape shape = {0, 0};
    return xpb_rowop_cluster_plan<Op, false>(ctx, (int)a->cols, name, &shape, why);
}

struct xpb_rowop_cluster_shapes {
    template <class Op>
    static xpb_status enqueue(xpb_cuda_ctx *ctx, const xpb_rowop_ptrs &p, bool vec, const char *name, xpb_error *err)
    {
        return vec ? xpb_rowop_launch_cluster<Op, true>(ctx, p, name, err)
                   : xpb_rowop_launch_cluster<Op, false>(ctx, p, name, err);
    }
};

/* Defines `extern "C" const xpb_kernel xpb_cuda_<name>`: the cluster variant of row-op policy Op. */
#define XPB_CUDA_ROWOP_CLUSTER_KERNEL(name, xpb_op_value, Op)                                     \
    static xpb_status name##_supports(void *ctx, const void *args, xpb_error *why)                \
    {                                                                                             \
        return xpb_cuda_rowop_cluster_supports<Op>(ctx, args, #name, why);                        \
    }                                                                                             \
    static xpb_status name##_launch(void *ctx, const void *args, void *state, xpb_error *err)     \
    {                                                                                             \
        (void)state;                                                                              \
        return xpb_cuda_rowop_enqueue<Op, xpb_rowop_cluster_shapes>(ctx, args, #name, err);       \
    }                                                                                             \
    extern "C" const xpb_kernel xpb_cuda_##name = {                                               \
        /* .op        = */ xpb_op_value,                                                          \
        /* .variant   = */ "cluster",                                                             \
        /* .precision = */ "fp32",                                                                \
        /* .supports  = */ name##_supports,                                                       \
        /* .prepare   = */ NULL,                                                                  \
        /* .release   = */ NULL,                                                                  \
        /* .launch    = */ name##_launch,                                                         \
    }

#endif
