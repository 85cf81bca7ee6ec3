/* dup_variant.c - a plugin whose cpu softmax takes the name of the built-in variant "default":
 * results could not tell the two apart, so xpubench must refuse it (exit 2). */
#include <xpubench/xpubench_plugin.h>

static int launch(const xpb_plugin_context *ctx, const void *args, void *state, xpb_plugin_error *err)
{
    (void)ctx, (void)args, (void)state, (void)err;
    return XPB_PLUGIN_RUNTIME;
}

static const xpb_plugin_kernel dup = {.op = XPB_PLUGIN_OP_SOFTMAX, .variant = "default", .precision = "fp32",
                                      .launch = launch};
static const xpb_plugin_kernel *const kernels[] = {&dup, 0};

int xpubench_plugin_entry(int abi_version, xpb_plugin_info *out)
{
    if (abi_version == XPB_PLUGIN_ABI_VERSION)
        *out = (xpb_plugin_info){.version = "dup 0", .cpu_kernels = kernels};
    return XPB_PLUGIN_ABI_VERSION;
}
