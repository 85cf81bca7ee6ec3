/* vk_internal.h - internals of the Vulkan backend shared by its files (README.md).
 *
 * The harness sees only `xpb_backend_vulkan` (xpb_backend.h); nothing here leaves
 * backends/vulkan/. One file per Vulkan concept:
 *   vk_result.c      VkResult -> xpb_status, VK_CHECK's message
 *   vk_validation.c  XPB_VULKAN_VALIDATION: the debug messenger and its record
 *   vk_instance.c    instance, physical-device list and order, probe / device_count / device_info
 *   vk_device.c      open / close: logical device, queue, command pool, fence, query pool
 *   vk_coopmat.c     cooperative-matrix support (VK_NV_ / VK_KHR_cooperative_matrix) and its features
 *   vk_buffer.c      device-local buffers (parked while a capture holds them), the host-visible
 *                    staging buffer, upload / download
 *   vk_command.c     the open command buffer: barriers, submit + fence wait, synchronize
 *   vk_capture.c     captured command sequences: recorded once, executed again (burst batch)
 *   vk_timer.c       timestamp queries (host clock when the queue has none)
 *   vk_pipeline.c    compute pipelines from embedded SPIR-V, descriptors, push constants, dispatch
 *   vk_descriptor_pool.c  descriptor pools (no VK_KHR_push_descriptor): sets, reset after a batch
 *   vk_spirv.c       a user's SPIR-V kernel (run --kernels FILE.spv) launched like a built-in one
 * Kernels: <family>/<op>.c + shaders/<family>/<op>.comp, with shared launch code per family in
 * eltwise.c, rowop.c, gemm_args.c. */
#ifndef XPB_VK_INTERNAL_H
#define XPB_VK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

#include "vk_khr_compat.h" /* VK_KHR_cooperative_matrix for headers older than 1.3.255 */

#include "xpb_backend.h"

#define VKB_MAX_DEVICES 16
#define VKB_MAX_BINDINGS 16
#define VKB_MAX_SPEC 12

/* ---- errors (vk_result.c) ------------------------------------------------------------------- */

/* Stable name of a VkResult ("VK_ERROR_DEVICE_LOST"), or "VkResult <n>". */
const char *vkb_result_name(VkResult r);

/* The xpb_status a failed VkResult means: device lost -> XPB_ERR_DEVICE_LOST; out of host or
 * device memory -> XPB_ERR_OUT_OF_MEMORY; no driver -> XPB_ERR_UNAVAILABLE; else XPB_ERR_RUNTIME. */
xpb_status vkb_result_status(VkResult r);

struct vkb_ctx;
/* Writes "<expr> failed: <VK_ERROR_...> (<file>:<line>)" into err and returns the status of r.
 * ctx may be NULL; when r is VK_ERROR_DEVICE_LOST the context is marked lost, so every later
 * call on it fails fast with XPB_ERR_DEVICE_LOST. */
xpb_status vkb_fail_vk(struct vkb_ctx *ctx, xpb_error *err, VkResult r, const char *expr,
                       const char *file, int line);

/* Evaluates a Vulkan call; on failure returns its status from the enclosing function with the
 * expression, file and line in err. Never exits. ctx may be NULL. */
#define VK_CHECK(ctx, err, expr)                                                                \
    do {                                                                                        \
        VkResult vk_check_r_ = (expr);                                                          \
        if (vk_check_r_ != VK_SUCCESS)                                                          \
            return vkb_fail_vk((ctx), (err), vk_check_r_, #expr, __FILE__, __LINE__);           \
    } while (0)

/* Same, but stores the status in st and jumps to label (for functions that must clean up). */
#define VK_CHECK_GOTO(st, ctx, err, expr, label)                                                \
    do {                                                                                        \
        VkResult vk_check_r_ = (expr);                                                          \
        if (vk_check_r_ != VK_SUCCESS) {                                                        \
            (st) = vkb_fail_vk((ctx), (err), vk_check_r_, #expr, __FILE__, __LINE__);            \
            goto label;                                                                         \
        }                                                                                       \
    } while (0)

/* ---- validation (vk_validation.c) ----------------------------------------------------------- */

/* WARNING and ERROR messages of the debug messenger since the last vkb_validation_check. */
typedef struct vkb_validation {
    unsigned count;    /* messages recorded so far            */
    unsigned reported; /* count at the last check             */
    char first[400];   /* first message not yet reported      */
} vkb_validation;

/* XPB_VULKAN_VALIDATION is set and not "0": enable VK_LAYER_KHRONOS_validation. */
bool vkb_validation_requested(void);
/* XPB_VULKAN_VALIDATION=sync: also the layer's synchronization validation. */
bool vkb_validation_sync_requested(void);
/* The user enabled the validation layer through VK_INSTANCE_LAYERS (the loader loads it). */
bool vkb_validation_in_env_layers(void);
/* The Khronos validation layer's spec version when it is in use (XPB_VULKAN_VALIDATION or
 * VK_INSTANCE_LAYERS) and installed, else 0. */
uint32_t vkb_validation_layer_spec(void);
/* Messenger create info (WARNING | ERROR, all types) that records into rec. */
void vkb_validation_messenger_info(vkb_validation *rec, VkDebugUtilsMessengerCreateInfoEXT *info);
/* XPB_OK when nothing new was recorded; else XPB_ERR_RUNTIME "Vulkan validation: <first>" and
 * the record is cleared (each message fails one call). */
xpb_status vkb_validation_check(vkb_validation *rec, xpb_error *err);

/* ---- physical devices (vk_instance.c) ------------------------------------------------------- */

/* What xpubench needs to know of one physical device, read once at enumeration. */
typedef struct vkb_caps {
    VkPhysicalDeviceProperties props;
    uint8_t uuid[VK_UUID_SIZE];
    char driver_name[VK_MAX_DRIVER_NAME_SIZE];
    char driver_info[VK_MAX_DRIVER_INFO_SIZE];
    uint64_t device_local_bytes; /* largest DEVICE_LOCAL heap                              */
    uint64_t max_alloc_bytes;    /* maxMemoryAllocationSize                                */
    uint32_t queue_family;       /* compute family used (timestamps preferred)             */
    uint32_t timestamp_valid_bits;
    uint32_t subgroup_size, min_subgroup_size;
    bool subgroup_arithmetic;    /* basic + arithmetic subgroup ops in compute shaders     */
    bool subgroup_shuffle;       /* basic + shuffle subgroup ops in compute shaders        */
    bool float64;                /* shaderFloat64                                          */
    bool int64_atomics;          /* shaderInt64 and shaderBufferInt64Atomics (Vulkan 1.2)  */
    bool ext_push_descriptor;    /* VK_KHR_push_descriptor                                 */
    bool ext_portability_subset; /* VK_KHR_portability_subset (must be enabled if listed) */
    bool ext_pipeline_executable; /* VK_KHR_pipeline_executable_properties                */
    uint32_t sm_count;           /* VK_NV_shader_sm_builtins, 0 when unknown               */
} vkb_caps;

/* Creates an instance (Vulkan 1.2 or newer). With validation, enables VK_LAYER_KHRONOS_validation
 * (XPB_ERR_UNAVAILABLE when it is missing) and, when rec is non-NULL, a debug messenger that
 * records into rec (*messenger; VK_NULL_HANDLE when none). */
xpb_status vkb_instance_create(bool validation, vkb_validation *rec, VkInstance *inst,
                               VkDebugUtilsMessengerEXT *messenger, xpb_error *err);
void vkb_instance_destroy(VkInstance inst, VkDebugUtilsMessengerEXT messenger);

/* Physical device number `device` in xpubench's order (discrete, integrated, virtual, CPU) of
 * inst, checked against the list probe() saw. */
xpb_status vkb_physical_device(VkInstance inst, int device, VkPhysicalDevice *pd, vkb_caps *caps,
                               xpb_error *err);

bool vkb_probe(xpb_error *why);
int vkb_device_count(void);
xpb_status vkb_device_info(int device, xpb_device_info *out, xpb_error *err);

/* ---- the context (vk_device.c) -------------------------------------------------------------- */

/* A device allocation: one VkBuffer bound to its own device-local memory. A buffer that a
 * capture's commands name (holds > 0, vk_capture.c) is parked when its user frees it: kept, and
 * handed to the next allocation of its size (vk_buffer.c). */
struct xpb_buffer {
    VkBuffer buf;
    VkDeviceMemory mem;
    VkDeviceSize size;
    uint32_t holds;                 /* captures whose commands name it           */
    bool parked;                    /* freed by its user, kept in the parked list */
    struct xpb_buffer *next_parked; /* the parked list, oldest first              */
};

typedef struct vkb_pipeline vkb_pipeline;

/* Cooperative matrices for vulkan/coopmat (NV) and vulkan/coopmat-khr (KHR) (vk_coopmat.c). */
typedef struct vkb_coopmat {
    bool nv;         /* VK_NV_cooperative_matrix usable (fp16 16x16x16 -> fp32) and enabled */
    bool khr_listed; /* VK_KHR_cooperative_matrix listed */
    bool khr;        /* VK_KHR_cooperative_matrix usable (fp16 16x16x16 -> fp32, subgroup) and enabled */
    char why[256];   /* why vulkan/coopmat cannot run, when !nv */
    char khr_why[256]; /* why vulkan/coopmat-khr cannot run on this device, when !khr */
    bool nv2;        /* VK_NV_cooperative_matrix2 usable (workgroup scope, tensor addressing, fp16) and enabled */
    char nv2_why[256]; /* why vulkan/coopmat2 cannot run on this device, when !nv2 */
    char nv2_shapes[256]; /* the workgroup-scope fp16 -> fp32 flexible shapes: "MgxNgxKg/invocations, ..." */
    uint32_t nv2_max_workgroup; /* cooperativeMatrixWorkgroupScopeMaxWorkgroupSize */
    uint32_t nv2_n;  /* the workgroup-scope fp16 -> fp32 flexible shapes: granularities, invocations */
    struct { uint32_t gm, gn, gk, invocations; } nv2_shape[8];
} vkb_coopmat;

/* A captured command sequence (vk_capture.c): a secondary command buffer recorded once and
 * executed by every later launch with the same key. */
#define VKB_CAPTURE_MAX 8          /* captures a context keeps (the least recently used goes) */
#define VKB_CAPTURE_KEY_BYTES 512  /* a key's size at most                                  */
#define VKB_CAPTURE_MAX_BUFFERS 32 /* buffers one capture may name                          */
typedef struct vkb_capture {
    VkCommandBuffer cmd;   /* secondary; VK_NULL_HANDLE: a free slot                   */
    VkDescriptorPool pool; /* its descriptor sets, where there are no push descriptors */
    uint8_t key[VKB_CAPTURE_KEY_BYTES];
    size_t key_bytes;
    xpb_buffer *bufs[VKB_CAPTURE_MAX_BUFFERS]; /* held (holds + 1 each) while it lives */
    uint32_t n_bufs;
    uint64_t opened; /* the primary command buffer it was last executed in (vkb_ctx.opened) */
    uint64_t used;   /* last use, for replacement */
} vkb_capture;

/* What open() creates. One queue, one command buffer that collects launches until a call
 * waits (synchronize, upload, download, timer_end), one fence to wait on. */
typedef struct vkb_ctx {
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    vkb_validation validation;
    VkPhysicalDevice phys;
    vkb_caps caps;
    VkPhysicalDeviceMemoryProperties mem_props;
    VkDevice dev;
    VkQueue queue;
    bool lost;
    uint32_t max_groups; /* grid cap: maxComputeWorkGroupCount[0], or XPB_VULKAN_MAX_GROUPS */
    bool pipeline_stats; /* XPB_VULKAN_PIPELINE_STATS and the extension enabled (vk_pipeline_stats.c) */
    vkb_coopmat coopmat;

    /* command recording (vk_command.c) */
    VkCommandPool cmd_pool;
    VkCommandBuffer cmd;
    VkFence fence;
    bool recording;
    bool need_barrier;            /* the next command must wait for the commands before it */
    VkPipelineStageFlags written; /* stages of the commands since the last barrier: its first scope */
    uint64_t opened;              /* primary command buffers begun so far */

    /* captures (vk_capture.c); while one records, the fields above are the primary's, saved */
    vkb_capture captures[VKB_CAPTURE_MAX];
    vkb_capture *capturing;         /* the one recording now, else NULL */
    VkDescriptorPool capture_pool;  /* its pool, for vkb_descriptor_set (VK_NULL_HANDLE: none) */
    struct {
        VkCommandBuffer cmd;
        bool recording, need_barrier;
        VkPipelineStageFlags written;
    } primary;
    uint64_t capture_clock;

    /* parked buffers (vk_buffer.c), oldest first */
    xpb_buffer *parked, *parked_tail;

    /* descriptors (vk_pipeline.c, vk_descriptor_pool.c): push descriptors, or pools reset after each batch */
    PFN_vkCmdPushDescriptorSetKHR push_descriptor; /* NULL: use pools */
    VkDescriptorPool *pools;
    uint32_t n_pools, pool_cur;

    /* pipelines (vk_pipeline.c), created on first use */
    vkb_pipeline *pipes;
    size_t n_pipes, cap_pipes;

    /* staging (vk_buffer.c), created on first upload or download */
    VkBuffer staging;
    VkDeviceMemory staging_mem;
    void *staging_map;
    VkDeviceSize staging_size;
    bool staging_coherent;

    /* timer (vk_timer.c) */
    VkQueryPool queries; /* VK_NULL_HANDLE when the queue has no timestamps */
    bool timer_on;
    double host_t0;

    /* conditions (vk_conditions.c): NVML's handle of this GPU, looked up on first use */
    void *nvml_device;
    bool nvml_tried;
} vkb_ctx;

xpb_status vkb_open(int device, void **ctx, xpb_error *err);
void vkb_close(void *ctx);

/* ---- cooperative matrices (vk_coopmat.c) ---------------------------------------------------- */

/* Fills c->coopmat from c->phys (extension list first, then features, properties and shapes).
 * Call after the physical device is known and before the device is created. */
void vkb_coopmat_query(vkb_ctx *c);
/* Feature structures vkCreateDevice chains when c->coopmat.nv or c->coopmat.khr. */
typedef struct vkb_coopmat_chain {
    VkPhysicalDeviceCooperativeMatrixFeaturesNV cm;
    VkPhysicalDeviceCooperativeMatrixFeaturesKHR khr;
    VkPhysicalDeviceCooperativeMatrix2FeaturesNV nv2;
    VkPhysicalDevice16BitStorageFeatures s16;
    VkPhysicalDeviceShaderFloat16Int8Features f16;
    VkPhysicalDeviceVulkanMemoryModelFeatures mm;
} vkb_coopmat_chain;
/* When c->coopmat.nv or .khr: fills chain, links it in front of next and returns its head, and
 * writes the extensions to enable to ext[0..] (NV first, then KHR, then NV2 when c->coopmat.nv2),
 * returning their count in *n_ext (0..3). Otherwise returns next and sets *n_ext to 0. */
const void *vkb_coopmat_chain_init(const vkb_ctx *c, vkb_coopmat_chain *chain, const void *next,
                                   const char *ext[3], uint32_t *n_ext);

/* ---- buffers (vk_buffer.c) ------------------------------------------------------------------ */

xpb_status vkb_buffer_alloc(void *ctx, size_t bytes, xpb_buffer **out, xpb_error *err);
void vkb_buffer_free(void *ctx, xpb_buffer *buf);
xpb_status vkb_buffer_upload(void *ctx, xpb_buffer *dst, size_t offset, const void *src,
                             size_t bytes, xpb_error *err);
xpb_status vkb_buffer_download(void *ctx, xpb_buffer *src, size_t offset, void *dst, size_t bytes,
                               xpb_error *err);
/* xpb_backend_i.buffer_fill: vkCmdFillBuffer, submitted and waited for. */
xpb_status vkb_buffer_fill(void *ctx, xpb_buffer *dst, size_t offset, size_t bytes, uint32_t word, xpb_error *err);
void vkb_staging_destroy(vkb_ctx *c);
/* Destroys every parked buffer that no capture holds (all of them once the captures are gone). */
void vkb_buffers_sweep(vkb_ctx *c);

/* ---- commands (vk_command.c) ---------------------------------------------------------------- */

/* The stages the commands of this backend run in (and write from): dispatches and copies. */
#define VKB_WRITE_STAGES (VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT)

/* Command pool, command buffer and fence of a new context; destroy frees them (NULL-safe). */
xpb_status vkb_cmd_init(vkb_ctx *c, xpb_error *err);
void vkb_cmd_destroy(vkb_ctx *c);
/* Opens the command buffer if it is not recording. */
xpb_status vkb_cmd_open(vkb_ctx *c, xpb_error *err);
/* Opens the command buffer and, unless vkb_cmd_barrier_all just did, records a barrier that
 * makes the commands since the last barrier (their compute and transfer stages; every earlier
 * submission's at the start of a command buffer) finish, and their writes visible, before the
 * next command, which runs in dst_stage with dst_access. Call before each dispatch or copy. */
xpb_status vkb_cmd_before(vkb_ctx *c, VkPipelineStageFlags dst_stage, VkAccessFlags dst_access,
                          xpb_error *err);
/* Opens the command buffer and records (if needed) the barrier every next dispatch or copy
 * needs, so that the command right after it records none (timer_begin: no barrier is timed). */
xpb_status vkb_cmd_barrier_all(vkb_ctx *c, xpb_error *err);
/* Submits the open command buffer (if any), waits on the fence, and readies the next batch. */
xpb_status vkb_cmd_submit_wait(vkb_ctx *c, xpb_error *err);
/* The backend's synchronize(): submit and wait, then report validation messages. */
xpb_status vkb_synchronize(void *ctx, xpb_error *err);
/* XPB_ERR_DEVICE_LOST once the device is lost, else the validation record's status. */
xpb_status vkb_ctx_status(vkb_ctx *c, xpb_error *err);

/* ---- captures (vk_capture.c) ---------------------------------------------------------------- */

/* The capture of key (key_bytes), or NULL. */
vkb_capture *vkb_capture_find(vkb_ctx *c, const void *key, size_t key_bytes);
/* False while cap is already in the open command buffer (executed there since it was opened):
 * it cannot be executed again before that buffer is submitted (record the launch inline). */
bool vkb_capture_replayable(const vkb_ctx *c, const vkb_capture *cap);
/* Starts capturing for key: until vkb_capture_end or _abort, vkb_cmd_before, vkb_record, ... record
 * into a new secondary command buffer (prepare its dispatches after this call: without push
 * descriptors their sets come from the capture's own pool). The capture holds bufs, every buffer
 * its commands will name. *started is false (and nothing changed) when every slot holds a capture
 * in the open command buffer. No submission may happen until the capture ends. */
xpb_status vkb_capture_begin(vkb_ctx *c, const void *key, size_t key_bytes, xpb_buffer *const *bufs,
                             uint32_t n_bufs, bool *started, xpb_error *err);
/* Ends the capture begun last: *out is ready to replay. On failure it is dropped. */
xpb_status vkb_capture_end(vkb_ctx *c, vkb_capture **out, xpb_error *err);
/* Drops the capture begun last (after a failure while recording it). */
void vkb_capture_abort(vkb_ctx *c);
/* Records cap's execution into the open command buffer, after a barrier (vkCmdExecuteCommands);
 * cap must be replayable. Does not wait. */
xpb_status vkb_capture_replay(vkb_ctx *c, vkb_capture *cap, xpb_error *err);
/* Drops every capture that holds a parked buffer (vk_buffer.c: an allocation that no parked buffer
 * served); their parked buffers are then held by none, for vkb_buffers_sweep. */
void vkb_captures_drop_parked(vkb_ctx *c);
/* Drops them all (close). */
void vkb_captures_destroy(vkb_ctx *c);

/* ---- timer (vk_timer.c) --------------------------------------------------------------------- */

/* The timestamp query pool (none when the queue has no timestamps). */
xpb_status vkb_timer_init(vkb_ctx *c, xpb_error *err);
void vkb_timer_destroy(vkb_ctx *c);
xpb_status vkb_timer_begin(void *ctx, xpb_error *err);
xpb_status vkb_timer_end(void *ctx, double *seconds, xpb_error *err);

/* ---- conditions (vk_conditions.c) ----------------------------------------------------------- */

/* The GPU's clocks, temperature, power and throttle reasons now (xpb_backend_i.conditions),
 * through NVML where the device is an NVIDIA GPU NVML knows by its UUID; XPB_ERR_UNAVAILABLE
 * elsewhere (lavapipe, other vendors, no NVML): then nothing is recorded. */
xpb_status vkb_conditions(void *ctx, xpb_conditions *out, xpb_error *err);

/* ---- pipelines and dispatch (vk_pipeline.c) ------------------------------------------------- */

/* One compiled shader: SPIR-V words, its storage-buffer bindings 0..n_bindings-1, push bytes,
 * its entry point (NULL: "main"). A pipeline is cached per (code, entry, interface, spec). */
typedef struct vkb_shader {
    const char *name;
    const uint32_t *code;
    size_t code_bytes;
    uint32_t n_bindings;
    uint32_t push_bytes;
    const char *entry;
} vkb_shader;

#define VKB_SHADER(name, words, n_bindings, push_bytes)                                         \
    {(name), (words), sizeof(words), (n_bindings), (push_bytes), NULL}

/* Specialization constants 0..n-1, each a 32-bit value (constant_id 0 is local_size_x). */
typedef struct vkb_spec {
    uint32_t n;
    uint32_t v[VKB_MAX_SPEC];
} vkb_spec;

/* A range of a buffer bound as one storage-buffer descriptor. */
typedef struct vkb_binding {
    xpb_buffer *buf;
    VkDeviceSize offset, range;
} vkb_binding;

/* Records one dispatch of groups x 1 x 1 workgroups into the open command buffer (after a
 * barrier), creating and caching the pipeline for (shader, spec) on first use. Does not wait.
 * Bindings must lie inside their buffers and within maxStorageBufferRange. */
xpb_status vkb_dispatch(vkb_ctx *c, const vkb_shader *sh, const vkb_spec *spec,
                        const vkb_binding *binds, const void *push, uint32_t groups,
                        xpb_error *err);
/* A pipeline and its bindings, made ready once and recorded many times (a batch of bursts
 * records the same few dispatches per burst, only the push constants change). Without push
 * descriptors it holds one descriptor set written once, valid until the batch is submitted;
 * with them the descriptors are pushed at each record. Plain value: nothing to free. */
typedef struct vkb_prepared {
    const vkb_shader *sh;
    size_t pipe; /* index in the context's pipeline cache */
    VkDescriptorSet set;
    VkDescriptorBufferInfo info[VKB_MAX_BINDINGS];
} vkb_prepared;

/* Finds or creates the pipeline for (sh, spec) and checks and writes the bindings. */
xpb_status vkb_prepare(vkb_ctx *c, const vkb_shader *sh, const vkb_spec *spec,
                       const vkb_binding *binds, vkb_prepared *out, xpb_error *err);
/* Records one dispatch of groups x 1 x 1 workgroups of p (after a barrier). Does not wait. */
xpb_status vkb_record(vkb_ctx *c, const vkb_prepared *p, const void *push, uint32_t groups,
                      xpb_error *err);
/* Records one vkCmdDispatchIndirect of p whose VkDispatchIndirectCommand is at byte `offset` of
 * buf (a multiple of 4), after a barrier that also covers the indirect-command read (the
 * command may have been written by the dispatch before). Does not wait. */
xpb_status vkb_record_indirect(vkb_ctx *c, const vkb_prepared *p, const void *push,
                               const xpb_buffer *buf, VkDeviceSize offset, xpb_error *err);
/* Descriptor pools (vk_descriptor_pool.c; devices without VK_KHR_push_descriptor): a set of
 * layout dsl from the current pool, a new pool when it is full; after the batch's fence the pools
 * can be reused (reset); destroy frees them (vkb_pipelines_destroy calls it). */
xpb_status vkb_descriptor_set(vkb_ctx *c, VkDescriptorSetLayout dsl, VkDescriptorSet *set, xpb_error *err);
void vkb_descriptors_reset(vkb_ctx *c);
void vkb_descriptors_destroy(vkb_ctx *c);
void vkb_pipelines_destroy(vkb_ctx *c);
/* XPB_VULKAN_PIPELINE_STATS=1: the driver's statistics of each new pipeline to stderr. */
bool vkb_pipeline_stats_wanted(void);
void vkb_pipeline_stats_print(vkb_ctx *c, VkPipeline pipe, const vkb_shader *sh, const vkb_spec *spec);

/* ---- helpers for kernels ---------------------------------------------------------------------- */

/* The largest workgroup size <= want that the device allows, a power of two. */
uint32_t vkb_block_size(const vkb_ctx *c, uint32_t want);
/* min(groups, c->max_groups), at least 1: kernels loop over what is left. */
uint32_t vkb_group_count(const vkb_ctx *c, uint64_t groups);
/* XPB_ERR_UNSUPPORTED when one binding of `bytes` exceeds maxStorageBufferRange. */
xpb_status vkb_check_range(const vkb_ctx *c, const char *what, uint64_t bytes, xpb_error *why);

#endif
