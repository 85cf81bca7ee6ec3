/* xpb_names.c - see xpb_names.h. */
#include "xpb_names.h"

#include <stdio.h>

const char *xpb_case_status_name(xpb_case_status s)
{
    switch (s) {
    case XPB_CASE_OK: return "ok";
    case XPB_CASE_FAILED_VALIDATION: return "failed-validation";
    case XPB_CASE_UNSUPPORTED: return "unsupported";
    case XPB_CASE_ERROR: return "error";
    case XPB_CASE_SKIPPED: return "skipped";
    }
    return "?";
}

const char *xpb_link_name(xpb_link l)
{
    static const char *const names[] = {"unknown", "self", "nvlink", "pcie-switch", "pcie-hostbridge",
                                        "pcie-numa-node", "pcie-system", "network"};
    return (unsigned)l < sizeof names / sizeof names[0] ? names[l] : "unknown";
}

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
