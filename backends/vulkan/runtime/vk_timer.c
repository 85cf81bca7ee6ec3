/* vk_timer.c - timer_begin / timer_end with timestamp queries (vk_internal.h).
 *
 * timer_begin records a query-pool reset and a timestamp into the open command buffer; timer_end
 * records the second timestamp, submits, waits, and reads both (64-bit, WAIT). Both are written at
 * BOTTOM_OF_PIPE, i.e. when every earlier command has completed, so the span covers exactly the
 * commands recorded between them. Ticks are masked to timestampValidBits and converted with the
 * float timestampPeriod (ns per tick). A queue without timestamps (timestampValidBits == 0) falls
 * back to the host clock around a synchronize, as device_info's timer says. */
#include <time.h>

#include "vk_internal.h"

static double host_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

xpb_status vkb_timer_init(vkb_ctx *c, xpb_error *err)
{
    if (!c->caps.timestamp_valid_bits)
        return XPB_OK;
    VkQueryPoolCreateInfo qi = {
        .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
        .queryType = VK_QUERY_TYPE_TIMESTAMP,
        .queryCount = 2,
    };
    VK_CHECK(c, err, vkCreateQueryPool(c->dev, &qi, NULL, &c->queries));
    return XPB_OK;
}

void vkb_timer_destroy(vkb_ctx *c)
{
    if (c->queries)
        vkDestroyQueryPool(c->dev, c->queries, NULL);
    c->queries = VK_NULL_HANDLE;
}

xpb_status vkb_timer_begin(void *ctx, xpb_error *err)
{
    vkb_ctx *c = ctx;
    xpb_status st;
    if (!c->queries) {
        if ((st = vkb_synchronize(c, err)))
            return st;
        c->host_t0 = host_now();
        c->timer_on = true;
        return XPB_OK;
    }
    if ((st = vkb_cmd_barrier_all(c, err))) /* the next launch's barrier, before the timestamp */
        return st;
    vkCmdResetQueryPool(c->cmd, c->queries, 0, 2);
    vkCmdWriteTimestamp(c->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, c->queries, 0);
    c->timer_on = true;
    return XPB_OK;
}

xpb_status vkb_timer_end(void *ctx, double *seconds, xpb_error *err)
{
    vkb_ctx *c = ctx;
    xpb_status st;
    *seconds = 0;
    if (!c->timer_on)
        return xpb_fail(err, XPB_ERR_USAGE, "timer_end without timer_begin");
    c->timer_on = false;
    if (!c->queries) {
        st = vkb_synchronize(c, err);
        *seconds = host_now() - c->host_t0;
        return st;
    }
    if ((st = vkb_cmd_open(c, err)))
        return st;
    vkCmdWriteTimestamp(c->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, c->queries, 1);
    if ((st = vkb_cmd_submit_wait(c, err)))
        return st;
    uint64_t t[2];
    VK_CHECK(c, err, vkGetQueryPoolResults(c->dev, c->queries, 0, 2, sizeof t, t, sizeof t[0],
                                           VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    uint32_t bits = c->caps.timestamp_valid_bits;
    uint64_t mask = bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1);
    uint64_t ticks = (t[1] - t[0]) & mask; /* also right across one wrap of a narrow counter */
    *seconds = (double)ticks * (double)c->caps.props.limits.timestampPeriod * 1e-9;
    return vkb_ctx_status(c, err);
}
