/* xpb_conditions.c - the clocks and throttle reasons around a case's timed rounds (xpb_backend.h
 * xpb_conditions; xpb_result.conditions), so that compare can say why two runs differ. */
#include <stdio.h>
#include <string.h>

#include "xpb_runner_internal.h"

const char *xpb_reasons_text(unsigned long long reasons, char *buf, size_t n)
{
    static const struct {
        unsigned long long bit;
        const char *name;
    } names[] = {{XPB_REASON_SW_POWER_CAP, "sw_power_cap"}, {XPB_REASON_HW_SLOWDOWN, "hw_slowdown"},
                 {XPB_REASON_SW_THERMAL, "sw_thermal"},     {XPB_REASON_HW_THERMAL, "hw_thermal"},
                 {XPB_REASON_HW_POWER_BRAKE, "hw_power_brake"}};
    size_t len = 0;
    if (n)
        buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if ((reasons & names[i].bit) && len < n) {
            int w = snprintf(buf + len, n - len, "%s%s", len ? "," : "", names[i].name);
            len += w > 0 ? (size_t)w : 0;
        }
    return buf;
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
    r->has_conditions = true;
    r->reasons_seen |= now.reasons & XPB_REASONS_THROTTLE;
}
