/* xpb_session.c - the runner's services to a stateful workload (xpb_session.h). */
#include "xpb_session.h"

#include <stdlib.h>
#include <string.h>

#include "xpb_clock.h"
#include "xpb_poison.h"
#include "xpb_result_record.h"
#include "xpb_validate.h"

#define G XPB_GUARD_BYTES

xpb_status xpb_session_alloc(xpb_session *s, size_t bytes, xpb_view *view, xpb_error *err)
{
    const xpb_backend_i *b = s->dev->backend;
    *view = (xpb_view){0};
    int slot = 0;
    while (slot < s->n_buffers && s->buffers[slot].buf)
        slot++;
    if (slot == XPB_SESSION_MAX_BUFFERS)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "a stateful run needs more than %d buffers",
                        XPB_SESSION_MAX_BUFFERS);
    bytes = (bytes + 3) / 4 * 4; /* poison and guards are whole words */
    size_t total = bytes + 2 * G;
    if (s->dev->info.max_buffer_bytes && total > s->dev->info.max_buffer_bytes)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED,
                        "needs a %.1f MiB buffer; this device binds at most %.1f MiB per buffer",
                        (double)total / 1048576.0, (double)s->dev->info.max_buffer_bytes / 1048576.0);
    xpb_buffer *buf = NULL;
    xpb_session_keep *k = s->validating ? NULL : s->keep;
    if (k && k->next < k->n && k->e[k->next].bytes == bytes) { /* the last run's buffer, as it left it */
        buf = k->e[k->next++].buf;
        s->buffers[slot].buf = buf, s->buffers[slot].bytes = bytes, s->buffers[slot].kept = true;
        if (slot == s->n_buffers)
            s->n_buffers++;
        *view = (xpb_view){buf, G};
        return XPB_OK;
    }
    if (k) { /* this run's buffers part from the last run's here: fresh ones from here on */
        for (int i = k->next; i < k->n; i++)
            b->buffer_free(s->dev->ctx, k->e[i].buf);
        k->n = k->next;
    }
    xpb_status st = b->buffer_alloc(s->dev->ctx, total, &buf, err);
    if (st)
        return st;
    /* Poison and guards serve the validated run, which reads them back. A timed or breakdown run
     * skips the fill: its uploads would double the set-up of every run (a burst run of 1M
     * neurons moves 130 MB of poison for a 0.5 ms run), and nothing reads them. */
    if (s->validating && (st = xpb_poison_buffer(s->dev, buf, total, err))) {
        b->buffer_free(s->dev->ctx, buf);
        return st;
    }
    s->buffers[slot].buf = buf;
    s->buffers[slot].bytes = bytes;
    if (k && k->n == XPB_SESSION_MAX_BUFFERS) /* a run that allocates this often keeps no more */
        k = NULL;
    s->buffers[slot].kept = k != NULL;
    if (k)
        k->e[k->n++] = (xpb_session_kept){buf, bytes, NULL, 0, 0}, k->next = k->n;
    if (slot == s->n_buffers)
        s->n_buffers++;
    *view = (xpb_view){buf, G};
    return XPB_OK;
}

void xpb_session_free(xpb_session *s, xpb_view *view)
{
    for (int i = 0; view->buf && i < s->n_buffers; i++)
        if (s->buffers[i].buf == view->buf) {
            if (!s->buffers[i].kept)
                s->dev->backend->buffer_free(s->dev->ctx, view->buf);
            s->buffers[i].buf = NULL;
        }
    *view = (xpb_view){0};
}

void xpb_session_free_all(xpb_session *s)
{
    for (int i = 0; i < s->n_buffers; i++)
        if (s->buffers[i].buf && !s->buffers[i].kept)
            s->dev->backend->buffer_free(s->dev->ctx, s->buffers[i].buf);
    s->n_buffers = 0;
}

void xpb_session_keep_release(xpb_device *dev, xpb_session_keep *k)
{
    for (int i = 0; k && i < k->n; i++)
        dev->backend->buffer_free(dev->ctx, k->e[i].buf);
    if (k)
        k->n = k->next = 0;
}

/* The kept entry of buf, or NULL. */
static xpb_session_kept *kept_entry(xpb_session *s, const xpb_buffer *buf)
{
    for (int i = 0; s->keep && !s->validating && i < s->keep->n; i++)
        if (s->keep->e[i].buf == buf)
            return &s->keep->e[i];
    return NULL;
}

xpb_status xpb_session_upload(xpb_session *s, xpb_view view, size_t offset, const void *src, size_t bytes,
                              xpb_error *err)
{
    if (bytes == 0)
        return XPB_OK;
    xpb_session_kept *e = kept_entry(s, view.buf);
    if (e) /* what it held from an input is overwritten */
        e->src = NULL;
    double t0 = xpb_clock_now();
    xpb_status st = s->dev->backend->buffer_upload(s->dev->ctx, view.buf, view.offset + offset, src, bytes, err);
    s->h2d_s += xpb_clock_now() - t0;
    s->h2d_bytes += bytes;
    return st;
}

xpb_status xpb_session_upload_input(xpb_session *s, xpb_view view, size_t offset, const void *src, size_t bytes,
                                    xpb_error *err)
{
    xpb_session_kept *e = kept_entry(s, view.buf);
    if (e && bytes && e->src == src && e->offset == offset && e->src_bytes == bytes) {
        s->inputs_kept_bytes += bytes;
        return XPB_OK;
    }
    xpb_status st = xpb_session_upload(s, view, offset, src, bytes, err);
    if (e && !st)
        e->src = src, e->offset = offset, e->src_bytes = bytes;
    return st;
}

xpb_status xpb_session_download(xpb_session *s, xpb_view view, size_t offset, void *dst, size_t bytes,
                                xpb_error *err)
{
    if (bytes == 0)
        return XPB_OK;
    double t0 = xpb_clock_now();
    xpb_status st = s->dev->backend->buffer_download(s->dev->ctx, view.buf, view.offset + offset, dst, bytes, err);
    s->d2h_s += xpb_clock_now() - t0;
    s->d2h_bytes += bytes;
    return st;
}

xpb_status xpb_session_supports(xpb_session *s, xpb_op op, const void *args, xpb_error *err)
{
    const xpb_kernel *k = op >= 0 && op < XPB_OP_COUNT ? s->kernel[op] : NULL;
    if (!k)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED, "the %s backend has no kernel for %s", s->dev->backend->name,
                        xpb_op_get(op) ? xpb_op_get(op)->name : "?");
    if (k->prepare) /* a loop launches with changing sizes: no per-args set-up */
        return xpb_fail(err, XPB_ERR_UNSUPPORTED, "%s/%s has a prepare step, which a stateful run cannot use",
                        s->dev->backend->name, k->variant);
    return k->supports ? k->supports(s->dev->ctx, args, err) : XPB_OK;
}

xpb_status xpb_session_launch(xpb_session *s, xpb_op op, const void *args, xpb_error *err)
{
    const xpb_kernel *k = op >= 0 && op < XPB_OP_COUNT ? s->kernel[op] : NULL;
    if (!k)
        return xpb_session_supports(s, op, args, err);
    const xpb_backend_i *b = s->dev->backend;
    xpb_status st = XPB_OK;
    double dt = 0;
    if (s->time_ops)
        st = b->timer_begin(s->dev->ctx, err);
    if (!st)
        st = k->launch(s->dev->ctx, args, NULL, err);
    if (!st && s->time_ops && !(st = b->timer_end(s->dev->ctx, &dt, err)))
        s->op_seconds[op] += dt;
    s->op_launches[op]++;
    return st;
}

xpb_status xpb_session_sync(xpb_session *s, xpb_error *err)
{
    return s->dev->backend->synchronize(s->dev->ctx, err);
}

xpb_status xpb_session_guard_violations(xpb_session *s, uint64_t *bad, xpb_error *err)
{
    *bad = 0;
    unsigned char guard[G];
    for (int i = 0; i < s->n_buffers; i++) {
        if (!s->buffers[i].buf)
            continue;
        size_t at[2] = {0, G + s->buffers[i].bytes};
        for (int e = 0; e < 2; e++) {
            xpb_status st = s->dev->backend->buffer_download(s->dev->ctx, s->buffers[i].buf, at[e], guard, G, err);
            if (st)
                return st;
            *bad += xpb_guard_violations(guard, G);
        }
    }
    return XPB_OK;
}
