/* xpb_op_item.c - the items of a per-op knob value (xpb_op_item.h). */
#include "xpb_op_item.h"

#include <string.h>

bool xpb_op_item_next(const char **pos, xpb_op_item *it)
{
    const char *s = *pos;
    if (!*s)
        return false;
    const size_t len = strcspn(s, ","), key = strcspn(s, ":,");
    it->op = s;
    it->op_len = key;
    it->val = key < len ? s + key + 1 : NULL;
    it->val_len = key < len ? len - key - 1 : 0;
    *pos = s + len + (s[len] == ',');
    return true;
}
