/* xpb_status.h - status codes and the error message carrier shared by every layer.
 *
 * Library code never exits: a failing call returns a status and fills an xpb_error with a
 * one-line message, so a failure becomes one case's `error` and the run goes on. */
#ifndef XPB_STATUS_H
#define XPB_STATUS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum xpb_status {
    XPB_OK = 0,
    XPB_ERR_UNSUPPORTED,   /* the backend/variant cannot run this case (a status, not a failure) */
    XPB_ERR_UNAVAILABLE,   /* backend or device missing (no driver, no GPU, ...)               */
    XPB_ERR_OUT_OF_MEMORY, /* host or device allocation failed                                 */
    XPB_ERR_RUNTIME,       /* a CUDA/Vulkan/system call failed                                 */
    XPB_ERR_DEVICE_LOST,   /* the device context is dead: later cases on it cannot run         */
    XPB_ERR_USAGE,         /* bad argument from the user (bad size, unknown name)              */
    XPB_ERR_IO,            /* file could not be read or written                                */
} xpb_status;

#define XPB_ERROR_MSG_LEN 512

typedef struct xpb_error {
    char msg[XPB_ERROR_MSG_LEN];
} xpb_error;

/* Formats a message into err (if non-NULL) and returns st, so callers can write
 *   return xpb_fail(err, XPB_ERR_RUNTIME, "vkCreateBuffer: %d", r);            */
xpb_status xpb_fail(xpb_error *err, xpb_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Short stable name of a status ("ok", "unsupported", ...). */
const char *xpb_status_name(xpb_status st);

#ifdef __cplusplus
}
#endif
#endif
