/* xpb_knob.c - knobs from the environment: unset means the default, invalid is an error. */
#include "xpb_knob.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

xpb_status xpb_knob_long(const char *name, long lo, long hi, bool pow2, long def, long *out, xpb_error *err)
{
    const char *v = getenv(name);
    *out = def;
    if (!v || !*v)
        return XPB_OK;
    char *end = NULL;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (end == v || *end != '\0' || errno == ERANGE || n < lo || n > hi || (pow2 && (n <= 0 || (n & (n - 1)))))
        return xpb_fail(err, XPB_ERR_USAGE, "%s='%s': expected an integer in [%ld, %ld]%s", name, v, lo, hi,
                        pow2 ? ", a power of two" : "");
    *out = n;
    return XPB_OK;
}

xpb_status xpb_knob_double(const char *name, double lo, double hi, double def, double *out, xpb_error *err)
{
    const char *v = getenv(name);
    *out = def;
    if (!v || !*v)
        return XPB_OK;
    char *end = NULL;
    double x = strtod(v, &end);
    if (end == v || *end != '\0' || !(x > lo && x < hi))
        return xpb_fail(err, XPB_ERR_USAGE, "%s='%s': expected a number above %g and below %g", name, v, lo, hi);
    *out = x;
    return XPB_OK;
}

xpb_status xpb_knob_choice(const char *name, const char *const *choices, int n, int def, int *out, xpb_error *err)
{
    const char *v = getenv(name);
    *out = def;
    if (!v || !*v)
        return XPB_OK;
    char list[256] = "";
    for (int i = 0; i < n; i++) {
        if (strcmp(v, choices[i]) == 0) {
            *out = i;
            return XPB_OK;
        }
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", i ? " or " : "", choices[i]);
    }
    return xpb_fail(err, XPB_ERR_USAGE, "%s='%s': expected %s", name, v, list);
}
