/* vk_command.c - command recording and submission (vk_internal.h).
 *
 * Launches are recorded into one open command buffer, so many dispatches go to the GPU in one
 * submission; each command is preceded by a global memory barrier that makes the commands since
 * the previous barrier finish and their writes visible to it. Its first scope is the stages those
 * commands ran in (compute, transfer or both: `written`), so a chain of dispatches waits on compute
 * alone; at the start of a command buffer it is both, for earlier submissions. Every command
 * counts, a reader too: a write after a read waits for the read (an execution dependency). The
 * barrier before a command is needed because each one may read what the one before wrote; they
 * chain, each barrier's second scope (the command's stage) lying in the next one's first.
 * timer_begin records that barrier before its timestamp, so a timed launch has none inside the
 * timed span. synchronize, upload, download and timer_end end the buffer, submit it and wait on
 * the fence. While a capture records (vk_capture.c), these functions record into its secondary
 * command buffer instead, and nothing may be submitted. */
#include "vk_internal.h"
#include "xpb_clock.h"

/* A batch that has not finished after this long is treated as a hung device. */
#define VKB_WAIT_SECONDS 600
/* How long a submission's fence is polled before the blocking wait: a blocking wait sleeps and, on
 * NVIDIA's driver, wakes tens of microseconds after the work ends, which a run that reads a count
 * after every short submission (the burst workload) pays every time. Longer work blocks as before. */
#define VKB_SPIN_SECONDS 200e-6

xpb_status vkb_cmd_init(vkb_ctx *c, xpb_error *err)
{
    VkCommandPoolCreateInfo pi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
        .queueFamilyIndex = c->caps.queue_family,
    };
    VK_CHECK(c, err, vkCreateCommandPool(c->dev, &pi, NULL, &c->cmd_pool));
    VkCommandBufferAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = c->cmd_pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    VK_CHECK(c, err, vkAllocateCommandBuffers(c->dev, &ai, &c->cmd));
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_CHECK(c, err, vkCreateFence(c->dev, &fi, NULL, &c->fence));
    return XPB_OK;
}

void vkb_cmd_destroy(vkb_ctx *c)
{
    if (c->fence)
        vkDestroyFence(c->dev, c->fence, NULL);
    if (c->cmd_pool)
        vkDestroyCommandPool(c->dev, c->cmd_pool, NULL); /* frees c->cmd */
    c->fence = VK_NULL_HANDLE;
    c->cmd_pool = VK_NULL_HANDLE;
    c->cmd = VK_NULL_HANDLE;
}

static xpb_status lost(xpb_error *err)
{
    return xpb_fail(err, XPB_ERR_DEVICE_LOST,
                    "the Vulkan device was lost earlier (VK_ERROR_DEVICE_LOST); reopen it");
}

xpb_status vkb_ctx_status(vkb_ctx *c, xpb_error *err)
{
    if (c->lost)
        return lost(err);
    return vkb_validation_check(&c->validation, err);
}

xpb_status vkb_cmd_open(vkb_ctx *c, xpb_error *err)
{
    if (c->lost)
        return lost(err);
    if (c->recording)
        return XPB_OK;
    VkCommandBufferBeginInfo bi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    VK_CHECK(c, err, vkBeginCommandBuffer(c->cmd, &bi));
    c->recording = true;
    c->opened++;
    c->need_barrier = true; /* the first scope of a barrier includes earlier submissions */
    c->written = VKB_WRITE_STAGES;
    return XPB_OK;
}

/* A barrier from the stages of the commands since the last one (c->written) to dst. */
static void barrier(vkb_ctx *c, VkPipelineStageFlags dst_stage, VkAccessFlags dst_access)
{
    VkPipelineStageFlags src = c->written ? c->written : VKB_WRITE_STAGES;
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = (src & VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT ? VK_ACCESS_SHADER_WRITE_BIT : 0) |
                         (src & VK_PIPELINE_STAGE_TRANSFER_BIT ? VK_ACCESS_TRANSFER_WRITE_BIT : 0),
        .dstAccessMask = dst_access,
    };
    vkCmdPipelineBarrier(c->cmd, src, dst_stage, 0, 1, &mb, 0, NULL, 0, NULL);
    c->written = 0;
}

xpb_status vkb_cmd_before(vkb_ctx *c, VkPipelineStageFlags dst_stage, VkAccessFlags dst_access,
                          xpb_error *err)
{
    xpb_status st = vkb_cmd_open(c, err);
    if (st)
        return st;
    if (c->need_barrier)
        barrier(c, dst_stage, dst_access);
    c->need_barrier = true; /* for the command after the one about to be recorded */
    c->written |= dst_stage & VKB_WRITE_STAGES; /* the stage that command runs in */
    return XPB_OK;
}

xpb_status vkb_cmd_barrier_all(vkb_ctx *c, xpb_error *err)
{
    xpb_status st = vkb_cmd_open(c, err);
    if (st)
        return st;
    if (c->need_barrier)
        barrier(c, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT |
                       VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                    VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
    c->need_barrier = false;
    return XPB_OK;
}

xpb_status vkb_cmd_submit_wait(vkb_ctx *c, xpb_error *err)
{
    if (c->lost)
        return lost(err);
    if (c->capturing) /* the open buffer is a capture's secondary: a bug in its caller */
        return xpb_fail(err, XPB_ERR_RUNTIME, "internal: a submission while a capture records (vk_capture.c)");
    if (!c->recording)
        return XPB_OK;
    c->recording = false;
    VkResult r = vkEndCommandBuffer(c->cmd);
    if (r != VK_SUCCESS) {
        vkResetCommandBuffer(c->cmd, 0);
        vkb_descriptors_reset(c);
        return vkb_fail_vk(c, err, r, "vkEndCommandBuffer(c->cmd)", __FILE__, __LINE__);
    }
    VkSubmitInfo si = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .commandBufferCount = 1,
        .pCommandBuffers = &c->cmd,
    };
    r = vkQueueSubmit(c->queue, 1, &si, c->fence);
    if (r != VK_SUCCESS) {
        vkResetCommandBuffer(c->cmd, 0);
        vkb_descriptors_reset(c);
        return vkb_fail_vk(c, err, r, "vkQueueSubmit(c->queue, 1, &si, c->fence)", __FILE__, __LINE__);
    }
    double spin_end = xpb_clock_now() + VKB_SPIN_SECONDS;
    do
        r = vkGetFenceStatus(c->dev, c->fence);
    while (r == VK_NOT_READY && xpb_clock_now() < spin_end);
    if (r == VK_NOT_READY)
        r = vkWaitForFences(c->dev, 1, &c->fence, VK_TRUE, (uint64_t)VKB_WAIT_SECONDS * 1000000000u);
    if (r == VK_TIMEOUT) {
        c->lost = true; /* the command buffer is still pending: nothing on this context can run */
        return xpb_fail(err, XPB_ERR_DEVICE_LOST,
                        "Vulkan work did not finish within %d s (vkWaitForFences returned VK_TIMEOUT)",
                        VKB_WAIT_SECONDS);
    }
    if (r != VK_SUCCESS)
        return vkb_fail_vk(c, err, r, "vkWaitForFences(c->dev, 1, &c->fence, ...)", __FILE__, __LINE__);
    VK_CHECK(c, err, vkResetFences(c->dev, 1, &c->fence));
    VK_CHECK(c, err, vkResetCommandBuffer(c->cmd, 0));
    vkb_descriptors_reset(c);
    return XPB_OK;
}

xpb_status vkb_synchronize(void *ctx, xpb_error *err)
{
    vkb_ctx *c = ctx;
    xpb_status st = vkb_cmd_submit_wait(c, err);
    return st ? st : vkb_ctx_status(c, err);
}
