/* xpb_host_arena.h - one host buffer a run reuses for every case's downloaded output (guards
 * included), grown when a case needs more, freed when the run ends. */
#ifndef XPB_HOST_ARENA_H
#define XPB_HOST_ARENA_H

#include <stddef.h>

typedef struct xpb_host_arena {
    void *p;
    size_t bytes;   /* allocated */
    size_t touched; /* of them, faulted in already */
} xpb_host_arena;

/* At least `bytes` of host memory (NULL when out of memory; the arena is then unchanged). Its
 * contents are whatever the last user left: the caller overwrites what it reads. */
void *xpb_host_arena_get(xpb_host_arena *a, size_t bytes);
void xpb_host_arena_free(xpb_host_arena *a);

#endif
