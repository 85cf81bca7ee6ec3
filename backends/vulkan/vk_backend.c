/* vk_backend.c - the Vulkan backend's table and kernel list (README.md).
 *
 * Adding a kernel variant: shaders/<name>.comp + <name>.c defining an xpb_kernel (both
 * found by CMakeLists.txt's globs), its extern in vk_ops.h and one line below. */
#include "vk_ops.h"

static const xpb_kernel *const kernels[] = {
    &xpb_vulkan_copy,
    &xpb_vulkan_add,
    &xpb_vulkan_mul,
    &xpb_vulkan_scale,
    &xpb_vulkan_relu,
    &xpb_vulkan_sigmoid,
    &xpb_vulkan_silu,
    &xpb_vulkan_softmax,
    &xpb_vulkan_rmsnorm,
    &xpb_vulkan_layernorm,
    &xpb_vulkan_layernorm_f64,
    &xpb_vulkan_softmax_l2,
    &xpb_vulkan_rmsnorm_l2,
    &xpb_vulkan_layernorm_l2,
    &xpb_vulkan_softmax_onchip,
    &xpb_vulkan_rmsnorm_onchip,
    &xpb_vulkan_layernorm_onchip,
    &xpb_vulkan_rope,
    &xpb_vulkan_gemm_tiled,
    &xpb_vulkan_gemm_coopmat,
    &xpb_vulkan_gemm_coopmat_khr,
    &xpb_vulkan_gemm_coopmat2,
    &xpb_vulkan_gemv,
    &xpb_vulkan_anneal_init,
    &xpb_vulkan_anneal_assign,
    &xpb_vulkan_anneal_stats,
    &xpb_vulkan_anneal_update,
    &xpb_vulkan_anneal_changes,
    &xpb_vulkan_anneal_search,
    &xpb_vulkan_burst_propagate,
    &xpb_vulkan_burst_dynamics,
    &xpb_vulkan_burst_compact,
    &xpb_vulkan_burst_batch,
    NULL,
};

const xpb_backend_i xpb_backend_vulkan = {
    .name = "vulkan",
    .probe = vkb_probe,
    .device_count = vkb_device_count,
    .device_info = vkb_device_info,
    .open = vkb_open,
    .close = vkb_close,
    .buffer_alloc = vkb_buffer_alloc,
    .buffer_free = vkb_buffer_free,
    .buffer_upload = vkb_buffer_upload,
    .buffer_download = vkb_buffer_download,
    .synchronize = vkb_synchronize,
    .timer_begin = vkb_timer_begin,
    .timer_end = vkb_timer_end,
    .kernels = kernels,
};
