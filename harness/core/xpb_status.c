/* xpb_status.c - see xpb_status.h. */
#include "xpb_status.h"

#include <stdarg.h>
#include <stdio.h>

xpb_status xpb_fail(xpb_error *err, xpb_status st, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return st;
}

const char *xpb_status_name(xpb_status st)
{
    switch (st) {
    case XPB_OK: return "ok";
    case XPB_ERR_UNSUPPORTED: return "unsupported";
    case XPB_ERR_UNAVAILABLE: return "unavailable";
    case XPB_ERR_OUT_OF_MEMORY: return "out-of-memory";
    case XPB_ERR_RUNTIME: return "runtime-error";
    case XPB_ERR_DEVICE_LOST: return "device-lost";
    case XPB_ERR_USAGE: return "usage-error";
    case XPB_ERR_IO: return "io-error";
    }
    return "unknown";
}
