/* xpb_poison.h - filling a device buffer with the poison pattern (docs/validation.md, "Poison"),
 * for one-shot cases' outputs (xpb_runner.c) and a stateful run's buffers (xpb_session.c). */
#ifndef XPB_POISON_H
#define XPB_POISON_H

#include "xpb_result_record.h"

/* Sets every byte of [0, bytes) of buf to the poison pattern (XPB_POISON_BITS, word after word from
 * the buffer's start): written by the device where the backend fills buffers and bytes is whole
 * words, else uploaded from the host. */
xpb_status xpb_poison_buffer(xpb_device *dev, xpb_buffer *buf, size_t bytes, xpb_error *err);

#endif
