/* vk_pipeline_stats.c - XPB_VULKAN_PIPELINE_STATS=1: what the driver compiled each pipeline into
 * (registers, spills, shared memory, ... as the driver names them), printed to stderr when the
 * pipeline is made. A tuning aid: it is how a shader that runs 10x slower than its twin shows a
 * register spill. Uses VK_KHR_pipeline_executable_properties; a device without it says so once. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"
#include "xpb_knob.h"

bool vkb_pipeline_stats_wanted(void)
{
    /* checked when the device opened (vk_device.c) */
    return xpb_knob_choice_or_default(XPB_KNOB_VULKAN_PIPELINE_STATS) == 1;
}

static void print_value(const VkPipelineExecutableStatisticKHR *s)
{
    switch (s->format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
        fprintf(stderr, " %s=%s", s->name, s->value.b32 ? "true" : "false");
        break;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
        fprintf(stderr, " %s=%" PRId64, s->name, s->value.i64);
        break;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
        fprintf(stderr, " %s=%" PRIu64, s->name, s->value.u64);
        break;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
        fprintf(stderr, " %s=%g", s->name, s->value.f64);
        break;
    default:
        break;
    }
}

void vkb_pipeline_stats_print(vkb_ctx *c, VkPipeline pipe, const vkb_shader *sh, const vkb_spec *spec)
{
    if (!c->pipeline_stats)
        return;
    PFN_vkGetPipelineExecutablePropertiesKHR props_fn =
        (PFN_vkGetPipelineExecutablePropertiesKHR)vkGetDeviceProcAddr(c->dev, "vkGetPipelineExecutablePropertiesKHR");
    PFN_vkGetPipelineExecutableStatisticsKHR stats_fn =
        (PFN_vkGetPipelineExecutableStatisticsKHR)vkGetDeviceProcAddr(c->dev, "vkGetPipelineExecutableStatisticsKHR");
    if (!props_fn || !stats_fn)
        return;
    fprintf(stderr, "vulkan pipeline %s [", sh->name);
    for (uint32_t i = 0; i < spec->n; i++)
        fprintf(stderr, "%s%u", i ? "," : "", spec->v[i]);
    fprintf(stderr, "]:");
    VkPipelineInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, .pipeline = pipe};
    VkPipelineExecutablePropertiesKHR ep[4];
    uint32_t n_exec = 4;
    for (uint32_t i = 0; i < n_exec; i++)
        ep[i] = (VkPipelineExecutablePropertiesKHR){.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR};
    VkResult r = props_fn(c->dev, &pi, &n_exec, ep);
    if (r < VK_SUCCESS) {
        fprintf(stderr, " vkGetPipelineExecutablePropertiesKHR: %s\n", vkb_result_name(r));
        return;
    }
    for (uint32_t e = 0; e < n_exec; e++) {
        VkPipelineExecutableInfoKHR ei = {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR,
                                          .pipeline = pipe, .executableIndex = e};
        VkPipelineExecutableStatisticKHR st[32];
        uint32_t n_st = 32;
        for (uint32_t i = 0; i < n_st; i++)
            st[i] = (VkPipelineExecutableStatisticKHR){.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR};
        r = stats_fn(c->dev, &ei, &n_st, st);
        if (r < VK_SUCCESS) {
            fprintf(stderr, " vkGetPipelineExecutableStatisticsKHR: %s", vkb_result_name(r));
            continue;
        }
        fprintf(stderr, " (%s, subgroup %u)", ep[e].name, ep[e].subgroupSize);
        for (uint32_t i = 0; i < n_st; i++)
            print_value(&st[i]);
    }
    fprintf(stderr, "\n");
}
