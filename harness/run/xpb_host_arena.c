/* xpb_host_arena.c - the host copy of a case's output, kept from case to case.
 *
 * Why: a fresh malloc of a large output is pages the kernel has never mapped, and the first write
 * to each page faults it in; a download into such memory runs at the page-fault rate, not at the
 * copy's (1.1 GB/s against several GB/s on the 2-core development VM; the validation downloads
 * were 143 s of the collectives' 553-s full preset on 4 GPUs, docs/multi-gpu.md). A run's cases
 * reuse one buffer instead, so a page is faulted in once a run, and the pages a case adds are
 * faulted in by every core at once before the download writes them. */
#include "xpb_host_arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PAGE 4096u

void *xpb_host_arena_get(xpb_host_arena *a, size_t bytes)
{
    if (bytes == 0)
        bytes = 1;
    if (bytes > a->bytes) {
        /* realloc: a large block grows by remapping, keeping the pages already faulted in */
        void *p = realloc(a->p, bytes);
        if (!p)
            return NULL;
        a->p = p;
        a->bytes = bytes;
    }
    if (bytes > a->touched) { /* one byte a page, the pages split over the threads */
        unsigned char *base = a->p;
        const size_t first = a->touched / PAGE, pages = (bytes + PAGE - 1) / PAGE;
#pragma omp parallel for schedule(static) if (pages - first > 4096)
        for (size_t i = first; i < pages; i++)
            base[i * PAGE] = 0;
        a->touched = bytes;
    }
    return a->p;
}

void xpb_host_arena_free(xpb_host_arena *a)
{
    free(a->p);
    memset(a, 0, sizeof *a);
}
