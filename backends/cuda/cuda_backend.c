/* cuda_backend.c - the CUDA backend's table and its kernel list.
 *
 * Adding a kernel variant: write its .cu file (defining `extern "C" const xpb_kernel
 * xpb_cuda_<name>`) and add one X(xpb_cuda_<name>) line below; the build picks up the file. */
#include "cuda_backend.h"

#include <stddef.h>

/* Every kernel of this backend, in registration order (the first of an op is its default). */
#define XPB_CUDA_KERNELS(X)                                                                     \
    X(xpb_cuda_copy)                                                                            \
    X(xpb_cuda_add)                                                                             \
    X(xpb_cuda_mul)                                                                             \
    X(xpb_cuda_scale)                                                                           \
    X(xpb_cuda_relu)                                                                            \
    X(xpb_cuda_sigmoid)                                                                         \
    X(xpb_cuda_silu)                                                                            \
    X(xpb_cuda_softmax)                                                                         \
    X(xpb_cuda_rmsnorm)                                                                         \
    X(xpb_cuda_layernorm)                                                                       \
    X(xpb_cuda_softmax_cluster)                                                                 \
    X(xpb_cuda_rmsnorm_cluster)                                                                 \
    X(xpb_cuda_layernorm_cluster)                                                               \
    X(xpb_cuda_softmax_onchip)                                                                  \
    X(xpb_cuda_rmsnorm_onchip)                                                                  \
    X(xpb_cuda_layernorm_onchip)                                                                \
    X(xpb_cuda_softmax_regs)                                                                    \
    X(xpb_cuda_rmsnorm_regs)                                                                    \
    X(xpb_cuda_layernorm_regs)                                                                  \
    X(xpb_cuda_rope)                                                                            \
    X(xpb_cuda_gemm_cublas)                                                                     \
    X(xpb_cuda_gemm_cublas_tf32)                                                                \
    X(xpb_cuda_gemm_cublas_fp16)                                                                \
    X(xpb_cuda_gemm_tiled)                                                                      \
    X(xpb_cuda_gemv_cublas)                                                                     \
    X(xpb_cuda_gemv)                                                                            \
    X(xpb_cuda_anneal_init)                                                                     \
    X(xpb_cuda_anneal_assign)                                                                   \
    X(xpb_cuda_anneal_assign_tc)                                                                \
    X(xpb_cuda_anneal_stats)                                                                    \
    X(xpb_cuda_anneal_update)                                                                   \
    X(xpb_cuda_anneal_changes)                                                                  \
    X(xpb_cuda_anneal_search)                                                                   \
    X(xpb_cuda_burst_propagate)                                                                 \
    X(xpb_cuda_burst_dynamics)                                                                  \
    X(xpb_cuda_burst_compact)                                                                   \
    X(xpb_cuda_burst_batch)                                                                     \
    XPB_CUDA_GROUP_KERNELS(X)

/* The collectives (collectives.c) and the sharded workloads (gemm_sharded.c, burst_shard.cu,
 * burst_sharded.cu): on device groups,
 * built with NCCL only. */
#ifdef XPB_HAVE_NCCL
#define XPB_CUDA_GROUP_KERNELS(X)                                                               \
    X(xpb_cuda_all_reduce)                                                                      \
    X(xpb_cuda_all_gather)                                                                      \
    X(xpb_cuda_reduce_scatter)                                                                  \
    X(xpb_cuda_broadcast)                                                                       \
    X(xpb_cuda_all_to_all)                                                                      \
    X(xpb_cuda_sendrecv)                                                                        \
    X(xpb_cuda_all_reduce_inplace)                                                              \
    X(xpb_cuda_all_gather_inplace)                                                              \
    X(xpb_cuda_broadcast_inplace)                                                               \
    X(xpb_cuda_gemm_sharded)                                                                    \
    X(xpb_cuda_gemm_sharded_gather)                                                             \
    X(xpb_cuda_anneal_assign_sharded)                                                           \
    X(xpb_cuda_anneal_sharded)                                                                  \
    X(xpb_cuda_burst_shard)                                                                     \
    X(xpb_cuda_burst_sharded)
#else
#define XPB_CUDA_GROUP_KERNELS(X)
#endif

#define XPB_CUDA_DECLARE(k) extern const xpb_kernel k;
#define XPB_CUDA_ENTRY(k) &k,

XPB_CUDA_KERNELS(XPB_CUDA_DECLARE)

static const xpb_kernel *const kernels[] = {XPB_CUDA_KERNELS(XPB_CUDA_ENTRY) NULL};

const xpb_backend_i xpb_backend_cuda = {
    .name = "cuda",
    .probe = xpb_cuda_probe,
    .device_count = xpb_cuda_device_count,
    .device_info = xpb_cuda_device_info,
    .open = xpb_cuda_open,
    .close = xpb_cuda_close,
    .buffer_alloc = xpb_cuda_buffer_alloc,
    .buffer_free = xpb_cuda_buffer_free,
    .buffer_upload = xpb_cuda_buffer_upload,
    .buffer_download = xpb_cuda_buffer_download,
    .buffer_fill = xpb_cuda_buffer_fill,
    .synchronize = xpb_cuda_synchronize,
    .timer_begin = xpb_cuda_timer_begin,
    .timer_end = xpb_cuda_timer_end,
    .power_watts = xpb_cuda_power_watts,
    .conditions = xpb_cuda_conditions,
    .capture_begin = xpb_cuda_capture_begin,
    .capture_end = xpb_cuda_capture_end,
    .graph_launch = xpb_cuda_graph_launch,
    .graph_free = xpb_cuda_graph_free,
    .view_ptr = xpb_cuda_view_ptr,
    .native_queue = xpb_cuda_native_queue,
#ifdef XPB_HAVE_NCCL
    .buffer_upload_parts = xpb_cuda_buffer_upload_parts,
    .buffer_download_local = xpb_cuda_buffer_download_local,
    .launch_n = xpb_cuda_launch_n,
    .open_group = xpb_cuda_open_group,
    .group_info = xpb_cuda_group_info,
    .open_group_mpi = xpb_cuda_open_group_mpi,
    .group_rank_seconds = xpb_cuda_group_rank_seconds,
    .group_topology = xpb_cuda_group_topology,
    .group_transports = xpb_cuda_group_transports,
#endif
    .kernels = kernels,
};
