/* xpb_progress.h - progress on stderr: one redrawn line on a terminal, one line per result in
 * a log. */
#ifndef XPB_PROGRESS_H
#define XPB_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "xpb_result.h"

typedef struct xpb_progress {
    size_t total, index;
    double t0;
    bool tty;
    bool quiet; /* prints nothing: an MPI rank other than 0 (rank 0 speaks for the run) */
    const xpb_case *current;
} xpb_progress;

void xpb_progress_begin(xpb_progress *p, size_t total, bool tty, bool quiet);
void xpb_progress_start_case(xpb_progress *p, size_t index, const xpb_case *c);
void xpb_progress_case(xpb_progress *p, const xpb_result *r);
void xpb_progress_end(xpb_progress *p);

#endif
