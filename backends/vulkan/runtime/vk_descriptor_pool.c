/* vk_descriptor_pool.c - descriptor pools, for devices without VK_KHR_push_descriptor
 * (vk_internal.h): vk_pipeline.c takes a set per prepared dispatch, vk_command.c resets the pools
 * after the batch's fence; while a capture records, its sets come from the capture's own pool
 * (vk_capture.c), which lives as long as the capture. A file of its own so that vk_pipeline.c
 * calls vk_command.c (barriers) and vk_command.c never calls vk_pipeline.c back. */
#include <stdlib.h>

#include "vk_internal.h"

#define VKB_POOL_SETS 256

static xpb_status pool_add(vkb_ctx *c, xpb_error *err)
{
    VkDescriptorPool *p = realloc(c->pools, (c->n_pools + 1) * sizeof *p);
    if (!p)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory for descriptor pools");
    c->pools = p;
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VKB_POOL_SETS * VKB_MAX_BINDINGS};
    VkDescriptorPoolCreateInfo pi = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .maxSets = VKB_POOL_SETS,
        .poolSizeCount = 1,
        .pPoolSizes = &size,
    };
    VK_CHECK(c, err, vkCreateDescriptorPool(c->dev, &pi, NULL, &c->pools[c->n_pools]));
    c->n_pools++;
    return XPB_OK;
}

xpb_status vkb_descriptor_set(vkb_ctx *c, VkDescriptorSetLayout dsl, VkDescriptorSet *set, xpb_error *err)
{
    if (c->capture_pool) { /* a capture's sets outlive the batch: its own pool (vk_capture.c) */
        VkDescriptorSetAllocateInfo ai = {
            .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
            .descriptorPool = c->capture_pool,
            .descriptorSetCount = 1,
            .pSetLayouts = &dsl,
        };
        VK_CHECK(c, err, vkAllocateDescriptorSets(c->dev, &ai, set));
        return XPB_OK;
    }
    for (;;) {
        bool fresh = c->pool_cur == c->n_pools;
        xpb_status st;
        if (fresh && (st = pool_add(c, err)))
            return st;
        VkDescriptorSetAllocateInfo ai = {
            .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
            .descriptorPool = c->pools[c->pool_cur],
            .descriptorSetCount = 1,
            .pSetLayouts = &dsl,
        };
        VkResult r = vkAllocateDescriptorSets(c->dev, &ai, set);
        if (r == VK_SUCCESS)
            return XPB_OK;
        if (fresh || (r != VK_ERROR_OUT_OF_POOL_MEMORY && r != VK_ERROR_FRAGMENTED_POOL))
            return vkb_fail_vk(c, err, r, "vkAllocateDescriptorSets(c->dev, &ai, set)", __FILE__, __LINE__);
        c->pool_cur++; /* this pool is full for this batch: the next one */
    }
}

void vkb_descriptors_reset(vkb_ctx *c)
{
    for (uint32_t i = 0; i < c->n_pools && i <= c->pool_cur; i++)
        vkResetDescriptorPool(c->dev, c->pools[i], 0);
    c->pool_cur = 0;
}

void vkb_descriptors_destroy(vkb_ctx *c)
{
    for (uint32_t i = 0; i < c->n_pools; i++)
        vkDestroyDescriptorPool(c->dev, c->pools[i], NULL);
    free(c->pools);
    c->pools = NULL;
    c->n_pools = c->pool_cur = 0;
}
