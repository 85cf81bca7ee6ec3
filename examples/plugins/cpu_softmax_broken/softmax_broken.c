/* softmax_broken.c - broken twins of the example softmax (examples/plugins/cpu_softmax), shipped
 * to show crash isolation (docs/plugins.md, "Isolation"), not to use:
 *
 *   cpu/example-crash  right at every size but one: at 257 rows it writes through a NULL row
 *                      pointer, and the process gets SIGSEGV.
 *   cpu/example-hang   right at every size but one: at 257 rows it waits for ever, as a kernel
 *                      stuck on a lock or a flag that never comes.
 *
 * Without isolation either one ends the whole run at its first 257-row case; isolated (the
 * default for plugins), that case is an `error` saying "killed by SIGSEGV", or with
 * --case-timeout S "timed out after S s", and every other case runs as usual. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stddef.h>
#include <time.h>

#include <xpubench/xpubench_plugin.h>

#define BAD_ROWS 257

/* One pass over the row for its maximum and the sum of e^(x - max), rescaling the sum whenever
 * the maximum grows (the "online" softmax), then one pass to scale. */
static void softmax_row(const float *x, float *out, int64_t cols)
{
    float m = -INFINITY;
    double sum = 0.0;
    for (int64_t i = 0; i < cols; i++) {
        if (x[i] > m) {
            sum *= exp((double)m - (double)x[i]);
            m = x[i];
        }
        sum += exp((double)x[i] - (double)m);
    }
    for (int64_t i = 0; i < cols; i++)
        out[i] = (float)(exp((double)x[i] - (double)m) / sum);
}

static int crash_launch(const xpb_plugin_context *ctx, const void *args, void *state, xpb_plugin_error *err)
{
    (void)ctx, (void)state, (void)err;
    const xpb_plugin_rowop_args *a = args;
    for (int64_t r = 0; r < a->rows; r++) {
        /* the bug: a row table that "cannot" be needed at this size */
        float *volatile row = a->rows == BAD_ROWS && r == a->rows - 1 ? NULL : a->out + r * a->cols;
        softmax_row(a->x + r * a->cols, row, a->cols);
    }
    return XPB_PLUGIN_OK;
}

static int hang_launch(const xpb_plugin_context *ctx, const void *args, void *state, xpb_plugin_error *err)
{
    (void)ctx, (void)state, (void)err;
    const xpb_plugin_rowop_args *a = args;
    while (a->rows == BAD_ROWS) { /* the bug: waits for a flag nobody sets */
        struct timespec t = {1, 0};
        nanosleep(&t, NULL);
    }
    for (int64_t r = 0; r < a->rows; r++)
        softmax_row(a->x + r * a->cols, a->out + r * a->cols, a->cols);
    return XPB_PLUGIN_OK;
}

static const xpb_plugin_kernel crash = {.op = XPB_PLUGIN_OP_SOFTMAX, .variant = "example-crash",
                                        .precision = "fp32", .launch = crash_launch};
static const xpb_plugin_kernel hang = {.op = XPB_PLUGIN_OP_SOFTMAX, .variant = "example-hang",
                                       .precision = "fp32", .launch = hang_launch};

static const xpb_plugin_kernel *const cpu_kernels[] = {&crash, &hang, NULL};

int xpubench_plugin_entry(int abi_version, xpb_plugin_info *out)
{
    if (abi_version == XPB_PLUGIN_ABI_VERSION)
        *out = (xpb_plugin_info){.version = "example-cpu-softmax-broken 1.0", .cpu_kernels = cpu_kernels};
    return XPB_PLUGIN_ABI_VERSION;
}
