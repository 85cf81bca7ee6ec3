/* tile_cfg.c - the register-blocked tile that vulkan/tiled (tiled.c) and anneal assign
 * (anneal_assign.c) share: its knob syntax BMxBNxBK/TMxTN and the rules both shaders impose
 * (vk_ops.h). */
#include <stdio.h>

#include "vk_ops.h"

uint32_t vkb_tile_threads(const vkb_tile *t) { return (t->bm / t->tm) * (t->bn / t->tn); }

xpb_status vkb_tile_parse(const char *knob, const char *value, vkb_tile *t, xpb_error *err)
{
    *t = (vkb_tile){0, 0, 0, 0, 0, 0};
    if (sscanf(value, "%ux%ux%u/%ux%u", &t->bm, &t->bn, &t->bk, &t->tm, &t->tn) != 5)
        return xpb_fail(err, XPB_ERR_USAGE, "%s=%s: expected BMxBNxBK/TMxTN", knob, value);
    return XPB_OK;
}

const char *vkb_tile_problem(const vkb_ctx *c, const vkb_tile *t, bool bm_per_invocation, uint64_t shared_bytes)
{
    const VkPhysicalDeviceLimits *lim = &c->caps.props.limits;
    if (!t->bm || !t->bn || !t->bk || !t->tm || !t->tn || t->tm % 4 || t->tn % 4 || t->bk % 4 ||
        t->bm % t->tm || t->bn % t->tn)
        return "TM, TN, BK must be multiples of 4 that divide BM, BN";
    uint32_t threads = vkb_tile_threads(t);
    if (threads > lim->maxComputeWorkGroupInvocations || threads > lim->maxComputeWorkGroupSize[0])
        return "too many invocations per workgroup";
    if (bm_per_invocation && t->bm > threads)
        return "BM must not exceed the invocations (one writes each point of the tile)";
    if ((t->bm * t->bk / 4) % threads || (t->bn * t->bk / 4) % threads)
        return "each invocation must load whole vec4 units: BM*BK/4 and BN*BK/4 multiples of the invocations";
    if (shared_bytes > lim->maxComputeSharedMemorySize)
        return "the two shared-memory stages exceed maxComputeSharedMemorySize";
    return NULL;
}
