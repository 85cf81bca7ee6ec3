/* xpb_backend.h - the backend interface: a backend is a table of function pointers.
 *
 * Modelled on ggml's backend interface: one `xpb_backend_i` per programming model (cpu, cuda,
 * vulkan), registered in one place (xpb_registry.c). Nothing in harness/ includes a CUDA or Vulkan
 * header; it reaches the device only through this table.
 *
 * Lifecycle: probe() -> device_count()/device_info() -> open(device) -> buffers and kernels ->
 * close(). All calls that take `ctx` receive the pointer open() returned. Every call that can fail
 * returns an xpb_status and writes a one-line reason into err; none of them exits.
 *
 * Ordering: kernel launches, uploads and downloads on one ctx execute in the order issued.
 * synchronize() waits for all of them. timer_begin()/timer_end() bracket launches and measure the
 * device time between them (device timers: CUDA events, Vulkan timestamps; host clock on the CPU). */
#ifndef XPB_BACKEND_H
#define XPB_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xpb_ops.h"
#include "xpb_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct xpb_device_info {
    char name[256];          /* "NVIDIA H100 80GB HBM3", "llvmpipe (LLVM 15.0.6, 256 bits)"   */
    char driver[128];        /* driver version string                                         */
    char runtime[128];       /* CUDA runtime / Vulkan API version / OpenMP + compiler          */
    char library[256];       /* the math library the kernels call (cpu: the BLAS and its core) */
    char warning[256];       /* why its figures may mislead (a library's generic fallback), "" */
    char timer[64];          /* "cuda-events", "vulkan-timestamps", "host-clock"               */
    uint64_t memory_bytes;   /* device memory (host RAM for cpu)                               */
    uint64_t max_buffer_bytes; /* largest single buffer a kernel may bind (0 = no limit)       */
    uint64_t cache_bytes;    /* last-level cache (L2 on GPUs), 0 when unknown                  */
    double peak_gflops_fp32; /* datasheet-style peak from device properties, 0 when unknown    */
    double peak_gbps;        /* datasheet-style memory bandwidth, 0 when unknown               */
    int compute_units;       /* SMs, compute units, or CPU threads                             */
    bool is_gpu;
    bool is_software;        /* a CPU emulating a GPU API (lavapipe, SwiftShader)              */
} xpb_device_info;

/* One implementation of one op. Adding a variant = one file defining an xpb_kernel plus one line
 * in its backend's kernel list. */
typedef struct xpb_kernel {
    xpb_op op;
    const char *variant;   /* "default", "tiled", "cublas", "coopmat", ...                    */
    const char *precision; /* what it computes in: "fp32", "tf32", "fp16-fp32acc", "exact"    */
    /* Optional (NULL = supports every valid args). Returns XPB_OK, or XPB_ERR_UNSUPPORTED with
     * the reason in why (e.g. "device has no VK_KHR_cooperative_matrix"). */
    xpb_status (*supports)(void *ctx, const void *args, xpb_error *why);
    /* Optional untimed set-up for these args (convert inputs, build plans); its result is passed
     * to launch and to release. */
    xpb_status (*prepare)(void *ctx, const void *args, void **state, xpb_error *err);
    void (*release)(void *ctx, void *state);
    /* Enqueue the kernel. Must not wait for completion (the harness synchronizes). */
    xpb_status (*launch)(void *ctx, const void *args, void *state, xpb_error *err);
    /* Optional: what this launch chose by itself where the variant decides from the device or the
     * sizes and not from a knob alone (a path taken where the device has a feature, the shape for
     * these rows), as "key=value key=value" into buf (n bytes, NUL-terminated; state: prepare's).
     * The results carry it as the case's kernel_config, and compare warns where the two runs of a
     * case ran different code (docs/results-schema.md). */
#ifdef __cplusplus /* (C++ aggregates that predate it leave it out: null, without a warning) */
    void (*describe)(void *ctx, const void *args, void *state, char *buf, size_t n) = nullptr;
#else
    void (*describe)(void *ctx, const void *args, void *state, char *buf, size_t n);
#endif
} xpb_kernel;

/* The most devices one group may hold. */
#define XPB_MAX_GROUP 64

/* How two GPUs of a group reach each other (NVML's view, as `nvidia-smi topo -m` prints it). */
typedef enum xpb_link {
    XPB_LINK_UNKNOWN,          /* not read (no NVML, or ranks on another host than rank 0's)  */
    XPB_LINK_SELF,             /* the same GPU                                               */
    XPB_LINK_NVLINK,           /* peer-to-peer over NVLink (NV#)                             */
    XPB_LINK_PCIE_SWITCH,      /* PCIe through one or more switches (PIX, PXB)               */
    XPB_LINK_PCIE_HOSTBRIDGE,  /* PCIe through the CPU's host bridge (PHB)                   */
    XPB_LINK_PCIE_NUMA_NODE,   /* PCIe across host bridges of one NUMA node (NODE)           */
    XPB_LINK_PCIE_SYSTEM,      /* PCIe across NUMA nodes / sockets (SYS)                     */
    XPB_LINK_NETWORK,          /* another host                                               */
} xpb_link;

/* Where each rank of a device group runs, for the results (docs/multi-gpu.md). */
typedef struct xpb_group_layout {
    int n;
    int device[XPB_MAX_GROUP];    /* the rank's device index on its host */
    char host[XPB_MAX_GROUP][64]; /* the rank's host name */
    int nvlinks[XPB_MAX_GROUP];   /* active NVLinks of the rank's GPU, -1 unknown */
    int cpus[XPB_MAX_GROUP];      /* CPUs the rank's process may run on (its affinity), 0 unknown */
    signed char link[XPB_MAX_GROUP][XPB_MAX_GROUP]; /* xpb_link between ranks i and j */
} xpb_group_layout;

/* The clocks and limits a device runs under at one moment (NVML on CUDA). */
typedef struct xpb_conditions {
    double sm_mhz, mem_mhz, temp_c, power_w;
    double sm_max_mhz; /* the highest SM clock the GPU runs at (its boost), 0 when unknown */
    unsigned long long reasons; /* NVML's clocks event (throttle) reasons, XPB_REASON_* bits */
} xpb_conditions;

/* The reasons that slow the clocks down (NVML's bit values); idle, application clocks and the
 * like only describe the state and are left out of "throttled". */
#define XPB_REASON_SW_POWER_CAP 0x4ULL
#define XPB_REASON_HW_SLOWDOWN 0x8ULL
#define XPB_REASON_SW_THERMAL 0x20ULL
#define XPB_REASON_HW_THERMAL 0x40ULL
#define XPB_REASON_HW_POWER_BRAKE 0x80ULL
#define XPB_REASONS_THROTTLE (XPB_REASON_SW_POWER_CAP | XPB_REASON_HW_SLOWDOWN | XPB_REASON_SW_THERMAL | \
                              XPB_REASON_HW_THERMAL | XPB_REASON_HW_POWER_BRAKE)

/* A user's compute shader standing in for a kernel of op (run --kernels FILE.spv; docs/plugins.md
 * "Vulkan: SPIR-V kernels"). The plugin loader has checked its interface against the op's layout
 * before any device is opened: descriptor set 0, storage buffers at bindings 0..n_bindings-1 (the
 * op's inputs in xpb_eltwise_args / xpb_rowop_args / xpb_gemm_args order, then out), and a
 * push-constant block that is a prefix of xpb_spirv_rowop_push, xpb_spirv_eltwise_push or
 * xpb_spirv_gemm_push. The backend makes the pipeline and records ceil(rows / per_group)
 * workgroups (row ops), ceil(n / per_group) (elementwise) or ceil(m / per_group) x ceil(n /
 * per_group_cols) tiles of C (gemm, gemv), capped at the device's grid: the shader loops over the
 * rest. Everything it points to lives until the process exits. */
typedef struct xpb_spirv_kernel {
    xpb_op op;
    const char *variant;    /* for messages */
    const uint32_t *code;   /* SPIR-V words, host byte order */
    size_t code_bytes;
    const char *entry;      /* the GLCompute entry point */
    uint32_t local_size[3]; /* its workgroup size */
    uint32_t n_bindings;
    uint32_t per_group;     /* rows (row ops, gemm: of C) or elements (elementwise) per workgroup */
    uint32_t per_group_cols; /* gemm, gemv: columns of C per workgroup; else 0 */
} xpb_spirv_kernel;

/* The push constants a SPIR-V kernel receives, at these offsets (4-byte scalars). row_stride is
 * the distance between rows in floats (cols today). */
typedef struct xpb_spirv_rowop_push {
    uint32_t rows, cols, row_stride;
    float eps;
} xpb_spirv_rowop_push;
typedef struct xpb_spirv_eltwise_push {
    uint32_t n;
    float a;
} xpb_spirv_eltwise_push;
typedef struct xpb_spirv_gemm_push {
    uint32_t m, n, k;
    float alpha, beta;
} xpb_spirv_gemm_push;

typedef struct xpb_backend_i {
    const char *name; /* "cpu", "cuda", "vulkan" */

    /* Is the backend usable on this machine at all? On false, why says what is missing
     * ("no CUDA driver: cudaGetDeviceCount returned 35 (CUDA driver version is insufficient)"). */
    bool (*probe)(xpb_error *why);
    int (*device_count)(void);
    xpb_status (*device_info)(int device, xpb_device_info *out, xpb_error *err);

    xpb_status (*open)(int device, void **ctx, xpb_error *err);
    void (*close)(void *ctx);

    xpb_status (*buffer_alloc)(void *ctx, size_t bytes, xpb_buffer **out, xpb_error *err);
    void (*buffer_free)(void *ctx, xpb_buffer *buf);
    /* Blocking copies between host memory and [offset, offset+bytes) of a buffer. */
    xpb_status (*buffer_upload)(void *ctx, xpb_buffer *dst, size_t offset, const void *src,
                                size_t bytes, xpb_error *err);
    xpb_status (*buffer_download)(void *ctx, xpb_buffer *src, size_t offset, void *dst,
                                  size_t bytes, xpb_error *err);

    /* Optional: sets every 32-bit word of [offset, offset + bytes) of buf to `word` on the device
     * (offset and bytes multiples of 4; a device group: on each of this process's ranks), done on
     * return, as an upload. The harness poisons outputs with it (gigabytes a case at the large
     * collectives, where an upload from the host took seconds); NULL: it uploads the pattern. */
    xpb_status (*buffer_fill)(void *ctx, xpb_buffer *buf, size_t offset, size_t bytes, uint32_t word,
                              xpb_error *err);
    /* Optional, device groups: uploads to each rank r only part r of src (part_bytes at
     * offset + r part_bytes), for inputs whose ranks read their own part alone
     * (xpb_workload_i.input_rank_part). */
    xpb_status (*buffer_upload_parts)(void *ctx, xpb_buffer *dst, size_t offset, const void *src, size_t bytes,
                                      size_t part_bytes, xpb_error *err);
    /* Optional, device groups under MPI: downloads only the bytes of [offset, offset + bytes) that
     * this process's ranks hold (to the same places of dst; the rest of dst untouched) and says
     * which: [*lo, *hi), relative to offset (*lo == *hi: none). No MPI call: each process reads its
     * own part, where buffer_download also broadcasts every part to every process. XPB_ERR_UNSUPPORTED
     * when this process's bytes are not one span (column parts): the caller downloads the whole. */
    xpb_status (*buffer_download_local)(void *ctx, xpb_buffer *src, size_t offset, void *dst, size_t bytes,
                                        size_t *lo, size_t *hi, xpb_error *err);

    /* Optional (NULL = k->launch `count` times): a timed sample's `count` launches of k back to
     * back, where the backend issues them otherwise than one after the other from this thread
     * (cuda: a device group's collectives from one host thread a rank, XPB_CUDA_SHARDED_LAUNCH=
     * threads). Must not wait. */
    xpb_status (*launch_n)(void *ctx, const xpb_kernel *k, const void *args, void *state, int count,
                           xpb_error *err);
    xpb_status (*synchronize)(void *ctx, xpb_error *err);
    xpb_status (*timer_begin)(void *ctx, xpb_error *err);
    /* Waits for the work since timer_begin and returns its device time in seconds. */
    xpb_status (*timer_end)(void *ctx, double *seconds, xpb_error *err);

    /* Optional (NULL = no graphs: run --graph is then each case's `unsupported`): record instead
     * of run. Launches between capture_begin and capture_end are captured into a graph (a CUDA
     * graph per device of the context, as nccl-tests' -G); graph_launch replays all of them with
     * one launch per device; graph_free releases it. A launch that cannot be captured makes
     * capture_end fail with the reason. */
    xpb_status (*capture_begin)(void *ctx, xpb_error *err);
    xpb_status (*capture_end)(void *ctx, void **graph, xpb_error *err);
    xpb_status (*graph_launch)(void *ctx, void *graph, xpb_error *err);
    void (*graph_free)(void *ctx, void *graph);

    /* Optional (NULL = no power readings): the board's power draw now, in watts. Called from a
     * sampling thread while kernels run, so it must not use the ctx's stream or queue.
     * XPB_ERR_UNAVAILABLE with the reason when no sensor can be read (e.g. no NVML). */
    xpb_status (*power_watts)(void *ctx, double *watts, xpb_error *err);

    /* Optional (NULL = not recorded): what the GPU runs at now (xpb_conditions), read before and
     * after each case's timed rounds so that compare can explain a difference. */
    xpb_status (*conditions)(void *ctx, xpb_conditions *out, xpb_error *err);

    /* Optional (NULL = this backend has no device groups): opens devices[0..n) as one group
     * (--devices): one context whose buffers exist once per device and whose timer reads the
     * slowest device. Only the kernels of group ops (xpb_op_info.group: the collectives) run on
     * it, and those run on nothing else. group_info describes it. */
    xpb_status (*open_group)(const int *devices, int n, void **ctx, xpb_error *err);
    xpb_status (*group_info)(const int *devices, int n, xpb_device_info *out, xpb_error *err);
    /* Optional (NULL = no MPI launch): this process as one rank of a group spanning every MPI
     * process (xpb_mpi.h), on its host's GPU `device`; fills info and where every rank runs. */
    xpb_status (*open_group_mpi)(int device, void **ctx, xpb_device_info *info, xpb_group_layout *layout,
                                 xpb_error *err);
    /* Optional (NULL = not read): how devices[0..n) of this host connect: each one's active
     * NVLinks (nvlinks[i], -1 unknown) and the xpb_link between i and j (links[i * n + j]). */
    void (*group_topology)(const int *devices, int n, int *nvlinks, signed char *links);
    /* Optional (NULL = not reported): the transports the group's library says it has connected
     * this process's ranks with so far ("P2P/CUMEM 48, NET/Socket 12"), for the results; the
     * reason in why (XPB_ERR_UNAVAILABLE) when it cannot say. */
    xpb_status (*group_transports)(void *ctx, char *out, size_t n, xpb_error *why);
    /* Optional: each group rank's mean time between timer_begin and timer_end since the last call
     * (which it forgets); returns the ranks written (0 when nothing was timed). */
    int (*group_rank_seconds)(void *ctx, double *mean_s, int max);

    /* Optional (NULL = no plugin kernels here; docs/plugins.md): the address a plugin kernel gets
     * for view v of `bytes` bytes (a host pointer on cpu, a device pointer on cuda), NULL when it
     * overruns its buffer; and the queue plugin launches go on (cuda: the cudaStream_t, its
     * device made current), for backends whose plugins need one. */
    void *(*view_ptr)(void *ctx, const xpb_view *v, size_t bytes);
    xpb_status (*native_queue)(void *ctx, void **queue, xpb_error *err);

    /* Optional (NULL = no SPIR-V kernels here): supports() and launch() of a user's shader k
     * (xpb_spirv_kernel) on op k->op's args, as an xpb_kernel's. */
    xpb_status (*spirv_supports)(void *ctx, const xpb_spirv_kernel *k, const void *args, xpb_error *why);
    xpb_status (*spirv_launch)(void *ctx, const xpb_spirv_kernel *k, const void *args, xpb_error *err);

    const xpb_kernel *const *kernels; /* NULL-terminated list */
} xpb_backend_i;

/* The registry (xpb_registry.c): every backend compiled into this binary. */
const xpb_backend_i *const *xpb_backends(void); /* NULL-terminated */
const xpb_backend_i *xpb_backend_find(const char *name);
/* How many backends xpubench knows, compiled in or not (xpb_registry.c's `known` list). */
#define XPB_MAX_BACKENDS 3
/* The i-th of them ("cpu", "cuda", "vulkan"), NULL past the last. */
const char *xpb_backend_known_name(int i);
/* True for a name of that list. */
bool xpb_backend_name_known(const char *name);
/* Why a known backend is absent from this build ("built without CUDA: ..."), or NULL. */
const char *xpb_backend_missing_reason(const char *name);

/* Kernels from outside the backends' lists: the plugin loader (harness/plugin/) registers its
 * lookup here when it loads a library, so core needs no knowledge of plugins. */
typedef size_t (*xpb_extra_kernels_fn)(const xpb_backend_i *b, xpb_op op, const xpb_kernel **out, size_t max);
void xpb_backend_set_extra_kernels(xpb_extra_kernels_fn fn);

/* Kernel lookup: all kernels of backend b for op, in registration order, then those of plugins
 * (xpb_backend_set_extra_kernels). Returns the count written (at most max). */
size_t xpb_backend_kernels_for(const xpb_backend_i *b, xpb_op op, const xpb_kernel **out,
                               size_t max);

#ifdef __cplusplus
}
#endif
#endif
