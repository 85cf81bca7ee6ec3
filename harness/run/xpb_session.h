/* xpb_session.h - what the runner lends a stateful workload for one run on one device.
 *
 * A stateful workload (annealing, burst propagation) drives a loop of several backend ops with
 * host logic between them (xpb_workload_i.run). The runner still owns everything a one-shot
 * kernel gets from it, through this session:
 *   - buffers: every allocation is surrounded by guard regions and poisoned (xpb_validate.h);
 *     xpb_session_guard_violations() checks all of them after a validated run;
 *   - launches: xpb_session_launch(op, args) runs the kernel the runner chose for that op on
 *     this device (the case's variant for its own op, the first registered kernel for the
 *     others) and, when op timing is on, brackets it with the device timer and adds its time
 *     to the op's total;
 *   - transfers: uploads and downloads are timed (host clock, blocking) and counted apart, so a
 *     result says how much of a run was the bus;
 *   - kept buffers (XPB_STATEFUL_INPUTS=kept): the timed and breakdown runs of a case may share
 *     their buffers, and then an input the run only reads is uploaded by the first run alone
 *     (xpb_session_upload_input). The validated run always starts from fresh, poisoned buffers.
 * The workload never sees a backend's headers; it calls only these functions. */
#ifndef XPB_SESSION_H
#define XPB_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xpb_backend.h"

#define XPB_SESSION_MAX_BUFFERS 32

typedef struct xpb_device xpb_device;

/* The buffers a case's unvalidated runs pass on to each other, in the order the runs allocate
 * them, with the host array each last received an input from. A run that asks for the same sizes
 * in the same order gets the same buffers; one that asks for another size from some point on
 * gets fresh buffers from there (correct, only slower). Owned by the runner. */
typedef struct xpb_session_kept {
    xpb_buffer *buf;
    size_t bytes;
    const void *src; /* the input's host array (NULL: no input, or written since) */
    size_t offset, src_bytes;
} xpb_session_kept;
typedef struct xpb_session_keep {
    int n, next; /* buffers kept; the one the running run's next allocation takes */
    xpb_session_kept e[XPB_SESSION_MAX_BUFFERS];
} xpb_session_keep;

typedef struct xpb_session {
    xpb_device *dev;
    int ranks;                              /* a device group's ranks; 0 on one device    */
    const xpb_kernel *kernel[XPB_OP_COUNT]; /* the kernel used for each op (NULL: none) */
    bool time_ops;                          /* device timer around every launch          */
    bool validating;                        /* this run checks its ops (workload's choice) */
    xpb_session_keep *keep;                 /* buffers shared with the case's other runs, or NULL */
    /* accumulated over the run */
    double op_seconds[XPB_OP_COUNT];
    int64_t op_launches[XPB_OP_COUNT];
    double h2d_s, d2h_s;
    uint64_t h2d_bytes, d2h_bytes;
    uint64_t inputs_kept_bytes; /* input uploads skipped: the kept buffer held them already */
    int n_buffers;
    struct {
        xpb_buffer *buf;
        size_t bytes; /* usable bytes, guards not included */
        bool kept;    /* s->keep's: not freed with the run */
    } buffers[XPB_SESSION_MAX_BUFFERS];
} xpb_session;

/* A guarded, poisoned buffer of `bytes` usable bytes; *view points past the front guard. */
xpb_status xpb_session_alloc(xpb_session *s, size_t bytes, xpb_view *view, xpb_error *err);
/* Frees the buffer of view (allocated by xpb_session_alloc) and clears view; a kept buffer stays
 * with s->keep. */
void xpb_session_free(xpb_session *s, xpb_view *view);
/* Frees every buffer still allocated but the kept ones. */
void xpb_session_free_all(xpb_session *s);
/* Frees the kept buffers and empties k (the runner, once the case's runs are done). */
void xpb_session_keep_release(xpb_device *dev, xpb_session_keep *k);

/* Blocking, timed copies between host memory and [view.offset + offset, + bytes). */
xpb_status xpb_session_upload(xpb_session *s, xpb_view view, size_t offset, const void *src, size_t bytes,
                              xpb_error *err);
xpb_status xpb_session_download(xpb_session *s, xpb_view view, size_t offset, void *dst, size_t bytes,
                                xpb_error *err);
/* xpb_session_upload of an input the run only reads (no op writes that buffer): skipped, and its
 * bytes counted in inputs_kept_bytes, when the buffer is kept and last received these bytes from
 * the same host array (which the case data keeps unchanged for the case). */
xpb_status xpb_session_upload_input(xpb_session *s, xpb_view view, size_t offset, const void *src, size_t bytes,
                                    xpb_error *err);

/* Checks that a kernel exists for op (XPB_ERR_UNSUPPORTED naming it otherwise) and that it
 * supports args (its supports()); call before the first launch of each op. */
xpb_status xpb_session_supports(xpb_session *s, xpb_op op, const void *args, xpb_error *err);
/* Enqueues op's kernel (does not wait unless op timing is on). */
xpb_status xpb_session_launch(xpb_session *s, xpb_op op, const void *args, xpb_error *err);
/* Waits for everything enqueued. */
xpb_status xpb_session_sync(xpb_session *s, xpb_error *err);

/* Guard bytes changed in any live buffer (reads every guard back). */
xpb_status xpb_session_guard_violations(xpb_session *s, uint64_t *bad, xpb_error *err);

#endif
