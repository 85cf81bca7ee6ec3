/* xpb_names.h - a case's status, and the stable names that the results files, progress and
 * compare write for the harness's enums (docs/results-schema.md). Any part of the harness may
 * include it: writing a name needs no runner. */
#ifndef XPB_NAMES_H
#define XPB_NAMES_H

#include <stddef.h>

#include "xpb_backend.h" /* xpb_link, XPB_REASON_* */

typedef enum xpb_case_status {
    XPB_CASE_OK,
    XPB_CASE_FAILED_VALIDATION,
    XPB_CASE_UNSUPPORTED,
    XPB_CASE_ERROR,
    XPB_CASE_SKIPPED,
} xpb_case_status;

const char *xpb_case_status_name(xpb_case_status s); /* "ok", "failed-validation", ... */

const char *xpb_link_name(xpb_link l); /* "nvlink", "pcie-switch", ... (docs/results-schema.md) */

/* "sw_power_cap,hw_thermal" for the throttle bits of `reasons` into buf ("" when none). */
const char *xpb_reasons_text(unsigned long long reasons, char *buf, size_t n);

#endif
