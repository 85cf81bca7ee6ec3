/* vk_instance.c - the Vulkan instance and the physical-device list: probe, device_count,
 * device_info, and finding device N again for open() (vk_internal.h).
 *
 * Device order: discrete GPUs, integrated, virtual, then CPU implementations (lavapipe), each
 * group in the loader's order; so vulkan:0 is the discrete GPU when there is one. Devices older
 * than Vulkan 1.2 or without a compute queue are left out.
 *
 * The list is read once per process by a short-lived instance (probe, device_count and
 * device_info take no context); open() creates its own instance and finds the same device by
 * its UUID. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"

#define VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"

/* ---- layers and instance extensions --------------------------------------------------------- */

static bool layer_available(const char *name)
{
    uint32_t n = 0;
    if (vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS || n == 0)
        return false;
    VkLayerProperties *p = calloc(n, sizeof *p);
    bool found = false;
    if (p && vkEnumerateInstanceLayerProperties(&n, p) >= VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++)
            found = strcmp(p[i].layerName, name) == 0;
    free(p);
    return found;
}

/* Is instance extension `name` provided by the implementation (layer NULL) or by `layer`? */
static bool instance_ext_available(const char *layer, const char *name)
{
    uint32_t n = 0;
    if (vkEnumerateInstanceExtensionProperties(layer, &n, NULL) != VK_SUCCESS || n == 0)
        return false;
    VkExtensionProperties *p = calloc(n, sizeof *p);
    bool found = false;
    if (p && vkEnumerateInstanceExtensionProperties(layer, &n, p) >= VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++)
            found = strcmp(p[i].extensionName, name) == 0;
    free(p);
    return found;
}

static xpb_status check_validation_layer(xpb_error *err)
{
    if (layer_available(VALIDATION_LAYER))
        return XPB_OK;
    return xpb_fail(err, XPB_ERR_UNAVAILABLE,
                    "XPB_VULKAN_VALIDATION is set but the Vulkan loader finds no %s (Debian/Ubuntu: "
                    "apt-get install vulkan-validationlayers, or point VK_LAYER_PATH at its manifest)",
                    VALIDATION_LAYER);
}

static uint32_t loader_version(void)
{
    PFN_vkEnumerateInstanceVersion fn =
        (PFN_vkEnumerateInstanceVersion)vkGetInstanceProcAddr(NULL, "vkEnumerateInstanceVersion");
    uint32_t v = VK_API_VERSION_1_0;
    if (fn && fn(&v) != VK_SUCCESS)
        v = VK_API_VERSION_1_0;
    return v;
}

xpb_status vkb_instance_create(bool validation, vkb_validation *rec, VkInstance *inst,
                               VkDebugUtilsMessengerEXT *messenger, xpb_error *err)
{
    *inst = VK_NULL_HANDLE;
    *messenger = VK_NULL_HANDLE;
    uint32_t loader = loader_version();
    if (loader < VK_API_VERSION_1_2)
        return xpb_fail(err, XPB_ERR_UNAVAILABLE,
                        "the Vulkan loader supports only Vulkan %u.%u; xpubench needs 1.2 or newer",
                        VK_API_VERSION_MAJOR(loader), VK_API_VERSION_MINOR(loader));
    xpb_status st;
    if (validation && (st = check_validation_layer(err)))
        return st;

    const char *layers[1];
    uint32_t n_layers = 0;
    if (validation)
        layers[n_layers++] = VALIDATION_LAYER;
    const char *exts[3];
    uint32_t n_exts = 0;
    bool env_layer = vkb_validation_in_env_layers();
    bool debug_utils =
        rec && (validation || env_layer) &&
        (instance_ext_available(NULL, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) ||
         (layer_available(VALIDATION_LAYER) &&
          instance_ext_available(VALIDATION_LAYER, VK_EXT_DEBUG_UTILS_EXTENSION_NAME)));
    if (debug_utils)
        exts[n_exts++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    /* Synchronization validation, when asked for and the layer offers VK_EXT_validation_features. */
    VkValidationFeatureEnableEXT sync_enable = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    VkValidationFeaturesEXT features = {
        .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
        .enabledValidationFeatureCount = 1,
        .pEnabledValidationFeatures = &sync_enable,
    };
    bool sync = validation && vkb_validation_sync_requested() &&
                instance_ext_available(VALIDATION_LAYER, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
    if (sync)
        exts[n_exts++] = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
    VkInstanceCreateFlags flags = 0;
    if (instance_ext_available(NULL, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
        exts[n_exts++] = VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME;
        flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
    }

    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "xpubench",
        .applicationVersion = 1,
        .pEngineName = "xpubench",
        .engineVersion = 1,
        .apiVersion = VK_API_VERSION_1_2,
    };
    VkDebugUtilsMessengerCreateInfoEXT mi;
    const void *next = sync ? &features : NULL;
    if (debug_utils) {
        vkb_validation_messenger_info(rec, &mi);
        mi.pNext = next;
        next = &mi;
    }
    VkInstanceCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = next, /* the messenger here also catches messages of vkCreateInstance itself */
        .flags = flags,
        .pApplicationInfo = &app,
        .enabledLayerCount = n_layers,
        .ppEnabledLayerNames = layers,
        .enabledExtensionCount = n_exts,
        .ppEnabledExtensionNames = exts,
    };
    VkResult r = vkCreateInstance(&ci, NULL, inst);
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
        return xpb_fail(err, XPB_ERR_UNAVAILABLE,
                        "no Vulkan loader/ICD: vkCreateInstance returned VK_ERROR_INCOMPATIBLE_DRIVER");
    if (r != VK_SUCCESS) {
        *inst = VK_NULL_HANDLE;
        return vkb_fail_vk(NULL, err, r, "vkCreateInstance(&ci, NULL, inst)", __FILE__, __LINE__);
    }

    if (debug_utils) {
        PFN_vkCreateDebugUtilsMessengerEXT create = (PFN_vkCreateDebugUtilsMessengerEXT)
            vkGetInstanceProcAddr(*inst, "vkCreateDebugUtilsMessengerEXT");
        if (!create) {
            vkDestroyInstance(*inst, NULL);
            *inst = VK_NULL_HANDLE;
            return xpb_fail(err, XPB_ERR_UNAVAILABLE, "VK_EXT_debug_utils has no vkCreateDebugUtilsMessengerEXT");
        }
        mi.pNext = NULL;
        r = create(*inst, &mi, NULL, messenger);
        if (r != VK_SUCCESS) {
            vkDestroyInstance(*inst, NULL);
            *inst = VK_NULL_HANDLE;
            *messenger = VK_NULL_HANDLE;
            return vkb_fail_vk(NULL, err, r, "vkCreateDebugUtilsMessengerEXT(*inst, &mi, NULL, messenger)",
                               __FILE__, __LINE__);
        }
    }
    return XPB_OK;
}

void vkb_instance_destroy(VkInstance inst, VkDebugUtilsMessengerEXT messenger)
{
    if (!inst)
        return;
    if (messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy = (PFN_vkDestroyDebugUtilsMessengerEXT)
            vkGetInstanceProcAddr(inst, "vkDestroyDebugUtilsMessengerEXT");
        if (destroy)
            destroy(inst, messenger, NULL);
    }
    vkDestroyInstance(inst, NULL);
}

/* ---- one physical device ---------------------------------------------------------------------- */

static bool ext_listed(const VkExtensionProperties *e, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(e[i].extensionName, name) == 0)
            return true;
    return false;
}

static void query_properties(VkPhysicalDevice pd, vkb_caps *c, bool size_control, bool sm_builtins)
{
    VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
    VkPhysicalDeviceSubgroupSizeControlPropertiesEXT ssc = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES_EXT,
        .pNext = sm_builtins ? &sm : NULL};
    VkPhysicalDeviceMaintenance3Properties m3 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES,
        .pNext = size_control ? (void *)&ssc : sm_builtins ? (void *)&sm : NULL};
    VkPhysicalDeviceSubgroupProperties sg = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES, .pNext = &m3};
    VkPhysicalDeviceDriverProperties drv = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES, .pNext = &sg};
    VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES,
                                       .pNext = &drv};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                      .pNext = &id};
    vkGetPhysicalDeviceProperties2(pd, &p2);

    c->props = p2.properties;
    memcpy(c->uuid, id.deviceUUID, sizeof c->uuid);
    snprintf(c->driver_name, sizeof c->driver_name, "%s", drv.driverName);
    snprintf(c->driver_info, sizeof c->driver_info, "%s", drv.driverInfo);
    c->max_alloc_bytes = m3.maxMemoryAllocationSize;
    c->subgroup_size = sg.subgroupSize;
    c->min_subgroup_size = size_control && ssc.minSubgroupSize ? ssc.minSubgroupSize : sg.subgroupSize;
    VkSubgroupFeatureFlags need = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
    c->subgroup_arithmetic = (sg.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                             (sg.supportedOperations & need) == need;
    VkSubgroupFeatureFlags shuffle = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
    c->subgroup_shuffle = (sg.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                          (sg.supportedOperations & shuffle) == shuffle;
    c->sm_count = sm_builtins ? sm.shaderSMCount : 0;
}

static void query_memory_and_queues(VkPhysicalDevice pd, vkb_caps *c, bool *has_compute)
{
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(pd, &mp);
    for (uint32_t i = 0; i < mp.memoryHeapCount; i++)
        if ((mp.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) &&
            mp.memoryHeaps[i].size > c->device_local_bytes)
            c->device_local_bytes = mp.memoryHeaps[i].size;

    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, NULL);
    VkQueueFamilyProperties *q = calloc(n ? n : 1, sizeof *q);
    *has_compute = false;
    if (!q)
        return;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, q);
    /* The first compute family with timestamps; else the first compute family. */
    for (int pass = 0; pass < 2 && !*has_compute; pass++)
        for (uint32_t i = 0; i < n && !*has_compute; i++)
            if ((q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && q[i].queueCount > 0 &&
                (pass == 1 || q[i].timestampValidBits > 0)) {
                c->queue_family = i;
                c->timestamp_valid_bits = q[i].timestampValidBits;
                *has_compute = true;
            }
    free(q);
}

/* Fills c; *usable is false for a device older than Vulkan 1.2 or without a compute queue. */
static xpb_status query_caps(VkPhysicalDevice pd, vkb_caps *c, bool *usable, xpb_error *err)
{
    memset(c, 0, sizeof *c);
    *usable = false;
    vkGetPhysicalDeviceProperties(pd, &c->props);
    if (c->props.apiVersion < VK_API_VERSION_1_2)
        return XPB_OK;

    uint32_t n = 0;
    VK_CHECK(NULL, err, vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL));
    VkExtensionProperties *e = calloc(n ? n : 1, sizeof *e);
    if (!e)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory listing device extensions");
    VkResult r = vkEnumerateDeviceExtensionProperties(pd, NULL, &n, e);
    if (r < VK_SUCCESS) {
        free(e);
        return vkb_fail_vk(NULL, err, r, "vkEnumerateDeviceExtensionProperties(pd, NULL, &n, e)",
                           __FILE__, __LINE__);
    }
    bool size_control = ext_listed(e, n, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
    bool sm_builtins = ext_listed(e, n, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
    c->ext_push_descriptor = ext_listed(e, n, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    c->ext_portability_subset = ext_listed(e, n, "VK_KHR_portability_subset");
    c->ext_pipeline_executable = ext_listed(e, n, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    free(e);

    query_properties(pd, c, size_control, sm_builtins);
    VkPhysicalDeviceFeatures f;
    vkGetPhysicalDeviceFeatures(pd, &f);
    c->float64 = f.shaderFloat64;
    if (c->props.apiVersion >= VK_API_VERSION_1_2) { /* 64-bit buffer atomics: onchip's tagged slots */
        VkPhysicalDeviceShaderAtomicInt64Features a64 = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES};
        VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &a64};
        vkGetPhysicalDeviceFeatures2(pd, &f2);
        c->int64_atomics = f.shaderInt64 && a64.shaderBufferInt64Atomics;
    }
    query_memory_and_queues(pd, c, usable);
    return XPB_OK;
}

/* ---- the ordered list ------------------------------------------------------------------------ */

typedef struct device_list {
    int count, skipped;
    VkPhysicalDevice pd[VKB_MAX_DEVICES];
    vkb_caps caps[VKB_MAX_DEVICES];
} device_list;

static int type_rank(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
    default: return 4;
    }
}

static xpb_status enumerate(VkInstance inst, device_list *l, xpb_error *err)
{
    VkPhysicalDevice all[VKB_MAX_DEVICES];
    uint32_t n = VKB_MAX_DEVICES;
    VkResult r = vkEnumeratePhysicalDevices(inst, &n, all);
    memset(l, 0, sizeof *l);
    if (r == VK_ERROR_INITIALIZATION_FAILED) /* what the loader says when its ICDs find no device */
        return xpb_fail(err, XPB_ERR_UNAVAILABLE, "no Vulkan device with a compute queue "
                        "(vkEnumeratePhysicalDevices returned VK_ERROR_INITIALIZATION_FAILED)");
    if (r < VK_SUCCESS)
        return vkb_fail_vk(NULL, err, r, "vkEnumeratePhysicalDevices(inst, &n, all)", __FILE__, __LINE__);
    for (uint32_t i = 0; i < n; i++) {
        vkb_caps c;
        bool usable;
        xpb_status st = query_caps(all[i], &c, &usable, err);
        if (st)
            return st;
        if (!usable) {
            l->skipped++;
            continue;
        }
        /* Insert after every device of the same or a better rank: stable by type. */
        int at = l->count;
        while (at > 0 && type_rank(l->caps[at - 1].props.deviceType) > type_rank(c.props.deviceType)) {
            l->caps[at] = l->caps[at - 1];
            l->pd[at] = l->pd[at - 1];
            at--;
        }
        l->caps[at] = c;
        l->pd[at] = all[i];
        l->count++;
    }
    return XPB_OK;
}

/* The list probe() saw, kept for the process (the interface's device queries have no context). */
static struct {
    bool done, ok;
    xpb_error why;
    uint32_t loader;
    int count;
    vkb_caps caps[VKB_MAX_DEVICES];
} registry;

static void registry_init(void)
{
    if (registry.done)
        return;
    registry.done = true;
    registry.loader = loader_version();
    if (vkb_validation_requested() && check_validation_layer(&registry.why))
        return;
    VkInstance inst;
    VkDebugUtilsMessengerEXT messenger;
    if (vkb_instance_create(false, NULL, &inst, &messenger, &registry.why))
        return;
    device_list *l = malloc(sizeof *l);
    if (!l) {
        xpb_fail(&registry.why, XPB_ERR_OUT_OF_MEMORY, "out of host memory");
    } else if (enumerate(inst, l, &registry.why) == XPB_OK) {
        registry.count = l->count;
        memcpy(registry.caps, l->caps, sizeof l->caps);
        if (l->count > 0)
            registry.ok = true;
        else if (l->skipped > 0)
            xpb_fail(&registry.why, XPB_ERR_UNAVAILABLE,
                     "no Vulkan device with a compute queue (%d device(s) older than Vulkan 1.2 or "
                     "without one)", l->skipped);
        else
            xpb_fail(&registry.why, XPB_ERR_UNAVAILABLE, "no Vulkan device with a compute queue");
    }
    free(l);
    vkb_instance_destroy(inst, messenger);
}

bool vkb_probe(xpb_error *why)
{
    registry_init();
    if (!registry.ok && why)
        *why = registry.why;
    return registry.ok;
}

int vkb_device_count(void)
{
    registry_init();
    return registry.ok ? registry.count : 0;
}

xpb_status vkb_physical_device(VkInstance inst, int device, VkPhysicalDevice *pd, vkb_caps *caps,
                               xpb_error *err)
{
    registry_init();
    if (!registry.ok)
        return xpb_fail(err, XPB_ERR_UNAVAILABLE, "%s", registry.why.msg);
    if (device < 0 || device >= registry.count)
        return xpb_fail(err, XPB_ERR_USAGE, "no Vulkan device %d (this machine has %d)", device,
                        registry.count);
    device_list *l = malloc(sizeof *l);
    if (!l)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory");
    xpb_status st = enumerate(inst, l, err);
    int found = -1;
    for (int i = 0; !st && i < l->count && found < 0; i++)
        if (memcmp(l->caps[i].uuid, registry.caps[device].uuid, VK_UUID_SIZE) == 0)
            found = i;
    if (!st && found < 0)
        st = xpb_fail(err, XPB_ERR_UNAVAILABLE, "Vulkan device %d (%s) is no longer listed", device,
                      registry.caps[device].props.deviceName);
    if (!st) {
        *pd = l->pd[found];
        *caps = l->caps[found];
    }
    free(l);
    return st;
}

/* ---- device_info ------------------------------------------------------------------------------- */

static void format_version(char *out, size_t size, uint32_t v)
{
    snprintf(out, size, "%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
             VK_API_VERSION_PATCH(v));
}

/* driverVersion is vendor-encoded: NVIDIA packs 10.8.8.6 bits; others follow VK_MAKE_VERSION. */
static void format_driver(const vkb_caps *c, char *out, size_t size)
{
    uint32_t v = c->props.driverVersion;
    char decoded[64];
    if (c->props.vendorID == 0x10DE)
        snprintf(decoded, sizeof decoded, "%u.%u.%u.%u", (v >> 22) & 0x3ff, (v >> 14) & 0xff,
                 (v >> 6) & 0xff, v & 0x3f);
    else
        format_version(decoded, sizeof decoded, v);
    if (c->driver_name[0] && c->driver_info[0])
        snprintf(out, size, "%s %s", c->driver_name, c->driver_info);
    else if (c->driver_name[0])
        snprintf(out, size, "%s %s", c->driver_name, decoded);
    else
        snprintf(out, size, "%s", decoded);
}

xpb_status vkb_device_info(int device, xpb_device_info *out, xpb_error *err)
{
    registry_init();
    if (!registry.ok)
        return xpb_fail(err, XPB_ERR_UNAVAILABLE, "%s", registry.why.msg);
    if (device < 0 || device >= registry.count)
        return xpb_fail(err, XPB_ERR_USAGE, "no Vulkan device %d (this machine has %d)", device,
                        registry.count);
    const vkb_caps *c = &registry.caps[device];
    char api[32], loader[32];
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", c->props.deviceName);
    format_driver(c, out->driver, sizeof out->driver);
    format_version(api, sizeof api, c->props.apiVersion);
    format_version(loader, sizeof loader, registry.loader);
    snprintf(out->runtime, sizeof out->runtime, "Vulkan %s (loader %s)", api, loader);
    snprintf(out->timer, sizeof out->timer, "%s",
             c->timestamp_valid_bits ? "vulkan-timestamps" : "host-clock (queue has no timestamps)");
    out->memory_bytes = c->device_local_bytes;
    out->max_buffer_bytes = c->props.limits.maxStorageBufferRange;
    out->compute_units = (int)c->sm_count;
    out->is_gpu = c->props.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU;
    out->is_software = c->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    return XPB_OK;
}
