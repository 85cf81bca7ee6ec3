/* vk_buffer.c - device buffers and the staging buffer behind upload / download (vk_internal.h).
 *
 * A buffer is a VkBuffer (STORAGE | TRANSFER_SRC | TRANSFER_DST | INDIRECT) with its own
 * device-local memory. Uploads and downloads go through one host-visible staging buffer per
 * context (64 MiB, less if that cannot be had), created on first use and reused; larger copies go
 * in chunks, each one a copy command recorded after the pending launches, submitted and waited
 * for.
 *
 * Parking: a buffer that a capture's recorded commands name (holds > 0, vk_capture.c) is not
 * destroyed when its user frees it, which would invalidate the capture, but parked; the next
 * allocation of exactly its size takes the oldest such buffer back, contents undefined as a fresh
 * one's. The harness allocates a case's buffers in the same order with the same sizes for every
 * run, so each run gets the last one's buffers and the capture stays good. An allocation that no
 * parked buffer serves is another case's: the captures holding parked buffers are dropped and the
 * buffers destroyed, so what is kept is at most the last case's buffers. */
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"

#define VKB_STAGING_BYTES ((VkDeviceSize)64 << 20)

static int memory_type(const vkb_ctx *c, uint32_t allowed, VkMemoryPropertyFlags want)
{
    for (uint32_t i = 0; i < c->mem_props.memoryTypeCount; i++)
        if ((allowed & (1u << i)) && (c->mem_props.memoryTypes[i].propertyFlags & want) == want)
            return (int)i;
    return -1;
}

/* A buffer bound to a fresh allocation of the first memory type matching prefs[0], prefs[1], ...
 * *flags receives that type's properties. Nothing is left behind on failure. */
static xpb_status create_buffer(vkb_ctx *c, VkDeviceSize size, VkBufferUsageFlags usage,
                                const VkMemoryPropertyFlags *prefs, int n_prefs, VkBuffer *buf,
                                VkDeviceMemory *mem, VkMemoryPropertyFlags *flags, xpb_error *err)
{
    *buf = VK_NULL_HANDLE;
    *mem = VK_NULL_HANDLE;
    VkBufferCreateInfo bi = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = size,
        .usage = usage,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    VK_CHECK(c, err, vkCreateBuffer(c->dev, &bi, NULL, buf));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(c->dev, *buf, &req);
    int type = -1;
    for (int i = 0; i < n_prefs && type < 0; i++)
        type = memory_type(c, req.memoryTypeBits, prefs[i]);
    xpb_status st = XPB_OK;
    if (type < 0) {
        st = xpb_fail(err, XPB_ERR_RUNTIME, "no suitable Vulkan memory type (allowed mask 0x%x)",
                      req.memoryTypeBits);
        goto fail;
    }
    VkMemoryAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .allocationSize = req.size,
        .memoryTypeIndex = (uint32_t)type,
    };
    VkResult r = vkAllocateMemory(c->dev, &ai, NULL, mem);
    if (r != VK_SUCCESS) {
        *mem = VK_NULL_HANDLE;
        st = xpb_fail(err, vkb_result_status(r), "vkAllocateMemory of %.1f MiB (memory type %d) failed: %s",
                      (double)req.size / 1048576.0, type, vkb_result_name(r));
        goto fail;
    }
    VK_CHECK_GOTO(st, c, err, vkBindBufferMemory(c->dev, *buf, *mem, 0), fail);
    *flags = c->mem_props.memoryTypes[type].propertyFlags;
    return XPB_OK;
fail:
    if (*mem)
        vkFreeMemory(c->dev, *mem, NULL);
    vkDestroyBuffer(c->dev, *buf, NULL);
    *buf = VK_NULL_HANDLE;
    *mem = VK_NULL_HANDLE;
    return st;
}

static void destroy(vkb_ctx *c, xpb_buffer *b)
{
    vkDestroyBuffer(c->dev, b->buf, NULL);
    vkFreeMemory(c->dev, b->mem, NULL);
    free(b);
}

/* Takes the oldest parked buffer of `size` out of the parked list, or returns NULL. */
static xpb_buffer *unpark(vkb_ctx *c, VkDeviceSize size)
{
    xpb_buffer *prev = NULL;
    for (xpb_buffer *b = c->parked; b; prev = b, b = b->next_parked)
        if (b->size == size) {
            if (prev)
                prev->next_parked = b->next_parked;
            else
                c->parked = b->next_parked;
            if (c->parked_tail == b)
                c->parked_tail = prev;
            b->parked = false;
            b->next_parked = NULL;
            return b;
        }
    return NULL;
}

void vkb_buffers_sweep(vkb_ctx *c)
{
    xpb_buffer **at = &c->parked;
    c->parked_tail = NULL;
    while (*at) {
        xpb_buffer *b = *at;
        if (b->holds) {
            c->parked_tail = b;
            at = &b->next_parked;
        } else {
            *at = b->next_parked;
            destroy(c, b);
        }
    }
}

xpb_status vkb_buffer_alloc(void *ctx, size_t bytes, xpb_buffer **out, xpb_error *err)
{
    vkb_ctx *c = ctx;
    *out = NULL;
    if (c->lost)
        return vkb_ctx_status(c, err);
    if (c->caps.max_alloc_bytes && bytes > c->caps.max_alloc_bytes)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY,
                        "a buffer of %zu bytes exceeds this device's maxMemoryAllocationSize (%llu)",
                        bytes, (unsigned long long)c->caps.max_alloc_bytes);
    if ((*out = unpark(c, bytes ? bytes : 4)))
        return XPB_OK;
    if (c->parked) { /* another case's buffers: free what was kept for the last one */
        vkb_captures_drop_parked(c);
        vkb_buffers_sweep(c);
    }
    xpb_buffer *b = calloc(1, sizeof *b);
    if (!b)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory");
    b->size = bytes ? bytes : 4;
    const VkMemoryPropertyFlags prefs[] = {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0};
    VkMemoryPropertyFlags flags;
    xpb_status st = create_buffer(c, b->size,
                                  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                      VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, /* burst propagate's grid */
                                  prefs, 2, &b->buf, &b->mem, &flags, err);
    if (st) {
        free(b);
        return st;
    }
    *out = b;
    return XPB_OK;
}

void vkb_buffer_free(void *ctx, xpb_buffer *b)
{
    vkb_ctx *c = ctx;
    if (!b)
        return;
    /* Recorded launches may still use b: run them first (their errors surface elsewhere). */
    if (c->recording && !c->lost) {
        xpb_error ignored;
        vkb_cmd_submit_wait(c, &ignored);
    }
    if (!b->holds) {
        destroy(c, b);
        return;
    }
    b->parked = true; /* a capture names it: kept for the next allocation of its size */
    b->next_parked = NULL;
    if (c->parked_tail)
        c->parked_tail->next_parked = b;
    else
        c->parked = b;
    c->parked_tail = b;
}

/* ---- staging -------------------------------------------------------------------------------- */

static xpb_status staging_ensure(vkb_ctx *c, xpb_error *err)
{
    if (c->staging)
        return XPB_OK;
    const VkMemoryPropertyFlags prefs[] = {
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
            VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
    };
    VkMemoryPropertyFlags flags = 0;
    xpb_status st = XPB_ERR_OUT_OF_MEMORY;
    VkDeviceSize size = VKB_STAGING_BYTES;
    for (; size >= ((VkDeviceSize)1 << 20) && st == XPB_ERR_OUT_OF_MEMORY; size /= 4) {
        st = create_buffer(c, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                           prefs, 3, &c->staging, &c->staging_mem, &flags, err);
        if (!st)
            c->staging_size = size;
    }
    if (st)
        return st;
    c->staging_coherent = (flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
    VK_CHECK(c, err, vkMapMemory(c->dev, c->staging_mem, 0, VK_WHOLE_SIZE, 0, &c->staging_map));
    return XPB_OK;
}

void vkb_staging_destroy(vkb_ctx *c)
{
    if (c->staging_map)
        vkUnmapMemory(c->dev, c->staging_mem);
    if (c->staging)
        vkDestroyBuffer(c->dev, c->staging, NULL);
    if (c->staging_mem)
        vkFreeMemory(c->dev, c->staging_mem, NULL);
    c->staging_map = NULL;
    c->staging = VK_NULL_HANDLE;
    c->staging_mem = VK_NULL_HANDLE;
}

static xpb_status check_copy(vkb_ctx *c, const xpb_buffer *b, size_t offset, size_t bytes,
                             const char *what, xpb_error *err)
{
    if (c->lost)
        return vkb_ctx_status(c, err);
    if (!b || offset > b->size || bytes > b->size - offset)
        return xpb_fail(err, XPB_ERR_USAGE, "%s of %zu bytes at offset %zu overruns a buffer of %llu bytes",
                        what, bytes, offset, b ? (unsigned long long)b->size : 0ull);
    return XPB_OK;
}

/* ---- upload / download ------------------------------------------------------------------------- */

xpb_status vkb_buffer_upload(void *ctx, xpb_buffer *dst, size_t offset, const void *src,
                             size_t bytes, xpb_error *err)
{
    vkb_ctx *c = ctx;
    xpb_status st = check_copy(c, dst, offset, bytes, "upload", err);
    if (st || bytes == 0 || (st = staging_ensure(c, err)))
        return st;
    for (size_t done = 0; done < bytes;) {
        size_t len = bytes - done < c->staging_size ? bytes - done : (size_t)c->staging_size;
        memcpy(c->staging_map, (const char *)src + done, len);
        if (!c->staging_coherent) {
            VkMappedMemoryRange range = {.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
                                         .memory = c->staging_mem, .size = VK_WHOLE_SIZE};
            VK_CHECK(c, err, vkFlushMappedMemoryRanges(c->dev, 1, &range));
        }
        if ((st = vkb_cmd_before(c, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, err)))
            return st;
        VkBufferCopy region = {.srcOffset = 0, .dstOffset = offset + done, .size = len};
        vkCmdCopyBuffer(c->cmd, c->staging, dst->buf, 1, &region);
        if ((st = vkb_cmd_submit_wait(c, err)))
            return st;
        done += len;
    }
    return vkb_ctx_status(c, err);
}

xpb_status vkb_buffer_fill(void *ctx, xpb_buffer *dst, size_t offset, size_t bytes, uint32_t word, xpb_error *err)
{
    vkb_ctx *c = ctx;
    xpb_status st = check_copy(c, dst, offset, bytes, "fill", err);
    if (st || bytes == 0)
        return st;
    if (offset % 4 || bytes % 4) /* vkCmdFillBuffer's rule */
        return xpb_fail(err, XPB_ERR_USAGE, "fill of %zu bytes at offset %zu: both must be multiples of 4", bytes,
                        offset);
    if ((st = vkb_cmd_before(c, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, err)))
        return st;
    vkCmdFillBuffer(c->cmd, dst->buf, offset, bytes, word);
    if ((st = vkb_cmd_submit_wait(c, err)))
        return st;
    return vkb_ctx_status(c, err);
}

xpb_status vkb_buffer_download(void *ctx, xpb_buffer *src, size_t offset, void *dst, size_t bytes,
                               xpb_error *err)
{
    vkb_ctx *c = ctx;
    xpb_status st = check_copy(c, src, offset, bytes, "download", err);
    if (st)
        return st;
    if (bytes == 0) /* still a wait for the work before it, like any download */
        return vkb_synchronize(c, err);
    if ((st = staging_ensure(c, err)))
        return st;
    for (size_t done = 0; done < bytes;) {
        size_t len = bytes - done < c->staging_size ? bytes - done : (size_t)c->staging_size;
        if ((st = vkb_cmd_before(c, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, err)))
            return st;
        VkBufferCopy region = {.srcOffset = offset + done, .dstOffset = 0, .size = len};
        vkCmdCopyBuffer(c->cmd, src->buf, c->staging, 1, &region);
        VkMemoryBarrier to_host = {
            .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
            .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
            .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
        };
        vkCmdPipelineBarrier(c->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                             &to_host, 0, NULL, 0, NULL);
        if ((st = vkb_cmd_submit_wait(c, err)))
            return st;
        if (!c->staging_coherent) {
            VkMappedMemoryRange range = {.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
                                         .memory = c->staging_mem, .size = VK_WHOLE_SIZE};
            VK_CHECK(c, err, vkInvalidateMappedMemoryRanges(c->dev, 1, &range));
        }
        memcpy((char *)dst + done, c->staging_map, len);
        done += len;
    }
    return vkb_ctx_status(c, err);
}
