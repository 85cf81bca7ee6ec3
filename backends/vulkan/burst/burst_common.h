/* burst_common.h - what the Vulkan burst kernels share (burst_common.c; the ops in xpb_ops.h,
 * docs/workloads.md section 4).
 *
 * A burst is propagate (one indirect dispatch, from counters[b].dispatch), dynamics (one
 * dispatch, which also leaves compact's block sums in scratch) and compact (block sums, then the
 * ids, the degree scan and counters[b + 1]: two dispatches alone, one in a batch, where the
 * dynamics before it has left the sums). Each op file prepares its pipelines and bindings once
 * per launch (vkb_prepare) and records them for a burst b (vkb_record*, b in the push
 * constants), so burst_batch.c records many bursts from the same prepared dispatches. Shaders:
 * shaders/burst_*.comp, with burst.glsl (hashes, exact fp32 steps) and burst_compact.glsl. */
#ifndef XPB_VK_BURST_COMMON_H
#define XPB_VK_BURST_COMMON_H

#include "vk_ops.h"

/* Workgroup size wanted (fewer where the device allows fewer invocations). */
#define VKB_BURST_BLOCK 256
/* Dynamics and compact cut the neurons into at most this many blocks (a workgroup each; tiles of
 * 4 * workgroup size neurons, up to 2M neurons one tile each): compact's second pass sums the
 * block sums before its own, so this bounds that work. */
#define VKB_BURST_MAX_BLOCKS 2048
/* Storage buffers the largest burst shader binds (dynamics). */
#define VKB_BURST_MAX_BUFFERS 14

/* Push constants of every burst shader (BurstPush in shaders/burst/burst.glsl). */
typedef struct vkb_burst_push {
    uint32_t n, burst, stim_floor;
    int32_t stim;
    float scale;
    uint32_t tiles, per_block, blocks; /* compact's tiling (burst_compact.glsl) */
} vkb_burst_push;

/* The launch's fixed numbers: workgroup size, compact's tiling, the grids. */
typedef struct vkb_burst_plan {
    uint32_t block;       /* workgroup size of every burst shader                     */
    uint32_t groups;      /* dynamics' and compact's grid: the blocks, at most the cap */
    uint32_t prop_groups; /* propagate's fixed grid; 0: indirect, from counters[b]     */
    vkb_burst_push push;  /* burst set per record                                     */
} vkb_burst_plan;

/* Checks a's sizes and every binding the ops take for bursts up to `last` (the compact of `last`
 * writes counters[last + 1]): XPB_ERR_USAGE (n < 1), XPB_ERR_UNSUPPORTED (n >= 2^32 - 1,
 * synapses >= 2^32, a binding past maxStorageBufferRange, too few storage buffers per stage, a
 * scale below the exact path's bound), each with a one-line reason naming op. */
xpb_status vkb_burst_supports(const vkb_ctx *c, const xpb_burst_args *a, uint64_t last, const char *op,
                              xpb_error *why);
/* The plan of a (checked) for this device; XPB_ERR_USAGE when XPB_VULKAN_BURST_PROPAGATE_GROUPS is
 * set to a value it does not accept. */
xpb_status vkb_burst_plan_for(const vkb_ctx *c, const xpb_burst_args *a, vkb_burst_plan *p, xpb_error *err);
/* A storage binding of `bytes` (at least 4) at view v. */
vkb_binding vkb_burst_bind(xpb_view v, uint64_t bytes);
/* Bytes of counters[0 .. entries). */
static inline uint64_t vkb_burst_counters_bytes(uint64_t entries)
{
    return entries * sizeof(xpb_burst_counters);
}

/* One op's prepare and record for burst a->burst on its own (not batched), a checked. */
typedef xpb_status (*vkb_burst_one_fn)(vkb_ctx *c, const xpb_burst_args *a, const vkb_burst_plan *plan,
                                       xpb_error *err);
/* One op's launch alone (its xpb_kernel.launch): vkb_burst_supports(ctx, a, last, op), then one()
 * with a's plan. */
xpb_status vkb_burst_launch(void *ctx, const xpb_burst_args *a, uint64_t last, const char *op, vkb_burst_one_fn one,
                            xpb_error *err);

/* The ops (burst_propagate.c, burst_dynamics.c, burst_compact.c). prepare: pipelines and
 * bindings for bursts up to `last`; record: the op's dispatches for burst b <= last. */
xpb_status vkb_burst_propagate_prepare(vkb_ctx *c, const xpb_burst_args *a, const vkb_burst_plan *plan,
                                       uint64_t last, vkb_prepared *p, xpb_error *err);
xpb_status vkb_burst_propagate_record(vkb_ctx *c, const xpb_burst_args *a, const vkb_burst_plan *plan,
                                      const vkb_prepared *p, uint32_t b, xpb_error *err);
xpb_status vkb_burst_dynamics_prepare(vkb_ctx *c, const xpb_burst_args *a, const vkb_burst_plan *plan,
                                      vkb_prepared *p, xpb_error *err);
xpb_status vkb_burst_dynamics_record(vkb_ctx *c, const vkb_burst_plan *plan, const vkb_prepared *p, uint32_t b,
                                     xpb_error *err);
xpb_status vkb_burst_compact_prepare(vkb_ctx *c, const xpb_burst_args *a, const vkb_burst_plan *plan,
                                     uint64_t last, vkb_prepared p[2], xpb_error *err);
/* sums: record the block-sum pass too (false right after the burst's dynamics, which left them). */
xpb_status vkb_burst_compact_record(vkb_ctx *c, const vkb_burst_plan *plan, const vkb_prepared p[2], uint32_t b,
                                    bool sums, xpb_error *err);

#endif
