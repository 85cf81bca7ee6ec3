/* xpb_conditions.c - the clocks and throttle reasons around a case's timed rounds (xpb_backend.h
 * xpb_conditions; xpb_result.conditions), so that compare can say why two runs differ. */
#include "xpb_runner_internal.h"

void xpb_runner_read_conditions(xpb_device *dev, xpb_result *r, bool before)
{
    xpb_conditions now;
    xpb_error ignored;
    if (!dev->backend->conditions || dev->backend->conditions(dev->ctx, &now, &ignored) != XPB_OK)
        return; /* not recorded: no NVML, or a backend without clocks to read */
    if (before && !r->has_conditions)
        r->cond_before = now;
    if (!before)
        r->cond_after = now;
    r->has_conditions = true;
    r->reasons_seen |= now.reasons & XPB_REASONS_THROTTLE;
}
