/* size_keys.c - xpb_size_key_in (size_keys.h). */
#include "size_keys.h"

#include <string.h>

bool xpb_size_key_in(const char *k, const char *const *keys, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(k, keys[i]) == 0)
            return true;
    return false;
}
