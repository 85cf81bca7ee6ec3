/* xpb_runner_record.c - what both runners (xpb_runner.c, xpb_runner_stateful.c) record into a
 * result (xpb_runner_internal.h): a failed step's outcome, a closed round of samples, and the
 * clocks and throttle reasons around a case's timed rounds (xpb_backend.h xpb_conditions;
 * xpb_result.conditions), so that compare can say why two runs differ. */
#include <stdio.h>

#include "xpb_runner_internal.h"

void xpb_runner_set_outcome(xpb_result *r, xpb_device *dev, xpb_status st, const xpb_error *err)
{
    if (st == XPB_ERR_UNSUPPORTED) {
        r->status = XPB_CASE_UNSUPPORTED;
    } else {
        r->status = XPB_CASE_ERROR;
        if (st == XPB_ERR_DEVICE_LOST) {
            dev->lost = true;
            snprintf(dev->lost_reason, sizeof dev->lost_reason, "%s", err->msg);
        }
    }
    snprintf(r->message, sizeof r->message, "%s", err->msg);
}

xpb_status xpb_runner_close_round(xpb_result *r, size_t from, xpb_error *err)
{
    size_t n = r->kernel_samples.n > from ? r->kernel_samples.n - from : 0;
    r->kernel = xpb_stats_compute(r->kernel_samples.v, r->kernel_samples.n);
    if (n && xpb_samples_push(&r->units, xpb_stats_compute(r->kernel_samples.v + from, n).median))
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of memory for samples");
    return XPB_OK;
}

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
    if (now.sm_mhz > 0 && (!r->has_conditions || r->sm_low_mhz <= 0 || now.sm_mhz < r->sm_low_mhz))
        r->sm_low_mhz = now.sm_mhz;
    if (!before && now.sm_mhz > dev->sm_peak_mhz) /* the clock of a GPU just busy: the warm-up's aim */
        dev->sm_peak_mhz = now.sm_mhz;
    r->has_conditions = true;
    r->reasons_seen |= now.reasons & XPB_REASONS_THROTTLE;
}
