/* xpb_survey.c - which backends are compiled in and usable, with the reason when not. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_cli.h"

int xpb_backends_survey(xpb_backend_status out[XPB_MAX_BACKENDS])
{
    for (int i = 0; i < XPB_MAX_BACKENDS; i++) {
        const char *name = xpb_backend_known_name(i);
        xpb_backend_status *s = &out[i];
        memset(s, 0, sizeof *s);
        s->name = name;
        const xpb_backend_i *b = xpb_backend_find(name);
        if (!b) {
            snprintf(s->reason, sizeof s->reason, "%s", xpb_backend_missing_reason(name));
            continue;
        }
        s->compiled = true;
        xpb_error why = {{0}};
        if (!b->probe(&why)) {
            snprintf(s->reason, sizeof s->reason, "%s", why.msg[0] ? why.msg : "probe failed");
        } else if (b->device_count() < 1) {
            snprintf(s->reason, sizeof s->reason, "no %s device found", name);
        } else {
            s->available = true;
        }
    }
    return XPB_MAX_BACKENDS;
}

int xpb_cli_error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("xpubench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

int xpb_cli_parse_double(const char *flag, const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= lo && v <= hi))
        return xpb_cli_error(XPB_EXIT_USAGE, "bad %s '%s' (expected %g..%g)", flag, s, lo, hi);
    *out = v;
    return XPB_EXIT_OK;
}
