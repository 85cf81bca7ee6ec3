/* vk_result.c - VkResult to xpb_status, and the message VK_CHECK writes (vk_internal.h). */
#include <stdio.h>
#include <string.h>

#include "vk_internal.h"

const char *vkb_result_name(VkResult r)
{
    switch (r) {
#define VKB_NAME(x) case x: return #x;
    VKB_NAME(VK_SUCCESS)
    VKB_NAME(VK_NOT_READY)
    VKB_NAME(VK_TIMEOUT)
    VKB_NAME(VK_INCOMPLETE)
    VKB_NAME(VK_ERROR_OUT_OF_HOST_MEMORY)
    VKB_NAME(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    VKB_NAME(VK_ERROR_INITIALIZATION_FAILED)
    VKB_NAME(VK_ERROR_DEVICE_LOST)
    VKB_NAME(VK_ERROR_MEMORY_MAP_FAILED)
    VKB_NAME(VK_ERROR_LAYER_NOT_PRESENT)
    VKB_NAME(VK_ERROR_EXTENSION_NOT_PRESENT)
    VKB_NAME(VK_ERROR_FEATURE_NOT_PRESENT)
    VKB_NAME(VK_ERROR_INCOMPATIBLE_DRIVER)
    VKB_NAME(VK_ERROR_TOO_MANY_OBJECTS)
    VKB_NAME(VK_ERROR_FORMAT_NOT_SUPPORTED)
    VKB_NAME(VK_ERROR_FRAGMENTED_POOL)
    VKB_NAME(VK_ERROR_UNKNOWN)
    VKB_NAME(VK_ERROR_OUT_OF_POOL_MEMORY)
    VKB_NAME(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    VKB_NAME(VK_ERROR_FRAGMENTATION)
    VKB_NAME(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    VKB_NAME(VK_PIPELINE_COMPILE_REQUIRED)
    VKB_NAME(VK_ERROR_VALIDATION_FAILED_EXT)
    VKB_NAME(VK_ERROR_INVALID_SHADER_NV)
#undef VKB_NAME
    default: break;
    }
    static _Thread_local char buf[32];
    snprintf(buf, sizeof buf, "VkResult %d", (int)r);
    return buf;
}

xpb_status vkb_result_status(VkResult r)
{
    switch (r) {
    case VK_SUCCESS: return XPB_OK;
    case VK_ERROR_DEVICE_LOST: return XPB_ERR_DEVICE_LOST;
    case VK_ERROR_OUT_OF_HOST_MEMORY:
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    case VK_ERROR_TOO_MANY_OBJECTS: return XPB_ERR_OUT_OF_MEMORY;
    case VK_ERROR_INCOMPATIBLE_DRIVER:
    case VK_ERROR_INITIALIZATION_FAILED: return XPB_ERR_UNAVAILABLE;
    default: return XPB_ERR_RUNTIME;
    }
}

/* "backends/vulkan/runtime/vk_buffer.c" rather than the build machine's absolute path. */
static const char *short_path(const char *file)
{
    const char *p = strstr(file, "backends/vulkan/");
    return p ? p : file;
}

xpb_status vkb_fail_vk(vkb_ctx *ctx, xpb_error *err, VkResult r, const char *expr,
                       const char *file, int line)
{
    if (ctx && r == VK_ERROR_DEVICE_LOST)
        ctx->lost = true;
    return xpb_fail(err, vkb_result_status(r), "%s failed: %s (%s:%d)", expr, vkb_result_name(r),
                    short_path(file), line);
}
