/* vk_capture.c - captured command sequences (vk_internal.h): a launch that records the same long
 * run of commands on the same buffers again and again (a batch of bursts: three dispatches and
 * their barriers a burst) records it once into a secondary command buffer, and every later launch
 * with the same key executes that buffer (vkCmdExecuteCommands) into the open command buffer, as
 * a CUDA graph is replayed. A replay costs the host one barrier and one command, whatever the
 * length of the sequence.
 *
 * Validity. A recorded command buffer stays valid only while everything its commands name lives:
 * its pipelines (cached for the context's life, vk_pipeline.c), its descriptors (pushed into it, or
 * sets from the capture's own pool, never reset) and its buffers. The harness frees every buffer
 * after a run and allocates the next run's afresh, so a capture holds the buffers it names: one
 * freed while held is parked (vk_buffer.c), not destroyed, and the next allocation of its size
 * takes it back, oldest first. A run that allocates the same sizes in the same order as the last
 * (the validated run, the warm-up and every timed run of a case) gets the same buffers back, and
 * so the same key: the key is the caller's, everything its recorded commands depend on (the
 * buffers and offsets it binds, sizes, push constants, grids; burst_batch.c). A buffer a live
 * capture names is never destroyed, so a key naming it can only mean that buffer.
 *
 * Lifetime. A capture is dropped (its command buffer and pool freed, its buffers released, the
 * parked ones then destroyed by vk_buffer.c) when
 *   1. an allocation is served by no parked buffer (vkb_captures_drop_parked): the run allocating
 *      is not the one the parked buffers came from, so every capture holding one goes, and with it
 *      the memory it kept; at most the last case's buffers are ever kept;
 *   2. a new capture needs its slot (VKB_CAPTURE_MAX, the least recently used goes);
 *   3. the context closes.
 * One already executed into the open command buffer is neither dropped nor executed again until
 * that buffer is submitted (VUID-vkCmdExecuteCommands-pCommandBuffers-00092: no simultaneous use);
 * vkb_capture_replayable says so, and the caller records inline then. */
#include <string.h>

#include "vk_internal.h"

/* Descriptor sets one capture may take where there are no push descriptors. */
#define VKB_CAPTURE_SETS 16

/* cap is in the open primary command buffer: executed since it was begun. */
static bool in_open(const vkb_ctx *c, const vkb_capture *cap)
{
    bool recording = c->capturing ? c->primary.recording : c->recording;
    return recording && cap->cmd && cap->opened == c->opened;
}

static void drop(vkb_ctx *c, vkb_capture *cap)
{
    if (cap->cmd)
        vkFreeCommandBuffers(c->dev, c->cmd_pool, 1, &cap->cmd);
    if (cap->pool)
        vkDestroyDescriptorPool(c->dev, cap->pool, NULL);
    for (uint32_t i = 0; i < cap->n_bufs; i++)
        cap->bufs[i]->holds--; /* a parked one is now vkb_buffers_sweep's when no capture holds it */
    memset(cap, 0, sizeof *cap);
}

vkb_capture *vkb_capture_find(vkb_ctx *c, const void *key, size_t key_bytes)
{
    for (int i = 0; i < VKB_CAPTURE_MAX; i++) {
        vkb_capture *cap = &c->captures[i];
        if (cap->cmd && cap->key_bytes == key_bytes && memcmp(cap->key, key, key_bytes) == 0) {
            cap->used = ++c->capture_clock;
            return cap;
        }
    }
    return NULL;
}

bool vkb_capture_replayable(const vkb_ctx *c, const vkb_capture *cap)
{
    return !in_open(c, cap);
}

/* Records into cap->cmd from now on (the primary's state saved), no barrier before its first
 * command: the replay records that one in the primary. */
static void redirect(vkb_ctx *c, vkb_capture *cap)
{
    c->primary.cmd = c->cmd;
    c->primary.recording = c->recording;
    c->primary.need_barrier = c->need_barrier;
    c->primary.written = c->written;
    c->cmd = cap->cmd;
    c->recording = true;
    c->need_barrier = false;
    c->written = 0;
    c->capture_pool = cap->pool;
    c->capturing = cap;
}

static void restore(vkb_ctx *c)
{
    c->cmd = c->primary.cmd;
    c->recording = c->primary.recording;
    c->need_barrier = c->primary.need_barrier;
    c->written = c->primary.written;
    c->capture_pool = VK_NULL_HANDLE;
    c->capturing = NULL;
}

xpb_status vkb_capture_begin(vkb_ctx *c, const void *key, size_t key_bytes, xpb_buffer *const *bufs,
                             uint32_t n_bufs, bool *started, xpb_error *err)
{
    *started = false;
    if (c->lost)
        return vkb_ctx_status(c, err);
    if (c->capturing)
        return xpb_fail(err, XPB_ERR_RUNTIME, "internal: a capture began inside another (vk_capture.c)");
    if (key_bytes > VKB_CAPTURE_KEY_BYTES || n_bufs > VKB_CAPTURE_MAX_BUFFERS)
        return xpb_fail(err, XPB_ERR_RUNTIME, "internal: a capture key of %zu bytes naming %u buffers (at most "
                        "%d and %d, vk_internal.h)", key_bytes, n_bufs, VKB_CAPTURE_KEY_BYTES, VKB_CAPTURE_MAX_BUFFERS);
    vkb_capture *cap = NULL; /* a free slot, else the least recently used one not in the open buffer */
    for (int i = 0; i < VKB_CAPTURE_MAX && !(cap && !cap->cmd); i++) {
        vkb_capture *k = &c->captures[i];
        if (!k->cmd || (!in_open(c, k) && (!cap || k->used < cap->used)))
            cap = k;
    }
    if (!cap)
        return XPB_OK;
    drop(c, cap);
    VkCommandBufferAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = c->cmd_pool,
        .level = VK_COMMAND_BUFFER_LEVEL_SECONDARY,
        .commandBufferCount = 1,
    };
    VK_CHECK(c, err, vkAllocateCommandBuffers(c->dev, &ai, &cap->cmd));
    xpb_status st = XPB_OK;
    if (!c->push_descriptor) {
        VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VKB_CAPTURE_SETS * VKB_MAX_BINDINGS};
        VkDescriptorPoolCreateInfo pi = {
            .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
            .maxSets = VKB_CAPTURE_SETS,
            .poolSizeCount = 1,
            .pPoolSizes = &size,
        };
        VK_CHECK_GOTO(st, c, err, vkCreateDescriptorPool(c->dev, &pi, NULL, &cap->pool), fail);
    }
    /* No SIMULTANEOUS_USE: it is never executed while pending (every submission is waited for)
     * nor twice in one primary (in_open). Not ONE_TIME_SUBMIT: it is executed again and again. */
    VkCommandBufferInheritanceInfo ii = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO};
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, .pInheritanceInfo = &ii};
    VK_CHECK_GOTO(st, c, err, vkBeginCommandBuffer(cap->cmd, &bi), fail);
    memcpy(cap->key, key, key_bytes);
    cap->key_bytes = key_bytes;
    for (uint32_t i = 0; i < n_bufs; i++) {
        cap->bufs[i] = bufs[i];
        bufs[i]->holds++;
    }
    cap->n_bufs = n_bufs;
    cap->used = ++c->capture_clock;
    redirect(c, cap);
    *started = true;
    return XPB_OK;
fail:
    drop(c, cap);
    return st;
}

xpb_status vkb_capture_end(vkb_ctx *c, vkb_capture **out, xpb_error *err)
{
    vkb_capture *cap = c->capturing;
    *out = NULL;
    if (!cap)
        return xpb_fail(err, XPB_ERR_RUNTIME, "internal: vkb_capture_end without a capture (vk_capture.c)");
    restore(c);
    VkResult r = vkEndCommandBuffer(cap->cmd);
    if (r != VK_SUCCESS) {
        drop(c, cap);
        return vkb_fail_vk(c, err, r, "vkEndCommandBuffer(cap->cmd)", __FILE__, __LINE__);
    }
    xpb_status st = vkb_ctx_status(c, err);
    if (st) {
        drop(c, cap);
        return st;
    }
    *out = cap;
    return XPB_OK;
}

void vkb_capture_abort(vkb_ctx *c)
{
    vkb_capture *cap = c->capturing;
    if (!cap)
        return;
    restore(c);
    drop(c, cap); /* freeing a command buffer still recording is allowed */
}

xpb_status vkb_capture_replay(vkb_ctx *c, vkb_capture *cap, xpb_error *err)
{
    if (c->lost)
        return vkb_ctx_status(c, err);
    if (c->capturing || !cap->cmd || in_open(c, cap))
        return xpb_fail(err, XPB_ERR_RUNTIME, "internal: a capture replayed %s (vk_capture.c)",
                        c->capturing ? "inside a capture" : "twice in one command buffer");
    /* the secondary's first command may be any of this backend's: the widest second scope */
    xpb_status st = vkb_cmd_before(c, VKB_WRITE_STAGES | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                       VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
                                       VK_ACCESS_INDIRECT_COMMAND_READ_BIT, err);
    if (st)
        return st;
    vkCmdExecuteCommands(c->cmd, 1, &cap->cmd);
    cap->opened = c->opened;
    cap->used = ++c->capture_clock;
    return vkb_ctx_status(c, err);
}

void vkb_captures_drop_parked(vkb_ctx *c)
{
    for (int i = 0; i < VKB_CAPTURE_MAX; i++) {
        vkb_capture *cap = &c->captures[i];
        bool parked = false;
        for (uint32_t j = 0; j < cap->n_bufs && !parked; j++)
            parked = cap->bufs[j]->parked;
        if (cap->cmd && parked && !in_open(c, cap) && cap != c->capturing)
            drop(c, cap);
    }
}

void vkb_captures_destroy(vkb_ctx *c)
{
    if (c->capturing)
        vkb_capture_abort(c);
    for (int i = 0; i < VKB_CAPTURE_MAX; i++)
        drop(c, &c->captures[i]);
}
