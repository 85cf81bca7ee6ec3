/* xpb_spirv.h - a small SPIR-V reader: what a compute module declares about its interface.
 *
 * Enough of the binary format (the SPIR-V specification, section 2.3 and the instructions named
 * below) to check a user's shader against an op's documented layout before any device is opened
 * (docs/plugins.md "Vulkan: SPIR-V kernels"): its entry points (OpEntryPoint) and their workgroup
 * size (OpExecutionMode LocalSize, OpExecutionModeId LocalSizeId, or a constant decorated BuiltIn
 * WorkgroupSize, which overrides both), its descriptor resources (OpVariable of storage class
 * StorageBuffer, Uniform or UniformConstant with OpDecorate DescriptorSet / Binding) and its
 * push-constant block (the struct behind the PushConstant variable: each member's Offset and
 * type, and the block's size). It does not validate the module: the driver and the validation
 * layer do. No Vulkan header is needed. */
#ifndef XPB_SPIRV_H
#define XPB_SPIRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xpb_status.h"

#define XPB_SPIRV_MAGIC 0x07230203u
#define XPB_SPIRV_MAX_ENTRIES 8
#define XPB_SPIRV_MAX_RESOURCES 32
#define XPB_SPIRV_MAX_MEMBERS 16
#define XPB_SPIRV_NONE UINT32_MAX /* a DescriptorSet or Binding never decorated */

/* Execution models of OpEntryPoint (only GLCompute runs here). */
#define XPB_SPIRV_MODEL_GLCOMPUTE 5u

typedef struct xpb_spirv_entry {
    char name[64];
    uint32_t id, model;
    uint32_t local_size[3]; /* 0 0 0 when the module gives none for it */
} xpb_spirv_entry;

/* What a descriptor resource is, as Vulkan would bind it. */
typedef enum xpb_spirv_resource_kind {
    XPB_SPIRV_STORAGE_BUFFER, /* StorageBuffer, or Uniform + BufferBlock (SPIR-V 1.0-1.2's form) */
    XPB_SPIRV_UNIFORM_BUFFER, /* Uniform + Block                                                 */
    XPB_SPIRV_OTHER_RESOURCE  /* UniformConstant: images, samplers, ...                          */
} xpb_spirv_resource_kind;

typedef struct xpb_spirv_resource {
    uint32_t set, binding; /* XPB_SPIRV_NONE when not decorated */
    xpb_spirv_resource_kind kind;
} xpb_spirv_resource;

/* The scalar a push-constant member is; anything else (vectors, arrays, structs) is OTHER. */
typedef enum xpb_spirv_scalar {
    XPB_SPIRV_UINT32,
    XPB_SPIRV_INT32,
    XPB_SPIRV_FLOAT32,
    XPB_SPIRV_OTHER_TYPE
} xpb_spirv_scalar;

typedef struct xpb_spirv_member {
    uint32_t offset, size;
    xpb_spirv_scalar type;
} xpb_spirv_member;

typedef struct xpb_spirv_info {
    uint32_t version; /* 0x00MMmm00: 0x00010300 is SPIR-V 1.3 */
    int n_entries;
    xpb_spirv_entry entries[XPB_SPIRV_MAX_ENTRIES];
    int n_resources;
    xpb_spirv_resource resources[XPB_SPIRV_MAX_RESOURCES];
    bool has_push;      /* a PushConstant variable exists                     */
    uint32_t push_bytes; /* its block's size: the largest member offset + size */
    int n_push_members;
    xpb_spirv_member push[XPB_SPIRV_MAX_MEMBERS];
} xpb_spirv_info;

/* Reads the module of n_words words (host byte order). XPB_ERR_USAGE with one line when it is not
 * SPIR-V (the magic number; the other byte order is said as such), is truncated or malformed
 * (an instruction of 0 words or running past the end, an id beyond the header's bound, a
 * push-constant block of a type this reader cannot size), or declares more than the limits
 * above. Nothing is allocated that outlives the call. */
xpb_status xpb_spirv_read(const uint32_t *words, size_t n_words, xpb_spirv_info *out, xpb_error *err);

/* The GLCompute entry point named `name`, or the only one when name is NULL; NULL when there is
 * none or (name NULL) several. */
const xpb_spirv_entry *xpb_spirv_compute_entry(const xpb_spirv_info *info, const char *name);

#endif
