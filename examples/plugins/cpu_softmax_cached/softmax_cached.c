/* softmax_cached.c - dishonest twins of the example softmax (examples/plugins/cpu_softmax), shipped
 * to show that a kernel cannot pass by doing less work when timed (docs/plugins.md, "Impossible to
 * game"; docs/validation.md, "After timing"), not to use:
 *
 *   cpu/example-cached  computes the softmax on its first call for an output buffer and keeps a
 *                       copy; every later call on that buffer (same address and sizes) copies
 *                       the kept output instead: a memcpy timed as a softmax. The validation
 *                       launch and the timed launches see the same inputs, so both are right;
 *                       the fresh-seed recheck (new inputs, same buffers) gets the old output.
 *   cpu/example-once    right on its first call for an output buffer, then writes 1/cols into
 *                       every element without reading the input (it sums to 1, like a softmax):
 *                       the validation launch passes, the timed launches' output does not.
 *
 * A buffer is told by its address: in a case's own process (the default for plugins) every call
 * on it is that case's. Run without isolation, a later case of the same size may get the same
 * address and fail already at its validation launch. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <xpubench/xpubench_plugin.h>

#define MAX_SEEN 64

typedef struct seen {
    const float *out;
    int64_t rows, cols;
    float *kept; /* example-cached: the output of the first call */
} seen;

static seen cached_seen[MAX_SEEN], once_seen[MAX_SEEN];

/* The entry of this output buffer in table t, or NULL when it is new (then *fresh is set to a free
 * entry, or NULL when the table is full). */
static seen *find(seen *t, const xpb_plugin_rowop_args *a, seen **fresh)
{
    *fresh = NULL;
    for (int i = 0; i < MAX_SEEN; i++) {
        if (t[i].out == a->out && t[i].rows == a->rows && t[i].cols == a->cols)
            return &t[i];
        if (!t[i].out && !*fresh)
            *fresh = &t[i];
    }
    return NULL;
}

static void softmax_row(const float *x, float *out, int64_t cols)
{
    float m = -INFINITY;
    for (int64_t i = 0; i < cols; i++)
        m = x[i] > m ? x[i] : m;
    double sum = 0.0;
    for (int64_t i = 0; i < cols; i++) {
        out[i] = expf(x[i] - m);
        sum += out[i];
    }
    float r = (float)(1.0 / sum);
    for (int64_t i = 0; i < cols; i++)
        out[i] *= r;
}

static void softmax(const xpb_plugin_rowop_args *a)
{
    for (int64_t r = 0; r < a->rows; r++)
        softmax_row(a->x + r * a->cols, a->out + r * a->cols, a->cols);
}

static int cached_launch(const xpb_plugin_context *ctx, const void *args, void *state, xpb_plugin_error *err)
{
    (void)ctx, (void)state, (void)err;
    const xpb_plugin_rowop_args *a = args;
    size_t bytes = (size_t)a->rows * (size_t)a->cols * sizeof(float);
    seen *fresh, *s = find(cached_seen, a, &fresh);
    if (s && s->kept) { /* the cheat: the first call's output again */
        memcpy(a->out, s->kept, bytes);
        return XPB_PLUGIN_OK;
    }
    softmax(a);
    if (fresh && (fresh->kept = malloc(bytes ? bytes : 1))) {
        memcpy(fresh->kept, a->out, bytes);
        *fresh = (seen){a->out, a->rows, a->cols, fresh->kept};
    }
    return XPB_PLUGIN_OK;
}

static int once_launch(const xpb_plugin_context *ctx, const void *args, void *state, xpb_plugin_error *err)
{
    (void)ctx, (void)state, (void)err;
    const xpb_plugin_rowop_args *a = args;
    seen *fresh, *s = find(once_seen, a, &fresh);
    if (!s) {
        softmax(a);
        if (fresh)
            *fresh = (seen){a->out, a->rows, a->cols, NULL};
        return XPB_PLUGIN_OK;
    }
    float u = 1.0f / (float)a->cols; /* the cheat: no work, a plausible-looking row */
    for (int64_t i = 0; i < a->rows * a->cols; i++)
        a->out[i] = u;
    return XPB_PLUGIN_OK;
}

static const xpb_plugin_kernel cached = {.op = XPB_PLUGIN_OP_SOFTMAX, .variant = "example-cached",
                                         .precision = "fp32", .launch = cached_launch};
static const xpb_plugin_kernel once = {.op = XPB_PLUGIN_OP_SOFTMAX, .variant = "example-once",
                                       .precision = "fp32", .launch = once_launch};

static const xpb_plugin_kernel *const cpu_kernels[] = {&cached, &once, NULL};

int xpubench_plugin_entry(int abi_version, xpb_plugin_info *out)
{
    if (abi_version == XPB_PLUGIN_ABI_VERSION)
        *out = (xpb_plugin_info){.version = "example-cpu-softmax-cached 1.0", .cpu_kernels = cpu_kernels};
    return XPB_PLUGIN_ABI_VERSION;
}
