/* cuda_rowop_cluster.cuh - the "cluster" variant of the row ops (softmax, rmsnorm, layernorm):
 * one row per thread-block cluster, held in the cluster's distributed shared memory, so a row
 * too long for one SM (2^18 floats = 1 MiB) is read from memory once and written once, where
 * the default variant's streamed rows read it twice (cuda_rowop.cuh). Hopper (sm_90) and later.
 *
 * The cluster's CS blocks split the row into CS chunks of `chunk` floats. Each block loads its
 * chunk into shared memory while folding it into the policy's streamed State (init, accum,
 * merge: the same statistics, and so the same error bounds, as the default variant's streamed
 * rows), reduces the State over the block, and publishes it. After a cluster barrier every
 * block merges the CS partial States in rank order through distributed shared memory (the same
 * order in every block, so every block gets the same r1, r2), and writes its chunk from shared
 * memory. A second barrier keeps every block resident until all have read its partial.
 *
 * Shape: the smallest power-of-two CS (<= 16; above 8 is a non-portable cluster size) whose
 * chunk fits XPB_ROWOP_CLUSTER_CHUNK bytes, else CS = 8 or 16 with up to the opt-in shared
 * memory per block; the first shape of which the device can keep a cluster resident
 * (cudaOccupancyMaxActiveClusters) wins. One cluster per row, all rows launched at once, so
 * clusters at different phases (loading, writing) share the SMs. */
#ifndef XPB_CUDA_ROWOP_CLUSTER_CUH
#define XPB_CUDA_ROWOP_CLUSTER_CUH

#include <cooperative_groups.h>

#include "cuda_rowop.cuh"

#define XPB_ROWOP_CLUSTER_BLOCK 512
#define XPB_ROWOP_CLUSTER_MAX 16
/* Shared memory per block wanted: small enough for 3 blocks an SM (227 KB on Hopper; 512
 * threads a block, so 3 blocks fit the 2048 threads of an SM as well). */
#define XPB_ROWOP_CLUSTER_CHUNK (64 * 1024)

template <class Op, bool VEC>
__global__ void __launch_bounds__(XPB_ROWOP_CLUSTER_BLOCK) xpb_rowop_cluster_kernel(xpb_rowop_ptrs p, int chunk)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    namespace cg = cooperative_groups;
    typedef typename Op::State State;
    constexpr int BLOCK = XPB_ROWOP_CLUSTER_BLOCK;
    constexpr int PACK = VEC ? 4 : 1;
    extern __shared__ float4 xpb_cluster_smem[];
    float *held = reinterpret_cast<float *>(xpb_cluster_smem);
    __shared__ State red[32];
    __shared__ State part;

    cg::cluster_group cluster = cg::this_cluster();
    const int rank = (int)cluster.block_rank();
    const int cs = (int)cluster.num_blocks();
    const int64_t clusters = gridDim.x / cs;
    const int cols = p.cols;
    const int lo = rank * chunk;
    const int n = lo < cols ? min(chunk, cols - lo) : 0; /* chunk % PACK == 0, so n % PACK == 0 */
    const int packs = n / PACK;

    for (int64_t row = blockIdx.x / cs; row < p.rows; row += clusters) {
        const float *xr = p.x + row * (int64_t)cols;
        float *yr = p.y + row * (int64_t)cols;

        /* load this block's chunk into shared memory, folding it into the statistics */
        State st = Op::init(xr);
        xpb_rowop_fold<Op, BLOCK, PACK, true>(xr + lo, packs, st, held);
        st = xpb_block_allreduce(st, typename Op::Merge(), Op::init(xr), red);
        if (threadIdx.x == 0)
            part = st;

        /* every block's partial is published: merge them in rank order */
        cluster.sync();
        State all = *cluster.map_shared_rank(&part, 0);
        for (int r = 1; r < cs; r++)
            all = typename Op::Merge()(all, *cluster.map_shared_rank(&part, r));
        float r1, r2;
        Op::finish(all, p, &r1, &r2);
        /* every block has read every partial: `part` may change for the next row, and no block
         * leaves while another still reads its shared memory */
        cluster.sync();

        /* write the chunk from shared memory (each thread reads the packs it stored) */
        for (int i = threadIdx.x; i < packs; i += BLOCK)
            xpb_rowop_out_from<Op, PACK>(p, held + i * PACK, yr, lo + i * PACK, r1, r2);
    }
#else
    (void)p;
    (void)chunk;
#endif
}

/* A cluster shape: CS blocks of `chunk` floats (a multiple of 4). */
struct xpb_rowop_cluster_shape {
    int cs, chunk;
};

/* Picks the shape for rows of p.cols floats (top of this file), or fails with
 * XPB_ERR_UNSUPPORTED and the reason: a GPU before sm_90, or a row that no resident cluster
 * can hold. Sets the kernel's shared-memory and cluster-size attributes for the shape. */
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
    /* room for the static shared memory (red, part) */
    const int64_t max_chunk = ((int64_t)optin - 33 * (int64_t)sizeof(typename Op::State) - 256) / 4 & ~(int64_t)3;
    auto kernel = xpb_rowop_cluster_kernel<Op, VEC>;
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
        XPB_CUDA_CHECK(err, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        XPB_CUDA_CHECK(err, cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed,
                                                 tries[t].cs > 8 ? 1 : 0));
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = (unsigned)tries[t].cs;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.gridDim = dim3((unsigned)tries[t].cs);
        cfg.blockDim = dim3(XPB_ROWOP_CLUSTER_BLOCK);
        cfg.dynamicSmemBytes = smem;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        int resident = 0;
        XPB_CUDA_CHECK(err, cudaOccupancyMaxActiveClusters(&resident, kernel, &cfg));
        if (resident > 0) {
            *shape = last_shape = {tries[t].cs, (int)chunk};
            last_device = ctx->device;
            last_cols = cols;
            return XPB_OK;
        }
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
    cudaError_t e = cudaLaunchKernelEx(&cfg, xpb_rowop_cluster_kernel<Op, VEC>, p, shape.chunk);
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
    if (a->rows <= 0 || a->cols <= 0 || a->cols > XPB_ROWOP_MAX_COLS)
        return XPB_OK; /* launch reports bad sizes as the default variant does */
    xpb_status st = xpb_cuda_activate(ctx, why);
    if (st != XPB_OK)
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
