/* add_toy.c - a toy second CPU variant of add (out = x + y), one plain loop and no OpenMP.
 *
 * Not part of the build: tests/recipes.sh copies it to backends/cpu/elementwise/ of a scratch copy
 * of the tree, following README.md's "Adding a kernel variant", and checks that the variant is
 * listed, validated and timed there. */
#include "cpu_internal.h"

static xpb_status add_toy_launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)ctx;
    (void)state;
    xpb_cpu_eltwise_view v;
    xpb_status st = xpb_cpu_eltwise_resolve(args, true, &v, err);
    for (int64_t i = 0; st == XPB_OK && i < v.n; i++)
        v.out[i] = v.y[i] + v.x[i];
    return st;
}

const xpb_kernel xpb_cpu_add_toy = {
    .op = XPB_OP_ADD,
    .variant = "toy",
    .precision = "fp32",
    .launch = add_toy_launch,
};
