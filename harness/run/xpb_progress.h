/* xpb_progress.h - progress on stderr: one redrawn line on a terminal, one line per result in
 * a log; either way how far the run is (cases done of total), how long it has run, about how
 * long is left, and in a log a status line at least every XPB_PROGRESS_HEARTBEAT_S, also while
 * one case runs long (the watcher thread calls xpb_progress_heartbeat; a mutex keeps the lines whole). */
#ifndef XPB_PROGRESS_H
#define XPB_PROGRESS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "xpb_result_record.h"

#define XPB_PROGRESS_HEARTBEAT_S 30.0

typedef struct xpb_progress {
    pthread_mutex_t mu;
    size_t total, index;
    /* The estimate's units of work: each case's first round (validation and timing) and each
     * later timing round count one; units_done of units_total are behind. */
    size_t units_total, units_done;
    int round, rounds;  /* the round running now, of how many */
    double t0, case_t0, last_status; /* last_status: the last heartbeat line (a log's) */
    bool tty;
    bool quiet; /* prints nothing: an MPI rank other than 0 (rank 0 speaks for the run) */
    const xpb_case *current;
    char where[96]; /* "vulkan:0 vulkan/tiled": the variant running now */
} xpb_progress;

/* rounds: the timing rounds of each case (1 when validating only). */
void xpb_progress_begin(xpb_progress *p, size_t total, int rounds, bool tty, bool quiet);
void xpb_progress_start_case(xpb_progress *p, size_t index, const xpb_case *c);
/* Case c's variant starts on a device (round >= 1): what the heartbeat names. */
void xpb_progress_start_variant(xpb_progress *p, const xpb_case *c, const char *device, const char *variant,
                                int round);
/* One unit of work is done (a case's first round, or one later round of a case). */
void xpb_progress_unit(xpb_progress *p);
void xpb_progress_case(xpb_progress *p, const xpb_result *r);
/* In a log, a status line (cases done, elapsed, the estimate, what runs and for how long) every
 * XPB_PROGRESS_HEARTBEAT_S; a terminal's one line is redrawn instead. Safe from another thread. */
void xpb_progress_heartbeat(xpb_progress *p);
void xpb_progress_end(xpb_progress *p);
/* "1h02m", "12m05s", "41s" into buf. */
void xpb_progress_duration(char *buf, size_t n, double seconds);

#endif
