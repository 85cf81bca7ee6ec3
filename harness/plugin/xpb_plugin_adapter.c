/* xpb_plugin_adapter.c - a plugin kernel as an xpb_kernel: the harness's args (views into its
 * buffers) become the public args (plain pointers) through the backend's view_ptr, the backend's
 * queue becomes the plugin's context, and the plugin's statuses and messages become the case's.
 * A SPIR-V module's kernel takes the harness's args as they are: the backend binds the views
 * itself (spirv_supports, spirv_launch); it has no prepare or release.
 *
 * xpb_kernel's functions carry no pointer back to their kernel, so each slot gets entry points of
 * its own: XPB_PLUGIN_MAX_KERNELS small functions made by a macro, each passing its slot on. */
#include <omp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_plugin_internal.h"

/* The public args of any kind. */
typedef union plugin_args {
    xpb_plugin_eltwise_args e;
    xpb_plugin_rowop_args r;
    xpb_plugin_gemm_args g;
} plugin_args;

/* The harness's args of any kind: their size bounds what prepare keeps of them. */
typedef union harness_args {
    xpb_eltwise_args e;
    xpb_rowop_args r;
    xpb_gemm_args g;
} harness_args;

/* What prepare makes and launch uses: resolved once, so a timed launch costs the plugin's call
 * and a comparison of the harness's args (re-resolved only if they ever change). */
typedef struct plugin_state {
    unsigned char args[sizeof(harness_args)];
    plugin_args pa;
    xpb_plugin_context pc;
    void *state; /* the plugin's own */
} plugin_state;

bool xpb_plugin_op_is_rowop(xpb_plugin_op op)
{
    return op == XPB_PLUGIN_OP_SOFTMAX || op == XPB_PLUGIN_OP_RMSNORM || op == XPB_PLUGIN_OP_LAYERNORM;
}

static bool op_is_gemm(xpb_plugin_op op) { return op == XPB_PLUGIN_OP_GEMM || op == XPB_PLUGIN_OP_GEMV; }

/* The bytes of the harness's args up to their last field: the trailing padding (never written by
 * make_args) is left out of the comparison in adapt_launch. */
static size_t harness_args_size(const xpb_plugin_slot *s)
{
    if (op_is_gemm(s->pk->op))
        return offsetof(xpb_gemm_args, beta) + sizeof(float);
    return xpb_plugin_op_is_rowop(s->pk->op) ? offsetof(xpb_rowop_args, eps) + sizeof(float)
                                             : offsetof(xpb_eltwise_args, a) + sizeof(float);
}

/* View v of `floats` floats as the backend's pointer; NULL when v has no buffer (supports() runs
 * before buffers exist) or the op does not read it (!used). */
static xpb_status resolve(const xpb_plugin_slot *s, void *ctx, const char *what, const xpb_view *v,
                          int64_t floats, bool used, void **out, xpb_error *err)
{
    *out = NULL;
    if (!used || !v->buf || floats == 0)
        return XPB_OK;
    if (floats < 0 || (uint64_t)floats > SIZE_MAX / sizeof(float))
        return xpb_fail(err, XPB_ERR_USAGE, "plugin %s: %s: bad element count %lld", s->k.variant, what,
                        (long long)floats);
    *out = s->backend->view_ptr(ctx, v, (size_t)floats * sizeof(float));
    if (!*out)
        return xpb_fail(err, XPB_ERR_USAGE, "plugin %s: %s (%lld floats at byte offset %zu) overruns its buffer",
                        s->k.variant, what, (long long)floats, v->offset);
    return XPB_OK;
}

/* A GEMM's matrices: A m x k, B k x n, C (and c_in, read only when beta != 0) m x n. */
static xpb_status to_plugin_gemm_args(const xpb_plugin_slot *s, void *ctx, const xpb_gemm_args *a,
                                      xpb_plugin_gemm_args *g, xpb_error *err)
{
    void *pa, *pb, *pc_in, *pc;
    int64_t mk, kn, mn;
    if (a->m < 0 || a->n < 0 || a->k < 0 || __builtin_mul_overflow(a->m, a->k, &mk) ||
        __builtin_mul_overflow(a->k, a->n, &kn) || __builtin_mul_overflow(a->m, a->n, &mn))
        return xpb_fail(err, XPB_ERR_USAGE, "plugin %s: bad gemm shape m %lld n %lld k %lld", s->k.variant,
                        (long long)a->m, (long long)a->n, (long long)a->k);
    xpb_status st;
    if ((st = resolve(s, ctx, "a", &a->a, mk, true, &pa, err)) ||
        (st = resolve(s, ctx, "b", &a->b, kn, true, &pb, err)) ||
        (st = resolve(s, ctx, "c_in", &a->c_in, mn, a->beta != 0.0f, &pc_in, err)) ||
        (st = resolve(s, ctx, "c", &a->c, mn, true, &pc, err)))
        return st;
    *g = (xpb_plugin_gemm_args){.a = pa, .b = pb, .c_in = pc_in, .c = pc, .m = a->m, .n = a->n, .k = a->k,
                                .alpha = a->alpha, .beta = a->beta};
    return XPB_OK;
}

static xpb_status to_plugin_args(const xpb_plugin_slot *s, void *ctx, const void *args, plugin_args *pa,
                                 xpb_error *err)
{
    void *x, *y, *w, *b, *out;
    xpb_plugin_op op = s->pk->op;
    xpb_status st;
    if (op_is_gemm(op))
        return to_plugin_gemm_args(s, ctx, args, &pa->g, err);
    if (xpb_plugin_op_is_rowop(op)) {
        const xpb_rowop_args *a = args;
        int64_t n;
        if (a->rows < 0 || a->cols < 0 || __builtin_mul_overflow(a->rows, a->cols, &n))
            return xpb_fail(err, XPB_ERR_USAGE, "plugin %s: bad row-op shape %lld x %lld", s->k.variant,
                            (long long)a->rows, (long long)a->cols);
        bool uses_w = op != XPB_PLUGIN_OP_SOFTMAX, uses_b = op == XPB_PLUGIN_OP_LAYERNORM;
        if ((st = resolve(s, ctx, "x", &a->x, n, true, &x, err)) ||
            (st = resolve(s, ctx, "w", &a->w, a->cols, uses_w, &w, err)) ||
            (st = resolve(s, ctx, "b", &a->b, a->cols, uses_b, &b, err)) ||
            (st = resolve(s, ctx, "out", &a->out, n, true, &out, err)))
            return st;
        pa->r = (xpb_plugin_rowop_args){.x = x, .w = w, .b = b, .out = out, .rows = a->rows, .cols = a->cols,
                                        .eps = a->eps};
        return XPB_OK;
    }
    const xpb_eltwise_args *a = args;
    bool uses_y = op == XPB_PLUGIN_OP_ADD || op == XPB_PLUGIN_OP_MUL;
    if (a->n < 0)
        return xpb_fail(err, XPB_ERR_USAGE, "plugin %s: negative element count %lld", s->k.variant, (long long)a->n);
    if ((st = resolve(s, ctx, "x", &a->x, a->n, true, &x, err)) ||
        (st = resolve(s, ctx, "y", &a->y, a->n, uses_y, &y, err)) ||
        (st = resolve(s, ctx, "out", &a->out, a->n, true, &out, err)))
        return st;
    pa->e = (xpb_plugin_eltwise_args){.x = x, .y = y, .out = out, .n = a->n, .a = a->a};
    return XPB_OK;
}

static xpb_status make_context(const xpb_plugin_slot *s, void *ctx, xpb_plugin_context *pc, xpb_error *err)
{
    *pc = (xpb_plugin_context){.backend = s->kind};
    if (s->kind == XPB_PLUGIN_BACKEND_CPU) {
        pc->threads = omp_get_max_threads(); /* the team the CPU backend's own kernels get */
        return XPB_OK;
    }
    return s->backend->native_queue(ctx, &pc->stream, err);
}

/* A plugin's return value as the harness's status, its message prefixed with who said it. */
static xpb_status from_plugin(const xpb_plugin_slot *s, const char *fn, int rc, xpb_plugin_error *pe,
                              xpb_error *err)
{
    pe->msg[sizeof pe->msg - 1] = '\0';
    for (char *p = pe->msg; *p; p++) /* one line, whatever the plugin wrote */
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    const char *msg = pe->msg[0] ? pe->msg : "(no message)";
    switch (rc) {
    case XPB_PLUGIN_OK: return XPB_OK;
    case XPB_PLUGIN_UNSUPPORTED: return xpb_fail(err, XPB_ERR_UNSUPPORTED, "%s", msg);
    case XPB_PLUGIN_OUT_OF_MEMORY:
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "plugin %s: %s: %s", s->k.variant, fn, msg);
    case XPB_PLUGIN_DEVICE_LOST:
        return xpb_fail(err, XPB_ERR_DEVICE_LOST, "plugin %s: %s: %s", s->k.variant, fn, msg);
    case XPB_PLUGIN_RUNTIME: return xpb_fail(err, XPB_ERR_RUNTIME, "plugin %s: %s: %s", s->k.variant, fn, msg);
    default:
        return xpb_fail(err, XPB_ERR_RUNTIME, "plugin %s: %s returned %d, not an xpb_plugin_status: %s",
                        s->k.variant, fn, rc, msg);
    }
}

static xpb_status adapt_supports(const xpb_plugin_slot *s, void *ctx, const void *args, xpb_error *why)
{
    if (s->spirv)
        return s->backend->spirv_supports(ctx, s->spirv, args, why);
    plugin_args pa;
    xpb_plugin_context pc;
    xpb_plugin_error pe = {{0}};
    xpb_status st = to_plugin_args(s, ctx, args, &pa, why);
    if (!st && s->pk->supports && !(st = make_context(s, ctx, &pc, why)))
        st = from_plugin(s, "supports", s->pk->supports(&pc, &pa, &pe), &pe, why);
    return st;
}

static xpb_status adapt_prepare(const xpb_plugin_slot *s, void *ctx, const void *args, void **state,
                                xpb_error *err)
{
    if (s->spirv) {
        *state = NULL;
        return XPB_OK;
    }
    plugin_state *ps = calloc(1, sizeof *ps);
    if (!ps)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "plugin %s: out of host memory", s->k.variant);
    memcpy(ps->args, args, harness_args_size(s));
    xpb_plugin_error pe = {{0}};
    xpb_status st = to_plugin_args(s, ctx, args, &ps->pa, err);
    if (!st)
        st = make_context(s, ctx, &ps->pc, err);
    if (!st && s->pk->prepare)
        st = from_plugin(s, "prepare", s->pk->prepare(&ps->pc, &ps->pa, &ps->state, &pe), &pe, err);
    if (st) {
        free(ps);
        return st;
    }
    *state = ps;
    return XPB_OK;
}

static void adapt_release(const xpb_plugin_slot *s, void *ctx, void *state)
{
    (void)ctx;
    plugin_state *ps = state;
    if (ps && s->pk->release)
        s->pk->release(&ps->pc, ps->state);
    free(ps);
}

static xpb_status adapt_launch(const xpb_plugin_slot *s, void *ctx, const void *args, void *state, xpb_error *err)
{
    if (s->spirv)
        return s->backend->spirv_launch(ctx, s->spirv, args, err);
    plugin_state *ps = state;
    xpb_status st;
    if (memcmp(ps->args, args, harness_args_size(s)) != 0) { /* not the args prepare saw */
        if ((st = to_plugin_args(s, ctx, args, &ps->pa, err)))
            return st;
        memcpy(ps->args, args, harness_args_size(s));
    }
    xpb_plugin_error pe = {{0}};
    return from_plugin(s, "launch", s->pk->launch(&ps->pc, &ps->pa, ps->state, &pe), &pe, err);
}

/* Slot i's entry points. */
#define XPB_PLUGIN_ENTRY_POINTS(i)                                                                         \
    static xpb_status supports_##i(void *c, const void *a, xpb_error *e)                                   \
    {                                                                                                      \
        return adapt_supports(&xpb_plugin_slots[i], c, a, e);                                              \
    }                                                                                                      \
    static xpb_status prepare_##i(void *c, const void *a, void **st, xpb_error *e)                         \
    {                                                                                                      \
        return adapt_prepare(&xpb_plugin_slots[i], c, a, st, e);                                           \
    }                                                                                                      \
    static void release_##i(void *c, void *st) { adapt_release(&xpb_plugin_slots[i], c, st); }            \
    static xpb_status launch_##i(void *c, const void *a, void *st, xpb_error *e)                           \
    {                                                                                                      \
        return adapt_launch(&xpb_plugin_slots[i], c, a, st, e);                                            \
    }
#define XPB_PLUGIN_ENTRY_ROW(i) {.supports = supports_##i, .prepare = prepare_##i, .release = release_##i, \
                                 .launch = launch_##i},
#define XPB_PLUGIN_SLOTS(X)                                                                                \
    X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16) X(17)     \
    X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31)

XPB_PLUGIN_SLOTS(XPB_PLUGIN_ENTRY_POINTS)
static const xpb_kernel entry_points[] = {XPB_PLUGIN_SLOTS(XPB_PLUGIN_ENTRY_ROW)};
_Static_assert(sizeof entry_points / sizeof entry_points[0] == XPB_PLUGIN_MAX_KERNELS,
               "one set of entry points per slot");

void xpb_plugin_adapter_bind(int i)
{
    xpb_kernel *k = &xpb_plugin_slots[i].k;
    k->supports = entry_points[i].supports;
    k->prepare = entry_points[i].prepare;
    k->release = entry_points[i].release;
    k->launch = entry_points[i].launch;
}
