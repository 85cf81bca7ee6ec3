/* anneal_update.c - vulkan anneal update (XPB_OP_ANNEAL_UPDATE, xpb_ops.h): anchors move towards
 * their trimmed means by clamp((mean - anchor) * lr_t, -0.1, 0.1) in fp32, where counts > 0.
 * Shader: shaders/anneal/anneal_update.comp, one dispatch, elementwise (vec4 when d % 4 == 0). */
#include "vk_ops.h"

typedef struct update_push {
    uint32_t m, d;
    float lr_t;
    uint32_t pad;
} update_push;

static const uint32_t anneal_update_spv[] = {
#include "anneal_update.spv.inc"
};
static const vkb_shader shader = VKB_SHADER("anneal_update", anneal_update_spv, 3, sizeof(update_push));

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    const vkb_ctx *c = ctx;
    const xpb_anneal_update_args *a = args;
    xpb_status st = vkb_anneal_check_sizes("update", a->m, a->d, a->m, why);
    if (st)
        return st;
    return vkb_check_range(c, "the anneal anchors", (uint64_t)a->m * (uint64_t)a->d * sizeof(float), why);
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    vkb_ctx *c = ctx;
    const xpb_anneal_update_args *a = args;
    (void)state;
    xpb_status st = supports(ctx, args, err);
    if (st)
        return st;
    VkDeviceSize md = (VkDeviceSize)a->m * (VkDeviceSize)a->d * sizeof(float);
    vkb_binding b[3] = {
        {a->anchors.buf, a->anchors.offset, md},
        {a->counts.buf, a->counts.offset, (VkDeviceSize)a->m * sizeof(uint32_t)},
        {a->mean.buf, a->mean.offset, md},
    };
    bool vec4 = a->d % 4 == 0;
    uint32_t block = vkb_block_size(c, VKB_ANNEAL_BLOCK);
    uint64_t units = (uint64_t)a->m * (uint64_t)(vec4 ? a->d / 4 : a->d);
    vkb_spec spec = {2, {block, vec4}};
    update_push push = {(uint32_t)a->m, (uint32_t)a->d, a->lr_t, 0};
    return vkb_dispatch(c, &shader, &spec, b, &push, vkb_group_count(c, (units + block - 1) / block), err);
}

const xpb_kernel xpb_vulkan_anneal_update = {
    .op = XPB_OP_ANNEAL_UPDATE,
    .variant = "default",
    .precision = "fp32",
    .supports = supports,
    .launch = launch,
};
