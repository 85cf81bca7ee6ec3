/* nccl_log.h - the transports NCCL reports it connected a process's ranks with, read from its own
 * log: NCCL has no API for its choice, but at NCCL_DEBUG=INFO (subsystem INIT) it logs one line a
 * connection ("Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read"). Plain C, no NCCL header, so a
 * unit test parses logs without a GPU (tests/unit/test_nccl_log.c). */
#ifndef XPB_NCCL_LOG_H
#define XPB_NCCL_LOG_H

#include <stddef.h>
#include <stdio.h>

#include "xpb_status.h"

/* Before this process's first NCCL call: where the user has set none of NCCL_DEBUG,
 * NCCL_DEBUG_SUBSYS and NCCL_DEBUG_FILE, asks NCCL to log its INIT subsystem at INFO into a
 * temporary file (${TMPDIR:-/tmp}/xpubench-nccl-<pid>.log, removed at exit). INIT logs at
 * initialisation and connection only, never a line a collective, so timed samples are untouched.
 * Once a process; later calls do nothing. */
void xpb_nccl_log_arm(void);

/* The connections in NCCL's log so far, tallied by transport (the first two fields after "via":
 * "P2P/CUMEM 48, NET/Socket 12"), most first, into out. XPB_ERR_UNAVAILABLE with the reason in why
 * when the log was not armed (the user's NCCL_DEBUG*) or holds no connection yet. */
xpb_status xpb_nccl_log_transports(char *out, size_t n, xpb_error *why);

/* The tally of one log (the parser of xpb_nccl_log_transports): returns the connection lines
 * read; out is "" when none. */
int xpb_nccl_log_tally(FILE *log, char *out, size_t n);

#endif
