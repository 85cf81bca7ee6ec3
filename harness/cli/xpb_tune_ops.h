/* xpb_tune_ops.h - which cases a tune candidate is timed on (docs/tuning.md, "Per-op values"): a
 * knob applies to the ops of its XPB_KNOB_TUNE row, and a value made only of OP:VALUE items with
 * OP among those ops ("softmax:256x32x4,layernorm:128x64x4") changes the named ops alone, so its
 * runs need only their cases; the cases as the regex `xpubench run --filter` takes. */
#ifndef XPB_TUNE_OPS_H
#define XPB_TUNE_OPS_H

#include <stdbool.h>
#include <stddef.h>

/* Whether op is one of ops ("softmax|rmsnorm|layernorm"); ops NULL or "": every op. */
bool xpb_tune_op_listed(const char *ops, const char *op);

/* The ops of knob_ops ("softmax|rmsnorm|layernorm") that a value names, when every ','-separated
 * item of the value is OP:... with OP one of knob_ops: written to out as "softmax|layernorm" (in
 * knob_ops' order), returning how many. Returns 0 with out "" for any other value (it applies to
 * every op of the knob), and 0 too when out is too small to hold them. */
int xpb_tune_value_ops(const char *knob_ops, const char *value, char *out, size_t n);

/* The ids of the cases of preset whose op is one of ops and that the regex filter (NULL: all)
 * keeps, as the regex ^(id|id|...)$ into dst; returns how many (0: none, or an unknown preset or
 * a bad filter), or -1 when dst is too small. */
int xpb_tune_case_filter(const char *preset, const char *filter, const char *ops, char *dst, size_t n);

#endif
