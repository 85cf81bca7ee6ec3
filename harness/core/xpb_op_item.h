/* xpb_op_item.h - the items of a per-op knob value ("softmax:64,layernorm:16",
 * "softmax:256x32x4"), split one at a time. Its own file (no other harness code) so that the
 * CUDA emulator tests (tests/cuda_emu) link the parser cuda/regs' plan uses. */
#ifndef XPB_OP_ITEM_H
#define XPB_OP_ITEM_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One item: the text before its first ':' (op, op_len; the whole item when it has none) and
 * after it (val, val_len; val NULL when the item has no ':'). */
typedef struct xpb_op_item {
    const char *op, *val;
    size_t op_len, val_len;
} xpb_op_item;

/* The ','-separated item at *pos into *it, *pos moved past it; false at the value's end. */
bool xpb_op_item_next(const char **pos, xpb_op_item *it);

#ifdef __cplusplus
}
#endif

#endif
