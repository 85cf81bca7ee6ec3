/* vk_ops.h - the Vulkan backend's kernels and the launch code their families share.
 *
 * A kernel is <family>/<op>.c (its xpb_kernel and its embedded shader) + shaders/<family>/<op>.comp,
 * registered by one line in vk_backend.c. Elementwise kernels launch through eltwise.c, row kernels through
 * rowop.c; rope.c stands alone; the burst kernels share burst_common.h. */
#ifndef XPB_VK_OPS_H
#define XPB_VK_OPS_H

#include "vk_internal.h"
#include "xpb_knob.h"

extern const xpb_kernel xpb_vulkan_copy;
extern const xpb_kernel xpb_vulkan_add;
extern const xpb_kernel xpb_vulkan_mul;
extern const xpb_kernel xpb_vulkan_scale;
extern const xpb_kernel xpb_vulkan_relu;
extern const xpb_kernel xpb_vulkan_sigmoid;
extern const xpb_kernel xpb_vulkan_silu;
extern const xpb_kernel xpb_vulkan_softmax;
extern const xpb_kernel xpb_vulkan_rmsnorm;
extern const xpb_kernel xpb_vulkan_layernorm;
extern const xpb_kernel xpb_vulkan_layernorm_f64;
extern const xpb_kernel xpb_vulkan_softmax_l2;
extern const xpb_kernel xpb_vulkan_rmsnorm_l2;
extern const xpb_kernel xpb_vulkan_layernorm_l2;
extern const xpb_kernel xpb_vulkan_softmax_onchip;
extern const xpb_kernel xpb_vulkan_rmsnorm_onchip;
extern const xpb_kernel xpb_vulkan_layernorm_onchip;
extern const xpb_kernel xpb_vulkan_rope;
extern const xpb_kernel xpb_vulkan_gemm_tiled;
extern const xpb_kernel xpb_vulkan_gemm_coopmat;
extern const xpb_kernel xpb_vulkan_gemm_coopmat_khr;
extern const xpb_kernel xpb_vulkan_gemm_coopmat2;
extern const xpb_kernel xpb_vulkan_gemv;
extern const xpb_kernel xpb_vulkan_anneal_init;
extern const xpb_kernel xpb_vulkan_anneal_assign;
extern const xpb_kernel xpb_vulkan_anneal_stats;
extern const xpb_kernel xpb_vulkan_anneal_update;
extern const xpb_kernel xpb_vulkan_anneal_changes;
extern const xpb_kernel xpb_vulkan_anneal_search;
extern const xpb_kernel xpb_vulkan_burst_propagate;
extern const xpb_kernel xpb_vulkan_burst_dynamics;
extern const xpb_kernel xpb_vulkan_burst_compact;
extern const xpb_kernel xpb_vulkan_burst_batch;

/* ---- elementwise (eltwise.c, shaders/elementwise/eltwise.glsl) -------------------------------- */

/* Push constants of every elementwise shader. */
typedef struct vkb_eltwise_push {
    uint32_t n, n4;
    float a;
    uint32_t pad;
} vkb_eltwise_push;

/* Shader of an elementwise op: bindings x, out (unary) or x, y, out (binary). */
#define VKB_ELTWISE_SHADER(name, words, binary)                                                 \
    VKB_SHADER(name, words, (binary) ? 3 : 2, sizeof(vkb_eltwise_push))

/* supports() of the elementwise kernels: n >= 0 and each array within maxStorageBufferRange. */
xpb_status vkb_eltwise_supports(void *ctx, const void *args, xpb_error *why);
/* Records the dispatch of sh over args (xpb_eltwise_args); n = 0 records nothing. */
xpb_status vkb_eltwise_launch(void *ctx, const vkb_shader *sh, const void *args, xpb_error *err);

/* ---- row ops (rowop.c, shaders/rows/rowop.glsl) ----------------------------------------------- */

typedef struct vkb_rowop_push {
    uint32_t rows, cols;
    float eps;
    uint32_t pad;
} vkb_rowop_push;

/* Shader of a row op with n_params per-column inputs (0 softmax, 1 rmsnorm w, 2 layernorm w, b). */
#define VKB_ROWOP_SHADER(name, words, n_params)                                                 \
    VKB_SHADER(name, words, 2 + (n_params), sizeof(vkb_rowop_push))

xpb_status vkb_rowop_supports(void *ctx, const void *args, int n_params, xpb_error *why);
/* Records the dispatch of sh over args (xpb_rowop_args); rows = 0 records nothing. */
xpb_status vkb_rowop_launch(void *ctx, const vkb_shader *sh, int n_params, const void *args,
                            xpb_error *err);
/* The default variant of op (softmax, rmsnorm, layernorm; its shader sh, n_params per-column
 * inputs): rows that fit one workgroup by the shader sh; longer rows (more than one chunk of
 * rowop.c's shape, which the shader would read twice or three times) by variant onchip's
 * dispatch (rowop_onchip.c), each row read once, where it runs (layernorm needs shaderFloat64;
 * without it, sh's chunks). prepare() makes onchip's buffers for those rows (else no state). */
xpb_status vkb_rowop_default_supports(void *ctx, xpb_op op, int n_params, const void *args, xpb_error *why);
xpb_status vkb_rowop_default_prepare(void *ctx, xpb_op op, int n_params, const void *args, void **state,
                                     xpb_error *err);
void vkb_rowop_default_release(void *ctx, void *state);
/* What these rows run as (xpb_kernel.describe): "path=onchip" and onchip's, or the shape rowop.c picks. */
void vkb_rowop_default_describe(void *ctx, xpb_op op, int n_params, const void *args, char *buf, size_t n);
xpb_status vkb_rowop_default_launch(void *ctx, xpb_op op, const vkb_shader *sh, int n_params, const void *args,
                                    void *state, xpb_error *err);
/* Variant onchip's dispatch of op for the default variant's long rows (rowop_onchip.c): whether
 * it runs on this device, and its prepare, release and launch. */
bool vkb_rowop_onchip_runs(const vkb_ctx *c, xpb_op op);
xpb_status vkb_rowop_onchip_prepare(void *ctx, xpb_op op, const void *args, void **state, xpb_error *err);
void vkb_rowop_onchip_release(void *ctx, void *state);
xpb_status vkb_rowop_onchip_launch(void *ctx, xpb_op op, const void *args, void *state, xpb_error *err);
/* What onchip runs these rows as ("chunk=... publish=tagged ..."; xpb_kernel.describe). */
void vkb_rowop_onchip_describe(void *ctx, xpb_op op, const void *args, char *buf, size_t n);
/* Fills b with a row op's bindings x, its n_params per-column inputs (w, b) and out, in the
 * shaders' binding order; returns how many (the caller appends its own after them). */
int vkb_rowop_bindings(const xpb_rowop_args *a, int n_params, vkb_binding *b);

/* Rows split into chunks of one workgroup each (variants l2 and onchip): CHUNK values, the
 * smallest power of two from 128 up to `cap` that covers a row, `values` per invocation (BLOCK =
 * CHUNK / values invocations, 32..1024, VPT vec4 each), NSG subgroup slots for the reductions. */
typedef struct vkb_row_chunks {
    uint32_t chunk, block, vpt, nsg;
    uint64_t chunks; /* per row */
} vkb_row_chunks;
#define VKB_ROW_MIN_CHUNK 128   /* 32 invocations x 1 vec4   */
#define VKB_ROW_MAX_CHUNK 16384 /* 1024 invocations x 4 vec4 */
vkb_row_chunks vkb_row_chunking(const vkb_ctx *c, uint64_t cols, uint32_t cap, uint32_t values);
/* vkb_row_chunking with the cap and the values from the knobs chunk_knob (a power of two from
 * VKB_ROW_MIN_CHUNK to VKB_ROW_MAX_CHUNK; default chunk, or the declared one when chunk is 0)
 * and values_knob (its declared default): a power-of-two knob, or with op ("softmax") a per-op
 * one ("N or OP:N[,OP:N...]", xpb_knob_get_long_for_op); a knob set to anything else is
 * XPB_ERR_USAGE naming it (xpb_knob.h, docs/knobs.md). */
xpb_status vkb_row_chunking_env(const vkb_ctx *c, uint64_t cols, xpb_knob_id chunk_knob, uint32_t chunk,
                                xpb_knob_id values_knob, const char *op, vkb_row_chunks *out, xpb_error *err);
/* Softmax's exp in every row variant (specialization constant EXP_BUILTIN of rowop.glsl), from
 * XPB_VULKAN_ROW_EXP: unset or "builtin", 1 (GLSL's exp, within the 3 + 2|x| ulp that
 * docs/validation.md budgets; faster on the H100, docs/performance.md session 15); "poly", 0
 * (xpb_exp_neg, about 1 ulp). Any other value is a usage error. */
xpb_status vkb_row_exp(uint32_t *builtin, xpb_error *err);

/* Defines `const xpb_kernel xpb_vulkan_<name>_<vname>` (variant "<vname>") for a row-op variant whose functions
 * fn_supports, fn_prepare, fn_launch take the op's descriptor `opdesc` first, and fn_release. */
#define VKB_ROW_VARIANT_KERNEL(name, vname, OP, opdesc, fn)                                    \
    static xpb_status name##_supports(void *ctx, const void *args, xpb_error *why)             \
    {                                                                                           \
        return fn##_supports(ctx, &opdesc, args, why);                                          \
    }                                                                                           \
    static xpb_status name##_prepare(void *ctx, const void *args, void **state, xpb_error *err) \
    {                                                                                           \
        return fn##_prepare(ctx, &opdesc, args, state, err);                                    \
    }                                                                                           \
    static xpb_status name##_launch(void *ctx, const void *args, void *state, xpb_error *err)  \
    {                                                                                           \
        return fn##_launch(ctx, &opdesc, args, state, err);                                     \
    }                                                                                           \
    static void name##_describe(void *ctx, const void *args, void *state, char *buf, size_t n) \
    {                                                                                           \
        fn##_describe(ctx, &opdesc, args, state, buf, n);                                       \
    }                                                                                           \
    const xpb_kernel xpb_vulkan_##name##_##vname = {                                            \
        .op = OP,                                                                               \
        .variant = #vname,                                                                      \
        .precision = "fp32",                                                                    \
        .supports = name##_supports,                                                            \
        .prepare = name##_prepare,                                                              \
        .release = fn##_release,                                                                \
        .launch = name##_launch,                                                                \
        .describe = name##_describe,                                                            \
    }

/* ---- a user's SPIR-V kernel (vk_spirv.c; docs/plugins.md "Vulkan: SPIR-V kernels") ------------ */

/* The backend's spirv_supports and spirv_launch (xpb_backend.h). */
xpb_status vkb_spirv_supports(void *ctx, const xpb_spirv_kernel *k, const void *args, xpb_error *why);
xpb_status vkb_spirv_launch(void *ctx, const xpb_spirv_kernel *k, const void *args, xpb_error *err);

/* ---- the register-blocked tile of vulkan/tiled and anneal assign (tile_cfg.c) ---------------- */

/* BM x BN of the output per workgroup of (BM/TM) * (BN/TN) invocations, each a TM x TN block, K in
 * slices of BK; pad: floats after each k-row of tiled's transposed A tile (0 for anneal assign). */
typedef struct vkb_tile {
    uint32_t bm, bn, bk, tm, tn;
    uint32_t pad;
} vkb_tile;

/* Invocations of a workgroup: (BM/TM) * (BN/TN). */
uint32_t vkb_tile_threads(const vkb_tile *t);
/* *t from a knob's value "BMxBNxBK/TMxTN" (pad 0); XPB_ERR_USAGE "<knob>=<value>: expected ..."
 * when it does not parse. */
xpb_status vkb_tile_parse(const char *knob, const char *value, vkb_tile *t, xpb_error *err);
/* NULL when the device can run t, whose two shared-memory stages take shared_bytes; else the rule
 * it breaks. bm_per_invocation: the shader has one invocation write each row of the tile, so BM
 * may not exceed the invocations (anneal assign). */
const char *vkb_tile_problem(const vkb_ctx *c, const vkb_tile *t, bool bm_per_invocation, uint64_t shared_bytes);

/* ---- gemm / gemv (gemm_args.c; kernels tiled.c, coopmat.c, gemv.c) ------------------------------ */

/* Sizes and bindings of a gemm or gemv case: XPB_ERR_USAGE for negative sizes, XPB_ERR_UNSUPPORTED
 * for k = 0 or a matrix larger than maxStorageBufferRange. Reads no buffer (supports() calls it). */
xpb_status vkb_gemm_check(vkb_ctx *c, const xpb_gemm_args *a, xpb_error *why);
/* Bindings 0..3: A (m x k), B (k x n), c_in (c itself when beta == 0: never read), c (m x n).
 * XPB_ERR_USAGE when beta != 0 and c_in has no buffer. */
xpb_status vkb_gemm_bindings(const xpb_gemm_args *a, vkb_binding out[4], xpb_error *err);

/* ---- annealing compression (anneal_init.c, anneal_assign.c, anneal_stats.c, anneal_update.c,
 * anneal_changes.c) ------------------------------------------------------------------------------ */

/* Workgroup size of the anneal shaders (fewer where the device allows fewer invocations). */
#define VKB_ANNEAL_BLOCK 256

/* The sizes every anneal op takes (xpb_ops.h): 1 <= n < 2^31, 1 <= d <= 4096, 1 <= m <= n.
 * XPB_ERR_USAGE otherwise, naming the op. */
static inline xpb_status vkb_anneal_check_sizes(const char *op, int64_t n, int64_t d, int64_t m,
                                                xpb_error *why)
{
    if (n < 1 || n >= ((int64_t)1 << 31) || d < 1 || d > 4096 || m < 1 || m > n)
        return xpb_fail(why, XPB_ERR_USAGE,
                        "anneal %s: sizes n=%lld d=%lld m=%lld outside 1 <= n < 2^31, 1 <= d <= 4096, "
                        "1 <= m <= n", op, (long long)n, (long long)d, (long long)m);
    return XPB_OK;
}

/* Lanes that sum one row's d products together (a power of two, 1..32): about 4 units (vec4 when
 * d % 4 == 0, else floats) per lane. Fixed by d, so a distance's summation order is too. Each
 * group of lanes takes VKB_ANNEAL_ROWS_PER_LANES rows per pass (the shaders' Q). */
#define VKB_ANNEAL_ROWS_PER_LANES 4
static inline uint32_t vkb_anneal_row_lanes(int64_t d)
{
    int64_t units = d % 4 == 0 ? d / 4 : d, want = (units + 3) / 4;
    uint32_t l = 1;
    while (l < 32 && (int64_t)l < want)
        l *= 2;
    return l;
}

#endif
