/* vk_device.c - open() and close(): a context owns an instance (with the validation layer when
 * XPB_VULKAN_VALIDATION is set), one logical device with one compute queue, the command buffer,
 * the timestamp pool, the staging buffer and the pipelines created on first use (vk_internal.h).
 *
 * Device extensions are enabled only when the device lists them (the loader hands out non-NULL
 * trampolines for missing ones): VK_KHR_push_descriptor (unless XPB_VULKAN_NO_PUSH_DESCRIPTOR=1,
 * which tests the descriptor-pool path), VK_KHR_portability_subset where it must be, and
 * VK_NV_cooperative_matrix / VK_KHR_cooperative_matrix with their features where vulkan/coopmat /
 * vulkan/coopmat-khr can use them (vk_coopmat.c).
 * XPB_VULKAN_MAX_GROUPS=N caps every grid at N workgroups, to exercise the kernels' grid-stride
 * loops on devices whose limit is never reached by the test sizes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"
#include "xpb_knob.h"

/* checked when the device opens (open_ctx) */
static bool push_descriptor_disabled(void) { return xpb_knob_choice_or_default(XPB_KNOB_VULKAN_NO_PUSH_DESCRIPTOR) == 1; }

/* The switches read where no status returns (a bool query): one set to a value it does not accept
 * fails the device's open, naming it, rather than being taken as off. */
static xpb_status check_switches(xpb_error *err)
{
    static const xpb_knob_id ids[] = {XPB_KNOB_VULKAN_VALIDATION, XPB_KNOB_VULKAN_NO_PUSH_DESCRIPTOR,
                                      XPB_KNOB_VULKAN_PIPELINE_STATS, XPB_KNOB_VULKAN_COOPMAT_EMULATE};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        xpb_status st = xpb_knob_check(ids[i], err);
        if (st)
            return st;
    }
    return XPB_OK;
}

/* The grid's cap: the device's limit, or XPB_VULKAN_MAX_GROUPS=N below it (to test the kernels'
 * grid-stride loops); a value that is not a positive integer is an error naming the knob. */
static xpb_status max_groups(const vkb_caps *caps, uint32_t *out, xpb_error *err)
{
    uint32_t max = caps->props.limits.maxComputeWorkGroupCount[0];
    long n = 0;
    xpb_status st = xpb_knob_get_long_or(XPB_KNOB_VULKAN_MAX_GROUPS, 0, &n, err);
    *out = n > 0 && (unsigned long)n < max ? (uint32_t)n : max;
    return st;
}

static xpb_status create_device(vkb_ctx *c, xpb_error *err)
{
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qi = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = c->caps.queue_family,
        .queueCount = 1,
        .pQueuePriorities = &priority,
    };
    const char *exts[8];
    uint32_t n_exts = 0;
    bool push = c->caps.ext_push_descriptor && !push_descriptor_disabled();
    if (push)
        exts[n_exts++] = VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME;
    if (c->caps.ext_portability_subset)
        exts[n_exts++] = "VK_KHR_portability_subset";
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR pe = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR,
        .pipelineExecutableInfo = VK_TRUE,
    };
    c->pipeline_stats = vkb_pipeline_stats_wanted() && c->caps.ext_pipeline_executable;
    if (vkb_pipeline_stats_wanted() && !c->pipeline_stats)
        fprintf(stderr, "XPB_VULKAN_PIPELINE_STATS: %s has no VK_KHR_pipeline_executable_properties\n",
                c->caps.props.deviceName);
    if (c->pipeline_stats)
        exts[n_exts++] = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
    /* vulkan/coopmat(-khr): VK_NV_ / VK_KHR_cooperative_matrix and the features their shaders
     * need, only where vkb_coopmat_query found them all (vk_coopmat.c). */
    /* 64-bit buffer atomics where the device has them (vulkan/onchip's tagged slots): the chain's
     * tail, kept by every retry below */
    VkPhysicalDeviceShaderAtomicInt64Features a64 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES,
        .shaderBufferInt64Atomics = VK_TRUE};
    const void *tail = c->caps.int64_atomics ? &a64 : NULL;
    vkb_coopmat_chain coopmat;
    const char *coopmat_ext[3];
    uint32_t n_coopmat_ext;
    const void *next = vkb_coopmat_chain_init(c, &coopmat, tail, coopmat_ext, &n_coopmat_ext);
    if (c->pipeline_stats) {
        pe.pNext = (void *)next;
        next = &pe;
    }
    for (uint32_t i = 0; i < n_coopmat_ext; i++)
        exts[n_exts++] = coopmat_ext[i];
    VkPhysicalDeviceFeatures features = {.shaderFloat64 = c->caps.float64,
                                         .shaderInt64 = c->caps.int64_atomics};
    VkDeviceCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = next,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &qi,
        .enabledExtensionCount = n_exts,
        .ppEnabledExtensionNames = exts,
        .pEnabledFeatures = &features,
    };
    VkResult r = vkCreateDevice(c->phys, &ci, NULL, &c->dev);
    if (r != VK_SUCCESS && r != VK_ERROR_DEVICE_LOST && c->coopmat.nv2) {
        /* vulkan/coopmat2 must not cost the other two: retry without VK_NV_cooperative_matrix2
         * (the last extension) and its features. */
        snprintf(c->coopmat.nv2_why, sizeof c->coopmat.nv2_why,
                 "vkCreateDevice failed with VK_NV_cooperative_matrix2 enabled (%s)", vkb_result_name(r));
        c->coopmat.nv2 = false;
        uint32_t n_left;
        next = vkb_coopmat_chain_init(c, &coopmat, tail, coopmat_ext, &n_left);
        pe.pNext = (void *)next;
        ci.pNext = c->pipeline_stats ? (const void *)&pe : next;
        ci.enabledExtensionCount = n_exts - n_coopmat_ext + n_left;
        n_exts = ci.enabledExtensionCount;
        n_coopmat_ext = n_left;
        r = vkCreateDevice(c->phys, &ci, NULL, &c->dev);
    }
    if (r != VK_SUCCESS && r != VK_ERROR_DEVICE_LOST && c->coopmat.nv && c->coopmat.khr) {
        /* Keep vulkan/coopmat exactly as it was before the KHR variant: retry with NV alone (KHR
         * is the last extension) and its chain. */
        snprintf(c->coopmat.khr_why, sizeof c->coopmat.khr_why,
                 "vkCreateDevice failed with VK_KHR_cooperative_matrix enabled next to the NV one (%s)",
                 vkb_result_name(r));
        c->coopmat.khr = false;
        uint32_t n_nv;
        next = vkb_coopmat_chain_init(c, &coopmat, tail, coopmat_ext, &n_nv);
        pe.pNext = (void *)next;
        ci.pNext = c->pipeline_stats ? (const void *)&pe : next;
        ci.enabledExtensionCount = n_exts - n_coopmat_ext + n_nv;
        n_exts = ci.enabledExtensionCount;
        n_coopmat_ext = n_nv;
        r = vkCreateDevice(c->phys, &ci, NULL, &c->dev);
    }
    if (r != VK_SUCCESS && r != VK_ERROR_DEVICE_LOST && n_coopmat_ext) {
        /* Never lose the whole backend to the coopmat variants: retry without their extensions
         * (the last ones) and features; they then report why they are unsupported. */
        if (c->coopmat.nv)
            snprintf(c->coopmat.why, sizeof c->coopmat.why,
                     "vkCreateDevice failed with VK_NV_cooperative_matrix enabled (%s)", vkb_result_name(r));
        if (c->coopmat.khr)
            snprintf(c->coopmat.khr_why, sizeof c->coopmat.khr_why,
                     "vkCreateDevice failed with VK_KHR_cooperative_matrix enabled (%s)", vkb_result_name(r));
        c->coopmat.nv = c->coopmat.khr = c->coopmat.nv2 = false;
        pe.pNext = (void *)tail;
        ci.pNext = c->pipeline_stats ? (const void *)&pe : tail;
        ci.enabledExtensionCount = n_exts - n_coopmat_ext;
        r = vkCreateDevice(c->phys, &ci, NULL, &c->dev);
    }
    if (r != VK_SUCCESS)
        return vkb_fail_vk(c, err, r, "vkCreateDevice(c->phys, &ci, NULL, &c->dev)", __FILE__, __LINE__);
    vkGetDeviceQueue(c->dev, c->caps.queue_family, 0, &c->queue);
    if (push) {
        c->push_descriptor = (PFN_vkCmdPushDescriptorSetKHR)vkGetDeviceProcAddr(
            c->dev, "vkCmdPushDescriptorSetKHR");
        if (!c->push_descriptor)
            return xpb_fail(err, XPB_ERR_RUNTIME,
                            "VK_KHR_push_descriptor is enabled but vkCmdPushDescriptorSetKHR is missing");
    }
    return XPB_OK;
}

static xpb_status open_ctx(vkb_ctx *c, int device, xpb_error *err)
{
    xpb_status st = check_switches(err);
    if (!st)
        st = vkb_instance_create(vkb_validation_requested(), &c->validation, &c->instance, &c->messenger, err);
    if (!st)
        st = vkb_physical_device(c->instance, device, &c->phys, &c->caps, err);
    if (st)
        return st;
    vkGetPhysicalDeviceMemoryProperties(c->phys, &c->mem_props);
    if ((st = max_groups(&c->caps, &c->max_groups, err)))
        return st;
    vkb_coopmat_query(c);
    if ((st = create_device(c, err)) || (st = vkb_cmd_init(c, err)) || (st = vkb_timer_init(c, err)))
        return st;
    return vkb_validation_check(&c->validation, err);
}

xpb_status vkb_open(int device, void **ctx, xpb_error *err)
{
    *ctx = NULL;
    vkb_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory for the Vulkan context");
    xpb_status st = open_ctx(c, device, err);
    if (st) {
        vkb_close(c);
        return st;
    }
    *ctx = c;
    return XPB_OK;
}

void vkb_close(void *ctx)
{
    vkb_ctx *c = ctx;
    if (!c)
        return;
    if (c->dev) {
        if (c->recording && !c->lost) {
            xpb_error ignored;
            vkb_cmd_submit_wait(c, &ignored);
        }
        vkDeviceWaitIdle(c->dev);
        vkb_captures_destroy(c); /* before the pipelines, buffers and command pool they name */
        vkb_buffers_sweep(c);
        vkb_pipelines_destroy(c);
        vkb_staging_destroy(c);
        vkb_timer_destroy(c);
        vkb_cmd_destroy(c);
        vkDestroyDevice(c->dev, NULL);
    }
    vkb_instance_destroy(c->instance, c->messenger);
    free(c);
}
