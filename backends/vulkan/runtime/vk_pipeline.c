/* vk_pipeline.c - compute pipelines, descriptors, push constants and dispatch (vk_internal.h).
 *
 * A pipeline is made on first use from a kernel's embedded SPIR-V and its specialization
 * constants (workgroup size, values per invocation, ...), then cached in the context for its
 * lifetime. Each binding is a storage-buffer descriptor of exactly the range the kernel touches
 * (so a view of a large buffer never exceeds maxStorageBufferRange). Descriptors are pushed with
 * VK_KHR_push_descriptor when the device has it; otherwise each prepared dispatch (vkb_prepare,
 * recorded any number of times by vkb_record) takes a set from a descriptor pool, and the pools
 * are reset after the batch's fence. */
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"


struct vkb_pipeline {
    vkb_shader sh; /* a copy: a user's shader (vk_spirv.c) is described on the stack */
    vkb_spec spec;
    VkDescriptorSetLayout dsl;
    VkPipelineLayout layout;
    VkPipeline pipe;
};

/* ---- pipelines ---------------------------------------------------------------------------------- */

static void pipeline_free(vkb_ctx *c, vkb_pipeline *p)
{
    if (p->pipe)
        vkDestroyPipeline(c->dev, p->pipe, NULL);
    if (p->layout)
        vkDestroyPipelineLayout(c->dev, p->layout, NULL);
    if (p->dsl)
        vkDestroyDescriptorSetLayout(c->dev, p->dsl, NULL);
    memset(p, 0, sizeof *p);
}

static xpb_status pipeline_create(vkb_ctx *c, const vkb_shader *sh, const vkb_spec *spec,
                                  vkb_pipeline *p, xpb_error *err)
{
    memset(p, 0, sizeof *p);
    p->sh = *sh;
    p->spec = *spec;
    if (sh->n_bindings > VKB_MAX_BINDINGS || spec->n > VKB_MAX_SPEC)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: %u bindings / %u specialization constants is too many",
                        sh->name, sh->n_bindings, spec->n);
    if (sh->push_bytes > c->caps.props.limits.maxPushConstantsSize)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED, "%s needs %u bytes of push constants; the device has %u",
                        sh->name, sh->push_bytes, c->caps.props.limits.maxPushConstantsSize);
    xpb_status st = XPB_OK;
    VkShaderModule module = VK_NULL_HANDLE;
    VkShaderModuleCreateInfo mi = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = sh->code_bytes,
        .pCode = sh->code,
    };
    VK_CHECK_GOTO(st, c, err, vkCreateShaderModule(c->dev, &mi, NULL, &module), fail);

    VkDescriptorSetLayoutBinding b[VKB_MAX_BINDINGS];
    for (uint32_t i = 0; i < sh->n_bindings; i++)
        b[i] = (VkDescriptorSetLayoutBinding){
            .binding = i,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .descriptorCount = 1,
            .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        };
    VkDescriptorSetLayoutCreateInfo li = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .flags = c->push_descriptor ? VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR : 0,
        .bindingCount = sh->n_bindings,
        .pBindings = b,
    };
    VK_CHECK_GOTO(st, c, err, vkCreateDescriptorSetLayout(c->dev, &li, NULL, &p->dsl), fail);

    VkPushConstantRange pr = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .size = sh->push_bytes};
    VkPipelineLayoutCreateInfo pli = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = &p->dsl,
        .pushConstantRangeCount = sh->push_bytes ? 1 : 0,
        .pPushConstantRanges = &pr,
    };
    VK_CHECK_GOTO(st, c, err, vkCreatePipelineLayout(c->dev, &pli, NULL, &p->layout), fail);

    VkSpecializationMapEntry me[VKB_MAX_SPEC];
    for (uint32_t i = 0; i < spec->n; i++)
        me[i] = (VkSpecializationMapEntry){.constantID = i, .offset = 4 * i, .size = 4};
    VkSpecializationInfo si = {
        .mapEntryCount = spec->n,
        .pMapEntries = me,
        .dataSize = 4 * (size_t)spec->n,
        .pData = p->spec.v,
    };
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
            .stage = VK_SHADER_STAGE_COMPUTE_BIT,
            .module = module,
            .pName = sh->entry ? sh->entry : "main",
            .pSpecializationInfo = spec->n ? &si : NULL,
        },
        .layout = p->layout,
        .flags = c->pipeline_stats ? VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR : 0,
    };
    VK_CHECK_GOTO(st, c, err, vkCreateComputePipelines(c->dev, VK_NULL_HANDLE, 1, &ci, NULL, &p->pipe),
                  fail);
    vkb_pipeline_stats_print(c, p->pipe, sh, spec);
    vkDestroyShaderModule(c->dev, module, NULL);
    return XPB_OK;
fail:
    if (module)
        vkDestroyShaderModule(c->dev, module, NULL);
    pipeline_free(c, p);
    return st;
}

static bool spec_equal(const vkb_spec *a, const vkb_spec *b)
{
    return a->n == b->n && memcmp(a->v, b->v, a->n * sizeof a->v[0]) == 0;
}

/* The same shader: the same code, entry point and interface. */
static bool shader_equal(const vkb_shader *a, const vkb_shader *b)
{
    return a->code == b->code && a->code_bytes == b->code_bytes && a->n_bindings == b->n_bindings &&
           a->push_bytes == b->push_bytes && strcmp(a->entry ? a->entry : "main", b->entry ? b->entry : "main") == 0;
}

/* The cached pipeline for (sh, spec), made now if new. The pointer is valid until the next call. */
static xpb_status pipeline_get(vkb_ctx *c, const vkb_shader *sh, const vkb_spec *spec,
                               vkb_pipeline **out, xpb_error *err)
{
    for (size_t i = 0; i < c->n_pipes; i++)
        if (shader_equal(&c->pipes[i].sh, sh) && spec_equal(&c->pipes[i].spec, spec)) {
            *out = &c->pipes[i];
            return XPB_OK;
        }
    if (c->n_pipes == c->cap_pipes) {
        size_t cap = c->cap_pipes ? 2 * c->cap_pipes : 16;
        vkb_pipeline *p = realloc(c->pipes, cap * sizeof *p);
        if (!p)
            return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory for pipelines");
        c->pipes = p;
        c->cap_pipes = cap;
    }
    xpb_status st = pipeline_create(c, sh, spec, &c->pipes[c->n_pipes], err);
    if (st)
        return st;
    *out = &c->pipes[c->n_pipes++];
    return XPB_OK;
}

void vkb_pipelines_destroy(vkb_ctx *c)
{
    for (size_t i = 0; i < c->n_pipes; i++)
        pipeline_free(c, &c->pipes[i]);
    free(c->pipes);
    c->pipes = NULL;
    c->n_pipes = c->cap_pipes = 0;
    vkb_descriptors_destroy(c);
}

/* ---- dispatch --------------------------------------------------------------------------------- */

static xpb_status check_bindings(const vkb_ctx *c, const vkb_shader *sh, const vkb_binding *binds,
                                 xpb_error *err)
{
    const VkPhysicalDeviceLimits *lim = &c->caps.props.limits;
    for (uint32_t i = 0; i < sh->n_bindings; i++) {
        const vkb_binding *b = &binds[i];
        if (!b->buf || b->range == 0 || b->offset > b->buf->size || b->range > b->buf->size - b->offset)
            return xpb_fail(err, XPB_ERR_USAGE,
                            "%s: binding %u (offset %llu, %llu bytes) is outside its buffer (%llu bytes)",
                            sh->name, i, (unsigned long long)b->offset, (unsigned long long)b->range,
                            b->buf ? (unsigned long long)b->buf->size : 0ull);
        if (b->offset % lim->minStorageBufferOffsetAlignment)
            return xpb_fail(err, XPB_ERR_USAGE, "%s: binding %u offset %llu is not a multiple of %llu",
                            sh->name, i, (unsigned long long)b->offset,
                            (unsigned long long)lim->minStorageBufferOffsetAlignment);
        if (b->range > lim->maxStorageBufferRange)
            return xpb_fail(err, XPB_ERR_UNSUPPORTED,
                            "%s: binding %u needs %llu bytes; maxStorageBufferRange is %u", sh->name, i,
                            (unsigned long long)b->range, lim->maxStorageBufferRange);
    }
    return XPB_OK;
}

xpb_status vkb_prepare(vkb_ctx *c, const vkb_shader *sh, const vkb_spec *spec,
                       const vkb_binding *binds, vkb_prepared *out, xpb_error *err)
{
    xpb_status st;
    memset(out, 0, sizeof *out);
    if (c->lost)
        return vkb_ctx_status(c, err);
    if ((st = check_bindings(c, sh, binds, err)))
        return st;
    vkb_pipeline *p = NULL;
    if ((st = pipeline_get(c, sh, spec, &p, err)))
        return st;
    out->sh = sh;
    out->pipe = (size_t)(p - c->pipes);
    for (uint32_t i = 0; i < sh->n_bindings; i++)
        out->info[i] = (VkDescriptorBufferInfo){binds[i].buf->buf, binds[i].offset, binds[i].range};
    if (c->push_descriptor)
        return XPB_OK;
    if ((st = vkb_descriptor_set(c, p->dsl, &out->set, err)))
        return st;
    VkWriteDescriptorSet w[VKB_MAX_BINDINGS];
    for (uint32_t i = 0; i < sh->n_bindings; i++)
        w[i] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstSet = out->set,
            .dstBinding = i,
            .descriptorCount = 1,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .pBufferInfo = &out->info[i],
        };
    vkUpdateDescriptorSets(c->dev, sh->n_bindings, w, 0, NULL);
    return XPB_OK;
}

/* The barrier, then p's pipeline, descriptors and push constants, ready for a dispatch. */
static xpb_status record_bind(vkb_ctx *c, const vkb_prepared *p, const void *push,
                              VkPipelineStageFlags dst_stage, VkAccessFlags dst_access, xpb_error *err)
{
    xpb_status st;
    if ((st = vkb_cmd_before(c, dst_stage, dst_access, err)))
        return st;
    const vkb_shader *sh = p->sh;
    const vkb_pipeline *pl = &c->pipes[p->pipe];
    vkCmdBindPipeline(c->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pl->pipe);
    if (c->push_descriptor) {
        VkWriteDescriptorSet w[VKB_MAX_BINDINGS];
        for (uint32_t i = 0; i < sh->n_bindings; i++)
            w[i] = (VkWriteDescriptorSet){
                .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                .dstBinding = i,
                .descriptorCount = 1,
                .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                .pBufferInfo = &p->info[i],
            };
        c->push_descriptor(c->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pl->layout, 0, sh->n_bindings, w);
    } else {
        vkCmdBindDescriptorSets(c->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pl->layout, 0, 1, &p->set, 0, NULL);
    }
    if (sh->push_bytes)
        vkCmdPushConstants(c->cmd, pl->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sh->push_bytes, push);
    return XPB_OK;
}

xpb_status vkb_record(vkb_ctx *c, const vkb_prepared *p, const void *push, uint32_t groups,
                      xpb_error *err)
{
    xpb_status st;
    if (c->lost)
        return vkb_ctx_status(c, err);
    if (groups == 0 || groups > c->max_groups)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: %u workgroups is outside 1..%u", p->sh->name, groups,
                        c->max_groups);
    if ((st = record_bind(c, p, push, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, err)))
        return st;
    vkCmdDispatch(c->cmd, groups, 1, 1);
    return vkb_ctx_status(c, err);
}

xpb_status vkb_record_indirect(vkb_ctx *c, const vkb_prepared *p, const void *push,
                               const xpb_buffer *buf, VkDeviceSize offset, xpb_error *err)
{
    xpb_status st;
    if (c->lost)
        return vkb_ctx_status(c, err);
    if (offset % 4 || offset > buf->size || buf->size - offset < 3 * sizeof(uint32_t))
        return xpb_fail(err, XPB_ERR_USAGE, "%s: indirect command at offset %llu is outside its buffer "
                        "(%llu bytes) or unaligned", p->sh->name, (unsigned long long)offset,
                        (unsigned long long)buf->size);
    if ((st = record_bind(c, p, push, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                              VK_ACCESS_INDIRECT_COMMAND_READ_BIT, err)))
        return st;
    vkCmdDispatchIndirect(c->cmd, buf->buf, offset);
    return vkb_ctx_status(c, err);
}

xpb_status vkb_dispatch(vkb_ctx *c, const vkb_shader *sh, const vkb_spec *spec,
                        const vkb_binding *binds, const void *push, uint32_t groups,
                        xpb_error *err)
{
    vkb_prepared p;
    xpb_status st;
    if (groups == 0 || groups > c->max_groups)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: %u workgroups is outside 1..%u", sh->name, groups,
                        c->max_groups);
    if ((st = vkb_prepare(c, sh, spec, binds, &p, err)))
        return st;
    return vkb_record(c, &p, push, groups, err);
}

/* ---- helpers for kernels ----------------------------------------------------------------------- */

uint32_t vkb_block_size(const vkb_ctx *c, uint32_t want)
{
    const VkPhysicalDeviceLimits *lim = &c->caps.props.limits;
    uint32_t max = lim->maxComputeWorkGroupInvocations < lim->maxComputeWorkGroupSize[0]
                       ? lim->maxComputeWorkGroupInvocations
                       : lim->maxComputeWorkGroupSize[0];
    uint32_t b = want;
    while (b > 1 && b > max)
        b /= 2;
    return b;
}

uint32_t vkb_group_count(const vkb_ctx *c, uint64_t groups)
{
    uint64_t max = c->max_groups;
    if (groups < 1)
        groups = 1;
    return (uint32_t)(groups < max ? groups : max);
}

xpb_status vkb_check_range(const vkb_ctx *c, const char *what, uint64_t bytes, xpb_error *why)
{
    uint32_t max = c->caps.props.limits.maxStorageBufferRange;
    if (bytes > max)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED,
                        "%s needs a %.1f MiB binding; this device binds at most %.1f MiB "
                        "(maxStorageBufferRange)", what, (double)bytes / 1048576.0, (double)max / 1048576.0);
    return XPB_OK;
}
