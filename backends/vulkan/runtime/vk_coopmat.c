/* vk_coopmat.c - does the device have the cooperative matrices vulkan/coopmat (NV),
 * vulkan/coopmat-khr (KHR) and vulkan/coopmat2 (NV2, on top of KHR) need, and the feature structures
 * that enable them at device creation (vk_internal.h). vulkan/coopmat2 needs VK_NV_cooperative_matrix2
 * with cooperativeMatrixWorkgroupScope, -TensorAddressing and -FlexibleDimensions, a workgroup-scope
 * fp16 x fp16 + fp32 -> fp32 flexible shape (vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensions-
 * PropertiesNV) and storageBuffer16BitAccess (its shader reads fp16 buffers), besides what KHR needs.
 *
 * vulkan/coopmat is written in GLSL with GL_NV_cooperative_matrix: Debian 12's glslc (glslang
 * 11.13) has no GLSL for GL_KHR_cooperative_matrix, and its Vulkan headers (1.3.239) lack the KHR
 * structures. So the kernel needs, on the device:
 *   VK_NV_cooperative_matrix, its cooperativeMatrix feature, compute among
 *   cooperativeMatrixSupportedStages, and a subgroup-scope fp16 x fp16 + fp32 -> fp32 shape of
 *   16 x 16 x 16 (vkGetPhysicalDeviceCooperativeMatrixPropertiesNV);
 *   shaderFloat16 (the fp16 matrix type) and vulkanMemoryModel (GL_NV_cooperative_matrix works
 *   under the Vulkan memory model);
 *   subgroups of 32 (the kernel gives each subgroup a 32-lane share of the tile).
 * vulkan/coopmat-khr is GLSL with GL_KHR_cooperative_matrix (compiled by glslangValidator >= 13) and
 * needs the same from VK_KHR_cooperative_matrix (structures from vk_khr_compat.h where the headers
 * are older): its cooperativeMatrix feature, compute among cooperativeMatrixSupportedStages, a
 * subgroup-scope fp16 x fp16 + fp32 -> fp32 16x16x16 shape
 * (vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR), shaderFloat16, vulkanMemoryModel (glslang
 * emits the Vulkan memory model for it) and subgroups of 32. Each extension is enabled on its own:
 * the NV checks are exactly what they were before the KHR variant.
 * The extensions' functions are looked up only when the device lists them: the loader returns a
 * non-NULL trampoline for a missing one, and lavapipe crashes when it is called. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"

#define KHR_COOPMAT VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME

static void list_extensions(VkPhysicalDevice pd, bool *nv, bool *khr, bool *nv2)
{
    uint32_t n = 0;
    *nv = *khr = *nv2 = false;
    if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS || n == 0)
        return;
    VkExtensionProperties *e = calloc(n, sizeof *e);
    if (e && vkEnumerateDeviceExtensionProperties(pd, NULL, &n, e) >= VK_SUCCESS)
        for (uint32_t i = 0; i < n; i++) {
            *nv = *nv || strcmp(e[i].extensionName, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME) == 0;
            *khr = *khr || strcmp(e[i].extensionName, KHR_COOPMAT) == 0;
            *nv2 = *nv2 || strcmp(e[i].extensionName, VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME) == 0;
        }
    free(e);
}

/* Is there a subgroup fp16 x fp16 + fp32 -> fp32 16x16x16 shape? Lists the fp16 shapes in `seen`. */
static bool has_shape(const vkb_ctx *c, char *seen, size_t seen_size)
{
    PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV get =
        (PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV)vkGetInstanceProcAddr(
            c->instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV");
    uint32_t n = 0;
    snprintf(seen, seen_size, "none");
    if (!get || get(c->phys, &n, NULL) != VK_SUCCESS || n == 0)
        return false;
    VkCooperativeMatrixPropertiesNV *p = calloc(n, sizeof *p);
    if (!p)
        return false;
    seen[0] = '\0';
    for (uint32_t i = 0; i < n; i++)
        p[i].sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV;
    bool found = false;
    size_t len = 0;
    if (get(c->phys, &n, p) >= VK_SUCCESS)
        for (uint32_t i = 0; i < n; i++) {
            const VkCooperativeMatrixPropertiesNV *q = &p[i];
            if (q->AType != VK_COMPONENT_TYPE_FLOAT16_NV || q->BType != VK_COMPONENT_TYPE_FLOAT16_NV)
                continue;
            if (len + 32 < seen_size)
                len += (size_t)snprintf(seen + len, seen_size - len, "%s%ux%ux%u->%s", len ? ", " : "",
                                        q->MSize, q->NSize, q->KSize,
                                        q->DType == VK_COMPONENT_TYPE_FLOAT32_NV ? "fp32" : "fp16");
            found = found || (q->MSize == 16 && q->NSize == 16 && q->KSize == 16 &&
                              q->CType == VK_COMPONENT_TYPE_FLOAT32_NV &&
                              q->DType == VK_COMPONENT_TYPE_FLOAT32_NV && q->scope == VK_SCOPE_SUBGROUP_NV);
        }
    free(p);
    if (!len)
        snprintf(seen, seen_size, "none");
    return found;
}

/* has_shape for VK_KHR_cooperative_matrix. Call only when the device lists the extension. */
static bool has_shape_khr(const vkb_ctx *c, char *seen, size_t seen_size)
{
    PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR get =
        (PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR)vkGetInstanceProcAddr(
            c->instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR");
    uint32_t n = 0;
    snprintf(seen, seen_size, "none");
    if (!get || get(c->phys, &n, NULL) != VK_SUCCESS || n == 0)
        return false;
    VkCooperativeMatrixPropertiesKHR *p = calloc(n, sizeof *p);
    if (!p)
        return false;
    seen[0] = '\0';
    for (uint32_t i = 0; i < n; i++)
        p[i].sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR;
    bool found = false;
    size_t len = 0;
    if (get(c->phys, &n, p) >= VK_SUCCESS)
        for (uint32_t i = 0; i < n; i++) {
            const VkCooperativeMatrixPropertiesKHR *q = &p[i];
            if (q->AType != VK_COMPONENT_TYPE_FLOAT16_KHR || q->BType != VK_COMPONENT_TYPE_FLOAT16_KHR)
                continue;
            if (len + 32 < seen_size)
                len += (size_t)snprintf(seen + len, seen_size - len, "%s%ux%ux%u->%s", len ? ", " : "",
                                        q->MSize, q->NSize, q->KSize,
                                        q->ResultType == VK_COMPONENT_TYPE_FLOAT32_KHR ? "fp32" : "fp16");
            found = found || (q->MSize == 16 && q->NSize == 16 && q->KSize == 16 &&
                              q->CType == VK_COMPONENT_TYPE_FLOAT32_KHR &&
                              q->ResultType == VK_COMPONENT_TYPE_FLOAT32_KHR &&
                              q->scope == VK_SCOPE_SUBGROUP_KHR && !q->saturatingAccumulation);
        }
    free(p);
    if (!len)
        snprintf(seen, seen_size, "none");
    return found;
}

/* Fills m->khr / m->khr_why. f16 and mm were read from the device already. */
static void query_khr(vkb_ctx *c, const VkPhysicalDeviceShaderFloat16Int8Features *f16,
                      const VkPhysicalDeviceVulkanMemoryModelFeatures *mm)
{
    vkb_coopmat *m = &c->coopmat;
    if (!m->khr_listed) {
        snprintf(m->khr_why, sizeof m->khr_why, "device has no VK_KHR_cooperative_matrix");
        return;
    }
    /* A validation layer older than the extension (Debian 12's is 1.3.239) rejects its structures
     * in the feature and property queries as errors and its enabling as a warning, either of which
     * fails every case: the variant then stays off, validated without the layer instead. */
    uint32_t layer = vkb_validation_layer_spec();
    if (layer && layer < VK_MAKE_API_VERSION(0, 1, 3, 255)) {
        snprintf(m->khr_why, sizeof m->khr_why,
                 "the validation layer in use (%u.%u.%u) predates VK_KHR_cooperative_matrix (1.3.255) "
                 "and rejects its structures; run without XPB_VULKAN_VALIDATION",
                 VK_API_VERSION_MAJOR(layer), VK_API_VERSION_MINOR(layer), VK_API_VERSION_PATCH(layer));
        return; /* m->khr stays false: vk_device.c does not enable the extension either */
    }
    VkPhysicalDeviceCooperativeMatrixFeaturesKHR cm = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &cm};
    vkGetPhysicalDeviceFeatures2(c->phys, &f2);
    VkPhysicalDeviceCooperativeMatrixPropertiesKHR cp = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_PROPERTIES_KHR};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &cp};
    vkGetPhysicalDeviceProperties2(c->phys, &p2);

    char seen[160];
    if (!cm.cooperativeMatrix || !(cp.cooperativeMatrixSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT))
        snprintf(m->khr_why, sizeof m->khr_why,
                 "VK_KHR_cooperative_matrix is listed but not usable in compute shaders");
    else if (!f16->shaderFloat16 || !mm->vulkanMemoryModel || !mm->vulkanMemoryModelDeviceScope)
        snprintf(m->khr_why, sizeof m->khr_why, "device has VK_KHR_cooperative_matrix but no %s",
                 !f16->shaderFloat16 ? "shaderFloat16"
                 : !mm->vulkanMemoryModel ? "vulkanMemoryModel" : "vulkanMemoryModelDeviceScope");
    else if (!has_shape_khr(c, seen, sizeof seen))
        snprintf(m->khr_why, sizeof m->khr_why,
                 "VK_KHR_cooperative_matrix has no subgroup fp16 x fp16 + fp32 16x16x16 shape "
                 "(fp16 shapes: %s)", seen);
    else if (c->caps.subgroup_size != 32)
        snprintf(m->khr_why, sizeof m->khr_why,
                 "vulkan/coopmat-khr is laid out for subgroups of 32; this device's are %u",
                 c->caps.subgroup_size);
    else
        m->khr = true;
}

/* Lists the workgroup-scope fp16 x fp16 + fp32 -> fp32 flexible shapes in m->nv2_shape (up to 8)
 * and, as text, in m->nv2_shapes. false when there is none. */
static bool nv2_shape(vkb_ctx *c)
{
    vkb_coopmat *m = &c->coopmat;
    PFN_vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV get =
        (PFN_vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV)vkGetInstanceProcAddr(
            c->instance, "vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV");
    uint32_t n = 0;
    snprintf(m->nv2_shapes, sizeof m->nv2_shapes, "none");
    if (!get || get(c->phys, &n, NULL) != VK_SUCCESS || n == 0)
        return false;
    VkCooperativeMatrixFlexibleDimensionsPropertiesNV *p = calloc(n, sizeof *p);
    if (!p)
        return false;
    for (uint32_t i = 0; i < n; i++)
        p[i].sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_FLEXIBLE_DIMENSIONS_PROPERTIES_NV;
    size_t len = 0; /* nv2_shapes stays "none" until a shape is written */
    if (get(c->phys, &n, p) >= VK_SUCCESS)
        for (uint32_t i = 0; i < n; i++) {
            const VkCooperativeMatrixFlexibleDimensionsPropertiesNV *q = &p[i];
            if (q->AType != VK_COMPONENT_TYPE_FLOAT16_KHR || q->BType != VK_COMPONENT_TYPE_FLOAT16_KHR ||
                q->CType != VK_COMPONENT_TYPE_FLOAT32_KHR || q->ResultType != VK_COMPONENT_TYPE_FLOAT32_KHR ||
                q->scope != VK_SCOPE_WORKGROUP_KHR || q->saturatingAccumulation)
                continue;
            if (len + 40 < sizeof m->nv2_shapes)
                len += (size_t)snprintf(m->nv2_shapes + len, sizeof m->nv2_shapes - len, "%s%ux%ux%u/%u",
                                        len ? ", " : "", q->MGranularity, q->NGranularity, q->KGranularity,
                                        q->workgroupInvocations);
            if (q->workgroupInvocations && m->nv2_n < sizeof m->nv2_shape / sizeof m->nv2_shape[0]) {
                m->nv2_shape[m->nv2_n].gm = q->MGranularity, m->nv2_shape[m->nv2_n].gn = q->NGranularity;
                m->nv2_shape[m->nv2_n].gk = q->KGranularity;
                m->nv2_shape[m->nv2_n++].invocations = q->workgroupInvocations;
            }
        }
    free(p);
    return m->nv2_n > 0;
}

/* Fills m->nv2 / m->nv2_why: VK_NV_cooperative_matrix2 on top of a usable KHR cooperative matrix,
 * with the features vulkan/coopmat2's shader uses (workgroup scope, tensor addressing, flexible
 * dimensions) and fp16 storage buffers. */
static void query_nv2(vkb_ctx *c, bool listed)
{
    vkb_coopmat *m = &c->coopmat;
    if (!listed) {
        snprintf(m->nv2_why, sizeof m->nv2_why, "device has no VK_NV_cooperative_matrix2");
        return;
    }
    if (!m->khr) { /* coopmat2 builds on the KHR types; the layer check is there too */
        snprintf(m->nv2_why, sizeof m->nv2_why,
                 "VK_NV_cooperative_matrix2 needs VK_KHR_cooperative_matrix: %.190s", m->khr_why);
        return;
    }
    VkPhysicalDevice16BitStorageFeatures s16 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
    VkPhysicalDeviceCooperativeMatrix2FeaturesNV f = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV, .pNext = &s16};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f};
    vkGetPhysicalDeviceFeatures2(c->phys, &f2);
    VkPhysicalDeviceCooperativeMatrix2PropertiesNV pr = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_PROPERTIES_NV};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &pr};
    vkGetPhysicalDeviceProperties2(c->phys, &p2);
    m->nv2_max_workgroup = pr.cooperativeMatrixWorkgroupScopeMaxWorkgroupSize;
    if (!f.cooperativeMatrixWorkgroupScope || !f.cooperativeMatrixTensorAddressing ||
        !f.cooperativeMatrixFlexibleDimensions || !s16.storageBuffer16BitAccess)
        snprintf(m->nv2_why, sizeof m->nv2_why, "device has VK_NV_cooperative_matrix2 but no %s",
                 !f.cooperativeMatrixWorkgroupScope      ? "cooperativeMatrixWorkgroupScope"
                 : !f.cooperativeMatrixTensorAddressing  ? "cooperativeMatrixTensorAddressing"
                 : !f.cooperativeMatrixFlexibleDimensions ? "cooperativeMatrixFlexibleDimensions"
                                                          : "storageBuffer16BitAccess");
    else if (!nv2_shape(c))
        snprintf(m->nv2_why, sizeof m->nv2_why,
                 "VK_NV_cooperative_matrix2 lists no workgroup-scope fp16 x fp16 + fp32 -> fp32 shape");
    else
        m->nv2 = true;
}

static void query_nv(vkb_ctx *c, bool nv);

void vkb_coopmat_query(vkb_ctx *c)
{
    vkb_coopmat *m = &c->coopmat;
    memset(m, 0, sizeof *m);
    bool nv, nv2;
    list_extensions(c->phys, &nv, &m->khr_listed, &nv2);
    VkPhysicalDeviceVulkanMemoryModelFeatures mm = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES};
    VkPhysicalDeviceShaderFloat16Int8Features f16 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES, .pNext = &mm};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f16};
    vkGetPhysicalDeviceFeatures2(c->phys, &f2);
    query_khr(c, &f16, &mm);
    query_nv2(c, nv2);
    query_nv(c, nv);
}

/* Fills m->nv / m->why: the checks vulkan/coopmat has always made. */
static void query_nv(vkb_ctx *c, bool nv)
{
    vkb_coopmat *m = &c->coopmat;
    if (!nv) {
        snprintf(m->why, sizeof m->why, "%s",
                 m->khr_listed ? "device has VK_KHR_cooperative_matrix but no VK_NV_cooperative_matrix "
                                 "(vulkan/coopmat-khr is the KHR variant)"
                               : "device has no VK_NV_cooperative_matrix / VK_KHR_cooperative_matrix");
        return;
    }
    VkPhysicalDeviceVulkanMemoryModelFeatures mm = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES};
    VkPhysicalDeviceShaderFloat16Int8Features f16 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES, .pNext = &mm};
    VkPhysicalDeviceCooperativeMatrixFeaturesNV cm = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV, .pNext = &f16};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &cm};
    vkGetPhysicalDeviceFeatures2(c->phys, &f2);
    VkPhysicalDeviceCooperativeMatrixPropertiesNV cp = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_PROPERTIES_NV};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &cp};
    vkGetPhysicalDeviceProperties2(c->phys, &p2);

    char seen[160];
    if (!cm.cooperativeMatrix || !(cp.cooperativeMatrixSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT))
        snprintf(m->why, sizeof m->why,
                 "VK_NV_cooperative_matrix is listed but not usable in compute shaders");
    /* Enabling the memory model device-wide changes the rules for every shader: the row-op
     * shaders' device-scope barriers then need vulkanMemoryModelDeviceScope as well. */
    else if (!f16.shaderFloat16 || !mm.vulkanMemoryModel || !mm.vulkanMemoryModelDeviceScope)
        snprintf(m->why, sizeof m->why, "device has VK_NV_cooperative_matrix but no %s",
                 !f16.shaderFloat16 ? "shaderFloat16"
                 : !mm.vulkanMemoryModel ? "vulkanMemoryModel" : "vulkanMemoryModelDeviceScope");
    else if (!has_shape(c, seen, sizeof seen))
        snprintf(m->why, sizeof m->why,
                 "VK_NV_cooperative_matrix has no subgroup fp16 x fp16 + fp32 16x16x16 shape "
                 "(fp16 shapes: %s)", seen);
    else if (c->caps.subgroup_size != 32)
        snprintf(m->why, sizeof m->why,
                 "vulkan/coopmat is laid out for subgroups of 32; this device's are %u",
                 c->caps.subgroup_size);
    else
        m->nv = true;
}

const void *vkb_coopmat_chain_init(const vkb_ctx *c, vkb_coopmat_chain *chain, const void *next,
                                   const char *ext[3], uint32_t *n_ext)
{
    *n_ext = 0;
    memset(chain, 0, sizeof *chain);
    if (!c->coopmat.nv && !c->coopmat.khr)
        return next;
    chain->mm = (VkPhysicalDeviceVulkanMemoryModelFeatures){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES,
        .pNext = (void *)next,
        .vulkanMemoryModel = VK_TRUE,
        .vulkanMemoryModelDeviceScope = VK_TRUE};
    chain->f16 = (VkPhysicalDeviceShaderFloat16Int8Features){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES,
        .pNext = &chain->mm,
        .shaderFloat16 = VK_TRUE};
    const void *head = &chain->f16;
    if (c->coopmat.khr) {
        chain->khr = (VkPhysicalDeviceCooperativeMatrixFeaturesKHR){
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR,
            .pNext = (void *)head,
            .cooperativeMatrix = VK_TRUE};
        head = &chain->khr;
    }
    if (c->coopmat.nv) {
        chain->cm = (VkPhysicalDeviceCooperativeMatrixFeaturesNV){
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV,
            .pNext = (void *)head,
            .cooperativeMatrix = VK_TRUE};
        head = &chain->cm;
        ext[(*n_ext)++] = VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME;
    }
    if (c->coopmat.nv2 && c->coopmat.khr) {
        chain->s16 = (VkPhysicalDevice16BitStorageFeatures){
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
            .pNext = (void *)head,
            .storageBuffer16BitAccess = VK_TRUE};
        chain->nv2 = (VkPhysicalDeviceCooperativeMatrix2FeaturesNV){
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV,
            .pNext = &chain->s16,
            .cooperativeMatrixWorkgroupScope = VK_TRUE,
            .cooperativeMatrixFlexibleDimensions = VK_TRUE,
            .cooperativeMatrixTensorAddressing = VK_TRUE};
        head = &chain->nv2;
    }
    if (c->coopmat.khr)
        ext[(*n_ext)++] = KHR_COOPMAT;
    if (c->coopmat.nv2 && c->coopmat.khr)
        ext[(*n_ext)++] = VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME;
    return head;
}
