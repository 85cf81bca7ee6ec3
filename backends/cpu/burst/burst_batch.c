/* burst_batch.c - burst batch on the CPU (xpb_ops.h): `count` bursts back to back, each
 * propagate, dynamics, compact, with no return to the caller in between. */
#include "cpu_burst.h"

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)ctx, (void)state;
    const xpb_burst_args *a = args;
    xpb_cpu_burst k;
    if (a->bursts < 1)
        return xpb_fail(err, XPB_ERR_USAGE, "cpu: burst batch of %u bursts", a->bursts);
    xpb_status st = xpb_cpu_burst_resolve(a, a->bursts, &k, err);
    for (uint32_t b = a->burst; !st && b < a->burst + a->bursts; b++) {
        xpb_cpu_burst_propagate(&k, b);
        xpb_cpu_burst_dynamics(&k, a, b);
        xpb_cpu_burst_compact(&k, b);
    }
    return st;
}

const xpb_kernel xpb_cpu_burst_batch_kernel = {
    .op = XPB_OP_BURST_BATCH,
    .variant = "default",
    .precision = "exact",
    .launch = launch,
};
