/* rowop_onchip.c - variant onchip of the row ops softmax, rmsnorm, layernorm
 * (shaders/rows/rowop_onchip.glsl).
 *
 * Why: the default variant (rowop.c) reads a row longer than one chunk twice (f32 layernorm:
 * three times), from DRAM when the row is 1 MiB; `l2` (rowop_l2.c) reads each chunk twice too,
 * the second time from L2 in a later dispatch. Here each row is read once and written once, the
 * copy's traffic: one workgroup per chunk keeps its chunk in registers while the chunks' partial
 * statistics meet in a small buffer inside ONE dispatch.
 *
 * Protocol (the shader's header has it in full): workgroup g owns task g = (row, chunk) in
 * row-major order. Each publishes its chunk's partials and increments arrive[row]; the last to
 * arrive (the completer) writes its chunk and, chunk by chunk, either claims the others (their
 * owners write them) or finds them handed over and writes them itself, re-reading them. The
 * owners poll arrive[row] until every chunk has arrived, at most SPIN times, then hand over with a
 * compare-and-swap on their state[chunk]. No workgroup waits unboundedly, so the dispatch cannot
 * deadlock even where workgroups run one at a time (lavapipe). Every writer of a row merges the partials in one fixed
 * order: bit-identical statistics. Layernorm sums d = x - x0 and d^2 in fp64 around the row's
 * first value, as variant f64stats, in one exchange round; it needs shaderFloat64 and reports
 * unsupported without it. Softmax merges (max, sum of exp(x - max)), rmsnorm the sums of x^2, as
 * `l2` does; docs/validation.md's bounds hold unchanged.
 *
 * How a partial travels (XPB_VULKAN_ROW_ONCHIP_PUBLISH): `tagged` (auto's choice where the device
 * has shaderInt64 and shaderBufferInt64Atomics; the *_onchip_tagged shaders) stores each 32-bit
 * word of it in a 64-bit slot with the launch's epoch, relaxed, and the readers take only words of
 * this launch's epoch, so the add that signals it need not wait for the store (H200, 1024 x
 * 262144: docs/performance.md); `release` (auto's choice elsewhere) stores it plainly and signals
 * with a release add. The shader's header has both in full. A device without the 64-bit atomics
 * asked for `tagged` is an error naming what it lacks.
 *
 * Recording (into the one timed command buffer): a vkCmdFillBuffer zeroes the flags (arrive,
 * state: rows x (chunks + 1) words), a barrier, the dispatch. Rows of one chunk skip the
 * exchange, and then the fill. The tagged slots are zeroed by prepare() (untimed) and again only
 * when the epoch wraps, after 2^32 - 1 launches (XPB_VULKAN_ROW_ONCHIP_EPOCH=4294967295, a test,
 * makes the first launch wrap).
 *
 * Sizes: CHUNK is a power of two from 128 to XPB_VULKAN_ROW_ONCHIP_CHUNK (default 8192 values,
 * 32 KiB; softmax and rmsnorm 16384: oc_op says why), the smallest that covers a row; 32 values
 * per invocation (XPB_VULKAN_ROW_ONCHIP_VALUES, one value or one an op: BLOCK = CHUNK / values,
 * 32..1024 invocations, VPT vec4 each): 512 x 8 vec4 at 16384, 256 x 8 vec4 at 8192. Owners
 * poll arrive[row] XPB_VULKAN_ROW_ONCHIP_SPIN times (default 4096; 0: every owner hands over at
 * once, the completer writes the row). XPB_VULKAN_ROW_ONCHIP_POLL=state, a test, polls the own
 * state word instead (the shader's oc_wait says why). The partials (rows x chunks x 8 bytes, fp64
 * layernorm 16; tagged: 8 bytes a 32-bit word, softmax 16, rmsnorm 8, layernorm 32) and the flags
 * are allocated by prepare(), untimed: 256 KiB (layernorm 512) and 132 KiB at 1024 x 262144.
 * The grid is capped at maxComputeWorkGroupCount[0] and the shader loops over the rest of the
 * tasks. */
#include "vk_ops.h"
#include "xpb_knob.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OC_CHUNK 8192      /* default (largest) chunk, values: 32 KiB            */
/* values an invocation (default 32, 8 vec4: oc_op says why) and polls of arrive[row] before handing
 * over (default 4096): XPB_VULKAN_ROW_ONCHIP_VALUES and _SPIN, docs/knobs.md */

static const uint32_t softmax_onchip_spv[] = {
#include "softmax_onchip.spv.inc"
};
static const uint32_t rmsnorm_onchip_spv[] = {
#include "rmsnorm_onchip.spv.inc"
};
static const uint32_t layernorm_onchip_spv[] = {
#include "layernorm_onchip.spv.inc"
};

/* Push constants of rowop_onchip.glsl: rowop.glsl's three, then ROW_PUSH_EXTRA's. */
typedef struct oc_push {
    uint32_t rows, cols;
    float eps;
    uint32_t chunks, spin, poll_state;
    uint32_t epoch; /* tagged: this launch's tag on the partials' words */
} oc_push;

static const uint32_t softmax_onchip_tagged_spv[] = {
#include "softmax_onchip_tagged.spv.inc"
};
static const uint32_t rmsnorm_onchip_tagged_spv[] = {
#include "rmsnorm_onchip_tagged.spv.inc"
};
static const uint32_t layernorm_onchip_tagged_spv[] = {
#include "layernorm_onchip_tagged.spv.inc"
};
/* softmax with one exp a value (XPB_VULKAN_ROW_ONCHIP_EXPS=once), in both forms of the partials */
static const uint32_t softmax_onchip_once_spv[] = {
#include "softmax_onchip_once.spv.inc"
};
static const uint32_t softmax_onchip_tagged_once_spv[] = {
#include "softmax_onchip_tagged_once.spv.inc"
};
static const vkb_shader softmax_once_sh[2] = {
    VKB_SHADER("softmax_onchip_once", softmax_onchip_once_spv, 4, sizeof(oc_push)),
    VKB_SHADER("softmax_onchip_tagged_once", softmax_onchip_tagged_once_spv, 4, sizeof(oc_push))};

/* One op: its shaders (bindings x, its n_params per-column inputs, out, partials, flags; sh_tagged
 * with the tagged slots; once: the pair with one exp a value, softmax's), whether its partials
 * are fp64 (dvec2; the device needs shaderFloat64) and how many 32-bit words a partial is in the
 * tagged slots. */
typedef struct oc_op {
    const char *name; /* "softmax": its item in per-op knobs (XPB_VULKAN_ROW_ONCHIP_VALUES) */
    vkb_shader sh, sh_tagged;
    const vkb_shader *once; /* [0] release form, [1] tagged; NULL: the op has no such form */
    int n_params;
    bool f64;
    uint32_t words;
    uint32_t chunk; /* default largest chunk, values (H100, 1024 x 262144, docs/performance.md
                     * session 15): at 32 values an invocation, softmax 16384 83% of the copy
                     * roof, rmsnorm 16384 92%, layernorm 8192 84% (65% at 16384); at 16 values
                     * an invocation they reached 74% (8192, GLSL's exp), 93% (16384) and 79%
                     * (8192); at 8 and chunks of 4096, 51-69% */
} oc_op;

#define OC_SHADERS(op, n_bindings)                                                   \
    #op, VKB_SHADER(#op "_onchip", op##_onchip_spv, n_bindings, sizeof(oc_push)), \
        VKB_SHADER(#op "_onchip_tagged", op##_onchip_tagged_spv, n_bindings, sizeof(oc_push))
static const oc_op op_softmax = {OC_SHADERS(softmax, 4), softmax_once_sh, 0, false, 2, 2 * OC_CHUNK};
static const oc_op op_rmsnorm = {OC_SHADERS(rmsnorm, 5), NULL, 1, false, 1, 2 * OC_CHUNK};
static const oc_op op_layernorm = {OC_SHADERS(layernorm, 6), NULL, 2, true, 4, OC_CHUNK};

typedef struct oc_config {
    uint32_t block, vpt, chunk, nsg;
    uint32_t spin; /* polls of arrive[row] before an owner hands over */
    bool tagged;   /* the partials in epoch-tagged slots (XPB_VULKAN_ROW_ONCHIP_PUBLISH) */
    bool once;     /* softmax with one exp a value (XPB_VULKAN_ROW_ONCHIP_EXPS) */
    uint64_t chunks;
    uint64_t part_bytes;  /* rows x chunks x (vec2 or dvec2; tagged: words x uint64) */
    uint64_t flags_bytes; /* rows x (chunks + 1) x uint32           */
} oc_config;


/* XPB_VULKAN_ROW_ONCHIP_POLL=state (a test): owners poll their own state word instead of
 * arrive[row] (the default, "arrive"), so one that runs beside its completer sees the completer's
 * claim and takes the failed-swap path (rowop_onchip.glsl, oc_wait). *state: 1 for state. */
static xpb_status poll_state(uint32_t *state, xpb_error *err)
{
    int i; /* the index among "arrive|state" */
    xpb_status st = xpb_knob_get_choice(XPB_KNOB_VULKAN_ROW_ONCHIP_POLL, &i, err);
    *state = (uint32_t)i;
    return st;
}

/* XPB_VULKAN_ROW_ONCHIP_PUBLISH: *tagged where it says tagged, or auto on a device with 64-bit
 * buffer atomics; tagged asked of a device without them is XPB_ERR_UNSUPPORTED naming why. */
static xpb_status publish_tagged(const vkb_ctx *c, bool *tagged, xpb_error *err)
{
    int i; /* the index among "auto|tagged|release" */
    xpb_status st = xpb_knob_get_choice(XPB_KNOB_VULKAN_ROW_ONCHIP_PUBLISH, &i, err);
    *tagged = !st && i != 2 && c->caps.int64_atomics;
    if (!st && i == 1 && !c->caps.int64_atomics)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED,
                        "XPB_VULKAN_ROW_ONCHIP_PUBLISH=tagged: the device has no shaderInt64 and "
                        "shaderBufferInt64Atomics (64-bit buffer atomics)");
    return st;
}

/* XPB_VULKAN_ROW_ONCHIP_EXPS: *once where it says once and the op has that form (softmax; the
 * others have one form); once on a device without shaderFloat64 is XPB_ERR_UNSUPPORTED. */
static xpb_status exps_once(const vkb_ctx *c, const oc_op *op, bool *once, xpb_error *err)
{
    int i; /* the index among "twice|once" */
    xpb_status st = xpb_knob_get_choice(XPB_KNOB_VULKAN_ROW_ONCHIP_EXPS, &i, err);
    *once = !st && i == 1 && op->once;
    if (*once && !c->caps.float64)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED,
                        "XPB_VULKAN_ROW_ONCHIP_EXPS=once: the device has no shaderFloat64 (softmax's "
                        "factor exp(m_chunk - max) / sum is computed in fp64)");
    return st;
}

/* The configuration for these rows, from the knobs XPB_VULKAN_ROW_ONCHIP_CHUNK, _VALUES, _SPIN
 * (polls of arrive[row] before an owner hands over, 0 allowed), _PUBLISH and _EXPS; a knob set
 * to an invalid value is XPB_ERR_USAGE. */
static xpb_status choose(const vkb_ctx *c, const oc_op *op, uint64_t rows, uint64_t cols, oc_config *out,
                         xpb_error *err)
{
    oc_config r = {0};
    vkb_row_chunks k;
    long spin;
    xpb_status st = vkb_row_chunking_env(c, cols, XPB_KNOB_VULKAN_ROW_ONCHIP_CHUNK, op->chunk,
                                         XPB_KNOB_VULKAN_ROW_ONCHIP_VALUES, op->name, &k, err);
    if (st || (st = xpb_knob_get_long(XPB_KNOB_VULKAN_ROW_ONCHIP_SPIN, &spin, err)) ||
        (st = publish_tagged(c, &r.tagged, err)) || (st = exps_once(c, op, &r.once, err)))
        return st;
    r.chunk = k.chunk, r.block = k.block, r.vpt = k.vpt, r.nsg = k.nsg, r.chunks = k.chunks;
    r.spin = (uint32_t)spin;
    r.part_bytes = rows * r.chunks *
                   (r.tagged ? op->words * sizeof(uint64_t) : op->f64 ? 2 * sizeof(double) : 2 * sizeof(float));
    r.flags_bytes = rows * (r.chunks + 1) * sizeof(uint32_t);
    *out = r;
    return XPB_OK;
}

static xpb_status oc_supports(void *ctx, const oc_op *op, const void *args, xpb_error *why)
{
    vkb_ctx *c = ctx;
    const xpb_rowop_args *a = args;
    if (op->f64 && !c->caps.float64)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED,
                        "the device has no shaderFloat64 (this variant's layernorm sums in fp64)");
    if (op->f64 && !c->caps.subgroup_shuffle)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED,
                        "the device has no subgroup shuffles in compute shaders (this variant's layernorm "
                        "reduces its fp64 sums with them)");
    xpb_status st = vkb_rowop_supports(ctx, args, op->n_params, why);
    if (st || a->rows == 0 || a->cols == 0)
        return st;
    oc_config r;
    if ((st = choose(c, op, (uint64_t)a->rows, (uint64_t)a->cols, &r, why)))
        return st;
    /* the flags' range bounds every index the shader forms (rows * chunks < 2^30) */
    if ((st = vkb_check_range(c, "the onchip partials buffer", r.part_bytes, why)))
        return st;
    return vkb_check_range(c, "the onchip flags buffer", r.flags_bytes, why);
}

/* State of prepare(): the partials and flags buffers for these args (NULL when rows or cols is 0);
 * tagged: the partials are tagged slots, epoch the last launch's tag (0: none yet). */
typedef struct oc_state {
    xpb_buffer *part, *flags;
    uint64_t part_bytes, flags_bytes;
    bool tagged;
    uint32_t epoch;
} oc_state;

static void oc_release(void *ctx, void *state)
{
    oc_state *s = state;
    if (!s)
        return;
    if (s->part)
        vkb_buffer_free(ctx, s->part);
    if (s->flags)
        vkb_buffer_free(ctx, s->flags);
    free(s);
}

static xpb_status oc_prepare(void *ctx, const oc_op *op, const void *args, void **state,
                             xpb_error *err)
{
    const xpb_rowop_args *a = args;
    *state = NULL;
    xpb_status st = oc_supports(ctx, op, args, err);
    if (st)
        return st;
    oc_state *s = calloc(1, sizeof *s);
    if (!s)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory for the onchip row-op state");
    if (a->rows > 0 && a->cols > 0) {
        oc_config r = {0};
        st = choose(ctx, op, (uint64_t)a->rows, (uint64_t)a->cols, &r, err);
        s->part_bytes = r.part_bytes;
        s->flags_bytes = r.flags_bytes;
        s->tagged = r.tagged;
        long epoch; /* XPB_VULKAN_ROW_ONCHIP_EPOCH: tests start near the wrap */
        if (!st && !(st = xpb_knob_get_long(XPB_KNOB_VULKAN_ROW_ONCHIP_EPOCH, &epoch, err)))
            s->epoch = (uint32_t)epoch;
        if (st || (st = vkb_buffer_alloc(ctx, (size_t)s->part_bytes, &s->part, err)) ||
            (st = vkb_buffer_alloc(ctx, (size_t)s->flags_bytes, &s->flags, err)) ||
            (r.tagged && (st = vkb_buffer_fill(ctx, s->part, 0, (size_t)s->part_bytes, 0, err)))) {
            oc_release(ctx, s);
            return st;
        }
    }
    *state = s;
    return XPB_OK;
}

/* Zeroes the flags before the dispatch (the barrier vkb_record puts between them orders it), and
 * the tagged slots too when the epoch has wrapped; then the launch's epoch is in s->epoch. */
static xpb_status oc_clear_flags(vkb_ctx *c, oc_state *s, const oc_config *r, xpb_error *err)
{
    xpb_status st = vkb_cmd_before(c, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, err);
    if (st)
        return st;
    vkCmdFillBuffer(c->cmd, s->flags->buf, 0, r->flags_bytes, 0);
    if (s->tagged && ++s->epoch == 0) { /* 2^32 launches: every slot zeroed, epochs from 1 again */
        vkCmdFillBuffer(c->cmd, s->part->buf, 0, r->part_bytes, 0);
        s->epoch = 1;
    }
    return XPB_OK;
}

static xpb_status oc_launch(void *ctx, const oc_op *op, const void *args, void *state,
                            xpb_error *err)
{
    vkb_ctx *c = ctx;
    const xpb_rowop_args *a = args;
    oc_state *s = state;
    xpb_status st = oc_supports(ctx, op, args, err);
    if (st)
        return st;
    if (a->rows == 0 || a->cols == 0)
        return vkb_ctx_status(c, err);
    oc_config r;
    if ((st = choose(c, op, (uint64_t)a->rows, (uint64_t)a->cols, &r, err)))
        return st;
    if (!s || !s->part || s->part_bytes < r.part_bytes || s->flags_bytes < r.flags_bytes ||
        s->tagged != r.tagged)
        return xpb_fail(err, XPB_ERR_USAGE, "vulkan/onchip: launch without prepare() for these arguments");

    vkb_binding b[6];
    int nb = vkb_rowop_bindings(a, op->n_params, b);
    b[nb++] = (vkb_binding){s->part, 0, r.part_bytes};
    b[nb++] = (vkb_binding){s->flags, 0, r.flags_bytes};

    uint32_t exp_builtin, by_state;
    if ((st = vkb_row_exp(&exp_builtin, err)) || (st = poll_state(&by_state, err)))
        return st;
    vkb_spec spec = {6, {r.block, r.vpt, a->cols % 4 == 0, 0, r.nsg, exp_builtin}};
    vkb_prepared p;
    const vkb_shader *sh = r.once ? &op->once[r.tagged] : r.tagged ? &op->sh_tagged : &op->sh;
    if ((st = vkb_prepare(c, sh, &spec, b, &p, err)))
        return st;
    if (r.chunks > 1 && (st = oc_clear_flags(c, s, &r, err)))
        return st;
    oc_push push = {(uint32_t)a->rows, (uint32_t)a->cols, a->eps, (uint32_t)r.chunks,
                    r.spin, by_state, s->epoch};
    st = vkb_record(c, &p, &push, vkb_group_count(c, (uint64_t)a->rows * r.chunks), err);
    return st ? st : vkb_ctx_status(c, err);
}

/* What these rows run as (xpb_kernel.describe): the partials' path and the exp form that the
 * device's features decided (auto), and the chunking; "" where the arguments are not runnable. */
static void oc_describe(void *ctx, const oc_op *op, const void *args, void *state, char *buf, size_t n)
{
    (void)state;
    const xpb_rowop_args *a = args;
    oc_config r;
    xpb_error err = {{0}};
    buf[0] = '\0';
    if (a->rows == 0 || a->cols == 0 || choose(ctx, op, (uint64_t)a->rows, (uint64_t)a->cols, &r, &err))
        return;
    snprintf(buf, n, "chunk=%u chunks=%llu invocations=%u values=%u%s%s", r.chunk, (unsigned long long)r.chunks,
             r.block, 4 * r.vpt, r.chunks > 1 ? (r.tagged ? " publish=tagged" : " publish=release") : "",
             op->once ? (r.once ? " exps=once" : " exps=twice") : "");
}

/* ---- the default variant's long rows (rowop.c) ------------------------------------------------- */

static const oc_op *oc_op_of(xpb_op op)
{
    return op == XPB_OP_SOFTMAX ? &op_softmax : op == XPB_OP_RMSNORM ? &op_rmsnorm : &op_layernorm;
}

bool vkb_rowop_onchip_runs(const vkb_ctx *c, xpb_op op)
{
    return !oc_op_of(op)->f64 || (c->caps.float64 && c->caps.subgroup_shuffle);
}

xpb_status vkb_rowop_onchip_prepare(void *ctx, xpb_op op, const void *args, void **state, xpb_error *err)
{
    return oc_prepare(ctx, oc_op_of(op), args, state, err);
}

void vkb_rowop_onchip_release(void *ctx, void *state)
{
    oc_release(ctx, state);
}

xpb_status vkb_rowop_onchip_launch(void *ctx, xpb_op op, const void *args, void *state, xpb_error *err)
{
    return oc_launch(ctx, oc_op_of(op), args, state, err);
}

void vkb_rowop_onchip_describe(void *ctx, xpb_op op, const void *args, char *buf, size_t n)
{
    oc_describe(ctx, oc_op_of(op), args, NULL, buf, n);
}

/* ---- the three kernels ------------------------------------------------------------------------ */

VKB_ROW_VARIANT_KERNEL(softmax, onchip, XPB_OP_SOFTMAX, op_softmax, oc);
VKB_ROW_VARIANT_KERNEL(rmsnorm, onchip, XPB_OP_RMSNORM, op_rmsnorm, oc);
VKB_ROW_VARIANT_KERNEL(layernorm, onchip, XPB_OP_LAYERNORM, op_layernorm, oc);
