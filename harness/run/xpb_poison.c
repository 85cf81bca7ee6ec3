/* xpb_poison.c - a device buffer filled with the poison pattern (xpb_poison.h). */
#include "xpb_poison.h"

#include <stdlib.h>

#include "xpb_validate.h"

/* Without a device fill, poison is uploaded piece by piece from one block of at most this many
 * bytes: a host array of the output's size, made and filled for every case, cost its page faults
 * and fill each time (4 GiB at the 1 GiB all_gather on 4 GPUs: 4.4 s on a 2-core VM). A block
 * this size is filled in milliseconds and stays in the host's cache; the upload still copies the
 * whole buffer (to every rank of a device group: docs/multi-gpu.md, "Where a sweep's time goes"),
 * which the device's fill (xpb_backend_i.buffer_fill) does not. */
#define POISON_BLOCK ((size_t)16 << 20)

xpb_status xpb_poison_buffer(xpb_device *dev, xpb_buffer *buf, size_t bytes, xpb_error *err)
{
    const xpb_backend_i *b = dev->backend;
    if (b->buffer_fill && bytes % 4 == 0)
        return b->buffer_fill(dev->ctx, buf, 0, bytes, XPB_POISON_BITS, err);
    size_t block = bytes < POISON_BLOCK ? bytes : POISON_BLOCK;
    void *p = malloc(block ? block : 1);
    if (!p)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory (%zu bytes) for poison", block);
    xpb_poison_fill(p, block); /* whole words from the block's start: every piece starts on one */
    xpb_status st = XPB_OK;
    for (size_t at = 0; at < bytes && !st; at += block)
        st = b->buffer_upload(dev->ctx, buf, at, p, bytes - at < block ? bytes - at : block, err);
    free(p);
    return st;
}
