/* size_keys.h - the check every workload's knows_size_key makes against its list of --size keys
 * (size_keys.c). */
#ifndef XPB_SIZE_KEYS_H
#define XPB_SIZE_KEYS_H

#include <stdbool.h>
#include <stddef.h>

/* True when k is one of keys[0 .. n). */
bool xpb_size_key_in(const char *k, const char *const *keys, size_t n);

#endif
