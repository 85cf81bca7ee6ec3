/* softmax.c - an example xpubench plugin: softmax for the cpu backend, twice.
 *
 *   cpu/example        a plain, correct softmax: every case of xpubench's checker passes.
 *   cpu/example-nomax  the classic bug, e^x / sum e^x without subtracting the row's maximum:
 *                      right for small inputs, inf/inf = NaN once x passes 88, so the checker's
 *                      `large` input class rejects it. Shipped to show a rejection, not to use.
 *
 * It includes only <xpubench/xpubench_plugin.h> and links nothing of xpubench (docs/plugins.md). */
#include <math.h>
#include <stdio.h>

#include <xpubench/xpubench_plugin.h>

/* Rows longer than this are declined in supports(), to show how a kernel says what it cannot
 * run: the case is reported `unsupported` with this reason, never skipped in silence. */
#define EXAMPLE_MAX_COLS (1 << 24)

static int example_supports(const xpb_plugin_context *ctx, const void *args, xpb_plugin_error *why)
{
    (void)ctx;
    const xpb_plugin_rowop_args *a = args; /* pointers are NULL here: decide on the sizes */
    if (a->cols > EXAMPLE_MAX_COLS) {
        snprintf(why->msg, sizeof why->msg, "example: rows of more than %d floats are not handled",
                 EXAMPLE_MAX_COLS);
        return XPB_PLUGIN_UNSUPPORTED;
    }
    return XPB_PLUGIN_OK;
}

static void softmax_row(const float *x, float *out, int64_t cols, int subtract_max)
{
    float m = -INFINITY;
    for (int64_t i = 0; subtract_max && i < cols; i++)
        m = x[i] > m ? x[i] : m;
    if (!subtract_max)
        m = 0.0f;
    double sum = 0.0; /* in double: the sum of many small terms keeps its accuracy */
    for (int64_t i = 0; i < cols; i++) {
        out[i] = expf(x[i] - m);
        sum += out[i];
    }
    float r = (float)(1.0 / sum);
    for (int64_t i = 0; i < cols; i++)
        out[i] *= r;
}

static int softmax_rows(const xpb_plugin_context *ctx, const xpb_plugin_rowop_args *a, int subtract_max)
{
    /* ctx->threads: the team xpubench's own CPU kernels use, so both compete on equal terms */
#pragma omp parallel for num_threads(ctx->threads) schedule(static) if (a->rows * a->cols >= 32768)
    for (int64_t r = 0; r < a->rows; r++)
        softmax_row(a->x + r * a->cols, a->out + r * a->cols, a->cols, subtract_max);
    return XPB_PLUGIN_OK;
}

static int example_launch(const xpb_plugin_context *ctx, const void *args, void *state, xpb_plugin_error *err)
{
    (void)state;
    (void)err;
    return softmax_rows(ctx, args, 1);
}

static int nomax_launch(const xpb_plugin_context *ctx, const void *args, void *state, xpb_plugin_error *err)
{
    (void)state;
    (void)err;
    return softmax_rows(ctx, args, 0);
}

static const xpb_plugin_kernel example = {
    .op = XPB_PLUGIN_OP_SOFTMAX,
    .variant = "example",
    .precision = "fp32",
    .supports = example_supports,
    .launch = example_launch,
};

static const xpb_plugin_kernel example_nomax = {
    .op = XPB_PLUGIN_OP_SOFTMAX,
    .variant = "example-nomax",
    .precision = "fp32",
    .launch = nomax_launch,
};

static const xpb_plugin_kernel *const cpu_kernels[] = {&example, &example_nomax, NULL};

int xpubench_plugin_entry(int abi_version, xpb_plugin_info *out)
{
    if (abi_version == XPB_PLUGIN_ABI_VERSION) /* another version's struct is not ours to fill */
        *out = (xpb_plugin_info){.version = "example-cpu-softmax 1.0", .cpu_kernels = cpu_kernels};
    return XPB_PLUGIN_ABI_VERSION;
}
