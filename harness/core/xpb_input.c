/* xpb_input.c - input class names (xpb_input.h). */
#include "xpb_input.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "xpb_workload.h"

static const char *const names[XPB_INPUT_COUNT] = {
    [XPB_INPUT_RANDOM] = "random", [XPB_INPUT_EXACT] = "exact", [XPB_INPUT_LARGE] = "large",
    [XPB_INPUT_PEAK] = "peak",     [XPB_INPUT_TINY] = "tiny",   [XPB_INPUT_CONST] = "const",
    [XPB_INPUT_OFFSET] = "offset", [XPB_INPUT_LEAD] = "lead",
};

const char *xpb_input_name(xpb_input_class k)
{
    return (unsigned)k < XPB_INPUT_COUNT ? names[k] : "?";
}

xpb_input_class xpb_input_from_name(const char *name)
{
    for (int k = 0; k < XPB_INPUT_COUNT; k++)
        if (strcmp(names[k], name) == 0)
            return (xpb_input_class)k;
    return XPB_INPUT_COUNT;
}

int xpb_param_format(const xpb_param *p, char *buf, size_t n)
{
    if (strcmp(p->key, XPB_INPUT_KEY) == 0)
        return snprintf(buf, n, "%s=%s", p->key, xpb_input_name((xpb_input_class)p->value));
    return snprintf(buf, n, "%s=%" PRId64, p->key, p->value);
}
